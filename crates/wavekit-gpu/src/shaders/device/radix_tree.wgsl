// The binary radix tree over n sorted keys (Karras, HPG 2012), one inner node an invocation:
// `radix_node(i)` finds the range inner node i covers and where it splits, from the lengths of
// common prefixes alone. The importer gives `delta(i, j) -> i32`: the length of the common
// prefix of keys i and j, −1 where j is outside 0..n, equal keys told apart by their positions
// (so that every prefix length is distinct along a range). Returns (first, gamma, last): the
// node covers keys [first, last]; its left child covers [first, gamma] (inner node gamma, or
// the leaf gamma when first == gamma), its right [gamma + 1, last] (inner node gamma + 1, or a
// leaf). The root is inner node 0. CPU twin: wavekit_gpu::sim::device::radix_node.

fn radix_node(i: i32) -> vec3<u32> {
    let d = select(-1, 1, delta(i, i + 1) > delta(i, i - 1));
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
    return vec3<u32>(u32(min(i, j)), u32(i + s * d + min(d, 0)), u32(max(i, j)));
}
