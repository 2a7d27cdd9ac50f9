// What the query kernels share (their CPU twins: reference.rs's walks): the buffers; each
// tree's own binding 2 (its nodes) and walk are in walk_bvh, walk_kd and walk_octree, which
// the kernels import as `spatial/walk` (SpatialConfig::tree picks). One query an invocation (the baseline
// kernel), numbered over a 2-D grid of workgroups; with SORTED, invocation t takes query
// order[t] (the queries in Morton order, so that a subgroup's queries walk the same nodes).
#import spatial/codes

// x: queries, y: leaves L, z: points n, w: k.
@group(0) @binding(0) var<uniform> params: vec4<u32>;
// The points in the tree's order (xyz, index bitcast in w).
@group(0) @binding(1) var<storage, read> sorted: array<vec4<f32>>;
// The queries, three f32 each.
@group(0) @binding(3) var<storage, read> queries: array<f32>;
// The order the invocations take the queries in (keys.wgsl's codes, sorted).
@group(0) @binding(4) var<storage, read_write> order: array<u32>;
// k-NN: k indices and k squared distances a query.
@group(0) @binding(5) var<storage, read_write> out_index: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_dist: array<f32>;
// x: the squared radius (k-NN: the largest distance a neighbour may have; inf for none).
@group(0) @binding(7) var<uniform> radius: vec4<f32>;
// Radius search: the count a query (count pass), then the offsets (write pass).
@group(0) @binding(8) var<storage, read_write> counts: array<u32>;
// The tree's bounds (tree_common's encoding) and the queries' Morton codes (keys.wgsl).
@group(0) @binding(9) var<storage, read> bounds: array<u32>;
@group(0) @binding(10) var<storage, read_write> qkeys: array<u32>;
// The points' Morton codes in the tree's order: 30 bits a point (the BVH), 63 bits as two
// words (kd-tree, octree).
@group(0) @binding(11) var<storage, read> codes: array<u32>;
// DIAGNOSTICS: [0] lane-steps at work, [1] lane-steps of the subgroups that ran.
@group(0) @binding(12) var<storage, read_write> diag: array<atomic<u32>>;
// Radius search's write, a chunk of queries: [x, y) the queries, z their first offset, w where
// that offset falls in the indices' window (extract.wgsl).
@group(0) @binding(13) var<uniform> chunk: vec4<u32>;
// The walks' loop budget (ADR-0091): x, the loop iterations a subgroup may spend in one
// dispatch, net of what handing on its unfinished work costs (u32 max: no budget); y, 1 in
// the rest pass (the queries come from the rest list).
@group(0) @binding(14) var<uniform> walk_budget: vec4<u32>;
// [0] the queries finished (their results written), [1] the queries given up (a single walk
// past the budget: the call fails), [2] the rest list's length, [3] unused; from [4] the rest
// list: the queries a pool kernel handed on when its budget ran out (software adapters only;
// on a GPU the buffer is these four words).
@group(0) @binding(15) var<storage, read_write> status: array<atomic<u32>>;

// Results finished by this workgroup, added to status[0] once at its end.
var<workgroup> wg_finished: atomic<u32>;

const NO_POINT: u32 = 0xffffffffu;

// Call first, in workgroup-uniform control flow: clears the workgroup's finished count.
fn begin_counting(local: u32) {
    if (local == 0u) {
        atomicStore(&wg_finished, 0u);
    }
    workgroupBarrier();
}

// Call last, in workgroup-uniform control flow: this invocation finished `n` queries; one
// atomic a workgroup adds them to status[0], which the host checks against the queries.
fn end_counting(local: u32, n: u32) {
    if (n > 0u) {
        atomicAdd(&wg_finished, n);
    }
    workgroupBarrier();
    if (local == 0u) {
        let s = atomicLoad(&wg_finished);
        if (s > 0u) {
            atomicAdd(&status[0], s);
        }
    }
}

// A query whose walk cannot finish in this dispatch: into the rest list, for the rest pass.
fn hand_on(q: u32) {
    let at = atomicAdd(&status[2], 1u);
    atomicStore(&status[4u + at], q);
}

// A walk past the budget on its own (the rest pass, the baseline and radius kernels): its
// result is not written, and the host fails the call.
fn give_up() {
    atomicAdd(&status[1], 1u);
}

// Room for one more step of STEP_COST loop iterations under the budget.
fn within_budget(spent: u32, cost: u32) -> bool {
    return spent <= walk_budget.x - cost;
}

fn item(local: u32, wg: vec3<u32>, groups: vec3<u32>) -> u32 {
    return (wg.x + wg.y * groups.x) * WG_SIZE + local;
}

fn query(q: u32) -> vec3<f32> {
    return vec3<f32>(queries[3u * q], queries[3u * q + 1u], queries[3u * q + 2u]);
}

// The query an invocation takes.
fn query_of(t: u32) -> u32 {
    if (SORTED) {
        return order[t];
    }
    return t;
}

// Each axis's length in a periodic box (SciPy's boxsize), 0 for an open axis: the tree's
// (PointTree::boxsize), in the radius uniform beside the squared radius.
fn box_size() -> vec3<f32> {
    return radius.yzw;
}

fn periodic() -> bool {
    return any(box_size() > vec3<f32>(0.0));
}

// Squared distance; across a periodic axis the nearer image, min(|d|, L - |d|) (both points in
// [0, L)). CPU twin: reference::dist_in.
fn dist(a: vec3<f32>, b: vec3<f32>) -> f32 {
    var d = abs(a - b);
    if (periodic()) {
        let l = box_size();
        d = select(d, min(d, l - d), l > vec3<f32>(0.0));
    }
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

fn tree_lo() -> vec3<f32> {
    return vec3<f32>(unordered(~bounds[0]), unordered(~bounds[1]), unordered(~bounds[2]));
}

fn tree_hi() -> vec3<f32> {
    return vec3<f32>(unordered(bounds[3]), unordered(bounds[4]), unordered(bounds[5]));
}

// p's Morton code within the tree's bounds (the build's).
fn morton_of(p: vec3<f32>) -> u32 {
    return morton(p, tree_lo(), tree_hi());
}
