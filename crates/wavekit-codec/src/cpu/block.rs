//! One code block's coding on the CPU: magnitudes sent bit-plane by bit-plane from the most
//! significant, each plane a significance pass and a refinement pass, so that a block's lowest
//! planes can be dropped by the rate control. A payload is
//!
//! ```text
//! byte 0      P: the block's magnitude bit-planes (0: every sample is 0)
//! byte 1      n: the planes sent, the top ones (0 ..= P)
//! bits        for each of the n planes, most significant bit first:
//!               c        the samples that become significant in this plane (Exp-Golomb, order 0)
//!               4 bits   k, the plane's Golomb–Rice parameter (only where c > 0)
//!               for each of the c samples, in sample order among those not yet significant,
//!               the run r of such samples skipped before it, in three sections:
//!                 the remainders: the low k bits of r, each
//!                 the signs: one bit each (1: negative)
//!                 the quotients: r >> k ones and a zero, each
//!               the refinement pass: the plane's bit of each sample significant before it
//!             padded with zeros to a whole byte
//! ```
//!
//! The count first and the runs' parts in sections make a plane decodable in parallel (bitstream
//! version 3, ADR-0076): the remainders and signs sit at places c and k give, and the j-th
//! new sample's place among the candidates is `((z_j − j) << k) + (its remainder and the
//! earlier ones) + j`, z_j the offset of the j-th zero of the quotients: one scan of zeros and
//! remainders places every code, where version 2's interleaved codes had to be read one after
//! another. Golomb–Rice with parameter k: `v >> k` ones, a zero, then the low k bits of v.
//! A sample's magnitude is `m = ⌊|c|·2^8 / Δ⌋` (a dead zone of one step around 0; c in fixed
//! point, the band's step Δ in units of 2^-8 of c's unit); with `s = P − n` planes dropped,
//! the sent value is `t = m >> s` and the decoder puts the sample at `((2t + 1) << s)·Δ >> 9`
//! (0 where `t = 0`): the middle of the interval it knows, in integers. The planes are
//! embedded: the payload for n planes is the first bits of the one for n + 1, so one pass
//! gives every n's size. ADR-0068 measured the runs against raw bit-planes.

use crate::format::MAX_PLANES;

/// The planes `m` needs.
fn planes_of(m: u32) -> u8 {
    (32 - m.leading_zeros()) as u8
}

/// A block's samples quantized: magnitudes and signs, and its bit-planes.
#[derive(Clone, Debug)]
pub struct Quantized {
    /// `⌊|c|·2^8 / step⌋`, capped at `2^MAX_PLANES − 1`.
    pub magnitude: Vec<u32>,
    /// The sample was negative.
    pub negative: Vec<bool>,
    /// Bit-planes of the largest magnitude.
    pub planes: u8,
}

/// Quantize `samples` (fixed point, [`crate::format::FRAC_BITS`] fractional bits) with the
/// band's step `step` (units of 2^-8 of a sample unit): `m = ⌊min(|c|, 2^23)·2^8 / step⌋`.
pub fn quantize(samples: &[i32], step: u32) -> Quantized {
    let cap = (1u32 << MAX_PLANES) - 1;
    let step = step.max(1);
    // |c| clamped to 2^23 first so that the shift fits 32 bits (the GPU's arithmetic); an
    // 8-bit frame's coefficients stay far below it.
    let magnitude: Vec<u32> = samples
        .iter()
        .map(|&c| ((c.unsigned_abs().min(1 << 23) << 8) / step).min(cap))
        .collect();
    let negative = samples.iter().map(|&c| c < 0).collect();
    let planes = magnitude.iter().copied().max().map_or(0, planes_of);
    Quantized {
        magnitude,
        negative,
        planes,
    }
}

/// The magnitude the decoder puts where the sent value is `t` with `dropped` planes missing:
/// the middle of the interval it knows, `(t + ½)·2^dropped` steps, in sample units:
/// `((2t + 1) << dropped)·step >> 9` in wrapping u32 arithmetic (the GPU's), 0 where `t = 0`.
pub fn reconstruct(t: u32, dropped: u8, step: u32) -> i32 {
    if t == 0 {
        0
    } else {
        let v = (t.wrapping_mul(2) | 1).wrapping_shl(u32::from(dropped));
        (v.wrapping_mul(step) >> 9) as i32
    }
}

/// Bins of the rate control's slope keys.
pub const KEY_BINS: u32 = 4096;

