// The octree's walk (tree/octree.wgsl builds it), imported as `spatial/walk` (walk_bvh.wgsl
// says what the kernels give it). The stack holds one entry a level: an inner node and the
// octants of its children not yet visited; a step takes the next of them, nearest the query
// first (octant order XOR the query's own octant at that node), and visits it: skipped when
// its cell (widened by the rounding margin) is past the kernel's bound, a leaf's points
// offered, an inner node pushed. No seed. A leaf is offered LEAF points a step (leaves at the
// deepest level can hold more), so that no step loops more than 8 + LEAF times: STEP_COST and
// START_COST bound the loop iterations of a step and of a start (ADR-0091). CPU twin:
// reference::octree.

#import spatial/leaf_cursor

@group(0) @binding(2) var<storage, read> nodes: array<vec4<u32>>;

// A level a generation: 22 at most.
const STACK: u32 = 23u;
const NO_NODE: u32 = 0xffffffffu;

var<private> walk_p: vec3<f32>;
var<private> walk_code: vec2<u32>;
var<private> walk_lo: vec3<f32>;
var<private> walk_hi: vec3<f32>;
var<private> stack_node: array<u32, STACK>;
// The octants left (low 8 bits) and the query's octant at the node (<< 8).
var<private> stack_left: array<u32, STACK>;
var<private> sp: u32;

// STEP_COST and START_COST are prepended by the host (query.rs: walk_costs, their one
// source, which also checks a budget against them).


fn visit(k: u32) {
    let n = nodes[k];
    let level = n.w & 0xffu;
    let cell = cell_box(sorted[n.x].xyz, level, walk_lo, walk_hi);
    let d = max(max(cell[0] - walk_p, walk_p - cell[1]), vec3<f32>(0.0));
    if (dot(d, d) > walk_bound()) {
        return;
    }
    if (n.z == NO_NODE) {
        leaf_at = n.x;
        leaf_end = n.x + n.y;
        offer_leaf();
        return;
    }
    stack_node[sp] = k;
    stack_left[sp] = ((n.w >> 8u) & 0xffu) | (digit(walk_code, level) << 8u);
    sp += 1u;
}

fn walk_seed(p: vec3<f32>) {}

fn walk_begin(p: vec3<f32>) {
    walk_p = p;
    walk_lo = tree_lo();
    walk_hi = tree_hi();
    walk_code = morton63(p, walk_lo, walk_hi);
    sp = 0u;
    leaf_at = 0u;
    leaf_end = 0u;
    if (params.z > 0u) {
        visit(0u);
    }
}

fn walk_step() {
    if (leaf_at < leaf_end) {
        offer_leaf();
        return;
    }
    let top = sp - 1u;
    let k = stack_node[top];
    let left = stack_left[top] & 0xffu;
    let qo = stack_left[top] >> 8u;
    var o = 0u;
    for (var j = 0u; j < 8u; j++) {
        o = j ^ qo;
        if ((left & (1u << o)) != 0u) {
            break;
        }
    }
    let rest = left & ~(1u << o);
    if (rest == 0u) {
        sp = top;
    } else {
        stack_left[top] = rest | (qo << 8u);
    }
    let n = nodes[k];
    let mask = (n.w >> 8u) & 0xffu;
    visit(n.z + countOneBits(mask & ((1u << o) - 1u)));
}
