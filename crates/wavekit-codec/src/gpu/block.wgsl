// The block decoder: one workgroup a code block, the GPU twin of `cpu/block.rs`'s `decode`
// (the same bits, the same damage rules, the same integer reconstruction), writing the block's
// coefficients into its plane. The payload is first copied into workgroup memory. Bitstream
// version 3 makes every part of a plane parallel (ADR-0076): every invocation reads the
// plane's count c and parameter k, so the remainders and signs are at known places; one scan
// of the zeros of the quotients (one word an invocation) and of the remainders gives the j-th
// new sample its candidate rank `((z_j − j) << k) + Σ_{i ≤ j} rem_i + j` (z_j the offset of
// the j-th zero); the refinement bits follow the c-th zero. Invocation t owns samples
// PER·t .. PER·t + PER − 1 of the block (row-major) and keeps them in registers; other
// invocations mark the ones that become significant in `mark`. A damaged plane makes every
// later one a no-op (the scans still run: their barriers must be reached by all).
//
// Bindings: 0 the frame's bytes (packed four to a word, little-endian), 1 the block table
// (four words a block: coefficient index of its first sample with bit 31 the buffer (0 luma,
// 1 chroma), the plane's pitch, width | height << 16, the band's step), 2 the luma
// coefficients, 3 the chroma coefficients, 4 one word a block: 0 decoded, 1 damaged,
// 5 params: frame bytes, blocks, overhead (header and table bytes).
// Prepended: SATURATE (bool: each value clamped to −32768 ..= 32767 after its sign, as
// `Header::coefficients_saturate` says), C16 (bool: the coefficients are 16-bit, two to a
// word, element e in word e / 2, its low half where e is even).
#import subgroup/api
#import codec/scan
#import codec/read
#import codec/half

@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> luma: array<i32>;
@group(0) @binding(3) var<storage, read_write> chroma: array<i32>;
@group(0) @binding(4) var<storage, read_write> damaged: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;

const SAMPLES: u32 = 1024u;
const PER: u32 = SAMPLES / WG_SIZE;
const MAX_PLANES: u32 = 24u;
// Sample flags, above the 24 bits of the sent magnitude in `t_val`.
const SIGNIFICANT: u32 = 1u << 24u;
const NEGATIVE: u32 = 2u << 24u;
const NEWLY: u32 = 4u << 24u;
const T_MASK: u32 = 0xffffffu;
// Words of the payload held in workgroup memory: more than any payload the encoder writes
// (24 planes of at most 1049 bits, 1024 signs: 26200 bits); a damaged one that reads further
// reads the frame itself.
const WINDOW: u32 = 1024u;

var<workgroup> mark: array<u32, SAMPLES>;
var<workgroup> cand: array<u32, SAMPLES>;
// The bit position of each quotient's closing zero.
var<workgroup> zpos: array<u32, SAMPLES>;
// The payload's words from `w0`, bytes in stream order (the first byte in the top bits).
var<workgroup> win: array<u32, WINDOW>;
var<workgroup> sh_ok: u32;
var<workgroup> sh_bit: u32;
var<workgroup> sh_planes: u32;
var<workgroup> sh_sent: u32;
var<workgroup> sh_w0: u32;

// Word `i` of the frame in stream order (0 past its buffer), from the window where it holds it.
fn word(i: u32, w0: u32) -> u32 {
    // One comparison (i − w0 wraps when i < w0).
    let d = i - w0;
    if (d < WINDOW) {
        return win[d];
    }
    if (i < arrayLength(&frame)) {
        return swap(frame[i]);
    }
    return 0u;
}

