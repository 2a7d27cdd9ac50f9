// Subgroup layer: task compaction's lane arithmetic (its CPU port, tested at widths 1 to 128:
// sim/subgroup.rs). A kernel that refills finished lanes (the tracer's compacted kernel, the
// spatial queries) keeps its live tasks packed: after a round, the live tasks (ballot `alive`, k of them) move to lanes 0..k in their order
// — a live task's new lane is ballot_count_below(alive, its lane) — and the lanes k.. take the
// stack slots of the dead tasks, in their order. Shuffles pull, so each lane computes where its
// new task comes from: the lane of the k-th set bit.
#import shared/ballot

// The lane of the r-th (from 0) set bit of b; r must be below ballot_count(b).
fn ballot_select(b: vec4<u32>, r: u32) -> u32 {
    var rank = r;
    var w = b.x;
    var base = 0u;
    let cx = countOneBits(b.x);
    if (rank >= cx) {
        rank -= cx;
        w = b.y;
        base = 32u;
        let cy = countOneBits(b.y);
        if (rank >= cy) {
            rank -= cy;
            w = b.z;
            base = 64u;
            let cz = countOneBits(b.z);
            if (rank >= cz) {
                rank -= cz;
                w = b.w;
                base = 96u;
            }
        }
    }
    // Halve the window until one bit is left.
    var lo = 0u;
    for (var s = 16u; s > 0u; s >>= 1u) {
        let c = countOneBits((w >> lo) & ((1u << s) - 1u));
        if (rank >= c) {
            rank -= c;
            lo += s;
        }
    }
    return base + lo;
}

// The lane whose task (lane < k) or free stack slot (lane >= k) lane `lane` takes; `valid` is
// the subgroup's lanes.
fn compact_source(alive: vec4<u32>, valid: vec4<u32>, lane: u32, k: u32) -> u32 {
    if (lane < k) {
        return ballot_select(alive, lane);
    }
    return ballot_select(~alive & valid, lane - k);
}
