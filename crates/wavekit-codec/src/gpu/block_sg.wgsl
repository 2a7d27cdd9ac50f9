// The block decoder on the subgroup: one subgroup (the whole workgroup) a code block, the same
// bits, damage rules and integer reconstruction as block.wgsl (the workgroup decoder) and
// `cpu/block.rs`'s `decode`. A block's row is a lane's (ROWS = 32 / LANES rows a lane where
// the subgroup has fewer than 32 lanes), its candidates and significant samples one word each
// (bit c the sample of column c), its sent values in registers. Per plane (bitstream version
// 3, ADR-0076): every lane reads the count c and parameter k; the quotients' zeros are found
// a word a lane and placed by a subgroup exclusive sum; the j-th new sample's candidate rank
// `((z_j − j) << k) + Σ_{i ≤ j} rem_i + j` is found a code a lane (the remainders' prefix by
// a subgroup scan), then its row by a binary search of the rows' first candidate ranks and its
// column as the rank's set bit of the row's candidates, marked in the row's word; each lane
// then takes its rows' refinement bits as one read each. Two barriers of the one-subgroup
// workgroup a plane, and every subgroup operation in subgroup-uniform control flow: every loop
// before one runs a constant or subgroup-wide number of times (ADR-0092). A damaged plane
// makes every later one a no-op and the block zero, as in block.wgsl.
//
// Prepended: LANES (the subgroup's width, fixed on the device: 1 to 32; WG_SIZE = LANES),
// ROWS (32 / LANES), SATURATE and C16 (as block.wgsl's). Bindings as block.wgsl's.
#import subgroup/api
#import codec/read
#import codec/words
#import codec/half

@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> luma: array<i32>;
@group(0) @binding(3) var<storage, read_write> chroma: array<i32>;
@group(0) @binding(4) var<storage, read_write> damaged: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;

const MAX_PLANES: u32 = 24u;

// The bit offset (from the quotients' start) of each quotient's closing zero.
var<workgroup> zpos: array<u32, 1024>;
// Each row's first candidate rank and its candidates' word, for the new samples' placing.
var<workgroup> row_first: array<u32, 32>;
var<workgroup> row_cands: array<u32, 32>;
// The new samples of each row in this plane, and the negative ones among them.
var<workgroup> row_new: array<atomic<u32>, 32>;
var<workgroup> row_neg: array<atomic<u32>, 32>;

// Word `i` of the frame in stream order (0 past its buffer).
fn word(i: u32) -> u32 {
    if (i < arrayLength(&frame)) {
        return swap(frame[i]);
    }
    return 0u;
}

// The 32 bits of the stream from bit b, the first in the top bit.
fn peek(b: u32) -> u32 {
    let s = b % 32u;
    let hi = word(b / 32u);
    if (s == 0u) {
        return hi;
    }
    return (hi << s) | (word(b / 32u + 1u) >> (32u - s));
}

