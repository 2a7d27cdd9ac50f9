// The block decoder: one workgroup a code block, the GPU twin of `cpu/block.rs`'s `decode`
// (the same bits read in the same order, the same damage rules, the same integer
// reconstruction), writing the block's coefficients into its plane. A payload's significance
// pass is a chain of variable-length codes, so one invocation parses it; the candidate list
// before it and the refinement pass after it (each bit at a place a scan gives) take the whole
// workgroup. Invocation t owns samples 4t .. 4t + 3 of the block (row-major).
//
// Bindings: 0 the frame's bytes (packed four to a word, little-endian), 1 the block table
// (four words a block: coefficient index of its first sample with bit 31 the buffer (0 luma,
// 1 chroma), the plane's pitch, width | height << 16, the band's step), 2 the luma
// coefficients, 3 the chroma coefficients, 4 one word a block: 0 decoded, 1 damaged,
// 5 params: frame bytes, blocks, overhead (header and table bytes).
#import subgroup/api
#import workgroup/scan

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
// Sample flags.
const SIGNIFICANT: u32 = 1u;
const NEGATIVE: u32 = 2u;
const NEWLY: u32 = 4u;

var<workgroup> t_val: array<u32, SAMPLES>;
var<workgroup> flags: array<u32, SAMPLES>;
var<workgroup> cand: array<u32, SAMPLES>;
// The parse's state, read back by every invocation with workgroupUniformLoad.
var<workgroup> sh_ok: u32;
var<workgroup> sh_bit: u32;
var<workgroup> sh_planes: u32;
var<workgroup> sh_sent: u32;
var<workgroup> sh_cands: u32;
var<workgroup> sh_sig: u32;
var<workgroup> sh_bad: atomic<u32>;

fn byte_at(i: u32) -> u32 {
    return (frame[i / 4u] >> (8u * (i % 4u))) & 0xffu;
}

// The parser's reader (invocation 0 only): bit `sh_bit` of the frame, or past its end.
var<private> rd_bit: u32;
var<private> rd_end: u32;
var<private> rd_fail: u32;

const OK: u32 = 0u;
const TRUNCATED: u32 = 1u;
const BAD: u32 = 2u;

fn get_bit() -> u32 {
    if (rd_bit >= rd_end) {
        rd_fail = TRUNCATED;
        return 0u;
    }
    let b = (byte_at(rd_bit / 8u) >> (7u - rd_bit % 8u)) & 1u;
    rd_bit += 1u;
    return b;
}

fn get_bits(n: u32) -> u32 {
    var v = 0u;
    for (var i = 0u; i < n; i++) {
        v = (v << 1u) | get_bit();
    }
    return v;
}

// A Golomb–Rice value of parameter k that may not exceed `most`.
fn get_rice(k: u32, most: u32) -> u32 {
    var q = 0u;
    loop {
        let b = get_bit();
        if (rd_fail != OK || b == 0u) {
            break;
        }
        q += 1u;
        if (q > (most >> k)) {
            rd_fail = BAD;
            return 0u;
        }
    }
    let v = (q << k) | get_bits(k);
    if (rd_fail == OK && v > most) {
        rd_fail = BAD;
    }
    return v;
}

// Exclusive prefix of `v` over the workgroup's invocations; the total is in sh_wg_total.
fn wg_exclusive(v: u32, l: Lane) -> u32 {
    let incl = sg_inclusive(v, l.lane, l.size);
    let excl = sg_exclusive(v, incl, l.lane);
    return wg_exclusive_of_subgroups(sg_last(incl, l.size), l) + excl;
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
        let i = l.local * PER + j;
        t_val[i] = 0u;
        flags[i] = 0u;
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
    }
    let sent = workgroupUniformLoad(&sh_sent);
    let end_bit = frame_len * 8u;
    for (var plane = 0u; plane < sent; plane++) {
        // The candidates: samples not yet significant, in order.
        var mine = 0u;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            mine += select(0u, 1u, i < len && (flags[i] & SIGNIFICANT) == 0u);
        }
        var at = wg_exclusive(mine, l);
        let cands = sh_wg_total;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            if (i < len && (flags[i] & SIGNIFICANT) == 0u) {
                cand[at] = i;
                at += 1u;
            }
        }
        workgroupBarrier();
        // The significance pass, serially.
        if (l.local == 0u && sh_ok == 1u) {
            rd_bit = sh_bit;
            rd_end = end_bit;
            rd_fail = OK;
            let k = get_bits(RICE_BITS);
            var pos = 0u;
            loop {
                if (rd_fail != OK) {
                    break;
                }
                let left = cands - pos;
                if (pos > 0u && left == 0u) {
                    break;
                }
                let run = get_rice(k, left);
                if (rd_fail != OK || run == left) {
                    break;
                }
                let i = cand[pos + run];
                let neg = get_bit();
                flags[i] |= NEWLY | select(0u, NEGATIVE, neg == 1u);
                pos += run + 1u;
            }
            sh_ok = select(0u, 1u, rd_fail == OK);
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
            sig += select(0u, 1u, i < len && (flags[i] & SIGNIFICANT) != 0u);
        }
        var rank = wg_exclusive(sig, l);
        let total = sh_wg_total;
        let first = sh_bit;
        for (var j = 0u; j < PER; j++) {
            let i = l.local * PER + j;
            if (i < len) {
                var t = t_val[i] << 1u;
                let f = flags[i];
                if ((f & SIGNIFICANT) != 0u) {
                    let b = first + rank;
                    rank += 1u;
                    if (b >= end_bit) {
                        atomicStore(&sh_bad, 1u);
                    } else {
                        t |= (byte_at(b / 8u) >> (7u - b % 8u)) & 1u;
                    }
                } else if ((f & NEWLY) != 0u) {
                    t |= 1u;
                    flags[i] = (f & ~NEWLY) | SIGNIFICANT;
                }
                t_val[i] = t;
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
            if (ok == 1u) {
                v = reconstruct(t_val[i], dropped, step);
                if ((flags[i] & NEGATIVE) != 0u) {
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
