// The bounding box of points, one a lane: `bounds_add(l, valid, p)` folds this lane's point
// (where `valid`) into the importer's `bounds` (six atomic words: the low corner's three
// `~ordered` words, then the high corner's three `ordered` words, all cleared to 0 first) with
// a subgroup's maximum per word and then one atomicMax per word and subgroup. The importer
// gives `bounds: array<atomic<u32>>` and `ordered(f32) -> u32` (an order-preserving map of
// floats to words). Call from control flow every lane of the subgroup reaches.

fn bounds_add(l: Lane, valid: bool, p: vec3<f32>) {
    var lo = vec3<u32>(0u);
    var hi = vec3<u32>(0u);
    if (valid) {
        hi = vec3<u32>(ordered(p.x), ordered(p.y), ordered(p.z));
        lo = ~hi;
    }
    let m = vec3<u32>(sg_max_u32(lo.x), sg_max_u32(lo.y), sg_max_u32(lo.z));
    let n = vec3<u32>(sg_max_u32(hi.x), sg_max_u32(hi.y), sg_max_u32(hi.z));
    if (l.lane == 0u) {
        atomicMax(&bounds[0], m.x);
        atomicMax(&bounds[1], m.y);
        atomicMax(&bounds[2], m.z);
        atomicMax(&bounds[3], n.x);
        atomicMax(&bounds[4], n.y);
        atomicMax(&bounds[5], n.z);
    }
}
