// kd-tree build, after the 63-bit codes are sorted and the points gathered in their order: the
// binary radix tree over the codes (Karras, HPG 2012: the prelude's device/radix_tree), one
// invocation an inner node, each finding its range and split from the codes alone. Every inner node splits its points at the
// highest code bit in which they differ: a plane across one axis at the middle of the cell
// the node's common prefix names (a spatial-median, "midpoint" kd-tree; not left-balanced).
// A side of LEAF points or fewer, or whose codes are all equal, is a leaf: the range is
// walked point by point. Equal codes are ordered by index (the stable sort), as Karras does.
// Node i (0 ≤ i < n - 1; the root is node 0) is
//   x: the split plane's coordinate (f32 bits),
//   y: its first point | (left side is a leaf) << 31,
//   z: gamma (the last point of the left side) | axis << 29,
//   w: its last point | (right side is a leaf) << 31;
// the left side is node gamma unless a leaf, the right node gamma + 1. CPU twin:
// reference::kd.
#import spatial/nodes
#import device/radix_tree

fn delta(i: i32, j: i32) -> i32 {
    if (j < 0 || j >= i32(params.x)) {
        return -1;
    }
    let a = code(u32(i));
    let b = code(u32(j));
    if (a.x == b.x && a.y == b.y) {
        return 64 + i32(countLeadingZeros(u32(i) ^ u32(j)));
    }
    return i32(clz64(a ^ b));
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let u = item(local, wg, groups);
    if (u + 1u >= params.x) {
        return;
    }
    let r = radix_node(i32(u));
    let first = r.x;
    let gamma = r.y;
    let last = r.z;
    // The split's prefix length: every node reached has codes that differ at its ends.
    let dnode = delta(i32(first), i32(last));
    let cf = code(first);
    let cg = code(gamma);
    let ch = code(gamma + 1u);
    let cl = code(last);
    let left_leaf = gamma + 1u - first <= LEAF || (cf.x == cg.x && cf.y == cg.y);
    let right_leaf = last - gamma <= LEAF || (ch.x == cl.x && ch.y == cl.y);
    // The split bit, counted from the code's top (bit 62): axis b % 3, that axis's bit
    // 20 - b / 3. Nodes whose codes are all equal are never reached (their parent made them
    // a leaf); they get an axis and plane anyway.
    let b = u32(min(dnode, 63) - 1);
    let axis = b % 3u;
    let shift = 20u - b / 3u;
    let lo = low_corner();
    let hi = high_corner();
    let q = grid_cell(sorted[gamma + 1u].xyz, lo, hi)[axis];
    let ext = max(hi - lo, vec3<f32>(1e-30))[axis];
    let split = lo[axis] + f32((q >> shift) << shift) * (ext / 2097152.0);
    nodes[u] = vec4<u32>(
        bitcast<u32>(split),
        first | select(0u, 0x80000000u, left_leaf),
        gamma | (axis << 29u),
        last | select(0u, 0x80000000u, right_leaf),
    );
}
