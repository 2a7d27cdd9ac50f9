//! CPU simulations of the subgroup block coders' cross-lane arithmetic, lane by lane, at every
//! width the device may run them at (1 to 32 lanes; wider subgroups take the workgroup
//! kernels): `block_encode_sg.wgsl` (each lane's rows, the candidate ranks by exclusive sums,
//! the previous new sample's rank by a ballot and one shuffle, the Rice costs three a word,
//! the quotients' ones set by words and their zeros cleared, the refinement bits and signs by
//! `compress`, the change of error from counts of the plane words) and `block_sg.wgsl` (the zeros a
//! word a lane, the codes a lane, a new sample's row by a binary search of the rows' first
//! ranks and its column by the rank's set bit). Lavapipe runs the kernels at 4, 8 and 16
//! lanes and the H200 at 32; these check every width against `cpu/block.rs`.
//!
//! And the rate control's arithmetic across workgroups (`rate.wgsl`, `pack.wgsl`): every
//! block's planes and payload offset found tile by tile, from the tiles' totals only
//! ([`place_in_tiles`]), at every tile size against `cpu/rate.rs` and a running sum.

// The loops over lanes index several per-lane vectors, as the kernels' lanes do.
#![allow(clippy::needless_range_loop)]

use crate::cpu::block::{KEY_BINS, Quantized, plane_key};

/// A subgroup's exclusive sum, in lane order.
fn exclusive(v: &[u32]) -> Vec<u32> {
    v.iter()
        .scan(0u32, |acc, &x| {
            let before = *acc;
            *acc = acc.wrapping_add(x);
            Some(before)
        })
        .collect()
}

/// The Rice costs' partial sums of one run, three parameters a word in 10-bit fields: word j's
/// field i holds Σ (run >> 3j + i), for the parameters 0 ..= 11. A plane's runs add up to at
/// most 1023 (they and its new samples are at most the block's 1024 candidates), so no field
/// overflows, and no parameter above 10 can cost least (every run is 0 there, and a larger k
/// costs one bit more a sample).
fn add_run(s: &mut [u32; 4], r: u32) {
    for (j, w) in s.iter_mut().enumerate() {
        let p = 3 * j as u32;
        *w += (r >> p) | (r >> (p + 1)) << 10 | (r >> (p + 2)) << 20;
    }
}

fn field(s: &[u32; 4], p: u32) -> u32 {
    (s[(p / 3) as usize] >> (10 * (p % 3))) & 1023
}

/// Bits written by or-ing, the first in a word's top bit.
struct Bits(Vec<u32>);

impl Bits {
    fn put(&mut self, at: u32, v: u32, n: u32) {
        for i in 0..n {
            if v >> (n - 1 - i) & 1 == 1 {
                self.set(at + i);
            }
        }
    }
    fn set(&mut self, at: u32) {
        let w = (at / 32) as usize;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 0x8000_0000 >> (at % 32);
    }
    fn clear(&mut self, at: u32) {
        let w = (at / 32) as usize;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] &= !(0x8000_0000 >> (at % 32));
    }
    fn get(&self, at: u32) -> u32 {
        self.0
            .get((at / 32) as usize)
            .map_or(0, |w| w >> (31 - at % 32) & 1)
    }
}

