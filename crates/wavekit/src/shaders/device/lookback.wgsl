// Device layer: tile descriptors and the decoupled look-back with fallback.
//
// Each tile publishes its aggregate, then (after its look-back) its inclusive prefix, in two
// separate regions of `tile_state`. A value of T is stored as 16-bit halves, each word
// `VALID | half`, so a single 32-bit atomic carries both the flag and the payload and a
// reader can tell a complete value (every word valid) from a partial one. Each region word
// is written once per run (the host clears the state before each run).
//
// The look-back is done by the first subgroup, a window of `size` predecessors at a time
// (lane i reads tile look - size + i): it takes every aggregate back to the nearest
// inclusive prefix in one step, in tile order. It never relies on forward progress between
// workgroups: after LOOKBACK_SPINS windows without progress, the whole workgroup reduces the
// blocking predecessor's input itself (`tile_fallback`, defined by the kernel) and walks on.
//
// Layout of tile_state (u32 words): [0] tile counter of pass 1, [1] of pass 2, [2..4) unused,
// then the aggregate region (8 words per tile), then the inclusive region.
// Needs: tile_state, T, T_WORDS, to_bits, from_bits, identity, combine, sg_inclusive,
// sg_last, sg_ballot, num_tiles(), tile_fallback(tile, l), LOOKBACK_SPINS, FAULT_SKIP.

#import shared/ballot

const VALID: u32 = 0x10000u;
const STATE_HEADER: u32 = 4u;

fn region_base(inclusive: bool) -> u32 {
    return STATE_HEADER + select(0u, num_tiles() * 8u, inclusive);
}

// Called by one invocation. With fault injection (FAULT_SKIP = K > 0, tests only) every K-th
// tile never publishes, so its successors must take the fallback.
fn publish(tile: u32, v: T, inclusive: bool) {
    if (FAULT_SKIP != 0u && (tile + 1u) % max(FAULT_SKIP, 1u) == 0u) {
        return;
    }
    let b = to_bits(v);
    let base = region_base(inclusive) + tile * 8u;
    for (var j = 0u; j < T_WORDS; j++) {
        atomicStore(&tile_state[base + 2u * j], VALID | (b[j] & 0xffffu));
        atomicStore(&tile_state[base + 2u * j + 1u], VALID | (b[j] >> 16u));
    }
}

struct Descriptor {
    complete: bool,
    value: T,
}

fn read_descriptor(tile: u32, inclusive: bool) -> Descriptor {
    let base = region_base(inclusive) + tile * 8u;
    var b = vec4<u32>(0u);
    var complete = true;
    for (var j = 0u; j < T_WORDS; j++) {
        let lo = atomicLoad(&tile_state[base + 2u * j]);
        let hi = atomicLoad(&tile_state[base + 2u * j + 1u]);
        complete = complete && (lo & VALID) != 0u && (hi & VALID) != 0u;
        b[j] = (lo & 0xffffu) | ((hi & 0xffffu) << 16u);
    }
    return Descriptor(complete, from_bits(b));
}

const LOOK_DONE: u32 = 0u;
const LOOK_FALLBACK: u32 = 1u;

var<workgroup> sh_look_state: u32;
var<workgroup> sh_look_tile: u32;
var<workgroup> sh_look_prefix: T;

// The first subgroup walks back from tile `look` (exclusive) with `prefix` already gathered,
// until it reaches an inclusive prefix (LOOK_DONE: it publishes `tile`'s inclusive prefix at
// once, so successors wait as little as possible) or gives up waiting on tile look - 1
// (LOOK_FALLBACK). Results go to sh_look_*.
fn walk(l: Lane, tile: u32, aggregate: T, start: u32, start_prefix: T, may_wait: bool) {
    var look = start;
    var prefix = start_prefix;
    var state = LOOK_DONE;
    var spins = 0u;
    loop {
        if (look == 0u) {
            break;
        }
        // Lane i looks at tile look - size + i; lanes before tile 0 act as an empty inclusive
        // prefix, so the walk stops there.
        let back = l.size - l.lane;
        var kind = 2u;
        var v = identity();
        if (back <= look) {
            // Both regions are read before either is looked at: one round trip to L2.
            let t = look - back;
            let incl = read_descriptor(t, true);
            let agg = read_descriptor(t, false);
            if (incl.complete) {
                v = incl.value;
            } else {
                kind = select(0u, 1u, agg.complete);
                v = agg.value;
            }
        }
        let last_incl = ballot_last(sg_ballot(kind == 2u));
        let last_none = ballot_last(sg_ballot(kind == 0u));
        // Lanes after the nearest blocker (or from the nearest inclusive) can be taken.
        let first_taken = max(last_incl, last_none + 1i);
        let take = i32(l.lane) >= first_taken;
        let window = sg_last(sg_inclusive(select(identity(), v, take), l.lane, l.size), l.size);
        let taken = u32(i32(l.size) - first_taken);
        if (last_none < last_incl) {
            prefix = combine(window, prefix);
            break;
        }
        if (taken > 0u) {
            prefix = combine(window, prefix);
            look -= taken;
            spins = 0u;
            continue;
        }
        spins += 1u;
        if (spins >= LOOKBACK_SPINS || !may_wait) {
            state = LOOK_FALLBACK;
            break;
        }
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
        let v = tile_fallback(look - 1u, l);
        if (l.sg == 0u) {
            walk(l, tile, aggregate, look - 1u, combine(v, sh_look_prefix), may_wait);
        }
    }
    let prefix = sh_look_prefix;
    workgroupBarrier();
    return prefix;
}