/// `32·⌊log2 x⌋` plus the 5 bits after x's leading one: log2 in 1/32 octave steps, in
/// integers (x ≥ 1).
pub fn ilog(x: u32) -> u32 {
    let e = 31 - x.leading_zeros();
    let frac = if e >= 5 {
        (x >> (e - 5)) & 31
    } else {
        (x << (5 - e)) & 31
    };
    32 * e + frac
}

/// Twice a magnitude's error in steps when `s` planes are dropped: `|2m + 1 − R|`, R the
/// decoder's `(2t + 1) << s` (0 where t = 0).
fn err2(m: u32, s: u32) -> u32 {
    let t = m.checked_shr(s).unwrap_or(0);
    let r = if t == 0 { 0 } else { (2 * t + 1) << s };
    (2 * m + 1).abs_diff(r)
}

/// The rate control's key of each plane n = 1 ..= P of a block (index n − 1): how much error
/// the plane removes per byte it costs, as an integer bin (1: it removes none, taken only when
/// every plane fits; higher: more per byte), made non-increasing in n (a plane never ranks
/// above an earlier one). In integers only,
/// so the GPU computes the same: the error of plane n's step in units of (step/2)², from each
/// sample's magnitude with its `sh = max(0, s − 8)` lowest bits dropped (s the planes dropped
/// after it; the error of `m >> sh` with `s − sh` planes dropped, squared), so every sum fits in
/// 31 bits and the change is linear in the kept low bits (the GPU sums it from counts of its
/// plane words, ADR-0093); the key `ilog(dD) + 64·sh + 416 − ilog(dR)` (dR the step's bytes),
/// clamped to 1 ..= KEY_BINS − 1; a step of no bytes that removes error takes the top.
/// The bands' steps are Δ/√G_b, so error in steps is already weighted by the band's gain.
pub fn keys(q: &Quantized, rates: &[usize]) -> Vec<u32> {
    let p = u32::from(q.planes);
    let mut out = Vec::with_capacity(q.planes.into());
    let mut low = KEY_BINS - 1;
    for n in 1..=p {
        let s = p - n;
        let sh = s.saturating_sub(8);
        let (mut before, mut after) = (0u32, 0u32);
        for &m in &q.magnitude {
            let b = err2(m >> sh, s + 1 - sh);
            let a = err2(m >> sh, s - sh);
            before = before.wrapping_add(b * b);
            after = after.wrapping_add(a * a);
        }
        let dd = before.wrapping_sub(after) as i32;
        let dr = (rates[n as usize] - rates[n as usize - 1]) as u32;
        low = low.min(plane_key(dd, dr, sh));
        out.push(low);
    }
    out
}

/// A plane's key from the error it removes, `dd` (in units of (step/2)², each sample's
/// magnitude shifted right by `sh` first), and the bytes it costs, `dr` (see [`keys`]).
pub fn plane_key(dd: i32, dr: u32, sh: u32) -> u32 {
    if dd <= 0 {
        1
    } else if dr == 0 {
        KEY_BINS - 1
    } else {
        (ilog(dd as u32) + 64 * sh + 416)
            .saturating_sub(ilog(dr))
            .clamp(1, KEY_BINS - 1)
    }
}

/// Squared error of the block's samples when the top `n` planes are sent, for every `n` from 0
/// to `q.planes` (in the wavelet domain, unweighted, in squared sample units).
pub fn distortions(samples: &[i32], q: &Quantized, step: u32) -> Vec<f64> {
    (0..=q.planes)
        .map(|n| {
            let s = q.planes - n;
            samples
                .iter()
                .zip(&q.magnitude)
                .map(|(&c, &m)| {
                    let e = f64::from(c.unsigned_abs()) - f64::from(reconstruct(m >> s, s, step));
                    e * e
                })
                .sum()
        })
        .collect()
}

/// Bits, most significant first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    bits: usize,
}

impl BitWriter {
    fn put(&mut self, bit: bool) {
        if self.bits.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= 0x80 >> (self.bits % 8);
        }
        self.bits += 1;
    }

    fn put_bits(&mut self, v: u32, n: u32) {
        for b in (0..n).rev() {
            self.put(v >> b & 1 == 1);
        }
    }

    /// Exp-Golomb of order 0: `v + 1` in binary after as many zeros as it has bits less one.
    fn put_exp_golomb(&mut self, v: u32) {
        let n = 32 - (v + 1).leading_zeros();
        self.put_bits(0, n - 1);
        self.put_bits(v + 1, n);
    }
}

