// The block decoder: one workgroup a code block, the GPU twin of `cpu/block.rs`'s `decode`
// (the same bits read in the same order, the same damage rules, the same integer
// reconstruction), writing the block's coefficients into its plane. The payload is first
// copied into workgroup memory. A payload's significance pass is a chain of variable-length
// codes, so one invocation parses it (a code's unary part counted 32 bits at a time); the
// candidate list before it and the refinement pass after it (each bit at a place a scan gives)
// take the whole workgroup. Invocation t owns samples 4t .. 4t + 3 of the block (row-major).
//
// Bindings: 0 the frame's bytes (packed four to a word, little-endian), 1 the block table
// (four words a block: coefficient index of its first sample with bit 31 the buffer (0 luma,
// 1 chroma), the plane's pitch, width | height << 16, the band's step), 2 the luma
// coefficients, 3 the chroma coefficients, 4 one word a block: 0 decoded, 1 damaged,
// 5 params: frame bytes, blocks, overhead (header and table bytes).
#import subgroup/api
#import codec/scan

@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> luma: array<i32>;
@group(0) @binding(3) var<storage, read_write> chroma: array<i32>;
@group(0) @binding(4) var<storage, read_write> damaged: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;

const SAMPLES: u32 = 1024u;
const PER: u32 = SAMPLES / WG_SIZE;
const MAX_PLANES: u32 = 24u;
const RICE_BITS: u32 = 4u;
// Sample flags, above the 24 bits of the sent magnitude in `t_val`.
const SIGNIFICANT: u32 = 1u << 24u;
const NEGATIVE: u32 = 2u << 24u;
const NEWLY: u32 = 4u << 24u;
const T_MASK: u32 = 0xffffffu;
// Words of the payload held in workgroup memory: more than any payload the encoder writes
// (24 planes of 1029 bits and 1024 signs: 3217 bytes); a damaged one that reads further reads
// the frame itself.
const WINDOW: u32 = 1024u;

var<workgroup> t_val: array<u32, SAMPLES>;
var<workgroup> cand: array<u32, SAMPLES>;
// The payload's words from `w0`, bytes in stream order (the first byte in the top bits).
var<workgroup> win: array<u32, WINDOW>;
// The parse's state, read back by every invocation with workgroupUniformLoad.
var<workgroup> sh_ok: u32;
var<workgroup> sh_bit: u32;
var<workgroup> sh_planes: u32;
var<workgroup> sh_sent: u32;
var<workgroup> sh_w0: u32;
var<workgroup> sh_bad: atomic<u32>;

fn byte_at(i: u32) -> u32 {
    return (frame[i / 4u] >> (8u * (i % 4u))) & 0xffu;
}

fn swap(x: u32) -> u32 {
    return (x << 24u) | ((x & 0xff00u) << 8u) | ((x >> 8u) & 0xff00u) | (x >> 24u);
}

