// The block encoder: one workgroup a code block, the GPU twin of `cpu/block.rs` (`quantize`,
// `code`, `keys`): the same bits in the same places, every truncation's size, and each plane's
// rate-control key. Invocation t owns samples PER·t .. PER·t + PER − 1 of the block
// (row-major), in registers.
//
// Every plane at once (ADR-0076): a sample of magnitude m has b = bits(m) planes; it is a
// candidate in the planes at bits ≥ b − 1, becomes significant in the plane at bit b − 1 and is
// refined below it. So one vector scan of the samples' counts by b (25 bins, two to a word)
// gives every sample its candidate rank in the plane where it becomes significant, its index
// among that plane's new samples, and its rank among the significant samples of every plane
// below; the new samples, listed by (b, sample), give each run from its predecessor. Runs give
// each plane's Golomb–Rice costs (workgroup atomics), hence its k and size; one scan of the
// quotients over the list places them. Then every bit is or-ed into workgroup memory (the zeros
// are already there) and copied out. About a dozen barriers a block, where plane by plane
// needed nine a plane.
//
// Bindings: 0 the block table (as the decoder's), 1 the luma coefficients, 2 the chroma
// coefficients, 3 the blocks' bit strings (STRIDE words each, stream order: the first bit in a
// word's top bit), 4 the blocks' records (64 words each: [0] P, [1 + n] the bits of n planes
// for n = 0 ..= P, [26 + n − 1] the key of plane n for n = 1 ..= P), 5 params: blocks.
#import subgroup/api
#import codec/scan
#import codec/layout

@group(0) @binding(0) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> luma: array<i32>;
@group(0) @binding(2) var<storage, read> chroma: array<i32>;
@group(0) @binding(3) var<storage, read_write> bits: array<u32>;
@group(0) @binding(4) var<storage, read_write> records: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;

const SAMPLES: u32 = 1024u;
const PER: u32 = SAMPLES / WG_SIZE;
const CAP: u32 = 0xffffffu;
const NEG: u32 = 1u << 31u;
const M_MASK: u32 = 0xffffffu;
// Planes (bits of a magnitude: 0 ..= 24 a sample), and the words of a histogram by b (two
// 16-bit counts a word).
const PLANES: u32 = 24u;
const WORDS: u32 = 13u;

var<workgroup> out: array<atomic<u32>, STRIDE>;
// The new samples by (b, sample): first their candidate ranks, then run | b << 16, then the
// exclusive prefix of the quotients' bits over the list.
var<workgroup> listed: array<u32, SAMPLES>;
// Word w of invocation t at [w · WG_SIZE + t]: its samples, then (scanned) the samples before
// them, with b ≤ 2w (low half) and b ≤ 2w + 1 (high half).
var<workgroup> sh_ce: array<u32, WORDS * WG_SIZE>;
// The same for the whole block.
var<workgroup> sh_ct: array<u32, WORDS>;
// Σ (run >> p) of each plane (by bit) and parameter p.
var<workgroup> sh_cost: array<atomic<u32>, 384>;
// Each plane's error removed (Σ before² − after², wrapping).
var<workgroup> sh_dd: array<atomic<u32>, PLANES>;
// By bit: each plane's k, its quotients' bits, where it starts and where its refinement starts.
var<workgroup> sh_k: array<u32, PLANES>;
var<workgroup> sh_quot: array<u32, PLANES>;
var<workgroup> sh_start: array<u32, PLANES>;
var<workgroup> sh_f0: array<u32, PLANES>;
// The bits after n planes, n = 0 ..= P.
var<workgroup> sh_end: array<u32, 25>;
var<workgroup> sh_max: atomic<u32>;
var<workgroup> sh_planes: u32;

// n bits of v (n ≤ 32), most significant first, at bit `at`.
fn put_bits(at: u32, v: u32, n: u32) {
    if (n == 0u) {
        return;
    }
    let w = at / 32u;
    let off = at % 32u;
    if (off + n <= 32u) {
        atomicOr(&out[w], v << (32u - off - n));
    } else {
        let n1 = 32u - off;
        atomicOr(&out[w], v >> (n - n1));
        atomicOr(&out[w + 1u], v << (32u - (n - n1)));
    }
}