/// What `block_encode_sg.wgsl` writes for a block of `bw × bh` samples quantized as `q`
/// (row-major) with `lanes` lanes: the bit string (bytes, stream order), the bits after each
/// plane (from 0) and each plane's key.
pub fn encode_block(
    q: &Quantized,
    bw: usize,
    bh: usize,
    lanes: usize,
) -> (Vec<u8>, Vec<u32>, Vec<u32>) {
    let rows = 32 / lanes;
    let columns = if bw >= 32 { u32::MAX } else { (1u32 << bw) - 1 };
    let mag = |row: usize, c: usize| {
        if row < bh && c < bw {
            q.magnitude[row * bw + c]
        } else {
            0
        }
    };
    let valid: Vec<u32> = (0..32).map(|r| if r < bh { columns } else { 0 }).collect();
    let neg: Vec<u32> = (0..32)
        .map(|r| {
            (0..bw.min(32))
                .filter(|&c| r < bh && q.negative[r * bw + c])
                .fold(0, |w, c| w | 1 << c)
        })
        .collect();
    // Each row's plane words, as the kernel's load makes them: word j's bit c is bit j of
    // column c's magnitude.
    let pw: Vec<[u32; 32]> = (0..32)
        .map(|r| transpose(std::array::from_fn(|c| mag(r, c))))
        .collect();
    let mut sig = [0u32; 32];
    let planes = u32::from(q.planes);
    let len = (bw * bh) as u32;
    let mut out = Bits(Vec::new());
    let (mut ends, mut keys) = (vec![0u32], Vec::new());
    let mut pos = 0u32;
    let mut low = KEY_BINS - 1;
    for plane in 0..planes {
        let bit = planes - 1 - plane;
        let v: Vec<u32> = (0..32).map(|r| pw[r][bit as usize]).collect();
        let (mut cands_l, mut news_l, mut last) =
            (vec![0u32; lanes], vec![0u32; lanes], vec![0u32; lanes]);
        for l in 0..lanes {
            for r in l * rows..(l + 1) * rows {
                let cw = valid[r] & !sig[r];
                let nw = cw & v[r];
                if nw != 0 {
                    let top = 31 - nw.leading_zeros();
                    let through = if top >= 31 { u32::MAX } else { (2 << top) - 1 };
                    last[l] = cands_l[l] + (cw & through).count_ones();
                }
                cands_l[l] += cw.count_ones();
                news_l[l] += nw.count_ones();
            }
        }
        let packed: Vec<u32> = (0..lanes).map(|l| cands_l[l] | news_l[l] << 16).collect();
        let before = exclusive(&packed);
        let total = packed.iter().sum::<u32>();
        let (cands, news) = (total & 0xffff, total >> 16);
        // The rank + 1 of the last new sample before each lane's: from the nearest lane below
        // with a new sample (a ballot of the lanes with one, and one shuffle).
        let has = (0..lanes)
            .filter(|&l| news_l[l] != 0)
            .fold(0u32, |b, l| b | 1 << l);
        let prev0: Vec<u32> = (0..lanes)
            .map(|l| {
                let below = has & ((1u32 << l) - 1);
                if below == 0 {
                    0
                } else {
                    let src = (31 - below.leading_zeros()) as usize;
                    (before[src] & 0xffff) + last[src]
                }
            })
            .collect();
        // Runs and their costs, lane by lane.
        let mut sums = vec![[0u32; 4]; lanes];
        for l in 0..lanes {
            let (mut prev, mut rank) = (prev0[l], before[l] & 0xffff);
            for r in l * rows..(l + 1) * rows {
                let cw = valid[r] & !sig[r];
                // The new samples, a set bit at a time; a rank from the candidates below.
                let mut nw = cw & v[r];
                while nw != 0 {
                    let c = nw.trailing_zeros();
                    let at = rank + (cw & ((1u32 << c) - 1)).count_ones();
                    add_run(&mut sums[l], at - prev);
                    prev = at + 1;
                    nw &= nw - 1;
                }
                rank += cw.count_ones();
            }
        }
        let (mut k, mut quotients) = (0, 0);
        let mut unary = vec![0u32; lanes];
        if news != 0 {
            let mut all = [0u32; 4];
            for s in &sums {
                for (a, w) in all.iter_mut().zip(s) {
                    *a += w;
                }
            }
            let mut best = u32::MAX;
            for p in 0..12 {
                let c = field(&all, p) + news * (1 + p);
                if c < best {
                    best = c;
                    k = p;
                }
            }
            quotients = field(&all, k) + news;
            for l in 0..lanes {
                unary[l] = field(&sums[l], k) + news_l[l];
            }
        }
        let q_before = exclusive(&unary);
        let eg = 2 * (31 - (news + 1).leading_zeros()) + 1;
        let r0 = pos + eg + if news > 0 { 4 } else { 0 };
        let s0 = r0 + news * k;
        let q0 = s0 + news;
        let f0 = q0 + quotients;
        let end = f0 + (len - cands);
        out.put(pos + eg / 2, news + 1, eg / 2 + 1);
        if news > 0 {
            out.put(pos + eg, k, 4);
        }
        let sh = bit.saturating_sub(8);
        let bp = bit - sh;
        let one = 1u32 << bp;
        let mut dd = 0u32;
        for l in 0..lanes {
            let qa = q0 + q_before[l];
            for i in 0..unary[l] {
                out.set(qa + i);
            }
            let (mut prev, mut rank) = (prev0[l], before[l] & 0xffff);
            let mut nk = before[l] >> 16;
            let mut at_q = qa;
            let mut at_f = f0 + ((l * rows).min(bh) as u32 * bw as u32 - (before[l] & 0xffff));
            for r in l * rows..(l + 1) * rows {
                let sw = sig[r];
                let cw = valid[r] & !sw;
                let nw = cw & v[r];
                // The new samples, a set bit at a time: each one's quotient's zero and
                // remainder.
                let mut left = nw;
                while left != 0 {
                    let c = left.trailing_zeros();
                    left &= left - 1;
                    let at = rank + (cw & ((1u32 << c) - 1)).count_ones();
                    let run = at - prev;
                    prev = at + 1;
                    at_q += run >> k;
                    out.clear(at_q);
                    at_q += 1;
                    out.put(r0 + nk * k, run & ((1 << k) - 1), k);
                    nk += 1;
                }
                rank += cw.count_ones();
                // The refinement bits and the signs, gathered in column order by compress.
                let nr = sw.count_ones();
                out.put(at_f, compress(v[r].reverse_bits(), sw.reverse_bits()), nr);
                at_f += nr;
                let nn = nw.count_ones();
                out.put(
                    s0 + nk - nn,
                    compress(neg[r].reverse_bits(), nw.reverse_bits()),
                    nn,
                );
                // The change of error, from the kept low bits' sums over the samples refined
                // to a one, to a zero, and the new ones (L the bits sh .. bit − 1 of m).
                let (x1, x0) = (sw & v[r], sw & !v[r]);
                let (mut l1, mut l0, mut ln) = (0u32, 0u32, 0u32);
                for j in 0..bp {
                    let w = pw[r][(sh + j) as usize];
                    l1 += (w & x1).count_ones() << j;
                    l0 += (w & x0).count_ones() << j;
                    ln += (w & nw).count_ones() << j;
                }
                dd = dd.wrapping_add(row_change(
                    [x1.count_ones(), x0.count_ones(), nn],
                    [l1, l0, ln],
                    one,
                ));
                sig[r] = sw | nw;
            }
        }
        let bytes = |e: u32| 2 + e.div_ceil(8);
        low = low.min(plane_key(dd as i32, bytes(end) - bytes(pos), sh));
        keys.push(low);
        ends.push(end);
        pos = end;
    }
    let bytes: Vec<u8> = (0..pos.div_ceil(8))
        .map(|i| (0..8).fold(0u8, |b, j| b << 1 | out.get(8 * i + j) as u8))
        .collect();
    (bytes, ends, keys)
}

