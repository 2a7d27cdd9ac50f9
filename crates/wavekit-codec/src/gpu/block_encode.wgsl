// The block encoder: one workgroup a code block, the GPU twin of `cpu/block.rs` (`quantize`,
// `code`, `keys`): the same bits in the same places, every truncation's size, and each plane's
// rate-control key. Invocation t owns samples PER·t .. PER·t + PER − 1 of the block
// (row-major), in registers. Plane by plane (bitstream version 3): one scan of the candidates
// and new samples gives each new sample its run, its remainder's and sign's places and each
// refinement bit's; a second scan places the quotients; the one bits are or-ed into workgroup
// memory (the zeros are already there), then copied out.
//
// Bindings: 0 the block table (as the decoder's), 1 the luma coefficients, 2 the chroma
// coefficients, 3 the blocks' bit strings (STRIDE words each, stream order: the first bit in a
// word's top bit), 4 the blocks' records (64 words each: [0] P, [1 + n] the bits of n planes
// for n = 0 ..= P, [26 + n − 1] the key of plane n for n = 1 ..= P), 5 params: blocks, 6 the rate control's histogram of the planes' bytes by
// key (each plane's added as it is coded).
// Prepended: C16 (bool: the coefficients are 16-bit, two to a word; `half16`).
#import subgroup/api
#import codec/scan
#import codec/layout
#import codec/bits
#import codec/half

@group(0) @binding(0) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> luma: array<i32>;
@group(0) @binding(2) var<storage, read> chroma: array<i32>;
@group(0) @binding(3) var<storage, read_write> bits: array<u32>;
@group(0) @binding(4) var<storage, read_write> records: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;
// The rate control's histogram of the planes' bytes by key (KEY_BINS words, cleared before).
@group(0) @binding(6) var<storage, read_write> hist: array<atomic<u32>>;

const SAMPLES: u32 = 1024u;
const PER: u32 = SAMPLES / WG_SIZE;
const CAP: u32 = 0xffffffu;
const SIG: u32 = 1u << 30u;
const NEG: u32 = 1u << 31u;
const M_MASK: u32 = 0xffffffu;

var<workgroup> nr: array<u32, SAMPLES>;
var<workgroup> out: array<atomic<u32>, STRIDE>;
// Two halves, used by alternate planes, so that one is cleared while the other is summed.
var<workgroup> sh_cost: array<atomic<u32>, 32>;
var<workgroup> sh_before: array<atomic<u32>, 2>;
var<workgroup> sh_after: array<atomic<u32>, 2>;
var<workgroup> sh_max: atomic<u32>;
var<workgroup> sh_planes: u32;

