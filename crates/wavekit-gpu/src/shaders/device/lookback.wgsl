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
// (STATS_WINDOWS only); [5] workgroups finished (`clear_when_last`); [6..8) unused; then the
// aggregate region (DESC_STRIDE words per tile), then
// (SPLIT_REGIONS) the inclusive region.
// Needs: tile_state, T, T_WORDS, to_bits, from_bits, identity, combine, sg_inclusive,
// sg_last, sg_ballot, sg_shuffle_u32, sg_shuffle_bool, num_tiles(), tile_fallback(tile, l),
// LOOKBACK_SPINS, LOOKBACK_BACKOFF, LOOKBACK_PER_LANE, LOOKBACK_FIRST_WINDOW, FAULT_SKIP,
// SPLIT_REGIONS, STATE_HEADER (and WG_SIZE for `clear_when_last`).

#import shared/ballot

const VALID: u32 = 0x10000u;
// Words per descriptor: one 32-byte sector each, whatever T_WORDS (packing them closer made
// readers and writers of neighbouring tiles contend, measured on the H200).
const DESC_STRIDE: u32 = 8u;
const INCLUSIVE_FLAG: u32 = 0x20000u;

fn region_base(inclusive: bool) -> u32 {
    return STATE_HEADER + select(0u, num_tiles() * DESC_STRIDE, inclusive && SPLIT_REGIONS);
}

// Called by one invocation. With fault injection (FAULT_SKIP = K > 0, tests only) every K-th
// tile never publishes, so its successors must take the fallback.
fn publish(tile: u32, v: T, inclusive: bool) {
    if (FAULT_SKIP != 0u && (tile + 1u) % max(FAULT_SKIP, 1u) == 0u) {
        return;
    }
    let b = to_bits(v);
    let base = region_base(inclusive) + tile * DESC_STRIDE;
    let flags = VALID | select(0u, INCLUSIVE_FLAG, inclusive);
    // Unrolled with constant indices: a vector indexed by a variable would live in memory.
#unroll j 4
    if ({j} < T_WORDS) {
        atomicStore(&tile_state[base + 2u * {j}], flags | (b[{j}] & 0xffffu));
        atomicStore(&tile_state[base + 2u * {j} + 1u], flags | (b[{j}] >> 16u));
    }
#end
}

// What a reader saw of a tile: kind 0 nothing (or a torn value), 1 an aggregate, 2 an
// inclusive prefix.
struct Seen {
    kind: u32,
    value: T,
}

// The raw words of a tile's descriptor in one region (lo/hi halves of each word of T). The
// loads are unconditional, so a caller that loads several descriptors before decoding any has
// all of them in flight at once.
fn load_region(tile: u32, inclusive: bool) -> array<u32, 8> {
    let base = region_base(inclusive) + tile * DESC_STRIDE;
    var w = array<u32, 8>();
#unroll j 4
    if ({j} < T_WORDS) {
        w[2u * {j}] = atomicLoad(&tile_state[base + 2u * {j}]);
        w[2u * {j} + 1u] = atomicLoad(&tile_state[base + 2u * {j} + 1u]);
    }
#end
    return w;
}

fn decode_region(w: array<u32, 8>) -> Seen {
    var b = vec4<u32>(0u);
    var all = 0xffffffffu;
    var any = 0u;
#unroll j 4
    if ({j} < T_WORDS) {
        let lo = w[2u * {j}];
        let hi = w[2u * {j} + 1u];
        all &= lo & hi;
        any |= lo | hi;
        b[{j}] = (lo & 0xffffu) | ((hi & 0xffffu) << 16u);
    }
#end
    let flags = VALID | INCLUSIVE_FLAG;
    // Complete only if every word carries the same flags.
    var kind = 0u;
    if ((all & flags) == (any & flags) && (all & VALID) != 0u) {
        kind = select(1u, 2u, (all & INCLUSIVE_FLAG) != 0u);
    }
    return Seen(kind, from_bits(b));
}

// Both regions' words of a descriptor (the inclusive region's only with SPLIT_REGIONS).
struct RawDescriptor {
    agg: array<u32, 8>,
    incl: array<u32, 8>,
}

fn load_descriptor(tile: u32) -> RawDescriptor {
    var r: RawDescriptor;
    r.agg = load_region(tile, false);
    if (SPLIT_REGIONS) {
        r.incl = load_region(tile, true);
    }
    return r;
}