/// The change of a block row's squared error (in (step/2)² units, mod 2^32) when plane b′ of
/// its magnitudes (shifted right by sh, `cpu::block::keys`) is sent, `one` = 2^b′: from the
/// counts of the samples refined to a one, refined to a zero and new, `n`, and the sums of their
/// bits below b′, `l`. With u = 2L + 1 − 2^b′ a sample's error after the plane, a refined one's
/// change is 4^b′ ± 2^(b′+1)·u and a new one's (2m + 1)² − u² = 3·4^b′ + 6·2^b′·(2L + 1): linear
/// in L, so counts of the plane words give it (`block_encode_sg.wgsl`'s `row_change`).
fn row_change(n: [u32; 3], l: [u32; 3], one: u32) -> u32 {
    let u = |i: usize| (2 * l[i]).wrapping_add(n[i].wrapping_mul(1u32.wrapping_sub(one)));
    let refined = (n[0] + n[1])
        .wrapping_mul(one * one)
        .wrapping_add((2 * one).wrapping_mul(u(0).wrapping_sub(u(1))));
    let new = (3 * n[2])
        .wrapping_mul(one * one)
        .wrapping_add((6 * one).wrapping_mul(2 * l[2] + n[2]));
    refined.wrapping_add(new)
}

/// `words.wgsl`'s `compress`: the bits of x at the set bits of m, packed from bit 0 up in
/// their order (Hacker's Delight's compress, five constant steps; `deposit`'s inverse).
pub fn compress(x0: u32, m0: u32) -> u32 {
    let (mut x, mut m) = (x0 & m0, m0);
    let mut mk = !m << 1;
    for i in 0..5 {
        let mp = prefix_parity(mk);
        let mv = mp & m;
        m = (m ^ mv) | (mv >> (1 << i));
        let t = x & mv;
        x = (x ^ t) | (t >> (1 << i));
        mk &= !mp;
    }
    x
}

