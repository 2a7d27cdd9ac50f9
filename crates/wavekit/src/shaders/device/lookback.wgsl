// Device layer: tile descriptors and the decoupled look-back with fallback.
//
// Each tile publishes its aggregate, then (after its look-back) its inclusive prefix. A value
// of T is stored as 16-bit halves, each word `VALID | [INCLUSIVE] | half`, so a single 32-bit
// atomic carries the flags and the payload, and a reader can tell a complete value (every word
// valid, all with the same kind) from a partial or torn one. With SPLIT_REGIONS (the second
// pass of the two-pass mode) the inclusive prefixes go to a region of their own, so an
// aggregate once written is never torn by its upgrade; otherwise the inclusive prefix
// overwrites the aggregate in place and a reader needs half the atomic loads. The host
// clears the state before each run.
//
// The look-back is done by the first subgroup, a window of size * LOOKBACK_PER_LANE
// predecessors at a time: it takes every aggregate back to the nearest inclusive prefix in
// one step, in tile order. It never relies on forward progress between
// workgroups: after LOOKBACK_SPINS windows without progress, the whole workgroup reduces the
// blocking predecessor's input itself (`tile_fallback`, defined by the kernel) and walks on.
//
// Layout of tile_state (u32 words): [0] tile counter of pass 1, [1] of pass 2; statistics for
// tuning: [2] windows read without progress, [3] fallbacks taken, [4] windows read in all
// (STATS_WINDOWS only); [5..8) unused; then the aggregate region (8 words per tile), then
// (SPLIT_REGIONS) the inclusive region.
// Needs: tile_state, T, T_WORDS, to_bits, from_bits, identity, combine, sg_inclusive,
// sg_last, sg_ballot, sg_shuffle_u32, sg_shuffle_bool, num_tiles(), tile_fallback(tile, l),
// LOOKBACK_SPINS, LOOKBACK_BACKOFF, LOOKBACK_PER_LANE, LOOKBACK_FIRST_WINDOW, FAULT_SKIP,
// SPLIT_REGIONS, STATE_HEADER.

#import shared/ballot

const VALID: u32 = 0x10000u;
const INCLUSIVE_FLAG: u32 = 0x20000u;

fn region_base(inclusive: bool) -> u32 {
    return STATE_HEADER + select(0u, num_tiles() * 8u, inclusive && SPLIT_REGIONS);
}

// Called by one invocation. With fault injection (FAULT_SKIP = K > 0, tests only) every K-th
// tile never publishes, so its successors must take the fallback.
fn publish(tile: u32, v: T, inclusive: bool) {
    if (FAULT_SKIP != 0u && (tile + 1u) % max(FAULT_SKIP, 1u) == 0u) {
        return;
    }
    let b = to_bits(v);
    let base = region_base(inclusive) + tile * 8u;
    let flags = VALID | select(0u, INCLUSIVE_FLAG, inclusive);
    for (var j = 0u; j < T_WORDS; j++) {
        atomicStore(&tile_state[base + 2u * j], flags | (b[j] & 0xffffu));
        atomicStore(&tile_state[base + 2u * j + 1u], flags | (b[j] >> 16u));
    }
}

// What a reader saw of a tile: kind 0 nothing (or a torn value), 1 an aggregate, 2 an
// inclusive prefix.
struct Seen {
    kind: u32,
    value: T,
}

fn read_region(tile: u32, inclusive: bool) -> Seen {
    let base = region_base(inclusive) + tile * 8u;
    var b = vec4<u32>(0u);
    var all = 0xffffffffu;
    var any = 0u;
    for (var j = 0u; j < T_WORDS; j++) {
        let lo = atomicLoad(&tile_state[base + 2u * j]);
        let hi = atomicLoad(&tile_state[base + 2u * j + 1u]);
        all &= lo & hi;
        any |= lo | hi;
        b[j] = (lo & 0xffffu) | ((hi & 0xffffu) << 16u);
    }
    let flags = VALID | INCLUSIVE_FLAG;
    // Complete only if every word carries the same flags.
    var kind = 0u;
    if ((all & flags) == (any & flags) && (all & VALID) != 0u) {
        kind = select(1u, 2u, (all & INCLUSIVE_FLAG) != 0u);
    }
    return Seen(kind, from_bits(b));
}

fn read_descriptor(tile: u32) -> Seen {
    if (SPLIT_REGIONS) {
        // Both regions read before either is looked at: one round trip.
        let incl = read_region(tile, true);
        let agg = read_region(tile, false);
        if (incl.kind != 0u) {
            return Seen(2u, incl.value);
        }
        return agg;
    }
    return read_region(tile, false);
}

const LOOK_DONE: u32 = 0u;
const LOOK_FALLBACK: u32 = 1u;

var<workgroup> sh_look_state: u32;
var<workgroup> sh_look_tile: u32;
var<workgroup> sh_look_prefix: T;

