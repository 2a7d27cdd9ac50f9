// The block encoder: one workgroup a code block, the GPU twin of `cpu/block.rs` (`quantize`,
// `code`, `keys`): the same bits in the same places, every truncation's size, and each plane's
// rate-control key. Invocation t owns samples 4t .. 4t + 3 of the block (row-major). Plane by
// plane, scans over the workgroup give each newly significant sample its run and each code and
// refinement bit its place; the bits are or-ed into workgroup memory, then copied out.
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
const SIG: u32 = 1u << 30u;
const NEG: u32 = 1u << 31u;
const M_MASK: u32 = 0xffffffu;

var<workgroup> mag: array<u32, SAMPLES>;
var<workgroup> nr: array<u32, SAMPLES>;
var<workgroup> out: array<atomic<u32>, STRIDE>;
var<workgroup> sh_cost: array<atomic<u32>, 16>;
var<workgroup> sh_before: atomic<u32>;
var<workgroup> sh_after: atomic<u32>;
var<workgroup> sh_max: atomic<u32>;
var<workgroup> sh_k: u32;
var<workgroup> sh_pos: u32;
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

// Golomb–Rice code of v, parameter k, at `at`; returns the bit after it.
fn put_rice(at: u32, v: u32, k: u32) -> u32 {
    put_ones(at, v >> k);
    let after = at + (v >> k) + 1u;
    put_bits(after, v & ((1u << k) - 1u), k);
    return after + k;
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
    for (var j = 0u; j < PER; j++) {
        let i = l.local * PER + j;
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
        mag[i] = m;
    }
    for (var j = l.local; j < STRIDE; j += WG_SIZE) {
        atomicStore(&out[j], 0u);
    }
    if (l.local == 0u) {
        atomicStore(&sh_max, 0u);
        atomicStore(&sh_before, 0u);
        atomicStore(&sh_after, 0u);
        for (var p = 0u; p < 16u; p++) {
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
        sh_pos = 0u;
    }
    let planes = workgroupUniformLoad(&sh_planes);
    let rec = block * RECORD;
    var low = KEY_BINS - 1u;
    var pos = 0u;
    for (var plane = 0u; plane < planes; plane++) {
        let bit = planes - 1u - plane;
        // Candidates (not yet significant) and the newly significant among them.
        var n_cand = 0u;
        var n_new = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mag[i];
            if (i < len && (f & SIG) == 0u) {
                n_cand += 1u;
                if (((f & M_MASK) >> bit) & 1u) == 1u {
                    n_new += 1u;
                }
            }
        }
        let cand0 = wg_exclusive(n_cand, l);
        let cands = sh_wg_total;
        let new0 = wg_exclusive(n_new, l);
        let news = sh_wg_total;
        // Each newly significant sample's candidate rank, by its rank among the new.
        var cr = cand0;
        var nk = new0;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mag[i];
            if (i < len && (f & SIG) == 0u) {
                if (((f & M_MASK) >> bit) & 1u) == 1u {
                    nr[nk] = cr;
                    nk += 1u;
                }
                cr += 1u;
            }
        }
        workgroupBarrier();
        var tail = cands;
        if (news > 0u) {
            tail = cands - (nr[news - 1u] + 1u);
        }
        let tail_sent = tail > 0u || news == 0u;
        // Runs, and Σ (run >> p) for every parameter p.
        var runs: array<u32, PER>;
        var sums: array<u32, 16>;
        for (var p = 0u; p < 16u; p++) {
            sums[p] = 0u;
        }
        nk = new0;
        cr = cand0;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mag[i];
            runs[j] = 0u;
            if (i < len && (f & SIG) == 0u) {
                if (((f & M_MASK) >> bit) & 1u) == 1u {
                    var prev = 0u;
                    if (nk > 0u) {
                        prev = nr[nk - 1u] + 1u;
                    }
                    let r = cr - prev;
                    runs[j] = r;
                    for (var p = 0u; p < 16u; p++) {
                        sums[p] += r >> p;
                    }
                    nk += 1u;
                }
                cr += 1u;
            }
        }
        if (sums[0] != 0u) {
            for (var p = 0u; p < 16u; p++) {
                if (sums[p] != 0u) {
                    atomicAdd(&sh_cost[p], sums[p]);
                }
            }
        }
        workgroupBarrier();
        if (l.local == 0u) {
            var best = 0u;
            var best_cost = 0xffffffffu;
            for (var p = 0u; p < 16u; p++) {
                var c = atomicLoad(&sh_cost[p]) + news * (1u + p);
                if (tail_sent) {
                    c += (tail >> p) + 1u + p;
                }
                if (c < best_cost) {
                    best_cost = c;
                    best = p;
                }
                atomicStore(&sh_cost[p], 0u);
            }
            sh_k = best;
        }
        let k = workgroupUniformLoad(&sh_k);
        // Places: the codes of the new samples in order, the tail, the refinement bits.
        var code_bits = 0u;
        var ref_bits = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mag[i];
            if (i < len && (f & SIG) == 0u && (((f & M_MASK) >> bit) & 1u) == 1u) {
                code_bits += (runs[j] >> k) + 2u + k;
            }
            if (i < len && (f & SIG) != 0u) {
                ref_bits += 1u;
            }
        }
        var code_at = wg_exclusive(code_bits, l);
        let codes = sh_wg_total;
        var ref_at = wg_exclusive(ref_bits, l);
        let refs = sh_wg_total;
        var tail_bits = 0u;
        if (tail_sent) {
            tail_bits = (tail >> k) + 1u + k;
        }
        let first = pos + 4u;
        let refine = first + codes + tail_bits;
        if (l.local == 0u) {
            put_bits(pos, k, 4u);
            if (tail_sent) {
                _ = put_rice(first + codes, tail, k);
            }
        }
        var before = 0u;
        var after = 0u;
        let sh = select(0u, bit - 8u, bit > 8u);
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            let f = mag[i];
            let m = f & M_MASK;
            if (i < len) {
                if ((f & SIG) != 0u) {
                    put_bits(refine + ref_at, (m >> bit) & 1u, 1u);
                    ref_at += 1u;
                } else if (((m >> bit) & 1u) == 1u) {
                    let e = put_rice(first + code_at, runs[j], k);
                    put_bits(e, select(0u, 1u, (f & NEG) != 0u), 1u);
                    code_at += (runs[j] >> k) + 2u + k;
                    mag[i] = f | SIG;
                }
                let b = err2(m, bit + 1u) >> sh;
                let a = err2(m, bit) >> sh;
                before += b * b;
                after += a * a;
            }
        }
        if (before != 0u || after != 0u) {
            atomicAdd(&sh_before, before);
            atomicAdd(&sh_after, after);
        }
        workgroupBarrier();
        let end = refine + refs;
        if (l.local == 0u) {
            let dd = bitcast<i32>(atomicLoad(&sh_before) - atomicLoad(&sh_after));
            atomicStore(&sh_before, 0u);
            atomicStore(&sh_after, 0u);
            let dr = bytes_of(end) - bytes_of(pos);
            var key = 1u;
            if (dd > 0i) {
                if (dr == 0u) {
                    key = KEY_BINS - 1u;
                } else {
                    let up = ilog(u32(dd)) + 64u * sh + 416u;
                    let down = ilog(dr);
                    key = clamp(select(0u, up - down, up > down), 1u, KEY_BINS - 1u);
                }
            }
            low = min(low, key);
            records[rec + 1u + plane + 1u] = end;
            records[rec + 26u + plane] = low;
            sh_pos = end;
        }
        pos = workgroupUniformLoad(&sh_pos);
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
