//! One code block's coding on the CPU: magnitudes sent bit-plane by bit-plane from the most
//! significant, a block's lowest planes droppable by the rate control, then one sign bit for
//! each sample whose sent magnitude is not zero. A payload is
//!
//! ```text
//! byte 0      P: the block's magnitude bit-planes (0: every sample is 0)
//! byte 1      n: the planes sent, the top ones (0 ..= P)
//! n planes    ⌈samples / 8⌉ bytes each, plane P − 1 first; sample i is bit 7 − i % 8 of byte i / 8
//! signs       ⌈nonzero / 8⌉ bytes: the samples whose sent magnitude is not 0, in order; 1: negative
//! ```
//!
//! A sample's magnitude is `m = ⌊|c| / Δ⌋` (a dead zone of one step around 0); with `s = P − n`
//! planes dropped, the sent value is `t = m >> s` and the decoder puts the sample at
//! `(t + ½) · 2^s · Δ` (0 where `t = 0`): the middle of the interval it knows.

use crate::format::MAX_PLANES;

/// The planes `m` needs.
fn planes_of(m: u32) -> u8 {
    (32 - m.leading_zeros()) as u8
}

/// A block's samples quantized: magnitudes and signs, and its bit-planes.
#[derive(Clone, Debug)]
pub struct Quantized {
    /// `⌊|c| / Δ⌋`, capped at `2^MAX_PLANES − 1`.
    pub magnitude: Vec<u32>,
    /// The sample was negative.
    pub negative: Vec<bool>,
    /// Bit-planes of the largest magnitude.
    pub planes: u8,
}

/// Quantize `samples` with step `step`.
pub fn quantize(samples: &[f32], step: f32) -> Quantized {
    let cap = (1u32 << MAX_PLANES) - 1;
    let magnitude: Vec<u32> = samples
        .iter()
        .map(|&c| {
            let m = (c.abs() / step).floor();
            if m.is_finite() {
                (m as u32).min(cap)
            } else {
                0
            }
        })
        .collect();
    let negative = samples.iter().map(|c| c.is_sign_negative()).collect();
    let planes = magnitude.iter().copied().max().map_or(0, planes_of);
    Quantized {
        magnitude,
        negative,
        planes,
    }
}

/// The value the decoder puts where the sent magnitude is `t` with `dropped` planes missing.
pub fn reconstruct(t: u32, dropped: u8, step: f32) -> f32 {
    if t == 0 {
        0.0
    } else {
        (t as f32 + 0.5) * (1u64 << dropped) as f32 * step
    }
}

/// Bytes of a payload sending the top `n` planes of `q`.
pub fn payload_bytes(q: &Quantized, n: u8) -> usize {
    let s = q.planes - n;
    let nonzero = q.magnitude.iter().filter(|&&m| m >> s != 0).count();
    2 + usize::from(n) * q.magnitude.len().div_ceil(8) + nonzero.div_ceil(8)
}

/// Squared error of the block's samples when the top `n` planes are sent, for every `n` from 0
/// to `q.planes` (in the wavelet domain, unweighted).
pub fn distortions(samples: &[f32], q: &Quantized, step: f32) -> Vec<f64> {
    (0..=q.planes)
        .map(|n| {
            let s = q.planes - n;
            samples
                .iter()
                .zip(&q.magnitude)
                .map(|(&c, &m)| {
                    let e = f64::from(c.abs()) - f64::from(reconstruct(m >> s, s, step));
                    e * e
                })
                .sum()
        })
        .collect()
}

/// Bytes of a payload for every `n` from 0 to `q.planes`.
pub fn rates(q: &Quantized) -> Vec<usize> {
    (0..=q.planes).map(|n| payload_bytes(q, n)).collect()
}

fn put_bit(bytes: &mut [u8], i: usize, bit: bool) {
    if bit {
        bytes[i / 8] |= 0x80 >> (i % 8);
    }
}

fn get_bit(bytes: &[u8], i: usize) -> bool {
    bytes[i / 8] & (0x80 >> (i % 8)) != 0
}