// The first subgroup walks back from tile `look` (exclusive) with `prefix` already gathered,
// until it reaches an inclusive prefix (LOOK_DONE: it publishes `tile`'s inclusive prefix at
// once, so successors wait as little as possible) or gives up waiting on a predecessor that
// has published nothing (LOOK_FALLBACK, with sh_look_tile the tile after it). Results go to
// sh_look_*.
//
// A window is size * LOOKBACK_PER_LANE tiles: lane i reads the LOOKBACK_PER_LANE consecutive
// tiles starting at look - window + i * LOOKBACK_PER_LANE, so one round trip to memory
// covers hundreds of predecessors and the chain of inclusive prefixes keeps up with the
// tiles in flight. Tiles before tile 0 act as an empty inclusive prefix.
fn walk(l: Lane, tile: u32, aggregate: T, start: u32, start_prefix: T, may_wait: bool) {
    var look = start;
    var prefix = start_prefix;
    var state = LOOK_DONE;
    var spins = 0u;
    var waited = 0u;
    var windows = 0u;
    let window = l.size * LOOKBACK_PER_LANE;
    // Only the `width` nearest tiles of the window are read; it starts small and doubles
    // after each step that had to go further back, so the common case (a recent predecessor
    // already has its inclusive prefix) reads few descriptors, and few workgroups read the
    // same descriptor.
    var width = min(LOOKBACK_FIRST_WINDOW, window);
    loop {
        if (look == 0u) {
            break;
        }
        windows += 1u;
        // This lane's tiles, oldest first. `first` is where the takeable suffix starts: after
        // the newest inclusive prefix (taken too) or after the newest tile with nothing.
        var first = 0u;
        var marker = false; // an inclusive prefix or a tile with nothing in this lane
        var newest_is_inclusive = false;
        var suffix = identity();
        // All of this lane's descriptors are read before any is looked at, so their round
        // trips to memory overlap (unrolled: a loop would wait for each in turn).
        var seen: array<Seen, LOOKBACK_PER_LANE>;
#unroll m LOOKBACK_PER_LANE
        {
            let back = window - l.lane * LOOKBACK_PER_LANE - {m};
            // Outside the part of the window read this time: a boundary, as if unpublished.
            seen[{m}] = Seen(0u, identity());
            if (back <= width) {
                if (back <= look) {
                    seen[{m}] = read_descriptor(look - back);
                } else {
                    // Before tile 0: an empty inclusive prefix.
                    seen[{m}] = Seen(2u, identity());
                }
            }
        }
#end
#unroll m LOOKBACK_PER_LANE
        {
            let kind = seen[{m}].kind;
            if (kind == 2u) {
                first = {m};
                marker = true;
                newest_is_inclusive = true;
                suffix = seen[{m}].value;
            } else if (kind == 0u) {
                first = {m} + 1u;
                marker = true;
                newest_is_inclusive = false;
                suffix = identity();
            } else {
                suffix = combine(suffix, seen[{m}].value);
            }
        }
#end
        // The newest lane with a marker decides; lanes after it give all their tiles.
        let decider = ballot_last(sg_ballot(marker));
        let lane = i32(l.lane);
        let take = select(identity(), suffix, lane >= decider);
        let got = sg_last(sg_inclusive(take, l.lane, l.size), l.size);
        let done = sg_shuffle_bool(newest_is_inclusive, u32(max(decider, 0i)));
        let decider_first = sg_shuffle_u32(first, u32(max(decider, 0i)));
        var taken = window;
        if (decider >= 0i) {
            taken = window - (u32(decider) * LOOKBACK_PER_LANE + decider_first);
        }
        if (decider >= 0i && done) {
            prefix = combine(got, prefix);
            break;
        }
        if (taken > 0u) {
            prefix = combine(got, prefix);
            look -= taken;
            spins = 0u;
            width = min(2u * width, window);
            continue;
        }
        spins += 1u;
        waited += 1u;
        if (spins >= LOOKBACK_SPINS || !may_wait) {
            state = LOOK_FALLBACK;
            break;
        }
        // Back off before reading again, so that waiting workgroups do not flood the L2 with
        // atomic loads of the very lines their predecessors are about to write.
        var delay = spins;
        for (var d = 0u; d < LOOKBACK_BACKOFF; d++) {
            delay = delay * 1664525u + 1013904223u;
        }
        if (delay == 0x7fffffffu && spins == 0u) {
            // Never true (spins > 0 here); keeps the delay loop from being removed.
            look += 1u;
        }
    }
    if (l.lane == 0u && waited != 0u) {
        atomicAdd(&tile_state[2], waited);
    }
    if (l.lane == 0u && STATS_WINDOWS) {
        atomicAdd(&tile_state[4], windows);
    }
    if (l.lane == 0u) {
        if (state == LOOK_DONE) {
            publish(tile, combine(prefix, aggregate), true);
        }
        sh_look_state = state;
        sh_look_tile = look;
        sh_look_prefix = prefix;
    }
}

// The exclusive prefix of `tile`, whose aggregate is `aggregate`; publishes the tile's
// inclusive prefix. Every invocation calls it (barriers inside). `may_wait`: spin on
// predecessors, then fall back (single pass). Without it (the second pass of the two-pass
// mode, when every aggregate is already published) nothing is waited for.
fn lookback(tile: u32, aggregate: T, l: Lane, may_wait: bool) -> T {
    if (tile == 0u) {
        if (l.local == 0u) {
            publish(0u, aggregate, true);
        }
        return identity();
    }
    if (l.sg == 0u) {
        walk(l, tile, aggregate, tile, identity(), may_wait);
    }
    loop {
        let state = workgroupUniformLoad(&sh_look_state);
        if (state == LOOK_DONE) {
            break;
        }
        // Tile look - 1 has published nothing for too long: reduce its input here.
        let look = workgroupUniformLoad(&sh_look_tile);
        if (l.local == 0u) {
            atomicAdd(&tile_state[3], 1u);
        }
        let v = tile_fallback(look - 1u, l);
        if (l.sg == 0u) {
            walk(l, tile, aggregate, look - 1u, combine(v, sh_look_prefix), may_wait);
        }
    }
    // Read after the barrier of the last workgroupUniformLoad; nothing writes it again.
    return sh_look_prefix;
}
