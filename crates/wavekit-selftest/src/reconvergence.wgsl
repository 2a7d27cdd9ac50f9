// Subgroup operations right after loops whose trip count differs by lane (ADR-0092): the
// pattern of ADR-0071's wrong sums on the H200, reduced. One variant a dispatch (VARIANT):
// each invocation runs the variant's loops, then records subgroupAdd(1u) (the lanes that took
// part), subgroupMax of its result and the bit count of subgroupBallot(true); the host
// recomputes them (selftest/reconvergence.rs). Variants 0-2 are the pitfall, observed: a
// subgroup operation reached from a loop that not every lane left at the same iteration.
// Variants 3-5 are the same loops made subgroup-uniform (the trip count a subgroupMax taken
// before the loop, the body predicated): they must be right on every adapter.
// Prepended constants: WG_SIZE, FIELDS, INVOCATIONS (per variant), PER, BREAK_AT, SINK,
// VARIANT.
#import shared/ballot

// PER words an invocation: the per-lane trip counts.
@group(0) @binding(0) var<storage, read> input: array<u32>;
// FIELDS words an invocation, variant VARIANT's at VARIANT * INVOCATIONS * FIELDS.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// Bits the loops set, as the codec's put_bits did (workgroup atomics inside the loops).
var<workgroup> sink: array<atomic<u32>, SINK>;

// Field numbers; keep in step with reconvergence.rs.
const F_LOCAL: u32 = 0u;
const F_LANE: u32 = 1u;
const F_SIZE: u32 = 2u;
const F_SG_ID: u32 = 3u;
const F_ACC: u32 = 4u;
const F_ADD: u32 = 5u;
const F_MAX: u32 = 6u;
const F_BALLOT: u32 = 7u;
const F_SINK: u32 = 8u;

// What step i of invocation g's loop (variant 0) adds: a hash the compiler cannot fold.
fn step_value(g: u32, i: u32) -> u32 {
    var v = (g * 0x9e3779b1u) ^ (i * 0x85ebca77u);
    v ^= v >> 15u;
    v *= 0x2c1b3c6du;
    v ^= v >> 12u;
    return v;
}

// Where item j of invocation g starts setting bits.
fn start_bit(g: u32, j: u32) -> u32 {
    return (g * 7u + j * 13u) % 32u;
}

// Words that `put_ones(at, q)` touches: its while loop's trip count.
fn words_of(at: u32, q: u32) -> u32 {
    if (q == 0u) {
        return 0u;
    }
    return (at + q - 1u) / 32u - at / 32u + 1u;
}

// Set c bits from bit `at` (within one word) and return what the lane adds for it.
fn put_word(at: u32, c: u32, j: u32) -> u32 {
    let off = at % 32u;
    atomicOr(&sink[(at / 32u) % SINK], (0xffffffffu >> (32u - c)) << (32u - off - c));
    return (c * (j + 1u)) ^ at;
}

// q one bits from `at`, as the codec's put_ones: a while loop of per-lane length. No return.
fn put_ones(at0: u32, q0: u32, j: u32, acc: ptr<function, u32>) {
    var at = at0;
    var q = q0;
    while (q > 0u) {
        let c = min(q, 32u - at % 32u);
        *acc += put_word(at, c, j);
        at += c;
        q -= c;
    }
}

// The remedy: the same bits in n steps, n the same on every lane of the subgroup.
fn put_ones_uniform(at0: u32, q0: u32, j: u32, n: u32, acc: ptr<function, u32>) {
    var at = at0;
    var q = q0;
    for (var k = 0u; k < n; k++) {
        if (q > 0u) {
            let c = min(q, 32u - at % 32u);
            *acc += put_word(at, c, j);
            at += c;
            q -= c;
        }
    }
}

// The observation, right after the variant's loops.
fn observe(o: u32, acc: u32) {
    let lanes = subgroupAdd(1u);
    let top = subgroupMax(acc);
    let voters = ballot_count(subgroupBallot(true));
    out[o + F_ACC] = acc;
    out[o + F_ADD] = lanes;
    out[o + F_MAX] = top;
    out[o + F_BALLOT] = voters;
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) sg_id: u32,
) {
    let g = wg.x * WG_SIZE + local;
    let o = (VARIANT * INVOCATIONS + g) * FIELDS;
    for (var k = local; k < SINK; k += WG_SIZE) {
        atomicStore(&sink[k], 0u);
    }
    workgroupBarrier();
    out[o + F_LOCAL] = local;
    out[o + F_LANE] = lane;
    out[o + F_SIZE] = size;
    out[o + F_SG_ID] = sg_id;
    var acc = 0u;
    switch VARIANT {
        // (a) A loop of per-lane length with an early `continue` and a `break`.
        case 0u: {
            let t = input[g * PER];
            for (var i = 0u; i < t; i++) {
                let v = step_value(g, i);
                if (v % 7u == 0u) {
                    continue;
                }
                acc += v % 1000u;
                if (acc > BREAK_AT) {
                    break;
                }
            }
            observe(o, acc);
        }
        // (b) The codec's form: `for j < PER { if (per-lane) { while (q > 0) { .. } } }`.
        case 1u: {
            for (var j = 0u; j < PER; j++) {
                let q0 = input[g * PER + j];
                if ((q0 & 1u) == 1u) {
                    var at = start_bit(g, j);
                    var q = q0;
                    while (q > 0u) {
                        let c = min(q, 32u - at % 32u);
                        acc += put_word(at, c, j);
                        at += c;
                        q -= c;
                    }
                }
            }
            observe(o, acc);
        }
        // (c) A function with a divergent while loop, called in a uniform loop.
        case 2u: {
            for (var j = 0u; j < PER; j++) {
                put_ones(start_bit(g, j), input[g * PER + j] >> 1u, j, &acc);
            }
            observe(o, acc);
        }
        // (d) for (a): the trip count the subgroup's largest, taken before the loop.
        case 3u: {
            let t = input[g * PER];
            let n = subgroupMax(t);
            var going = true;
            for (var i = 0u; i < n; i++) {
                let v = step_value(g, i);
                if (going && i < t && v % 7u != 0u) {
                    acc += v % 1000u;
                    going = acc <= BREAK_AT;
                }
            }
            observe(o, acc);
        }
        // (d) for (b): the condition folded into the count, the count made uniform.
        case 4u: {
            for (var j = 0u; j < PER; j++) {
                let q0 = input[g * PER + j];
                let q = select(0u, q0, (q0 & 1u) == 1u);
                let at = start_bit(g, j);
                let n = subgroupMax(words_of(at, q));
                put_ones_uniform(at, q, j, n, &acc);
            }
            observe(o, acc);
        }
        // (d) for (c).
        case 5u: {
            for (var j = 0u; j < PER; j++) {
                let q = input[g * PER + j] >> 1u;
                let at = start_bit(g, j);
                let n = subgroupMax(words_of(at, q));
                put_ones_uniform(at, q, j, n, &acc);
            }
            observe(o, acc);
        }
        default: {}
    }
    // The bits keep the loops' atomics live; the host does not compare them.
    workgroupBarrier();
    out[o + F_SINK] = atomicLoad(&sink[local % SINK]);
}