/// Append the payload sending the top `n` planes of `q` to `out`.
pub fn encode(q: &Quantized, n: u8, out: &mut Vec<u8>) {
    assert!(n <= q.planes);
    let len = q.magnitude.len();
    let pb = len.div_ceil(8);
    out.push(q.planes);
    out.push(n);
    for k in 0..n {
        let bit = q.planes - 1 - k;
        let start = out.len();
        out.resize(start + pb, 0);
        for (i, &m) in q.magnitude.iter().enumerate() {
            put_bit(&mut out[start..], i, m >> bit & 1 == 1);
        }
    }
    let s = q.planes - n;
    let signs: Vec<bool> = q
        .magnitude
        .iter()
        .zip(&q.negative)
        .filter(|(m, _)| *m >> s != 0)
        .map(|(_, &neg)| neg)
        .collect();
    let start = out.len();
    out.resize(start + signs.len().div_ceil(8), 0);
    for (i, &neg) in signs.iter().enumerate() {
        put_bit(&mut out[start..], i, neg);
    }
}

/// Why a block's payload could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    /// It runs past the end of the frame.
    Truncated,
    /// Its header says more planes than a block can have, or more sent than it has.
    BadHeader,
}

/// Decode a payload of `len` samples at the start of `bytes` into `out` (the samples' values,
/// step `step`); returns the bytes it took. On damage `out` is left zero.
pub fn decode(bytes: &[u8], len: usize, step: f32, out: &mut [f32]) -> Result<usize, Damage> {
    out.fill(0.0);
    let [planes, n] = match bytes {
        [p, n, ..] => [*p, *n],
        _ => return Err(Damage::Truncated),
    };
    if planes > MAX_PLANES || n > planes {
        return Err(Damage::BadHeader);
    }
    let pb = len.div_ceil(8);
    let body = 2 + usize::from(n) * pb;
    if bytes.len() < body {
        return Err(Damage::Truncated);
    }
    let mut t = vec![0u32; len];
    for k in 0..usize::from(n) {
        let plane = &bytes[2 + k * pb..2 + (k + 1) * pb];
        for (i, v) in t.iter_mut().enumerate() {
            *v = *v << 1 | u32::from(get_bit(plane, i));
        }
    }
    let nonzero = t.iter().filter(|&&v| v != 0).count();
    let total = body + nonzero.div_ceil(8);
    if bytes.len() < total {
        return Err(Damage::Truncated);
    }
    let signs = &bytes[body..total];
    let dropped = planes - n;
    let mut j = 0;
    for (o, &v) in out.iter_mut().zip(&t) {
        if v != 0 {
            let r = reconstruct(v, dropped, step);
            *o = if get_bit(signs, j) { -r } else { r };
            j += 1;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_truncation_decodes_to_what_the_encoder_assumed() {
        let mut rng = fastrand::Rng::with_seed(11);
        for len in [1usize, 7, 8, 9, 64, 1000, 1024] {
            let step = 0.37;
            let samples: Vec<f32> = (0..len)
                .map(|i| match i % 5 {
                    0 => 0.0,
                    1 => -0.1,
                    _ => (rng.f32() - 0.5) * 400.0,
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
                let mut out = vec![f32::NAN; len];
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
            let mut out = vec![0f32; len];
            decode(&bytes, len, step, &mut out).unwrap();
            for (a, b) in samples.iter().zip(&out) {
                assert!((a - b).abs() <= step * 1.0001, "{a} {b}");
                assert!(*b == 0.0 || a.signum() == b.signum());
            }
            // Sending every plane never costs more error than sending none (one more plane can:
            // the middle of a finer interval may lie further from a sample than the coarser's).
            assert!(d[usize::from(q.planes)] <= d[0] + 1e-9);
        }
    }

    #[test]
    fn damaged_payloads_are_reported_and_leave_zeros() {
        let q = quantize(&[5.0, -9.0, 0.0, 3.0], 1.0);
        let mut bytes = Vec::new();
        encode(&q, q.planes, &mut bytes);
        let mut out = vec![1.0f32; 4];
        for cut in 0..bytes.len() {
            assert_eq!(
                decode(&bytes[..cut], 4, 1.0, &mut out),
                Err(Damage::Truncated)
            );
            assert!(out.iter().all(|&v| v == 0.0));
        }
        let mut bad = bytes.clone();
        bad[0] = MAX_PLANES + 1;
        assert_eq!(decode(&bad, 4, 1.0, &mut out), Err(Damage::BadHeader));
        bad[0] = 2;
        bad[1] = 3;
        assert_eq!(decode(&bad, 4, 1.0, &mut out), Err(Damage::BadHeader));
    }
}
