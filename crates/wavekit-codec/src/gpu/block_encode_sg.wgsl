// The block encoder on the subgroup: one subgroup a code block, the same bits, sizes and keys
// as block_encode.wgsl (the workgroup encoder) and `cpu/block.rs` (`quantize`, `code`, `keys`).
// A block's row is a lane's (ROWS = 32 / LANES rows a lane where the subgroup has fewer than
// 32 lanes); a bit-plane of a row is one word, bit c the sample of column c, so that sample
// order (row-major) is lane order, then row, then bit. Per plane:
//   - the candidates (not yet significant) and the new samples are word operations, counted
//     with countOneBits and placed with one subgroup exclusive sum (both counts in one word);
//   - each new sample's run (the candidates skipped since the previous new sample) from its
//     candidate rank and the previous new sample's, which the nearest lane below with a new
//     sample has (a ballot and one shuffle);
//   - the Rice costs Σ (run >> p) of parameters 0 ..= 11 (none above 10 can cost least) are
//     summed where a sample becomes significant, three to a word (Σ run ≤ 1023), reduced with
//     four subgroup sums;
//   - the change of error from counts: it is linear in the bits below the plane (sums of
//     2^j · countOneBits(plane word j & set) over the samples refined to a one, to a zero, and
//     the new ones; `row_change`), so no sample's magnitude is read after the load;
//   - the bits or-ed into workgroup memory: each lane's quotients are one run of ones (set in
//     words by a loop of subgroup-uniform length) whose terminating zeros are then cleared in a
//     loop over the new samples only; the refinement bits and the signs of a row are two
//     `compress`es of its words.
// The load transposes each row's magnitudes into its 24 plane words (`pw`), the only copy of
// the block kept (ADR-0093, session 38).
// No workgroup barrier per plane: one after clearing the output, one before copying it out.
// Every subgroup operation is in subgroup-uniform control flow: every loop before one has a
// trip count that is a constant or a subgroup-wide value (ADR-0092).
//
// Prepended: LANES (the subgroup's width, fixed on the device: 1 to 32), ROWS (32 / LANES),
// BPW (blocks a workgroup; WG_SIZE = LANES · BPW), STRIDE, RECORD, KEY_BINS, C16. Bindings as
// block_encode.wgsl's.
#import subgroup/api
#import codec/layout
#import codec/bits
#import codec/words
#import codec/half

@group(0) @binding(0) var<storage, read> table: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> luma: array<i32>;
@group(0) @binding(2) var<storage, read> chroma: array<i32>;
@group(0) @binding(3) var<storage, read_write> bits: array<u32>;
@group(0) @binding(4) var<storage, read_write> records: array<u32>;
@group(0) @binding(5) var<uniform> params: vec4<u32>;
// The rate control's histogram of the planes' bytes by key (KEY_BINS words, cleared before).
@group(0) @binding(6) var<storage, read_write> hist: array<atomic<u32>>;

const CAP: u32 = 0xffffffu;

var<workgroup> out: array<atomic<u32>, BPW * STRIDE>;

// The stream bits [s, e) of a word (0 ≤ s < e ≤ 32; stream bit j is the word's bit 31 − j).
fn span_mask(s: u32, e: u32) -> u32 {
    let head = 0xffffffffu >> s;
    return select(head & ~(0xffffffffu >> e), head, e >= 32u);
}

// The bits of a word up to and including bit b.
fn through(b: u32) -> u32 {
    return select((2u << b) - 1u, 0xffffffffu, b >= 31u);
}

// The Rice costs' partial sums of one run, three parameters a word in 10-bit fields: word j's
// field i holds Σ (run >> 3j + i), parameters 0 ..= 11 (a plane's runs add up to at most 1023;
// no parameter above 10 can cost least: gpu/sim.rs, add_run).
fn add_run(s: ptr<function, array<u32, 4>>, r: u32) {
    (*s)[0] += r | ((r >> 1u) << 10u) | ((r >> 2u) << 20u);
    (*s)[1] += (r >> 3u) | ((r >> 4u) << 10u) | ((r >> 5u) << 20u);
    (*s)[2] += (r >> 6u) | ((r >> 7u) << 10u) | ((r >> 8u) << 20u);
    (*s)[3] += (r >> 9u) | ((r >> 10u) << 10u) | ((r >> 11u) << 20u);
}

fn field(s: array<u32, 4>, p: u32) -> u32 {
    return (s[p / 3u] >> (10u * (p % 3u))) & 1023u;
}

