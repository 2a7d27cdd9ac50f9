// What the query kernels share (their CPU twin: reference.rs's `Tree` walk): the buffers, the
// box distance and the depth-first walk's stack. One query an invocation (the baseline
// kernel), numbered over a 2-D grid of workgroups; with SORTED, invocation t takes query
// order[t] (the queries in Morton order, so that a subgroup's queries walk the same nodes).
#import spatial/codes

// x: queries, y: leaves L, z: points n, w: k.
@group(0) @binding(0) var<uniform> params: vec4<u32>;
// The points in leaf order (xyz, index bitcast in w) and the nodes' boxes (tree.rs).
@group(0) @binding(1) var<storage, read> sorted: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> boxes: array<vec4<f32>>;
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
// The points' Morton codes in leaf order (k-NN's starting window).
@group(0) @binding(11) var<storage, read> codes: array<u32>;
// DIAGNOSTICS: [0] lane-steps at work, [1] lane-steps of the subgroups that ran.
@group(0) @binding(12) var<storage, read_write> diag: array<atomic<u32>>;
// Radius search's write, a chunk of queries: [x, y) the queries, z their first offset, w where
// that offset falls in the indices' window (extract.wgsl).
@group(0) @binding(13) var<uniform> chunk: vec4<u32>;

const NO_POINT: u32 = 0xffffffffu;
// Deeper than any tree of 2^32 points in leaves of 4 (the walk pushes at most one node a
// level besides the one it descends to).
const STACK: u32 = 32u;

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

// Squared distance from p to node k's box (infinite for an empty box).
fn box_dist(p: vec3<f32>, k: u32) -> f32 {
    let lo = boxes[2u * k].xyz;
    let hi = boxes[2u * k + 1u].xyz;
    let d = max(max(lo - p, p - hi), vec3<f32>(0.0));
    return dot(d, d);
}

fn dist(a: vec3<f32>, b: vec3<f32>) -> f32 {
    let d = a - b;
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

// A leaf's points in leaf order: [first, end).
fn leaf_range(k: u32) -> vec2<u32> {
    let first = (k - params.y) * LEAF;
    return vec2<u32>(first, min(first + LEAF, params.z));
}

// p's Morton code within the tree's bounds (the build's).
fn morton_of(p: vec3<f32>) -> u32 {
    let lo = vec3<f32>(unordered(~bounds[0]), unordered(~bounds[1]), unordered(~bounds[2]));
    let hi = vec3<f32>(unordered(bounds[3]), unordered(bounds[4]), unordered(bounds[5]));
    return morton(p, lo, hi);
}

// The first position in leaf order whose code is not below `code` (a binary search).
fn lower_bound(code: u32) -> u32 {
    var lo = 0u;
    var hi = params.z;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (codes[mid] < code) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}
