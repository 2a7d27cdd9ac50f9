// Device layer: tile descriptors and the decoupled look-back with fallback.
//
// Each tile publishes its aggregate, then (after its look-back) its inclusive prefix, in two
// separate regions of `tile_state`. A value of T is stored as 16-bit halves, each word
// `VALID | half`, so a single 32-bit atomic carries both the flag and the payload and a
// reader can tell a complete value (every word valid) from a partial one. Each region word
// is written once per run (the host clears the state before each run).
//
// The look-back never relies on forward progress between workgroups: after LOOKBACK_SPINS
// reads of a predecessor that has published nothing, the workgroup reduces that tile's input
// itself (`tile_fallback`, which the kernel defines) and walks on.
//
// Layout of tile_state (u32 words): [0] tile counter of pass 1, [1] of pass 2, [2..4) unused,
// then the aggregate region (8 words per tile), then the inclusive region.
// Needs: tile_state, T, T_WORDS, to_bits, from_bits, identity, combine, num_tiles(),
// tile_fallback(tile, l), LOOKBACK_SPINS.

const VALID: u32 = 0x10000u;
const STATE_HEADER: u32 = 4u;

fn region_base(inclusive: bool) -> u32 {
    return STATE_HEADER + select(0u, num_tiles() * 8u, inclusive);
}

// Called by one invocation.
fn publish(tile: u32, v: T, inclusive: bool) {
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

// Called by one invocation.
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

// What the reading invocation saw: 0 nothing (fall back), 1 an aggregate, 2 an inclusive prefix.
var<workgroup> sh_look_kind: u32;
var<workgroup> sh_look_value: T;

// The exclusive prefix of `tile`: every invocation calls it (barriers inside).
// `may_wait`: spin on predecessors, then fall back (single pass). Without it (the second pass
// of the two-pass mode, when every aggregate is already published) nothing is waited for.
fn lookback(tile: u32, l: Lane, may_wait: bool) -> T {
    var prefix = identity();
    var look = tile;
    loop {
        if (look == 0u) {
            break;
        }
        if (l.local == 0u) {
            var kind = 0u;
            var value = identity();
            for (var spin = 0u; spin < LOOKBACK_SPINS; spin++) {
                let incl = read_descriptor(look - 1u, true);
                if (incl.complete) {
                    kind = 2u;
                    value = incl.value;
                    break;
                }
                let agg = read_descriptor(look - 1u, false);
                if (agg.complete) {
                    kind = 1u;
                    value = agg.value;
                    break;
                }
                if (!may_wait) {
                    break;
                }
            }
            sh_look_kind = kind;
            sh_look_value = value;
        }
        let kind = workgroupUniformLoad(&sh_look_kind);
        var v: T;
        if (kind == 0u) {
            // The predecessor has published nothing: compute its aggregate from its input.
            v = tile_fallback(look - 1u, l);
        } else {
            v = sh_look_value;
        }
        prefix = combine(v, prefix);
        workgroupBarrier();
        if (kind == 2u) {
            break;
        }
        look -= 1u;
    }
    return prefix;
}