// A row's change of squared error (mod 2^32) when plane b′ of its magnitudes (shifted right by
// sh) is sent, one = 2^b′: n the counts of the samples refined to a one, to a zero, and new;
// l the sums of their bits below b′ (gpu/sim.rs: row_change, which derives it).
fn row_change(n: vec3<u32>, l: vec3<u32>, one: u32) -> u32 {
    let u = 2u * l + n * (1u - one);
    let refined = (n.x + n.y) * (one * one) + (2u * one) * (u.x - u.y);
    let fresh = 3u * n.z * (one * one) + (6u * one) * (2u * l.z + n.z);
    return refined + fresh;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let lane = l.local % LANES;
    let slot = l.local / LANES;
    let o = slot * STRIDE;
    let block = (wg.x + wg.y * nwg.x) * BPW + slot;
    for (var j = l.local; j < BPW * STRIDE; j += WG_SIZE) {
        atomicStore(&out[j], 0u);
    }
    workgroupBarrier();
    // The whole subgroup has the same block: everything below is subgroup-uniform.
    let live = block < params.x;
    var pos = 0u;
    if (live) {
        let entry = table[block];
        let bw = entry.z & 0xffffu;
        let bh = entry.z >> 16u;
        let len = bw * bh;
        let step = max(entry.w, 1u);
        let base = entry.x & 0x7fffffffu;
        let is_chroma = (entry.x >> 31u) != 0u;
        let columns = select((1u << bw) - 1u, 0xffffffffu, bw >= 32u);
        // This lane's rows: the plane words of their magnitudes (pw[q * 24 + j] bit c: bit j
        // of column c), and words of the valid, negative and significant samples.
        var pw: array<u32, ROWS * 24>;
        var valid: array<u32, ROWS>;
        var neg: array<u32, ROWS>;
        var sig: array<u32, ROWS>;
        var top = 0u;
        for (var q = 0u; q < ROWS; q++) {
            let row = lane * ROWS + q;
            let here = row < bh;
            valid[q] = select(0u, columns, here);
            sig[q] = 0u;
            var n = 0u;
            var cols: array<u32, 32>;
            // With C16, the word of columns c and c + 1 (c even), read at the even one.
            var pair = 0i;
#unroll c 32
            {
                var m = 0u;
                if (here && {c} < bw) {
                    let at = base + row * entry.y + {c};
                    var x = 0i;
                    if (C16) {
                        if ({c} % 2u == 0u) {
                            if (is_chroma) {
                                pair = chroma[at / 2u];
                            } else {
                                pair = luma[at / 2u];
                            }
                        }
                        x = half16(pair, at);
                    } else if (is_chroma) {
                        x = chroma[at];
                    } else {
                        x = luma[at];
                    }
                    let a = min(u32(abs(x)), 1u << 23u);
                    m = min((a << 8u) / step, CAP);
                    if (x < 0i) {
                        n |= 1u << {c};
                    }
                }
                cols[{c}] = m;
                top |= m;
            }
#end
            neg[q] = n;
            let words = transpose(cols);
#unroll j 24
            pw[q * 24u + {j}] = words[{j}];
#end
        }
        let mx = sg_max_u32(top);
        let planes = select(0u, 32u - countLeadingZeros(mx), mx != 0u);
        let rec = block * RECORD;
        // Samples of the block before this lane's.
        let before_me = min(lane * ROWS, bh) * bw;
        var low = KEY_BINS - 1u;
        for (var plane = 0u; plane < planes; plane++) {
            let bit = planes - 1u - plane;
            // The plane's words; the candidates and the new samples counted.
            var v: array<u32, ROWS>;
            var cands_l = 0u;
            var news_l = 0u;
            var last = 0u;
            for (var q = 0u; q < ROWS; q++) {
                let w = pw[q * 24u + bit];
                v[q] = w;
                let cw = valid[q] & ~sig[q];
                let nw = cw & w;
                if (nw != 0u) {
                    // Candidates up to and including the row's last new sample.
                    last = cands_l + countOneBits(cw & through(31u - countLeadingZeros(nw)));
                }
                cands_l += countOneBits(cw);
                news_l += countOneBits(nw);
            }
            let packed = cands_l | (news_l << 16u);
            let before = sg_exclusive_add_u32(packed);
            let total = sg_add_u32(packed);
            let cand0 = before & 0xffffu;
            let new0 = before >> 16u;
            let cands = total & 0xffffu;
            let news = total >> 16u;
            // The rank + 1 of the last new sample before this lane's: the nearest lane below
            // with a new sample (a ballot) has it (ranks grow with the lanes).
            let has = sg_ballot(news_l != 0u).x;
            let below = has & ((1u << lane) - 1u);
            let src = select(0u, 31u - countLeadingZeros(below), below != 0u);
            let from_src = sg_shuffle_u32(cand0 + last, src);
            let prev0 = select(0u, from_src, below != 0u);
            // Runs, and their Rice costs for every parameter.
            var sums = array<u32, 4>(0u, 0u, 0u, 0u);
            var prev = prev0;
            var rank = cand0;
            var most_new: array<u32, ROWS>;
            for (var q = 0u; q < ROWS; q++) {
                let cw = valid[q] & ~sig[q];
                var nw = cw & v[q];
                // The new samples only, each one's rank from the candidates before it, in a
                // loop of the subgroup's most (a subgroup-uniform trip count).
                let most = sg_max_u32(countOneBits(nw));
                most_new[q] = most;
                for (var i = 0u; i < most; i++) {
                    if (nw != 0u) {
                        let c = firstTrailingBit(nw);
                        let at = rank + countOneBits(cw & ((1u << c) - 1u));
                        add_run(&sums, at - prev);
                        prev = at + 1u;
                        nw &= nw - 1u;
                    }
                }
                rank += countOneBits(cw);
            }
            // The parameter that costs least (the lowest of equals).
            var k = 0u;
            var quotients = 0u;
            var unary_l = 0u;
            if (news != 0u) {
                var all: array<u32, 4>;
                for (var p = 0u; p < 4u; p++) {
                    all[p] = sg_add_u32(sums[p]);
                }
                var best = 0xffffffffu;
                for (var p = 0u; p < 12u; p++) {
                    let c = field(all, p) + news * (1u + p);
                    if (c < best) {
                        best = c;
                        k = p;
                    }
                }
                quotients = field(all, k) + news;
                unary_l = field(sums, k) + news_l;
            }
            let q_before = sg_exclusive_add_u32(unary_l);
            // Places: the count, k, the remainders, the signs, the quotients, the refinement.
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
            if (lane == 0u) {
                // Exp-Golomb: eg / 2 zeros, then news + 1 in eg / 2 + 1 bits.
                put_bits(o, pos + eg / 2u, news + 1u, eg / 2u + 1u);
                if (news > 0u) {
                    put_bits(o, pos + eg, k, 4u);
                }
            }
            // This lane's quotients, [qa, qa + unary_l): all ones first (words in a loop of
            // the subgroup's longest), the zero ending each code cleared below.
            let qa = q0 + q_before;
            var words_l = 0u;
            if (unary_l != 0u) {
                words_l = (qa + unary_l - 1u) / 32u - qa / 32u + 1u;
            }
            let words_most = sg_max_u32(words_l);
            for (var i = 0u; i < words_most; i++) {
                if (i < words_l) {
                    let w = qa / 32u + i;
                    let s = max(qa, 32u * w) - 32u * w;
                    let e = min(qa + unary_l, 32u * w + 32u) - 32u * w;
                    atomicOr(&out[o + w], span_mask(s, e));
                }
            }
            let sh = select(0u, bit - 8u, bit > 8u);
            let bp = bit - sh;
            let one = 1u << bp;
            let mask_k = (1u << k) - 1u;
            var dd = 0u;
            var nk = new0;
            var at_q = qa;
            var at_f = f0 + (before_me - cand0);
            prev = prev0;
            rank = cand0;
            for (var q = 0u; q < ROWS; q++) {
                let sw = sig[q];
                let cw = valid[q] & ~sw;
                let nw = cw & v[q];
                // The new samples in column order (a loop of the subgroup's most): each one's
                // quotient's zero and remainder.
                var left = nw;
                for (var i = 0u; i < most_new[q]; i++) {
                    if (left == 0u) {
                        continue;
                    }
                    let c = firstTrailingBit(left);
                    left &= left - 1u;
                    let at = rank + countOneBits(cw & ((1u << c) - 1u));
                    let r = at - prev;
                    prev = at + 1u;
                    at_q += r >> k;
                    let z = o + at_q / 32u;
                    atomicAnd(&out[z], ~(0x80000000u >> (at_q % 32u)));
                    at_q += 1u;
                    let rem = r & mask_k;
                    if (rem != 0u) {
                        put_bits(o, r0 + nk * k, rem, k);
                    }
                    nk += 1u;
                }
                rank += countOneBits(cw);
                // The refinement bits and the signs, in column order (the first column the
                // first bit sent).
                let nr = countOneBits(sw);
                put_bits(o, at_f, compress(reverseBits(v[q]), reverseBits(sw)), nr);
                at_f += nr;
                let nn = countOneBits(nw);
                put_bits(o, s0 + nk - nn, compress(reverseBits(neg[q]), reverseBits(nw)), nn);
                // The change of error, from the sums of the bits sh .. bit − 1 of the samples
                // refined to a one, to a zero, and the new ones.
                let x1 = sw & v[q];
                let x0 = sw & ~v[q];
                var l = vec3<u32>(0u);
                for (var j = 0u; j < bp; j++) {
                    let w = pw[q * 24u + sh + j];
                    let counts = countOneBits(vec3<u32>(w) & vec3<u32>(x1, x0, nw));
                    l += counts << vec3<u32>(j);
                }
                dd += row_change(vec3<u32>(countOneBits(x1), countOneBits(x0), nn), l, one);
                sig[q] = sw | nw;
            }
            let dd_all = bitcast<i32>(sg_add_u32(dd));
            low = min(low, plane_key(dd_all, bytes_of(end) - bytes_of(pos), sh));
            if (lane == 0u) {
                records[rec + 1u + plane + 1u] = end;
                records[rec + 26u + plane] = low;
                atomicAdd(&hist[low], bytes_of(end) - bytes_of(pos));
            }
            pos = end;
        }
        if (lane == 0u) {
            records[rec] = planes;
            records[rec + 1u] = 0u;
        }
    }
    workgroupBarrier();
    if (live) {
        let words = (pos + 31u) / 32u;
        for (var j = lane; j < words; j += LANES) {
            bits[block * STRIDE + j] = atomicLoad(&out[o + j]);
        }
    }
}
