// The BVH's walk (tree.rs builds it), imported as `spatial/walk` by the query kernels, which
// define `walk_bound()` (the squared distance past which a node is skipped) and
// `offer(d, index)` (a point at squared distance d). `walk_seed` offers the K points before
// and the K after the query's place in Morton order (k-NN's first bound; the walk then skips
// them), `walk_begin` pushes the root, each `walk_step` pops one node: skipped when its box is
// farther than the bound, a leaf's points offered, an inner node's children pushed, the
// farther first. A step loops at most LEAF times (a leaf's points), a start at most 2K + 33
// (the seed and its binary search): STEP_COST and START_COST (ADR-0091). CPU twin:
// reference::Tree's walks.

// Node k's box at 2k (low) and 2k + 1 (high), root 1, children 2k and 2k + 1, leaf l at node
// L + l (tree.rs).
@group(0) @binding(2) var<storage, read> boxes: array<vec4<f32>>;

// Deeper than any tree of 2^32 points in leaves of 4 (a level pushes one node besides the one
// it descends to).
const STACK: u32 = 32u;

var<private> walk_p: vec3<f32>;
var<private> window: vec2<u32>;
var<private> stack_node: array<u32, STACK>;
var<private> stack_dist: array<f32, STACK>;
var<private> sp: u32;

// STEP_COST and START_COST are prepended by the host (query.rs: walk_costs, their one
// source, which also checks a budget against them).

fn walk_busy() -> bool {
    return sp > 0u;
}

// Squared distance from p to node k's box (infinite for an empty box); in a periodic box
// (common.wgsl's box_size), across each periodic axis the nearest of p and its images one box
// length either side (an open axis's length is 0: the same p three times).
fn box_dist(p: vec3<f32>, k: u32) -> f32 {
    let lo = boxes[2u * k].xyz;
    let hi = boxes[2u * k + 1u].xyz;
    var d = max(max(lo - p, p - hi), vec3<f32>(0.0));
    if (periodic()) {
        let l = box_size();
        let up = max(max(lo - (p + l), (p + l) - hi), vec3<f32>(0.0));
        let down = max(max(lo - (p - l), (p - l) - hi), vec3<f32>(0.0));
        d = min(d, min(up, down));
    }
    return dot(d, d);
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

fn walk_seed(p: vec3<f32>) {
    let at = lower_bound(morton_of(p));
    window = vec2<u32>(select(0u, at - K, at > K), min(at + K, params.z));
    for (var j = window.x; j < window.y; j++) {
        let s = sorted[j];
        offer(dist(p, s.xyz), bitcast<u32>(s.w));
    }
}

fn walk_begin(p: vec3<f32>) {
    walk_p = p;
    sp = 0u;
    if (params.z > 0u) {
        stack_node[0] = 1u;
        stack_dist[0] = box_dist(p, 1u);
        sp = 1u;
    }
}

fn walk_step() {
    sp -= 1u;
    let node = stack_node[sp];
    if (stack_dist[sp] > walk_bound()) {
        return;
    }
    if (node >= params.y) {
        let first = (node - params.y) * LEAF;
        let end = min(first + LEAF, params.z);
        for (var j = first; j < end; j++) {
            if (j >= window.x && j < window.y) {
                continue;
            }
            let s = sorted[j];
            offer(dist(walk_p, s.xyz), bitcast<u32>(s.w));
        }
        return;
    }
    let a = 2u * node;
    let da = box_dist(walk_p, a);
    let db = box_dist(walk_p, a + 1u);
    if (da <= db) {
        stack_node[sp] = a + 1u;
        stack_dist[sp] = db;
        stack_node[sp + 1u] = a;
        stack_dist[sp + 1u] = da;
    } else {
        stack_node[sp] = a;
        stack_dist[sp] = da;
        stack_node[sp + 1u] = a + 1u;
        stack_dist[sp + 1u] = db;
    }
    sp += 2u;
}
