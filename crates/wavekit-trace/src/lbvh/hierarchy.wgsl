// LBVH step 3: the hierarchy over the sorted codes (Karras 2012, the prelude's
// device/radix_tree): inner node i finds the range of leaves it covers and where it splits,
// from the common prefixes of codes (equal codes told apart by their positions), and writes
// its two references and its children's parents.
#import subgroup/api
#import lbvh/common
#import device/radix_tree

// Length of the common prefix of the codes at i and j (−1 outside 0..n).
fn delta(i: i32, j: i32) -> i32 {
    if (j < 0 || j >= i32(params.x)) {
        return -1;
    }
    let a = keys[i];
    let b = keys[j];
    if (a == b) {
        return 32 + i32(countLeadingZeros(u32(i) ^ u32(j)));
    }
    return i32(countLeadingZeros(a ^ b));
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let n = params.x;
    let u = item(l, wg, groups);
    if (u + 1u >= n) {
        return;
    }
    let r = radix_node(i32(u));
    let first = r.x;
    let gamma = r.y;
    let last = r.z;
    // Leaves of one triangle: 0x80000000 | position (bvh.rs: leaf_ref(position, 1)).
    if (first == gamma) {
        children[2u * u] = 0x80000000u | gamma;
        parents[gamma] = 2u * u;
    } else {
        children[2u * u] = gamma;
        parents[n + gamma] = 2u * u;
    }
    if (last == gamma + 1u) {
        children[2u * u + 1u] = 0x80000000u | (gamma + 1u);
        parents[gamma + 1u] = 2u * u + 1u;
    } else {
        children[2u * u + 1u] = gamma + 1u;
        parents[n + gamma + 1u] = 2u * u + 1u;
    }
}