/// What `block_sg.wgsl` decodes from an undamaged payload of `n` planes (the bits after its
/// two header bytes, `payload`) for a block of `bw × bh` samples with `lanes` lanes: each
/// sample's sent value and sign, row-major.
pub fn decode_block(
    payload: &[u8],
    n: u32,
    bw: usize,
    bh: usize,
    lanes: usize,
) -> Vec<(u32, bool)> {
    let rows = 32 / lanes;
    let columns = if bw >= 32 { u32::MAX } else { (1u32 << bw) - 1 };
    let valid: Vec<u32> = (0..32).map(|r| if r < bh { columns } else { 0 }).collect();
    let peek = |b: u32| -> u32 {
        (0..32).fold(0u32, |w, i| {
            let at = (b + i) as usize;
            let bitv = payload.get(at / 8).map_or(0, |x| x >> (7 - at % 8) & 1);
            w << 1 | u32::from(bitv)
        })
    };
    let mut sig = [0u32; 32];
    let mut neg = [0u32; 32];
    // Each row's plane words, as the kernel keeps them.
    let mut pw = vec![[0u32; 32]; 32];
    let mut bit = 0u32;
    for plane in 0..n as usize {
        let cands_l: Vec<u32> = (0..lanes)
            .map(|l| {
                (l * rows..(l + 1) * rows)
                    .map(|r| (valid[r] & !sig[r]).count_ones())
                    .sum()
            })
            .collect();
        let sigs_l: Vec<u32> = (0..lanes)
            .map(|l| {
                (l * rows..(l + 1) * rows)
                    .map(|r| sig[r].count_ones())
                    .sum()
            })
            .collect();
        let cand0 = exclusive(&cands_l);
        let sig0 = exclusive(&sigs_l);
        let cands: u32 = cands_l.iter().sum();
        let sigs: u32 = sigs_l.iter().sum();
        let mut row_first = [0u32; 32];
        let mut row_cands = [0u32; 32];
        for l in 0..lanes {
            let mut first = cand0[l];
            for r in l * rows..(l + 1) * rows {
                row_first[r] = first;
                row_cands[r] = valid[r] & !sig[r];
                first += row_cands[r].count_ones();
            }
        }
        let z = peek(bit).leading_zeros();
        let c = (peek(bit + z) >> (31 - z)) - 1;
        let mut b = bit + 2 * z + 1;
        let mut k = 0;
        if c > 0 {
            k = peek(b) >> 28;
            b += 4;
        }
        let s0 = b + c * k;
        let q0 = s0 + c;
        let lim = q0 + cands;
        let words = if c > 0 { cands.div_ceil(32) } else { 0 };
        // The zeros, a word a lane, in rounds of the subgroup's width.
        let mut zpos = vec![0u32; 1024];
        let mut ztot = 0;
        for t in 0..words.div_ceil(lanes as u32) {
            let mut zeros = vec![0u32; lanes];
            for (l, z) in zeros.iter_mut().enumerate() {
                let wi = t * lanes as u32 + l as u32;
                if wi < words {
                    let zs = q0 + 32 * wi;
                    *z = !peek(zs);
                    if lim - zs < 32 {
                        *z &= !(u32::MAX >> (lim - zs));
                    }
                }
            }
            let counts: Vec<u32> = zeros.iter().map(|z| z.count_ones()).collect();
            let ex = exclusive(&counts);
            for l in 0..lanes {
                let (mut zj, mut w) = (ztot + ex[l], zeros[l]);
                while w != 0 && zj < c {
                    let p = w.leading_zeros();
                    zpos[zj as usize] = 32 * (t * lanes as u32 + l as u32) + p;
                    w &= !(0x8000_0000 >> p);
                    zj += 1;
                }
            }
            ztot += counts.iter().sum::<u32>();
        }
        assert!(ztot >= c, "the payload is damaged");
        let f0 = if c > 0 {
            q0 + zpos[(c - 1) as usize] + 1
        } else {
            q0
        };
        let mut row_new = [0u32; 32];
        let mut row_neg = [0u32; 32];
        let mut rbase = 0;
        for t in 0..c.div_ceil(lanes as u32) {
            let rems: Vec<u32> = (0..lanes as u32)
                .map(|l| {
                    let j = t * lanes as u32 + l;
                    if j < c && k > 0 {
                        peek(b + j * k) >> (32 - k)
                    } else {
                        0
                    }
                })
                .collect();
            let ex = exclusive(&rems);
            for l in 0..lanes as u32 {
                let j = t * lanes as u32 + l;
                let rp = rbase + ex[l as usize] + rems[l as usize];
                let jj = j.min(c - 1);
                let rank = ((zpos[jj as usize] - jj) << k) + rp + jj;
                let mut r = 0usize;
                for s in [16, 8, 4, 2, 1] {
                    if row_first[r + s] <= rank {
                        r += s;
                    }
                }
                let col = select_bit(row_cands[r], rank - row_first[r]);
                if j < c {
                    row_new[r] |= 1 << col;
                    if peek(s0 + j) >> 31 == 1 {
                        row_neg[r] |= 1 << col;
                    }
                }
            }
            rbase += rems.iter().sum::<u32>();
        }
        for l in 0..lanes {
            let mut sr = f0 + sig0[l];
            for r in l * rows..(l + 1) * rows {
                let sw = sig[r];
                pw[r][plane] = row_new[r] | deposit(peek(sr).reverse_bits(), sw);
                sr += sw.count_ones();
                sig[r] = sw | row_new[r];
                neg[r] |= row_neg[r];
            }
        }
        bit = f0 + sigs;
    }
    // The planes of a row transposed: column c's bits, plane 0 the top one.
    let columns: Vec<[u32; 32]> = pw.iter().map(|p| transpose(*p)).collect();
    let value = |r: usize, c: usize| {
        if n == 0 {
            0
        } else {
            columns[r][c].reverse_bits() >> (32 - n)
        }
    };
    (0..bh)
        .flat_map(|r| (0..bw).map(move |c| (r, c)))
        .map(|(r, c)| (value(r, c), neg[r] >> c & 1 == 1))
        .collect()
}