// q one bits at `at`.
fn put_ones(at0: u32, q0: u32) {
    var at = at0;
    var q = q0;
    while (q > 0u) {
        let c = min(q, 32u - at % 32u);
        put_bits(0u, at, 0xffffffffu >> (32u - c), c);
        at += c;
        q -= c;
    }
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
    var top = 0u;
    // This invocation's samples, in registers: magnitude | SIG | NEG.
    var mg: array<u32, PER>;
    for (var j = 0u; j < PER; j++) {
        let i = l.local * PER + j;
        var m = 0u;
        if (i < len) {
            let at = base + (i / bw) * entry.y + i % bw;
            // With C16, coefficient `at` is a half of word at / 2.
            let word = select(at, at / 2u, C16);
            var c = 0i;
            if ((entry.x >> 31u) == 0u) {
                c = luma[word];
            } else {
                c = chroma[word];
            }
            if (C16) {
                c = half16(c, at);
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
    for (var j = l.local; j < STRIDE; j += WG_SIZE) {
        atomicStore(&out[j], 0u);
    }
    if (l.local == 0u) {
        atomicStore(&sh_max, 0u);
        for (var p = 0u; p < 2u; p++) {
            atomicStore(&sh_before[p], 0u);
            atomicStore(&sh_after[p], 0u);
        }
        for (var p = 0u; p < 32u; p++) {
            atomicStore(&sh_cost[p], 0u);
        }
    }
    workgroupBarrier();
    // Workgroup atomics from every invocation, not subgroup reductions: on the H200 the
    // subgroup sums after this kernel's divergent loops came out wrong (ADR-0070).
    if (top != 0u) {
        atomicMax(&sh_max, top);
    }
    workgroupBarrier();
    if (l.local == 0u) {
        let mx = atomicLoad(&sh_max);
        sh_planes = select(0u, 32u - countLeadingZeros(mx), mx != 0u);
    }
    let planes = workgroupUniformLoad(&sh_planes);
    let rec = block * RECORD;
    var low = KEY_BINS - 1u;
    var pos = 0u;
    // Samples of the block before this invocation's.
    let mine0 = min(l.local * PER, len);
    for (var plane = 0u; plane < planes; plane++) {
        let bit = planes - 1u - plane;
        let parity = plane % 2u;
        // Candidates (not yet significant) and the new samples among them, in one scan.
        var counts = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mg[j];
            if (i < len && (f & SIG) == 0u) {
                counts += 1u + (((f >> bit) & 1u) << 16u);
            }
        }
        let before = wg_exclusive(counts, l);
        let cands = sh_wg_total & 0xffffu;
        let news = sh_wg_total >> 16u;
        let cand0 = before & 0xffffu;
        let new0 = before >> 16u;
        // Each new sample's candidate rank, by its rank among the new.
        var cr = cand0;
        var nk = new0;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mg[j];
            if (i < len && (f & SIG) == 0u) {
                if (((f >> bit) & 1u) == 1u) {
                    nr[nk] = cr;
                    nk += 1u;
                }
                cr += 1u;
            }
        }
        workgroupBarrier();
        // Runs, and Σ (run >> p) for every parameter p.
        var runs: array<u32, PER>;
        var sums: array<u32, 16>;
        for (var p = 0u; p < 16u; p++) {
            sums[p] = 0u;
        }
        nk = new0;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mg[j];
            runs[j] = 0u;
            if (i < len && (f & SIG) == 0u && ((f >> bit) & 1u) == 1u) {
                var prev = 0u;
                if (nk > 0u) {
                    prev = nr[nk - 1u] + 1u;
                }
                let r = nr[nk] - prev;
                runs[j] = r;
                for (var p = 0u; p < 16u; p++) {
                    sums[p] += r >> p;
                }
                nk += 1u;
            }
        }
        if (sums[0] != 0u) {
            for (var p = 0u; p < 16u; p++) {
                if (sums[p] != 0u) {
                    atomicAdd(&sh_cost[parity * 16u + p], sums[p]);
                }
            }
        }
        workgroupBarrier();
        // The parameter that costs least (the lowest of equals), chosen alike by everyone; the
        // other half of the costs is cleared for the next plane (its last readers are done).
        var k = 0u;
        var best = 0xffffffffu;
        for (var p = 0u; p < 16u; p++) {
            let c = atomicLoad(&sh_cost[parity * 16u + p]) + news * (1u + p);
            if (c < best) {
                best = c;
                k = p;
            }
        }
        if (l.local < 16u) {
            atomicStore(&sh_cost[(1u - parity) * 16u + l.local], 0u);
        }
        // Places: the count, k, the remainders, the signs, the quotients, the refinement.
        var unary = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mg[j];
            if (i < len && (f & SIG) == 0u && ((f >> bit) & 1u) == 1u) {
                unary += (runs[j] >> k) + 1u;
            }
        }
        var q_at = wg_exclusive(unary, l);
        let quotients = sh_wg_total;
        let eg = 2u * (31u - countLeadingZeros(news + 1u)) + 1u;
        var u0 = pos + eg;
        if (news > 0u) {
            u0 += 4u;
        }
        let r0 = u0;
        let s0 = r0 + news * k;
        let q0 = s0 + news;
        let f0 = q0 + quotients;
        let end = f0 + (len - cands);
        if (l.local == 0u) {
            // Exp-Golomb: eg / 2 zeros, then news + 1 in eg / 2 + 1 bits.
            put_bits(0u, pos + eg / 2u, news + 1u, eg / 2u + 1u);
            if (news > 0u) {
                put_bits(0u, pos + eg, k, 4u);
            }
        }
        var before_e = 0u;
        var after_e = 0u;
        let sh = select(0u, bit - 8u, bit > 8u);
        var ref_at = f0 + (mine0 - cand0);
        nk = new0;
        q_at += q0;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mg[j];
            let m = f & M_MASK;
            if (i < len) {
                if ((f & SIG) != 0u) {
                    if (((m >> bit) & 1u) == 1u) {
                        put_bits(0u, ref_at, 1u, 1u);
                    }
                    ref_at += 1u;
                } else if (((m >> bit) & 1u) == 1u) {
                    let r = runs[j];
                    put_ones(q_at, r >> k);
                    q_at += (r >> k) + 1u;
                    let rem = r & ((1u << k) - 1u);
                    if (rem != 0u) {
                        put_bits(0u, r0 + nk * k, rem, k);
                    }
                    if ((f & NEG) != 0u) {
                        put_bits(0u, s0 + nk, 1u, 1u);
                    }
                    nk += 1u;
                    mg[j] = f | SIG;
                }
                let b = err2(m >> sh, bit + 1u - sh);
                let a = err2(m >> sh, bit - sh);
                before_e += b * b;
                after_e += a * a;
            }
        }
        if (before_e != 0u || after_e != 0u) {
            atomicAdd(&sh_before[parity], before_e);
            atomicAdd(&sh_after[parity], after_e);
        }
        workgroupBarrier();
        if (l.local == 0u) {
            let dd = bitcast<i32>(atomicLoad(&sh_before[parity]) - atomicLoad(&sh_after[parity]));
            atomicStore(&sh_before[parity], 0u);
            atomicStore(&sh_after[parity], 0u);
            low = min(low, plane_key(dd, bytes_of(end) - bytes_of(pos), sh));
            records[rec + 1u + plane + 1u] = end;
            records[rec + 26u + plane] = low;
            atomicAdd(&hist[low], bytes_of(end) - bytes_of(pos));
        }
        pos = end;
    }
    if (l.local == 0u) {
        records[rec] = planes;
        records[rec + 1u] = 0u;
    }
    workgroupBarrier();
    let words = (pos + 31u) / 32u;
    for (var j = l.local; j < words; j += WG_SIZE) {
        bits[block * STRIDE + j] = atomicLoad(&out[j]);
    }
}