// q one bits at `at`.
fn put_ones(at0: u32, q0: u32) {
    var at = at0;
    var q = q0;
    while (q > 0u) {
        let c = min(q, 32u - at % 32u);
        put_bits(at, 0xffffffffu >> (32u - c), c);
        at += c;
        q -= c;
    }
}


fn err2(m: u32, s: u32) -> u32 {
    let t = m >> s;
    var r = 0u;
    if (t != 0u) {
        r = (2u * t + 1u) << s;
    }
    let x = 2u * m + 1u;
    return select(r - x, x - r, x >= r);
}

fn ilog(x: u32) -> u32 {
    let e = 31u - countLeadingZeros(x);
    var frac = 0u;
    if (e >= 5u) {
        frac = (x >> (e - 5u)) & 31u;
    } else {
        frac = (x << (5u - e)) & 31u;
    }
    return 32u * e + frac;
}

// Samples before invocation t with b ≤ y.
fn ce(t: u32, y: u32) -> u32 {
    return (sh_ce[(y / 2u) * WG_SIZE + t] >> (16u * (y % 2u))) & 0xffffu;
}

// Samples of the block with b ≤ y.
fn ct(y: u32) -> u32 {
    return (sh_ct[y / 2u] >> (16u * (y % 2u))) & 0xffffu;
}

// Samples of the block with b = x.
fn count_of(x: u32) -> u32 {
    if (x == 0u) {
        return ct(0u);
    }
    return ct(x) - ct(x - 1u);
}

// Where the new samples with b = x (≥ 1) start in the list.
fn list_start(x: u32) -> u32 {
    return ct(x - 1u) - ct(0u);
}

// Bits of an Exp-Golomb code of v.
fn eg_bits(v: u32) -> u32 {
    return 2u * (31u - countLeadingZeros(v + 1u)) + 1u;
}

