// LBVH step 4: the boxes, bottom up. Each leaf writes its triangle's box into its parent's slot
// and counts itself in at the parent; the second to arrive unites both children's boxes and
// climbs on. The sibling's box may not be visible yet when the count is (atomics are relaxed):
// its words are complemented floats, 0 until written, and the reader waits for all six. The
// host clears flags and boxes before the run; a wait that never ends sets bounds[7].
#import subgroup/api
#import lbvh/common

const SPIN_LIMIT: u32 = 1000000u;

fn store_box(p: u32, side: u32, b: Box) {
    let o = 12u * p + 6u * side;
    atomicStore(&boxes[o], ~bitcast<u32>(b.lo.x));
    atomicStore(&boxes[o + 1u], ~bitcast<u32>(b.lo.y));
    atomicStore(&boxes[o + 2u], ~bitcast<u32>(b.lo.z));
    atomicStore(&boxes[o + 3u], ~bitcast<u32>(b.hi.x));
    atomicStore(&boxes[o + 4u], ~bitcast<u32>(b.hi.y));
    atomicStore(&boxes[o + 5u], ~bitcast<u32>(b.hi.z));
}

fn load_word(i: u32) -> f32 {
    var v = atomicLoad(&boxes[i]);
    var spins = 0u;
    while (v == 0u && spins < SPIN_LIMIT) {
        v = atomicLoad(&boxes[i]);
        spins += 1u;
    }
    if (v == 0u) {
        atomicOr(&bounds[7], 1u);
    }
    return bitcast<f32>(~v);
}

fn load_box(p: u32, side: u32) -> Box {
    let o = 12u * p + 6u * side;
    return Box(
        vec3<f32>(load_word(o), load_word(o + 1u), load_word(o + 2u)),
        vec3<f32>(load_word(o + 3u), load_word(o + 4u), load_word(o + 5u)),
    );
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let n = params.x;
    let leaf = item(l, wg, groups);
    if (leaf >= n || n < 2u) {
        return;
    }
    var b = tri_box(perm[leaf]);
    var up = parents[leaf];
    loop {
        let p = up >> 1u;
        let side = up & 1u;
        store_box(p, side, b);
        if (atomicAdd(&flags[p], 1u) == 0u) {
            return;
        }
        let s = load_box(p, 1u - side);
        b = Box(min(b.lo, s.lo), max(b.hi, s.hi));
        if (p == 0u) {
            return;
        }
        up = parents[n + p];
    }
}