// Word `i` of the frame in stream order (0 past its end), from the window where it holds it.
fn word(i: u32, w0: u32) -> u32 {
    if (i >= w0 && i - w0 < WINDOW) {
        return win[i - w0];
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

// The parser's reader (invocation 0 only). Any failure (bits past the frame's end, a run past
// the block) damages the block, as in the CPU's reader: which one does not matter.
var<private> rd_bit: u32;
var<private> rd_end: u32;
var<private> rd_w0: u32;
var<private> rd_fail: bool;

fn get_bits(n: u32) -> u32 {
    if (n == 0u) {
        return 0u;
    }
    if (rd_end - rd_bit < n) {
        rd_fail = true;
        return 0u;
    }
    let v = peek(rd_bit, rd_w0) >> (32u - n);
    rd_bit += n;
    return v;
}

// A Golomb–Rice value of parameter k that may not exceed `most`: the ones of its quotient
// counted 32 at a time.
fn get_rice(k: u32, most: u32) -> u32 {
    var q = 0u;
    let limit = most >> k;
    loop {
        let ones = countLeadingZeros(~peek(rd_bit, rd_w0));
        if (ones >= rd_end - rd_bit) {
            // No zero before the frame's end.
            rd_fail = true;
            return 0u;
        }
        q += ones;
        rd_bit += ones;
        if (q > limit) {
            rd_fail = true;
            return 0u;
        }
        if (ones < 32u) {
            rd_bit += 1u;
            break;
        }
    }
    let v = (q << k) | get_bits(k);
    if (v > most) {
        rd_fail = true;
    }
    return v;
}

fn reconstruct(t: u32, dropped: u32, step: u32) -> i32 {
    if (t == 0u) {
        return 0i;
    }
    // Shifts of 32 or more would be undefined: the CPU's wrapping_shl takes the amount mod 32.
    let v = ((t * 2u) | 1u) << (dropped % 32u);
    return i32((v * step) >> 9u);
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
    for (var j = 0u; j < PER; j++) {
        t_val[l.local * PER + j] = 0u;
    }
    if (l.local == 0u) {
        atomicStore(&sh_bad, 0u);
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
    let end_bit = frame_len * 8u;
    for (var plane = 0u; plane < sent; plane++) {
        // The candidates: samples not yet significant, in order.
        var mine = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            mine += select(0u, 1u, i < len && (t_val[i] & SIGNIFICANT) == 0u);
        }
        var at = wg_exclusive(mine, l);
        let cands = sh_wg_total;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            if (i < len && (t_val[i] & SIGNIFICANT) == 0u) {
                cand[at] = i;
                at += 1u;
            }
        }
        workgroupBarrier();
        // The significance pass, serially.
        if (l.local == 0u && sh_ok == 1u) {
            rd_bit = sh_bit;
            rd_end = end_bit;
            rd_w0 = w0;
            rd_fail = false;
            let k = get_bits(RICE_BITS);
            var pos = 0u;
            loop {
                if (rd_fail) {
                    break;
                }
                let left = cands - pos;
                if (pos > 0u && left == 0u) {
                    break;
                }
                let run = get_rice(k, left);
                if (rd_fail || run == left) {
                    break;
                }
                let i = cand[pos + run];
                let neg = get_bits(1u);
                t_val[i] |= NEWLY | select(0u, NEGATIVE, neg == 1u);
                pos += run + 1u;
            }
            sh_ok = select(1u, 0u, rd_fail);
            sh_bit = rd_bit;
        }
        let ok = workgroupUniformLoad(&sh_ok);
        if (ok == 0u) {
            break;
        }
        // The refinement pass: the plane's bit of every sample significant before it.
        var sig = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            sig += select(0u, 1u, i < len && (t_val[i] & SIGNIFICANT) != 0u);
        }
        var rank = wg_exclusive(sig, l);
        let total = sh_wg_total;
        let first = sh_bit;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            if (i < len) {
                let f = t_val[i];
                var t = (f & T_MASK) << 1u;
                var flags = f & ~T_MASK;
                if ((f & SIGNIFICANT) != 0u) {
                    let b = first + rank;
                    rank += 1u;
                    if (b >= end_bit) {
                        atomicStore(&sh_bad, 1u);
                    } else {
                        t |= (word(b / 32u, w0) >> (31u - b % 32u)) & 1u;
                    }
                } else if ((f & NEWLY) != 0u) {
                    t |= 1u;
                    flags = (flags & ~NEWLY) | SIGNIFICANT;
                }
                t_val[i] = flags | (t & T_MASK);
            }
        }
        workgroupBarrier();
        if (l.local == 0u) {
            sh_bit = first + total;
            if (atomicLoad(&sh_bad) != 0u) {
                sh_ok = 0u;
            }
        }
        let still = workgroupUniformLoad(&sh_ok);
        if (still == 0u) {
            break;
        }
    }
    let ok = workgroupUniformLoad(&sh_ok);
    let dropped = sh_planes - sh_sent;
    let base = entry.x & 0x7fffffffu;
    let pitch = entry.y;
    for (var j = 0u; j < PER; j++) {
        let i = l.local * PER + j;
        if (i < len) {
            var v = 0i;
            let f = t_val[i];
            if (ok == 1u) {
                v = reconstruct(f & T_MASK, dropped, step);
                if ((f & NEGATIVE) != 0u) {
                    v = -v;
                }
            }
            let at = base + (i / bw) * pitch + i % bw;
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