// Bits of m: 0 for 0.
fn planes_of(m: u32) -> u32 {
    return 32u - countLeadingZeros(m);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let block = wg.x + wg.y * nwg.x;
    if (block >= params.x) {
        return;
    }
    let entry = table[block];
    let bw = entry.z & 0xffffu;
    let len = bw * (entry.z >> 16u);
    let step = max(entry.w, 1u);
    let base = entry.x & 0x7fffffffu;
    let t = l.local;
    let first = t * PER;
    var top = 0u;
    // This invocation's samples, in registers: magnitude | NEG.
    var mg: array<u32, PER>;
    for (var j = 0u; j < PER; j++) {
        let i = first + j;
        var m = 0u;
        if (i < len) {
            let at = base + (i / bw) * entry.y + i % bw;
            var c = 0i;
            if ((entry.x >> 31u) == 0u) {
                c = luma[at];
            } else {
                c = chroma[at];
            }
            let a = min(u32(abs(c)), 1u << 23u);
            m = min((a << 8u) / step, CAP);
            top = max(top, m);
            if (c < 0i) {
                m |= NEG;
            }
        }
        mg[j] = m;
    }
    // Its samples with b ≤ y, two counts a word.
    for (var w = 0u; w < WORDS; w++) {
        var v = 0u;
        for (var j = 0u; j < PER; j++) {
            if (first + j < len) {
                let x = planes_of(mg[j] & M_MASK);
                v += select(0u, 1u, x <= 2u * w) + select(0u, 1u << 16u, x <= 2u * w + 1u);
            }
        }
        sh_ce[w * WG_SIZE + t] = v;
    }
    for (var j = t; j < STRIDE; j += WG_SIZE) {
        atomicStore(&out[j], 0u);
    }
    for (var j = t; j < 384u; j += WG_SIZE) {
        atomicStore(&sh_cost[j], 0u);
    }
    if (t < PLANES) {
        atomicStore(&sh_dd[t], 0u);
    }
    if (t == 0u) {
        atomicStore(&sh_max, 0u);
    }
    workgroupBarrier();
    if (top != 0u) {
        atomicMax(&sh_max, top);
    }
    // The vector scan: the samples before each invocation's with b ≤ y, for every y.
    for (var w = 0u; w < WORDS; w++) {
        let e = wg_exclusive(sh_ce[w * WG_SIZE + t], l);
        sh_ce[w * WG_SIZE + t] = e;
        if (t == 0u) {
            sh_ct[w] = sh_wg_total;
        }
    }
    if (t == 0u) {
        sh_planes = planes_of(atomicLoad(&sh_max));
    }
    let planes = workgroupUniformLoad(&sh_planes);
    // Each new sample (b = x ≥ 1): its candidate rank in the plane at bit x − 1 (samples before
    // it with b ≤ x), its index among that plane's new samples (before it with b = x).
    var rank: array<u32, PER>;
    var index: array<u32, PER>;
    for (var j = 0u; j < PER; j++) {
        let x = planes_of(mg[j] & M_MASK);
        rank[j] = 0u;
        index[j] = 0u;
        if (first + j < len && x > 0u) {
            var le = ce(t, x);
            var same = le - ce(t, x - 1u);
            for (var jj = 0u; jj < j; jj++) {
                let xx = planes_of(mg[jj] & M_MASK);
                le += select(0u, 1u, xx <= x);
                same += select(0u, 1u, xx == x);
            }
            rank[j] = le;
            index[j] = same;
            listed[list_start(x) + same] = le;
        }
    }
    workgroupBarrier();
    // Runs from the predecessor in the list; the costs of every parameter.
    var runs: array<u32, PER>;
    for (var j = 0u; j < PER; j++) {
        let x = planes_of(mg[j] & M_MASK);
        runs[j] = 0u;
        if (first + j < len && x > 0u) {
            var prev = 0u;
            if (index[j] > 0u) {
                prev = listed[list_start(x) + index[j] - 1u] + 1u;
            }
            runs[j] = rank[j] - prev;
            var r = runs[j];
            var p = 0u;
            while (r != 0u) {
                atomicAdd(&sh_cost[(x - 1u) * 16u + p], r);
                r >>= 1u;
                p += 1u;
            }
        }
    }
    workgroupBarrier();
    for (var j = 0u; j < PER; j++) {
        let x = planes_of(mg[j] & M_MASK);
        if (first + j < len && x > 0u) {
            listed[list_start(x) + index[j]] = runs[j] | (x << 16u);
        }
    }
    // Each plane's parameter (the least cost, the lowest of equals) and its quotients' bits.
    if (t < planes) {
        let c = count_of(t + 1u);
        var k = 0u;
        var best = 0xffffffffu;
        for (var p = 0u; p < 16u; p++) {
            let cost = atomicLoad(&sh_cost[t * 16u + p]) + c * (1u + p);
            if (cost < best) {
                best = cost;
                k = p;
            }
        }
        sh_k[t] = k;
        // Quotients and their zeros: the cost less the remainders.
        sh_quot[t] = best - c * k;
    }
    workgroupBarrier();
    // Where each plane starts, top first, and its refinement (the samples with b > bit + 1).
    if (t == 0u) {
        let n_all = ct(PLANES);
        var at = 0u;
        sh_end[0] = 0u;
        for (var n = 0u; n < planes; n++) {
            let beta = planes - 1u - n;
            let c = count_of(beta + 1u);
            sh_start[beta] = at;
            at += eg_bits(c);
            if (c > 0u) {
                at += 4u + c * sh_k[beta] + c + sh_quot[beta];
            }
            sh_f0[beta] = at;
            at += n_all - ct(beta + 1u);
            sh_end[n + 1u] = at;
        }
    }
    // The quotients' places: one scan over the list (PER entries an invocation).
    var qsum = 0u;
    let news = ct(PLANES) - ct(0u);
    for (var j = 0u; j < PER; j++) {
        let s = first + j;
        if (s < news) {
            let e = listed[s];
            qsum += ((e & 0xffffu) >> sh_k[(e >> 16u) - 1u]) + 1u;
        }
    }
    var q = wg_exclusive(qsum, l);
    for (var j = 0u; j < PER; j++) {
        let s = first + j;
        if (s < news) {
            let e = listed[s];
            listed[s] = q;
            q += ((e & 0xffffu) >> sh_k[(e >> 16u) - 1u]) + 1u;
        }
    }
    workgroupBarrier();
    // Each plane's count and k, by the invocation of its bit.
    if (t < planes) {
        let c = count_of(t + 1u);
        let at = sh_start[t];
        let eg = eg_bits(c);
        put_bits(at + eg / 2u, c + 1u, eg / 2u + 1u);
        if (c > 0u) {
            put_bits(at + eg, sh_k[t], 4u);
        }
    }
    // Every sample's bits: where it becomes significant, its remainder, sign and quotient; in
    // every plane below, its refinement bit. And each plane's error removed.
    for (var j = 0u; j < PER; j++) {
        let i = first + j;
        let f = mg[j];
        let m = f & M_MASK;
        let x = planes_of(m);
        if (i < len && x > 0u) {
            let beta = x - 1u;
            let c = count_of(x);
            let k = sh_k[beta];
            let r0 = sh_start[beta] + eg_bits(c) + 4u;
            let s0 = r0 + c * k;
            let q0 = s0 + c;
            let r = runs[j];
            let rem = r & ((1u << k) - 1u);
            if (rem != 0u) {
                put_bits(r0 + index[j] * k, rem, k);
            }
            if ((f & NEG) != 0u) {
                put_bits(s0 + index[j], 1u, 1u);
            }
            let ls = list_start(x);
            put_ones(q0 + listed[ls + index[j]] - listed[ls], r >> k);
            // Refinement: in the plane at bit β' < β, this sample's rank among the
            // significant (b > β' + 1) samples: the samples before it less those with
            // b ≤ β' + 1.
            for (var bb = 0u; bb < beta; bb++) {
                if (((m >> bb) & 1u) == 1u) {
                    var le = ce(t, bb + 1u);
                    for (var jj = 0u; jj < j; jj++) {
                        le += select(0u, 1u, planes_of(mg[jj] & M_MASK) <= bb + 1u);
                    }
                    put_bits(sh_f0[bb] + i - le, 1u, 1u);
                }
            }
            for (var y = 0u; y < x; y++) {
                let sh = select(0u, y - 8u, y > 8u);
                let e_b = err2(m, y + 1u) >> sh;
                let e_a = err2(m, y) >> sh;
                let d = e_b * e_b - e_a * e_a;
                if (d != 0u) {
                    atomicAdd(&sh_dd[y], d);
                }
            }
        }
    }
    workgroupBarrier();
    let rec = block * RECORD;
    if (t == 0u) {
        records[rec] = planes;
        records[rec + 1u] = 0u;
        var low = KEY_BINS - 1u;
        for (var n = 0u; n < planes; n++) {
            let beta = planes - 1u - n;
            let sh = select(0u, beta - 8u, beta > 8u);
            let d = bitcast<i32>(atomicLoad(&sh_dd[beta]));
            let dr = bytes_of(sh_end[n + 1u]) - bytes_of(sh_end[n]);
            var key = 1u;
            if (d > 0i) {
                if (dr == 0u) {
                    key = KEY_BINS - 1u;
                } else {
                    let up = ilog(u32(d)) + 64u * sh + 416u;
                    let down = ilog(dr);
                    key = clamp(select(0u, up - down, up > down), 1u, KEY_BINS - 1u);
                }
            }
            low = min(low, key);
            records[rec + 1u + n + 1u] = sh_end[n + 1u];
            records[rec + 26u + n] = low;
        }
    }
    let words = (sh_end[planes] + 31u) / 32u;
    for (var j = t; j < words; j += WG_SIZE) {
        bits[block * STRIDE + j] = atomicLoad(&out[j]);
    }
}