fn decode_descriptor(r: RawDescriptor) -> Seen {
    if (SPLIT_REGIONS) {
        let incl = decode_region(r.incl);
        if (incl.kind != 0u) {
            return Seen(2u, incl.value);
        }
    }
    return decode_region(r.agg);
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
// A window is LOOKBACK_PER_LANE chunks of `size` consecutive predecessors: lane j reads tile
// look - (c + 1) * size + j of chunk c, all chunks at once (coalesced, and one round trip to
// memory covers them all); the chunks are then taken newest first, each by one subgroup scan,
// until one holds an inclusive prefix (done) or a tile with nothing (wait there). Only the
// `width` nearest tiles are read: it starts at LOOKBACK_FIRST_WINDOW and doubles after each
// window that had to go further back. Tiles before tile 0 act as an empty inclusive prefix.
//
fn walk(l: Lane, tile: u32, aggregate: T, start: u32, start_prefix: T, may_wait: bool) {
    var look = start;
    var prefix = start_prefix;
    var state = LOOK_DONE;
    var spins = 0u;
    var waited = 0u;
    var windows = 0u;
    let window = l.size * LOOKBACK_PER_LANE;
    var width = min(LOOKBACK_FIRST_WINDOW, window);
    loop {
        if (look == 0u) {
            break;
        }
        windows += 1u;
        // Every chunk's loads first (tiles before 0 read tile 0, unused), then the decoding.
        var raw: array<RawDescriptor, LOOKBACK_PER_LANE>;
#unroll c LOOKBACK_PER_LANE
        {
            let back = ({c} + 1u) * l.size - l.lane;
            raw[{c}] = load_descriptor(select(0u, look - back, back <= look));
        }
#end
        var seen: array<Seen, LOOKBACK_PER_LANE>;
#unroll c LOOKBACK_PER_LANE
        {
            let back = ({c} + 1u) * l.size - l.lane;
            // Outside the part of the window read this time: a boundary, as if unpublished.
            seen[{c}] = Seen(0u, identity());
            if (back <= width) {
                if (back <= look) {
                    seen[{c}] = decode_descriptor(raw[{c}]);
                } else {
                    seen[{c}] = Seen(2u, identity());
                }
            }
        }
#end
        // Chunks newest first. Per chunk: the newest lane with a marker (an inclusive prefix or
        // nothing) decides; the lanes after it give their aggregates.
        var taken = 0u;
        var got_all = identity();
        var stop = false;
        var anchored = false;
#unroll c LOOKBACK_PER_LANE
        if (!stop) {
            let kind = seen[{c}].kind;
            let decider = ballot_last(sg_ballot(kind != 1u));
            let d = u32(max(decider, 0i));
            let taking = i32(l.lane) > decider || (i32(l.lane) == decider && kind == 2u);
            let scan = sg_inclusive(select(identity(), seen[{c}].value, taking), l.lane, l.size);
            got_all = combine(sg_last(scan, l.size), got_all);
            if (decider < 0i) {
                taken += l.size;
            } else {
                stop = true;
                if (sg_shuffle_u32(kind, d) == 2u) {
                    anchored = true;
                    taken += l.size - d;
                } else {
                    taken += l.size - 1u - d;
                }
            }
        }
#end
        if (anchored) {
            prefix = combine(got_all, prefix);
            break;
        }
        if (taken > 0u) {
            prefix = combine(got_all, prefix);
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

// The state word counting the workgroups finished (`clear_when_last`).
const LOOKBACK_DONE_WORD: u32 = 5u;
var<workgroup> sh_look_last: u32;

// A kernel that clears its own state for the next run (ADR-0087, ADR-0089) calls this from
// every invocation as its workgroup's last act, every workgroup of a grid of `groups`, a tile
// of its own or not. After a storage barrier (a release of its descriptors) the workgroup
// counts itself finished; the one whose count completes the grid knows no other will touch the
// state again in this dispatch, and zeroes the tile counter, the count and every word of the
// first `descriptors` descriptors: a reader's loads of a descriptor's words may be reordered,
// so one word left from this run beside new ones of the next, flags alike, would read as a
// complete value (a race seen on lavapipe when the first word alone was cleared). The
// statistics words are left to accumulate. Returns, on every invocation, whether this
// workgroup was the last (the caller clears what else it keeps).
fn clear_when_last(l: Lane, groups: u32, descriptors: u32) -> bool {
    storageBarrier();
    if (l.local == 0u) {
        sh_look_last = u32(atomicAdd(&tile_state[LOOKBACK_DONE_WORD], 1u) == groups - 1u);
    }
    if (workgroupUniformLoad(&sh_look_last) == 0u) {
        return false;
    }
    storageBarrier();
    for (var d = l.local; d < descriptors; d += WG_SIZE) {
        for (var w = 0u; w < 2u * T_WORDS; w++) {
            atomicStore(&tile_state[STATE_HEADER + d * DESC_STRIDE + w], 0u);
        }
    }
    if (l.local == 0u) {
        atomicStore(&tile_state[0], 0u);
        atomicStore(&tile_state[LOOKBACK_DONE_WORD], 0u);
    }
    return true;
}