/// Bits of `v` in Golomb–Rice with parameter `k` (`v >> k` ones, a zero, the low `k` bits).
fn rice_bits(v: u32, k: u32) -> usize {
    (v >> k) as usize + 1 + k as usize
}

/// Reads bits, most significant first; past the end is an error.
struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
}

impl BitReader<'_> {
    fn get(&mut self) -> Result<bool, Damage> {
        let byte = *self.bytes.get(self.bit / 8).ok_or(Damage::Truncated)?;
        let b = byte & (0x80 >> (self.bit % 8)) != 0;
        self.bit += 1;
        Ok(b)
    }

    fn get_bits(&mut self, n: u32) -> Result<u32, Damage> {
        let mut v = 0;
        for _ in 0..n {
            v = v << 1 | u32::from(self.get()?);
        }
        Ok(v)
    }

    /// An Exp-Golomb value of order 0 that may not exceed `max` (more is damage).
    fn get_exp_golomb(&mut self, max: u32) -> Result<u32, Damage> {
        let mut zeros = 0u32;
        while !self.get()? {
            zeros += 1;
            // `max + 1` has at most 11 bits here: more zeros than that is damage.
            if zeros > 31 - (max + 1).leading_zeros() {
                return Err(Damage::BadHeader);
            }
        }
        let v = (1 << zeros | self.get_bits(zeros)?) - 1;
        if v > max {
            return Err(Damage::BadHeader);
        }
        Ok(v)
    }
}

/// Bits of the Golomb–Rice parameter sent with each plane's significance pass.
const RICE_BITS: u32 = 4;

/// Bits of `v` in Exp-Golomb of order 0: `2⌊log2(v + 1)⌋ + 1`.
pub fn exp_golomb_bits(v: u32) -> u32 {
    2 * (31 - (v + 1).leading_zeros()) + 1
}

/// The coded planes of `q`, top first, as one bit string, and the bits after each plane. Plane
/// by plane: the count c of samples that become significant (Exp-Golomb); where c > 0 the
/// Golomb–Rice parameter k (4 bits, the one that costs least), then, for the c samples in
/// order among those not yet significant, the runs of such samples before each: their k-bit
/// remainders, their signs, their quotients in unary; the refinement pass (the plane's
/// bit of every sample significant in an earlier plane, raw).
fn planes_coded(q: &Quantized) -> (BitWriter, Vec<usize>) {
    let mut w = BitWriter::default();
    let mut ends = vec![0usize];
    let mut significant = vec![false; q.magnitude.len()];
    for k in 0..q.planes {
        let bit = q.planes - 1 - k;
        let mut runs = Vec::new();
        let mut newly = Vec::new();
        let mut run = 0u32;
        for (i, &m) in q.magnitude.iter().enumerate() {
            if significant[i] {
                continue;
            }
            if m >> bit & 1 == 1 {
                runs.push(run);
                newly.push(i);
                run = 0;
            } else {
                run += 1;
            }
        }
        w.put_exp_golomb(newly.len() as u32);
        if !newly.is_empty() {
            let cost = |p: u32| -> usize { runs.iter().map(|&r| rice_bits(r, p)).sum::<usize>() };
            let p = (0..1u32 << RICE_BITS)
                .min_by_key(|&p| (cost(p), p))
                .unwrap_or(0);
            w.put_bits(p, RICE_BITS);
            for &r in &runs {
                w.put_bits(r & ((1 << p) - 1), p);
            }
            for &i in &newly {
                w.put(q.negative[i]);
            }
            for &r in &runs {
                for _ in 0..r >> p {
                    w.put(true);
                }
                w.put(false);
            }
        }
        for (i, &m) in q.magnitude.iter().enumerate() {
            if significant[i] {
                w.put(m >> bit & 1 == 1);
            }
        }
        for &i in &newly {
            significant[i] = true;
        }
        ends.push(w.bits);
    }
    (w, ends)
}

/// A block's planes coded once: every truncation's size, and its payload, from one pass.
pub struct Coded {
    planes: u8,
    bits: BitWriter,
    ends: Vec<usize>,
}

/// Code the planes of `q` once.
pub fn code(q: &Quantized) -> Coded {
    let (bits, ends) = planes_coded(q);
    Coded {
        planes: q.planes,
        bits,
        ends,
    }
}

impl Coded {
    /// Bytes of a payload for every `n` from 0 to the block's planes.
    pub fn rates(&self) -> Vec<usize> {
        self.ends.iter().map(|b| 2 + b.div_ceil(8)).collect()
    }

