// The kd-tree's walk (tree/kd.wgsl builds it), imported as `spatial/walk` (walk_bvh.wgsl says
// what the kernels give it). The stack holds sides of nodes (2 × node + side, or the root)
// with a lower bound of their squared distance; a step pops one: skipped when its bound is
// past the kernel's, a leaf's points offered, an inner node's far side pushed with the bound
// its plane gives (its distance to the plane less the cells' rounding margin, squared, or
// the node's own if larger), then its near side. No seed. A leaf is offered LEAF points a
// step (a leaf of equal codes can hold more), so that no step loops more than LEAF times:
// STEP_COST and START_COST bound the loop iterations of a step and of a start (ADR-0091).
// CPU twin: reference::kd.

#import spatial/leaf_cursor

@group(0) @binding(2) var<storage, read> nodes: array<vec4<u32>>;

// Deeper than the tree can be: every inner node splits on a code bit its parent did not
// (63), and a level pushes one side besides the one it descends to.
const STACK: u32 = 66u;
const ROOT: u32 = 0xffffffffu;

var<private> walk_p: vec3<f32>;
var<private> walk_margin: vec3<f32>;
var<private> stack_node: array<u32, STACK>;
var<private> stack_dist: array<f32, STACK>;
var<private> sp: u32;

// STEP_COST and START_COST are prepended by the host (query.rs: walk_costs, their one
// source, which also checks a budget against them).


fn kd_code(i: u32) -> vec2<u32> {
    return vec2<u32>(codes[2u * i], codes[2u * i + 1u]);
}

fn walk_seed(p: vec3<f32>) {}

fn walk_begin(p: vec3<f32>) {
    walk_p = p;
    let lo = tree_lo();
    let hi = tree_hi();
    walk_margin = (abs(lo) + abs(hi) + max(hi - lo, vec3<f32>(1e-30))) * (1.0 / 1048576.0);
    sp = 0u;
    leaf_at = 0u;
    leaf_end = 0u;
    if (params.z > 0u) {
        stack_node[0] = ROOT;
        stack_dist[0] = 0.0;
        sp = 1u;
    }
}

fn walk_step() {
    if (leaf_at < leaf_end) {
        offer_leaf();
        return;
    }
    sp -= 1u;
    let side = stack_node[sp];
    let bound = stack_dist[sp];
    if (bound > walk_bound()) {
        return;
    }
    // The side's node, or its leaf's points [first, end).
    var node = 0u;
    var first = 0u;
    var end = 0u;
    if (side == ROOT) {
        let n = params.z;
        let a = kd_code(0u);
        let b = kd_code(n - 1u);
        if (n <= LEAF || (a.x == b.x && a.y == b.y)) {
            end = n;
        }
    } else {
        let parent = nodes[side >> 1u];
        let gamma = parent.z & 0x1fffffffu;
        if ((side & 1u) == 0u) {
            node = gamma;
            if ((parent.y >> 31u) != 0u) {
                first = parent.y & 0x7fffffffu;
                end = gamma + 1u;
            }
        } else {
            node = gamma + 1u;
            if ((parent.w >> 31u) != 0u) {
                first = gamma + 1u;
                end = (parent.w & 0x7fffffffu) + 1u;
            }
        }
    }
    if (end > first) {
        leaf_at = first;
        leaf_end = end;
        offer_leaf();
        return;
    }
    let n = nodes[node];
    let axis = (n.z >> 29u) & 3u;
    let diff = walk_p[axis] - bitcast<f32>(n.x);
    let gap = max(abs(diff) - walk_margin[axis], 0.0);
    let near = select(1u, 0u, diff < 0.0);
    stack_node[sp] = 2u * node + (1u - near);
    stack_dist[sp] = max(bound, gap * gap);
    stack_node[sp + 1u] = 2u * node + near;
    stack_dist[sp + 1u] = bound;
    sp += 2u;
}
