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

const NO_POINT: u32 = 0xffffffffu;

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

fn dist(a: vec3<f32>, b: vec3<f32>) -> f32 {
    let d = a - b;
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