    /// Append the payload sending the top `n` planes to `out`.
    pub fn write(&self, n: u8, out: &mut Vec<u8>) {
        assert!(n <= self.planes);
        let bits = self.ends[usize::from(n)];
        out.push(self.planes);
        out.push(n);
        out.extend_from_slice(&self.bits.bytes[..bits.div_ceil(8)]);
        // The last byte's bits past the planes sent are zero: the payload is one function of
        // the block and n.
        if !bits.is_multiple_of(8) {
            let last = out.len() - 1;
            out[last] &= !(0xFFu8 >> (bits % 8));
        }
    }
}

/// Bytes of a payload for every `n` from 0 to `q.planes`.
pub fn rates(q: &Quantized) -> Vec<usize> {
    code(q).rates()
}

/// Append the payload sending the top `n` planes of `q` to `out`.
pub fn encode(q: &Quantized, n: u8, out: &mut Vec<u8>) {
    code(q).write(n, out);
}

/// Why a block's payload could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    /// It runs past the end of the frame.
    Truncated,
    /// Its header says more planes than a block can have or more sent than it has, or a run
    /// goes past the block.
    BadHeader,
}

/// Decode a payload of `len` samples at the start of `bytes` into `out` (the samples' values,
/// step `step`); returns the bytes it took. On damage `out` is left zero.
pub fn decode(bytes: &[u8], len: usize, step: u32, out: &mut [i32]) -> Result<usize, Damage> {
    out.fill(0);
    let r = decode_values(bytes, len, step, out);
    if r.is_err() {
        out.fill(0);
    }
    r
}