/// `words.wgsl`'s `prefix_parity`: bit i the parity of x's bits 0 ..= i.
fn prefix_parity(x: u32) -> u32 {
    let mut p = x ^ (x << 1);
    p ^= p << 2;
    p ^= p << 4;
    p ^= p << 8;
    p ^= p << 16;
    p
}

/// `block_sg.wgsl`'s `deposit`: x's low bits placed, lowest first, at the set bits of m
/// (Hacker's Delight's expand, five constant steps).
pub fn deposit(x0: u32, m0: u32) -> u32 {
    let (mut x, mut m) = (x0, m0);
    let mut mk = !m << 1;
    let mut mv = [0u32; 5];
    for (i, v) in mv.iter_mut().enumerate() {
        let mp = prefix_parity(mk);
        *v = mp & m;
        m = (m ^ *v) | (*v >> (1 << i));
        mk &= !mp;
    }
    for i in (0..5).rev() {
        x = (x & !mv[i]) | ((x << (1 << i)) & mv[i]);
    }
    x & m0
}

/// `block_sg.wgsl`'s `transpose`: bit r of word c of the result is bit c of `x[r]` (five stages
/// of block swaps).
pub fn transpose(x0: [u32; 32]) -> [u32; 32] {
    let mut x = x0;
    for (j, m) in [
        (16, 0x0000_ffffu32),
        (8, 0x00ff_00ff),
        (4, 0x0f0f_0f0f),
        (2, 0x3333_3333),
        (1, 0x5555_5555),
    ] {
        for i in 0..16 {
            let k = (i / j) * 2 * j + i % j;
            let t = ((x[k] >> j) ^ x[k + j]) & m;
            x[k + j] ^= t;
            x[k] ^= t << j;
        }
    }
    x
}