// The column of the n-th (from 0) set bit of w, counting from bit 0 (n < countOneBits(w)).
fn select_bit(w: u32, n0: u32) -> u32 {
    var n = n0;
    var x = w;
    var at = 0u;
    let c16 = countOneBits(x & 0xffffu);
    if (n >= c16) {
        n -= c16;
        at += 16u;
        x >>= 16u;
    }
    let c8 = countOneBits(x & 0xffu);
    if (n >= c8) {
        n -= c8;
        at += 8u;
        x >>= 8u;
    }
    let c4 = countOneBits(x & 0xfu);
    if (n >= c4) {
        n -= c4;
        at += 4u;
        x >>= 4u;
    }
    let c2 = countOneBits(x & 0x3u);
    if (n >= c2) {
        n -= c2;
        at += 2u;
        x >>= 2u;
    }
    if (n >= (x & 1u)) {
        at += 1u;
    }
    return at;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let lane = l.local;
    let block = wg.x + wg.y * nwg.x;
    let frame_len = params.x;
    let blocks = params.y;
    let overhead = params.z;
    // The whole workgroup has the same block.
    if (block >= blocks) {
        return;
    }
    let entry = table[block];
    let bw = entry.z & 0xffffu;
    let bh = entry.z >> 16u;
    let step = entry.w;
    let columns = select((1u << bw) - 1u, 0xffffffffu, bw >= 32u);
    // Each row's bit-planes as words (bit c the sample of column c), turned into the samples'
    // values at the end by one transpose.
    var pw: array<u32, ROWS * MAX_PLANES>;
    var valid: array<u32, ROWS>;
    var sig: array<u32, ROWS>;
    var neg: array<u32, ROWS>;
    for (var q = 0u; q < ROWS; q++) {
        let row = lane * ROWS + q;
        valid[q] = select(0u, columns, row < bh);
        sig[q] = 0u;
        neg[q] = 0u;
        atomicStore(&row_new[row], 0u);
        atomicStore(&row_neg[row], 0u);
    }
    // The payload's place, P and n, read alike by every lane.
    let at = 24u + 4u * block;
    let offset = byte_at(at) | (byte_at(at + 1u) << 8u) | (byte_at(at + 2u) << 16u)
        | (byte_at(at + 3u) << 24u);
    var head_ok = false;
    var planes = 0u;
    var sent = 0u;
    if (offset >= overhead && offset < frame_len && offset + 1u < frame_len) {
        planes = byte_at(offset);
        sent = byte_at(offset + 1u);
        head_ok = planes <= MAX_PLANES && sent <= planes;
    }
    if (!head_ok) {
        sent = 0u;
    }
    let end_bit = frame_len * 8u;
    // Bit positions count from the frame's start (it may be up to 2^29 bytes).
    var bit = (offset + 2u) * 8u;
    var failed = false;
    for (var plane = 0u; plane < sent; plane++) {
        // The candidates (samples not yet significant) and the significant samples counted,
        // and each row's first candidate rank.
        var cands_l = 0u;
        var sigs_l = 0u;
        for (var q = 0u; q < ROWS; q++) {
            cands_l += countOneBits(valid[q] & ~sig[q]);
            sigs_l += countOneBits(sig[q]);
        }
        let packed = cands_l | (sigs_l << 16u);
        let before = sg_exclusive_add_u32(packed);
        let total = sg_add_u32(packed);
        let cands = total & 0xffffu;
        let sigs = total >> 16u;
        var first = before & 0xffffu;
        for (var q = 0u; q < ROWS; q++) {
            let cw = valid[q] & ~sig[q];
            row_first[lane * ROWS + q] = first;
            row_cands[lane * ROWS + q] = cw;
            first += countOneBits(cw);
        }
        // The plane's count c (Exp-Golomb) and parameter k, read alike by every lane.
        var bad = failed;
        var b = bit;
        var c = 0u;
        var k = 0u;
        if (!bad) {
            let z = countLeadingZeros(peek(b));
            if (z > 31u - countLeadingZeros(cands + 1u) || b + 2u * z + 1u > end_bit) {
                bad = true;
            } else {
                c = (peek(b + z) >> (31u - z)) - 1u;
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
                k = peek(b) >> 28u;
                b += 4u;
            }
        }
        // The remainders at b, the signs after them, then the quotients, whose c zeros lie
        // in the first `cands` bits: a word a lane, placed by an exclusive sum.
        let s0 = b + c * k;
        let q0 = s0 + c;
        let lim = min(q0 + cands, end_bit);
        var words = 0u;
        if (c > 0u && lim > q0) {
            words = (lim - q0 + 31u) / 32u;
        }
        var ztot = 0u;
        for (var t = 0u; t * LANES < words; t++) {
            let wi = t * LANES + lane;
            var zeros = 0u;
            if (wi < words) {
                let zs = q0 + 32u * wi;
                zeros = ~peek(zs);
                if (lim - zs < 32u) {
                    zeros &= ~(0xffffffffu >> (lim - zs));
                }
            }
            let n = countOneBits(zeros);
            var zj = ztot + sg_exclusive_add_u32(n);
            ztot += sg_add_u32(n);
            let most = sg_max_u32(n);
            for (var i = 0u; i < most; i++) {
                if (zeros != 0u && zj < c) {
                    let p = countLeadingZeros(zeros);
                    zpos[zj] = 32u * wi + p;
                    zeros &= ~(0x80000000u >> p);
                    zj += 1u;
                }
            }
        }
        // The remainders' total (each under 2^15, at most 1024 of them: no overflow).
        var rsum = 0u;
        if (k > 0u) {
            for (var t = 0u; t * LANES < c; t++) {
                let j = t * LANES + lane;
                if (j < c) {
                    rsum += peek(b + j * k) >> (32u - k);
                }
            }
        }
        let rtot = sg_add_u32(rsum);
        if (ztot < c) {
            bad = true;
            c = 0u;
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
        // Each new sample to its row and column, a code a lane.
        var rbase = 0u;
        for (var t = 0u; t * LANES < c; t++) {
            let j = t * LANES + lane;
            var rem = 0u;
            if (j < c && k > 0u) {
                rem = peek(b + j * k) >> (32u - k);
            }
            let rp = rbase + sg_exclusive_add_u32(rem) + rem;
            rbase += sg_add_u32(rem);
            // Lanes past the last code search too (for code c − 1): the search's loop stays
            // out of divergent control flow.
            let jj = min(j, c - 1u);
            let rank = ((zpos[jj] - jj) << k) + rp + jj;
            var r = 0u;
            for (var s = 16u; s > 0u; s >>= 1u) {
                if (row_first[r + s] <= rank) {
                    r += s;
                }
            }
            let col = select_bit(row_cands[r], rank - row_first[r]);
            if (j < c) {
                atomicOr(&row_new[r], 1u << col);
                if ((peek(s0 + j) >> 31u) == 1u) {
                    atomicOr(&row_neg[r], 1u << col);
                }
            }
        }
        workgroupBarrier();
        // The refinement pass: the plane's bit of every sample significant before it, a row's
        // bits at once; the new samples' first bit.
        var sr = f0 + (before >> 16u);
        for (var q = 0u; q < ROWS; q++) {
            let row = lane * ROWS + q;
            let nw = atomicLoad(&row_new[row]);
            let ng = atomicLoad(&row_neg[row]);
            atomicStore(&row_new[row], 0u);
            atomicStore(&row_neg[row], 0u);
            if (!bad) {
                let sw = sig[q];
                // The refinement bits, the first for the lowest column, deposited at the
                // significant samples; the new samples' first bit.
                pw[q * MAX_PLANES + plane] = nw | deposit(reverseBits(peek(sr)), sw);
                sr += countOneBits(sw);
                sig[q] = sw | nw;
                neg[q] |= ng;
            }
        }
        failed = bad;
        bit = end;
    }
    let ok = head_ok && !failed;
    let dropped = planes - sent;
    let base = entry.x & 0x7fffffffu;
    let pitch = entry.y;
    let is_chroma = (entry.x >> 31u) != 0u;
    // The samples go out through workgroup memory (zpos, free once every lane is past the
    // planes), so that each store writes consecutive columns of one row: a lane storing its own
    // row column by column put a store's lanes on as many rows (a cache line each), and that
    // was most of this kernel's time (H100: 223 of 284 µs at 4K 4:2:0 1 bpp with no plane
    // decoded). Row r's column c is at r * 32 + (c ^ r): distinct banks both ways.
    workgroupBarrier();
    for (var q = 0u; q < ROWS; q++) {
        let row = lane * ROWS + q;
        // The row's planes transposed: word c holds column c's bits, plane p at bit p; its
        // value t is those bits read from plane 0 down (the first plane the top bit).
        var planes_of_row: array<u32, 32>;
#unroll p 24
        planes_of_row[{p}] = select(0u, pw[q * MAX_PLANES + {p}], {p} < sent);
#end
        let columns_of_row = transpose(planes_of_row);
        // Only the block's samples (the stores below read no other). The branches also keep
        // the unrolled columns apart: as one straight block, this kernel lost the web page's
        // device on SwiftShader (ADR-0093, session 37).
        if (row < bh) {
#unroll col 32
            if ({col} < bw) {
                var v = 0i;
                if (ok && sent != 0u) {
                    let t = reverseBits(columns_of_row[{col}]) >> (32u - sent);
                    v = reconstruct(t, dropped, step);
                    if (((neg[q] >> {col}) & 1u) != 0u) {
                        v = -v;
                    }
                    if (SATURATE) {
                        v = clamp(v, -32768i, 32767i);
                    }
                }
                zpos[row * 32u + ({col} ^ row)] = bitcast<u32>(v);
            }
#end
        }
    }
    workgroupBarrier();
    if (C16) {
        // Two columns a word: the block's first element and its width are even (the 16-bit
        // layout's widths halve evenly at every level).
        for (var r = 0u; r < bh; r++) {
            for (var c = lane; 2u * c < bw; c += LANES) {
                let lo = bitcast<i32>(zpos[r * 32u + ((2u * c) ^ r)]);
                let hi = bitcast<i32>(zpos[r * 32u + ((2u * c + 1u) ^ r)]);
                let at = (base + r * pitch) / 2u + c;
                let w = pair16(lo, hi);
                if (is_chroma) {
                    chroma[at] = w;
                } else {
                    luma[at] = w;
                }
            }
        }
    } else {
        for (var r = 0u; r < bh; r++) {
            for (var c = lane; c < bw; c += LANES) {
                let v = bitcast<i32>(zpos[r * 32u + (c ^ r)]);
                let at = base + r * pitch + c;
                if (is_chroma) {
                    chroma[at] = v;
                } else {
                    luma[at] = v;
                }
            }
        }
    }
    if (lane == 0u) {
        damaged[block] = select(1u, 0u, ok);
    }
}