fn decode_values(bytes: &[u8], len: usize, step: u32, out: &mut [i32]) -> Result<usize, Damage> {
    let [planes, n] = match bytes {
        [p, n, ..] => [*p, *n],
        _ => return Err(Damage::Truncated),
    };
    if planes > MAX_PLANES || n > planes {
        return Err(Damage::BadHeader);
    }
    let mut rd = BitReader {
        bytes: &bytes[2..],
        bit: 0,
    };
    let mut t = vec![0u32; len];
    let mut negative = vec![false; len];
    let mut significant = vec![false; len];
    for _ in 0..n {
        let candidates: Vec<usize> = (0..len).filter(|&i| !significant[i]).collect();
        let left = candidates.len() as u32;
        let c = rd.get_exp_golomb(left)? as usize;
        let mut newly = Vec::with_capacity(c);
        if c > 0 {
            let p = rd.get_bits(RICE_BITS)?;
            let mut remainders = Vec::with_capacity(c);
            for _ in 0..c {
                remainders.push(rd.get_bits(p)?);
            }
            let mut signs = Vec::with_capacity(c);
            for _ in 0..c {
                signs.push(rd.get()?);
            }
            // The quotients: the c-th zero ends them; they cannot take more bits than there
            // are candidates (each run and its sample take at least a bit).
            let mut used = 0u32;
            let mut at = 0u32;
            for (rem, neg) in remainders.into_iter().zip(signs) {
                let mut q = 0u32;
                while rd.get()? {
                    q += 1;
                    if used + q >= left {
                        return Err(Damage::BadHeader);
                    }
                }
                used += q + 1;
                if used > left {
                    return Err(Damage::BadHeader);
                }
                at += (q << p | rem) + 1;
                if at > left {
                    return Err(Damage::BadHeader);
                }
                let i = candidates[(at - 1) as usize];
                negative[i] = neg;
                newly.push(i);
            }
        }
        for i in 0..len {
            t[i] <<= 1;
            if significant[i] {
                t[i] |= u32::from(rd.get()?);
            }
        }
        for &i in &newly {
            t[i] |= 1;
            significant[i] = true;
        }
    }
    let dropped = planes - n;
    for ((o, &v), &neg) in out.iter_mut().zip(&t).zip(&negative) {
        if v != 0 {
            let r = reconstruct(v, dropped, step);
            *o = if neg { r.wrapping_neg() } else { r };
        }
    }
    Ok(2 + rd.bit.div_ceil(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_truncation_decodes_to_what_the_encoder_assumed() {
        let mut rng = fastrand::Rng::with_seed(11);
        for len in [1usize, 7, 8, 9, 64, 1000, 1024] {
            // A step of 0.37 sample units (2^-8 units), samples up to ±200·2^5.
            let step = 95;
            let samples: Vec<i32> = (0..len)
                .map(|i| match i % 5 {
                    0 => 0,
                    1 => -1,
                    _ => rng.i32(-6400..6400),
                })
                .collect();
            let q = quantize(&samples, step);
            let d = distortions(&samples, &q, step);
            let r = rates(&q);
            for n in 0..=q.planes {
                let mut bytes = Vec::new();
                encode(&q, n, &mut bytes);
                assert_eq!(bytes.len(), r[usize::from(n)], "len {len} n {n}");
                bytes.extend_from_slice(&[0xAA; 5]); // what follows is not read
                let mut out = vec![i32::MIN; len];
                assert_eq!(decode(&bytes, len, step, &mut out), Ok(r[usize::from(n)]));
                let err: f64 = samples
                    .iter()
                    .zip(&out)
                    .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
                    .sum();
                assert!(
                    (err - d[usize::from(n)]).abs() <= 1e-6 * (1.0 + err),
                    "{err} {}",
                    d[usize::from(n)]
                );
            }
            // All planes: every sample within half a step of its value.
            let mut bytes = Vec::new();
            encode(&q, q.planes, &mut bytes);
            let mut out = vec![0i32; len];
            decode(&bytes, len, step, &mut out).unwrap();
            for (a, b) in samples.iter().zip(&out) {
                // Within a step (0.37 units, rounded down in the reconstruction).
                assert!((a - b).abs() <= 1, "{a} {b}");
                assert!(*b == 0 || a.signum() == b.signum());
            }
            // Sending every plane never costs more error than sending none (one more plane can:
            // the middle of a finer interval may lie further from a sample than the coarser's).
            assert!(d[usize::from(q.planes)] <= d[0] + 1e-9);
        }
    }

    #[test]
    fn runs_that_end_on_a_significant_sample_and_empty_lists_round_trip() {
        for samples in [
            vec![0i32, 0, 9],
            vec![9, 9, 9],
            vec![0; 5],
            vec![-1, 0, 0, 0, 0, 0, 0, 0, 0, 8],
            vec![3],
        ] {
            // A step of one unit: 256 in units of 2^-8.
            let q = quantize(&samples, 256);
            for n in 0..=q.planes {
                let mut bytes = Vec::new();
                encode(&q, n, &mut bytes);
                let mut out = vec![0i32; samples.len()];
                assert_eq!(
                    decode(&bytes, samples.len(), 256, &mut out),
                    Ok(bytes.len())
                );
            }
            let mut bytes = Vec::new();
            encode(&q, q.planes, &mut bytes);
            let mut out = vec![0i32; samples.len()];
            decode(&bytes, samples.len(), 256, &mut out).unwrap();
            // Every plane sent with a step of one unit: each sample exactly.
            assert_eq!(out, samples);
        }
    }

    #[test]
    fn any_bytes_decode_or_are_damage_never_a_panic() {
        let mut rng = fastrand::Rng::with_seed(21);
        let samples: Vec<i32> = (0..1024).map(|_| rng.i32(-9600..9600)).collect();
        let q = quantize(&samples, 128);
        let mut clean = Vec::new();
        encode(&q, q.planes, &mut clean);
        let mut out = vec![0i32; 1024];
        for trial in 0..2000 {
            let mut b = clean.clone();
            match trial % 3 {
                0 => {
                    let i = rng.usize(..b.len());
                    b[i] ^= 1 << rng.u8(..8);
                }
                1 => b.truncate(rng.usize(..b.len())),
                _ => b = (0..rng.usize(..64)).map(|_| rng.u8(..)).collect(),
            }
            if let Ok(used) = decode(&b, 1024, 128, &mut out) {
                assert!(used <= b.len());
            } else {
                assert!(out.iter().all(|&v| v == 0));
            }
        }
    }

    #[test]
    fn damaged_payloads_are_reported_and_leave_zeros() {
        let q = quantize(&[5, -9, 0, 3], 256);
        let mut bytes = Vec::new();
        encode(&q, q.planes, &mut bytes);
        let mut out = vec![1i32; 4];
        for cut in 0..bytes.len() {
            assert_eq!(
                decode(&bytes[..cut], 4, 256, &mut out),
                Err(Damage::Truncated)
            );
            assert!(out.iter().all(|&v| v == 0));
        }
        let mut bad = bytes.clone();
        bad[0] = MAX_PLANES + 1;
        assert_eq!(decode(&bad, 4, 256, &mut out), Err(Damage::BadHeader));
        bad[0] = 2;
        bad[1] = 3;
        assert_eq!(decode(&bad, 4, 256, &mut out), Err(Damage::BadHeader));
    }
}