// The 32 bits of the stream from bit b, the first in the top bit.
fn peek(b: u32, w0: u32) -> u32 {
    let s = b % 32u;
    let hi = word(b / 32u, w0);
    if (s == 0u) {
        return hi;
    }
    return (hi << s) | (word(b / 32u + 1u, w0) >> (32u - s));
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let block = wg.x + wg.y * nwg.x;
    let frame_len = params.x;
    let blocks = params.y;
    let overhead = params.z;
    if (block >= blocks) {
        return;
    }
    let entry = table[block];
    let bw = entry.z & 0xffffu;
    let bh = entry.z >> 16u;
    let len = bw * bh;
    let step = entry.w;
    let first = l.local * PER;
    var tv: array<u32, PER>;
    for (var j = 0u; j < PER; j++) {
        tv[j] = 0u;
        mark[first + j] = 0u;
    }
    if (l.local == 0u) {
        let at = 24u + 4u * block;
        let offset = byte_at(at) | (byte_at(at + 1u) << 8u) | (byte_at(at + 2u) << 16u)
            | (byte_at(at + 3u) << 24u);
        var ok = 0u;
        var planes = 0u;
        var sent = 0u;
        if (offset >= overhead && offset < frame_len) {
            if (offset + 1u < frame_len) {
                planes = byte_at(offset);
                sent = byte_at(offset + 1u);
                ok = select(0u, 1u, planes <= MAX_PLANES && sent <= planes);
            }
        }
        sh_ok = ok;
        sh_planes = planes;
        sh_sent = select(0u, sent, ok == 1u);
        // Bit positions count from the frame's start (it may be up to 2^29 bytes).
        sh_bit = (offset + 2u) * 8u;
        sh_w0 = (offset + 2u) / 4u;
    }
    let sent = workgroupUniformLoad(&sh_sent);
    let w0 = sh_w0;
    if (sent > 0u) {
        // The payload into workgroup memory, in stream order.
        for (var j = l.local; j < WINDOW; j += WG_SIZE) {
            var x = 0u;
            if (w0 + j < arrayLength(&frame)) {
                x = swap(frame[w0 + j]);
            }
            win[j] = x;
        }
    }
    workgroupBarrier();
    let end_bit = frame_len * 8u;
    var bit = sh_bit;
    var failed = false;
    for (var plane = 0u; plane < sent; plane++) {
        // The candidates (samples not yet significant) in order, and each significant
        // sample's rank, from one scan of both counts.
        var counts = 0u;
        for (var j = 0u; j < PER; j++) {
            if (first + j < len) {
                counts += select(1u << 16u, 1u, (tv[j] & SIGNIFICANT) == 0u);
            }
        }
        let before = wg_exclusive(counts, l);
        let cands = sh_wg_total & 0xffffu;
        let sigs = sh_wg_total >> 16u;
        var rank = before & 0xffffu;
        for (var j = 0u; j < PER; j++) {
            if (first + j < len && (tv[j] & SIGNIFICANT) == 0u) {
                cand[rank] = first + j;
                rank += 1u;
            }
        }
        // The plane's count c (Exp-Golomb) and parameter k, read alike by every invocation.
        var bad = failed;
        var b = bit;
        var c = 0u;
        var k = 0u;
        if (!bad) {
            let z = countLeadingZeros(peek(b, w0));
            if (z > 31u - countLeadingZeros(cands + 1u) || b + 2u * z + 1u > end_bit) {
                bad = true;
            } else {
                c = (peek(b + z, w0) >> (31u - z)) - 1u;
                b += 2u * z + 1u;
                if (c > cands) {
                    bad = true;
                    c = 0u;
                }
            }
        }
        if (c > 0u) {
            if (b + 4u > end_bit) {
                bad = true;
                c = 0u;
            } else {
                k = peek(b, w0) >> 28u;
                b += 4u;
            }
        }
        // The remainders at b, the signs after them, then the quotients: their c zeros lie in
        // the first `cands` bits (each run and its sample take a candidate). One scan counts
        // the zeros (one word an invocation) and sums the remainders (PER codes an
        // invocation, each sum capped at 1025: more is damage).
        let s0 = b + c * k;
        let q0 = s0 + c;
        var zeros = 0u;
        let lim = min(q0 + cands, end_bit);
        let zs = q0 + 32u * l.local;
        if (c > 0u && zs < lim) {
            zeros = ~peek(zs, w0);
            if (lim - zs < 32u) {
                zeros &= ~(0xffffffffu >> (lim - zs));
            }
        }
        var rems: array<u32, PER>;
        var rsum = 0u;
        for (var j = 0u; j < PER; j++) {
            let code = first + j;
            rems[j] = 0u;
            if (code < c && k > 0u) {
                rems[j] = peek(b + code * k, w0) >> (32u - k);
                rsum += rems[j];
            }
        }
        let pre = wg_exclusive(countOneBits(zeros) | (min(rsum, 1025u) << 11u), l);
        let ztot = sh_wg_total & 0x7ffu;
        let rtot = sh_wg_total >> 11u;
        if (ztot < c) {
            bad = true;
            c = 0u;
        }
        var zj = pre & 0x7ffu;
        while (zeros != 0u && zj < c) {
            let p = countLeadingZeros(zeros);
            zpos[zj] = zs + p - q0;
            zeros &= ~(0x80000000u >> p);
            zj += 1u;
        }
        workgroupBarrier();
        var f0 = q0;
        if (c > 0u) {
            let last = zpos[c - 1u];
            f0 = q0 + last + 1u;
            // The last new sample's candidate rank: past the candidates is damage.
            if (rtot > 1024u || ((last - (c - 1u)) << k) + rtot + c - 1u >= cands) {
                bad = true;
                c = 0u;
            }
        }
        let end = f0 + sigs;
        if (end > end_bit) {
            bad = true;
            c = 0u;
        }
        var rp = pre >> 11u;
        for (var j = 0u; j < PER; j++) {
            let code = first + j;
            if (code < c) {
                rp += rems[j];
                let at = ((zpos[code] - code) << k) + rp + code;
                let neg = peek(s0 + code, w0) >> 31u;
                mark[cand[at]] = NEWLY | select(0u, NEGATIVE, neg == 1u);
            }
        }
        workgroupBarrier();
        // The refinement pass: the plane's bit of every sample significant before it.
        if (!bad) {
            var sr = before >> 16u;
            for (var j = 0u; j < PER; j++) {
                let i = first + j;
                if (i < len) {
                    let f = tv[j];
                    var t = (f & T_MASK) << 1u;
                    var flags = f & ~T_MASK;
                    if ((f & SIGNIFICANT) != 0u) {
                        t |= peek(f0 + sr, w0) >> 31u;
                        sr += 1u;
                    } else {
                        let m = mark[i];
                        if (m != 0u) {
                            mark[i] = 0u;
                            t |= 1u;
                            flags |= SIGNIFICANT | (m & NEGATIVE);
                        }
                    }
                    tv[j] = flags | (t & T_MASK);
                }
            }
        }
        failed = bad;
        bit = end;
    }
    let ok = select(sh_ok, 0u, failed);
    let dropped = sh_planes - sh_sent;
    let base = entry.x & 0x7fffffffu;
    let pitch = entry.y;
    // With C16, the even sample of a pair waits for the odd one (PER is even, so both are this
    // invocation's; the block's width and first element are even, so both are in one row and
    // one word).
    var even = 0i;
    for (var j = 0u; j < PER; j++) {
        let i = first + j;
        if (i < len) {
            var v = 0i;
            let f = tv[j];
            if (ok == 1u) {
                v = reconstruct(f & T_MASK, dropped, step);
                if ((f & NEGATIVE) != 0u) {
                    v = -v;
                }
                if (SATURATE) {
                    v = clamp(v, -32768i, 32767i);
                }
            }
            var at = base + (i / bw) * pitch + i % bw;
            if (C16) {
                if (j % 2u == 0u) {
                    even = v;
                    continue;
                }
                v = pair16(even, v);
                at /= 2u;
            }
            if ((entry.x >> 31u) == 0u) {
                luma[at] = v;
            } else {
                chroma[at] = v;
            }
        }
    }
    if (l.local == 0u) {
        damaged[block] = 1u - ok;
    }
}
