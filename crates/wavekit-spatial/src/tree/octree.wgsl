// Octree build, after the 63-bit codes are sorted and the points gathered in their order: a
// sparse octree, compressed (a node's children are the cells of the first digit in which its
// points' codes differ, so every inner node has 2 to 8 children and a chain of one-child
// cells is skipped), made a generation a dispatch from the root down. A node of more than
// LEAF points whose codes are not all equal is inner; the rest are leaves. Node k is
//   x: its first point, y: its points, z: its first child (NO_NODE for a leaf),
//   w: its level (digits its points share, 0 to 21; its cell is the one they name) | the
//      octants of its children << 8,
// children consecutive in octant order. Generation g's nodes follow generation g - 1's; the
// root is node 0 (generation 0, written here by the one invocation of dispatch 0), gens[g]
// counts generation g ≥ 1 as its parents claim room for their children. Nodes at most 2n - 1
// (a leaf holds a point or more, an inner node has two children or more). CPU twin:
// reference::octree. params.z: the generation.
#import spatial/nodes

// The first position in [a, b) whose code's digit `level` is at least o (the codes there
// share the digits above it, so the digit does not fall).
fn first_digit(a: u32, b: u32, level: u32, o: u32) -> u32 {
    var lo = a;
    var hi = b;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (digit(code(mid), level) < o) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = params.z;
    var start = 1u;
    for (var j = 1u; j < g; j++) {
        start += atomicLoad(&gens[j]);
    }
    let count = select(atomicLoad(&gens[g]), 1u, g == 0u);
    if (g == 0u) {
        start = 0u;
    }
    let t = item(local, wg, groups);
    if (t >= count) {
        return;
    }
    let k = start + t;
    var node: vec4<u32>;
    if (g == 0u) {
        node = vec4<u32>(0u, params.x, NO_NODE, common_digits(code(0u), code(params.x - 1u)));
    } else {
        node = nodes[k];
    }
    let level = node.w & 0xffu;
    if (node.y <= LEAF || level >= 21u) {
        nodes[k] = vec4<u32>(node.x, node.y, NO_NODE, level);
        return;
    }
    let end = node.x + node.y;
    var at: array<u32, 9>;
    at[0] = node.x;
    at[8] = end;
    var mask = 0u;
    for (var o = 1u; o < 8u; o++) {
        at[o] = first_digit(at[o - 1u], end, level, o);
    }
    for (var o = 0u; o < 8u; o++) {
        if (at[o + 1u] > at[o]) {
            mask |= 1u << o;
        }
    }
    let base = start + count + atomicAdd(&gens[g + 1u], countOneBits(mask));
    var c = base;
    for (var o = 0u; o < 8u; o++) {
        if (at[o + 1u] > at[o]) {
            let n = at[o + 1u] - at[o];
            nodes[c] = vec4<u32>(at[o], n, NO_NODE, common_digits(code(at[o]), code(at[o + 1u] - 1u)));
            c += 1u;
        }
    }
    nodes[k] = vec4<u32>(node.x, node.y, base, level | (mask << 8u));
}