/// `block_sg.wgsl`'s `select_bit`: the column of the n-th set bit of w, by halves.
fn select_bit(w: u32, n0: u32) -> u32 {
    let (mut n, mut x, mut at) = (n0, w, 0);
    for half in [16u32, 8, 4, 2] {
        let c = (x & ((1 << half) - 1)).count_ones();
        if n >= c {
            n -= c;
            at += half;
            x >>= half;
        }
    }
    if n >= (x & 1) {
        at += 1;
    }
    at
}

/// The GPU's rate control and placement, as `rate.wgsl` and `pack.wgsl` split it over tiles of
/// `tile` blocks (one workgroup each): θ and the room left from the histogram; per block the
/// planes of key ≥ θ, the bytes of its ties (planes of key θ − 1) and its bytes without them,
/// summed per tile (rate.wgsl). Then each tile on its own (pack.wgsl): the tiles' totals before
/// it; the first tile whose ties do not all fit, and in it the block whose ties cross the room
/// (`cut`), whose fitting ties give `x`, the tie bytes in the whole frame; each block's ties
/// taken while they fit after every earlier block's ties (whether sent or not), and its offset
/// the bytes of the earlier blocks without ties plus min(ties before it, x). Returns the
/// planes sent, each payload's offset from the first, and θ: `cpu::rate::choose`'s planes and
/// the running sum of their bytes, which the tests check.
pub fn place_in_tiles(
    blocks: &[crate::cpu::rate::Choices],
    available: usize,
    tile: usize,
) -> Option<(Vec<usize>, Vec<usize>, u32)> {
    let (theta, left) = crate::cpu::rate::threshold(blocks, available)?;
    let tie = theta - 1;
    // rate.wgsl: a block's planes of key ≥ θ, its ties' bytes, its bytes without them.
    let high: Vec<usize> = blocks
        .iter()
        .map(|c| c.keys.iter().take_while(|&&k| k >= theta).count())
        .collect();
    let tie_planes = |b: usize| {
        let c = &blocks[b];
        (high[b]..c.keys.len()).take_while(move |&j| tie != 0 && c.keys[j] == tie)
    };
    let ties: Vec<usize> = (0..blocks.len())
        .map(|b| {
            tie_planes(b)
                .map(|j| blocks[b].rates[j + 1] - blocks[b].rates[j])
                .sum()
        })
        .collect();
    let base: Vec<usize> = (0..blocks.len())
        .map(|b| blocks[b].rates[high[b]])
        .collect();
    let tiles = blocks.len().div_ceil(tile);
    let total = |v: &[usize], t: usize| -> usize {
        v[t * tile..((t + 1) * tile).min(v.len())].iter().sum()
    };
    let tile_ties: Vec<usize> = (0..tiles).map(|t| total(&ties, t)).collect();
    let tile_base: Vec<usize> = (0..tiles).map(|t| total(&base, t)).collect();
    // A block's ties taken while they fit after `before` bytes of ties: its planes sent and
    // the bytes the ties took.
    let take = |b: usize, before: usize| -> (usize, usize) {
        let mut used = before;
        let mut n = high[b];
        for j in tie_planes(b) {
            let dr = blocks[b].rates[j + 1] - blocks[b].rates[j];
            if used + dr > left {
                break;
            }
            used += dr;
            n = j + 1;
        }
        (n, used)
    };
    let mut sent = vec![0; blocks.len()];
    let mut offsets = vec![0; blocks.len()];
    // pack.wgsl, each tile on its own, from the tiles' totals.
    for t in 0..tiles {
        let ties_before: usize = tile_ties[..t].iter().sum();
        let base_before: usize = tile_base[..t].iter().sum();
        let mut x: usize = tile_ties.iter().sum();
        let mut run = 0;
        if let Some(cut) = (0..tiles).find(|&u| {
            let crosses = run + tile_ties[u] > left;
            if !crosses {
                run += tile_ties[u];
            }
            crosses
        }) {
            // `run` is now the ties before the cut tile; its block whose ties cross the room
            // starts at or below it.
            let mut p = run;
            for b in cut * tile..((cut + 1) * tile).min(blocks.len()) {
                if p <= left && p + ties[b] > left {
                    x = take(b, p).1;
                }
                p += ties[b];
            }
        }
        let (mut p, mut q) = (ties_before, base_before);
        for b in t * tile..((t + 1) * tile).min(blocks.len()) {
            sent[b] = take(b, p).0;
            offsets[b] = q + p.min(x);
            p += ties[b];
            q += base[b];
        }
    }
    Some((sent, offsets, theta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::block::{code, keys, quantize};

    /// Blocks of every shape class (full, a partial row, a partial column, one sample, a thin
    /// strip) and every kind of content (zeros, sparse, dense, large), at every width 1 to 32:
    /// the simulated kernels write the CPU coder's bits, sizes and keys, and decode its
    /// payloads to its values, for every number of planes sent.
    #[test]
    fn subgroup_coders_equal_the_cpu_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(46);
        for (bw, bh) in [
            (32, 32),
            (31, 32),
            (32, 17),
            (1, 1),
            (7, 3),
            (32, 1),
            (1, 32),
        ] {
            for content in 0..4 {
                let len = bw * bh;
                let samples: Vec<i32> = (0..len)
                    .map(|_| match content {
                        0 => 0,
                        1 => {
                            if rng.u32(..10) == 0 {
                                rng.i32(-5000..5000)
                            } else {
                                0
                            }
                        }
                        2 => rng.i32(-300..300),
                        _ => rng.i32(-(1 << 22)..1 << 22),
                    })
                    .collect();
                let q = quantize(&samples, 1 + rng.u32(..700));
                let coded = code(&q);
                let rates = coded.rates();
                let want_keys = keys(&q, &rates);
                let mut full = Vec::new();
                coded.write(q.planes, &mut full);
                for lanes in [1, 2, 4, 8, 16, 32] {
                    let case = format!("{bw}x{bh} content {content} at {lanes} lanes");
                    let (bytes, ends, got_keys) = encode_block(&q, bw, bh, lanes);
                    let got_rates: Vec<usize> =
                        ends.iter().map(|&e| 2 + e.div_ceil(8) as usize).collect();
                    assert_eq!(got_rates, rates, "{case}: sizes");
                    assert_eq!(bytes[..], full[2..], "{case}: bits");
                    assert_eq!(got_keys, want_keys, "{case}: keys");
                    for n in 0..=q.planes {
                        let mut payload = Vec::new();
                        coded.write(n, &mut payload);
                        let got = decode_block(&payload[2..], u32::from(n), bw, bh, lanes);
                        let s = u32::from(q.planes - n);
                        for (i, &(t, negative)) in got.iter().enumerate() {
                            assert_eq!(t, q.magnitude[i] >> s, "{case}: {n} planes, sample {i}");
                            if t != 0 {
                                assert_eq!(negative, q.negative[i], "{case}: sign {i}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn select_bit_finds_every_set_bit() {
        let mut rng = fastrand::Rng::with_seed(7);
        for w in (0..2000)
            .map(|_| rng.u32(..))
            .chain([u32::MAX, 1, 0x8000_0000])
        {
            let set: Vec<u32> = (0..32).filter(|c| w >> c & 1 == 1).collect();
            for (n, &c) in set.iter().enumerate() {
                assert_eq!(select_bit(w, n as u32), c, "{w:#x} bit {n}");
            }
        }
    }

    /// The tiled placement equals the CPU's choice and the running sum of its payloads, at
    /// tile sizes 1 to 130 (a mutation of the cut's rule or of the min is caught: see below).
    #[test]
    fn the_tiled_placement_is_the_cpus() {
        use crate::cpu::rate::{Choices, choose};
        let mut rng = fastrand::Rng::with_seed(46);
        for trial in 0..60 {
            let count = [0usize, 1, 2, 7, 63, 64, 65, 127, 128, 129, 300][trial % 11] + trial / 11;
            let blocks: Vec<(Vec<usize>, Vec<u32>)> = (0..count)
                .map(|_| {
                    let p = rng.usize(0..10);
                    let mut r = vec![2usize];
                    let mut k = Vec::new();
                    // Few distinct keys, so that ties are common.
                    let mut low = 12;
                    for _ in 0..p {
                        r.push(r.last().unwrap() + rng.usize(0..60));
                        low = low.min(rng.u32(1..13));
                        k.push(low);
                    }
                    (r, k)
                })
                .collect();
            let choices: Vec<Choices> = blocks
                .iter()
                .map(|(r, k)| Choices { rates: r, keys: k })
                .collect();
            let floor: usize = blocks.iter().map(|x| x.0[0]).sum();
            let full: usize = blocks.iter().map(|x| *x.0.last().unwrap()).sum();
            for avail in [
                floor,
                floor + (full - floor) / 3,
                floor + (full - floor) / 2 + 1,
                full,
            ] {
                let (want, theta) = choose(&choices, avail).unwrap();
                let offsets: Vec<usize> = want
                    .iter()
                    .zip(&blocks)
                    .scan(0, |acc, (&n, b)| {
                        let at = *acc;
                        *acc += b.0[n];
                        Some(at)
                    })
                    .collect();
                for tile in [1, 2, 3, 5, 8, 31, 64, 100, 130] {
                    let (n, o, t) = place_in_tiles(&choices, avail, tile).unwrap();
                    assert_eq!(
                        (&n, &o, t),
                        (&want, &offsets, theta),
                        "{count} blocks, tile {tile}"
                    );
                }
            }
        }
    }

    /// `deposit`, `compress` and `transpose` against their definitions, bit by bit.
    #[test]
    fn deposit_compress_and_transpose_are_their_definitions() {
        let mut rng = fastrand::Rng::with_seed(29);
        for _ in 0..2000 {
            let (x, m) = (rng.u32(..), rng.u32(..) & rng.u32(..));
            let mut want = 0;
            let mut k = 0;
            for c in 0..32 {
                if m >> c & 1 == 1 {
                    want |= (x >> k & 1) << c;
                    k += 1;
                }
            }
            assert_eq!(deposit(x, m), want, "{x:#x} {m:#x}");
            let n = m.count_ones();
            let low = if n == 32 { x } else { x & ((1 << n) - 1) };
            assert_eq!(compress(want | (x & !m), m), low, "{x:#x} {m:#x}");
        }
        for m in [0, u32::MAX, 1, 0x8000_0000] {
            let x = rng.u32(..);
            let want = (0..32)
                .filter(|c| m >> c & 1 == 1)
                .enumerate()
                .fold(0, |w, (k, c)| w | (x >> c & 1) << k);
            assert_eq!(compress(x, m), want, "{x:#x} {m:#x}");
        }
        for _ in 0..100 {
            let a: [u32; 32] = std::array::from_fn(|_| rng.u32(..));
            let t = transpose(a);
            for (c, w) in t.iter().enumerate() {
                for (r, row) in a.iter().enumerate() {
                    assert_eq!(w >> r & 1, row >> c & 1);
                }
            }
        }
    }
}
