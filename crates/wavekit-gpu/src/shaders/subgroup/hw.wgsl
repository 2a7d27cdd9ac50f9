// Subgroup layer, hardware path: lane identity from the builtins and the operations the
// workgroup and device layers use, generic over the monoid's element type T.
// Contract: call from control flow that every lane of the subgroup reaches; every result is
// valid on every lane. No width is assumed (1 to 128 lanes; ballots use all four words).

struct Invocation {
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
}

#import subgroup/lane

fn lane_info(inv: Invocation) -> Lane {
    return Lane(inv.local, inv.lane, inv.size, inv.local / inv.size);
}

fn sg_ballot(p: bool) -> vec4<u32> {
    return subgroupBallot(p);
}

// x from lane `lane - d`; the caller ignores it on lanes below d.
fn sg_shuffle_up(x: T, d: u32) -> T {
    return subgroupShuffleUp(x, d);
}

// A u32 or bool from lane `src` (uniform).
fn sg_shuffle_u32(x: u32, src: u32) -> u32 {
    return subgroupShuffle(x, src);
}

fn sg_shuffle_bool(x: bool, src: u32) -> bool {
    return subgroupShuffle(u32(x), src) != 0u;
}

// x from the last lane.
fn sg_last(x: T, size: u32) -> T {
    return subgroupShuffle(x, size - 1u);
}

// Inclusive scan by shuffles, in lane order: right for any associative combine,
// commutative or not.
fn sg_inclusive_shuffle(x: T, lane: u32, size: u32) -> T {
    var v = x;
    for (var d = 1u; d < size; d <<= 1u) {
        let y = subgroupShuffleUp(v, d);
        if (lane >= d) {
            v = combine(y, v);
        }
    }
    return v;
}

// Exclusive scan from the inclusive one: the neighbour's inclusive value, identity on lane 0.
fn sg_exclusive_shuffle(incl: T, lane: u32) -> T {
    let up = subgroupShuffleUp(incl, 1u);
    if (lane == 0u) {
        return identity();
    }
    return up;
}

// Helpers for application kernels (see the prelude). Every lane of the subgroup calls them.
fn sg_shuffle_f32(x: f32, src: u32) -> f32 {
    return subgroupShuffle(x, src);
}

fn sg_broadcast_first_u32(x: u32) -> u32 {
    return subgroupBroadcastFirst(x);
}

fn sg_add_u32(x: u32) -> u32 {
    return subgroupAdd(x);
}

fn sg_exclusive_add_u32(x: u32) -> u32 {
    return subgroupExclusiveAdd(x);
}

fn sg_max_u32(x: u32) -> u32 {
    return subgroupMax(x);
}

fn sg_min_u32(x: u32) -> u32 {
    return subgroupMin(x);
}

fn sg_any(p: bool) -> bool {
    return subgroupAny(p);
}

fn sg_all(p: bool) -> bool {
    return subgroupAll(p);
}
