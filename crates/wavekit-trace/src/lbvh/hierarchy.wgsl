// LBVH step 3: the hierarchy over the sorted codes (Karras 2012): inner node i finds the range
// of leaves it covers and where it splits, from the common prefixes of codes (equal codes
// told apart by their positions), and writes its two references and its children's parents.
#import subgroup/api
#import lbvh/common

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
    let i = i32(u);
    let d = select(-1, 1, delta(i, i + 1) - delta(i, i - 1) > 0);
    let dmin = delta(i, i - d);
    var lmax = 2;
    while (delta(i, i + lmax * d) > dmin) {
        lmax *= 2;
    }
    var len = 0;
    for (var t = lmax / 2; t >= 1; t /= 2) {
        if (delta(i, i + (len + t) * d) > dmin) {
            len += t;
        }
    }
    let j = i + len * d;
    let dnode = delta(i, j);
    var s = 0;
    var div = 2;
    loop {
        let t = (len + div - 1) / div;
        if (delta(i, i + (s + t) * d) > dnode) {
            s += t;
        }
        if (t <= 1) {
            break;
        }
        div *= 2;
    }
    let gamma = u32(i + s * d + min(d, 0));
    let first = u32(min(i, j));
    let last = u32(max(i, j));
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
