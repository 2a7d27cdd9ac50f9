//! The plain Rust reference of the transform, written from ITU-T T.800 Annex F as the issue
//! states it: whole-sample symmetric extension, the lifting steps on the extended signal, even
//! samples to the low band and odd to the high band, and the Mallat layout in place.

use crate::Wavelet;

/// α, β, γ, δ and K of the 9/7 lifting (T.800 Table F.4).
pub const ALPHA: f64 = -1.586_134_342_059_924;
/// β.
pub const BETA: f64 = -0.052_980_118_572_961;
/// γ.
pub const GAMMA: f64 = 0.882_911_075_530_934;
/// δ.
pub const DELTA: f64 = 0.443_506_852_043_971;
/// K: low band = even / K, high band = K · odd.
pub const K: f64 = 1.230_174_104_914_001;

/// PSE(i) for a signal of `n` samples starting at 0: i mirrored into 0..n without repeating
/// the end samples.
pub fn pse(i: i64, n: usize) -> usize {
    if n == 1 {
        return 0;
    }
    let period = 2 * (n as i64 - 1);
    let m = i.rem_euclid(period);
    m.min(period - m) as usize
}

/// The signal extended by `margin` samples each side: `e[j] = x[PSE(j − margin)]`.
fn extend<T: Copy>(x: &[T], margin: usize) -> Vec<T> {
    (0..x.len() + 2 * margin)
        .map(|j| x[pse(j as i64 - margin as i64, x.len())])
        .collect()
}

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// 5/3 forward on one signal: the interleaved coefficients (Y(2k) low, Y(2k+1) high).
pub fn forward_53(x: &[i32]) -> Vec<i32> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    let m = 2;
    let mut e: Vec<i64> = extend(x, m).into_iter().map(i64::from).collect();
    let at = |j: usize| j as i64 - m as i64; // the index i of e[j]
    // Y(2k+1) = X(2k+1) − ⌊(X(2k) + X(2k+2)) / 2⌋ on the extended odd samples.
    for j in 1..e.len() - 1 {
        if at(j).rem_euclid(2) == 1 {
            e[j] -= floor_div(e[j - 1] + e[j + 1], 2);
        }
    }
    // Y(2k) = X(2k) + ⌊(Y(2k−1) + Y(2k+1) + 2) / 4⌋.
    for j in 1..e.len() - 1 {
        if at(j).rem_euclid(2) == 0 {
            e[j] += floor_div(e[j - 1] + e[j + 1] + 2, 4);
        }
    }
    e[m..m + n].iter().map(|&v| v as i32).collect()
}

/// 5/3 inverse on one signal of interleaved coefficients.
pub fn inverse_53(y: &[i32]) -> Vec<i32> {
    let n = y.len();
    if n <= 1 {
        return y.to_vec();
    }
    let m = 2;
    let mut e: Vec<i64> = extend(y, m).into_iter().map(i64::from).collect();
    let at = |j: usize| j as i64 - m as i64;
    for j in 1..e.len() - 1 {
        if at(j).rem_euclid(2) == 0 {
            e[j] -= floor_div(e[j - 1] + e[j + 1] + 2, 4);
        }
    }
    for j in 1..e.len() - 1 {
        if at(j).rem_euclid(2) == 1 {
            e[j] += floor_div(e[j - 1] + e[j + 1], 2);
        }
    }
    e[m..m + n].iter().map(|&v| v as i32).collect()
}

/// One lifting step on the extended signal: samples of `parity` += c · (left + right).
fn lift(e: &mut [f64], margin: usize, parity: i64, c: f64) {
    for j in 1..e.len() - 1 {
        if (j as i64 - margin as i64).rem_euclid(2) == parity {
            e[j] += c * (e[j - 1] + e[j + 1]);
        }
    }
}

/// 9/7 forward on one signal (f64): interleaved coefficients.
pub fn forward_97(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    let m = 4;
    let mut e = extend(x, m);
    lift(&mut e, m, 1, ALPHA);
    lift(&mut e, m, 0, BETA);
    lift(&mut e, m, 1, GAMMA);
    lift(&mut e, m, 0, DELTA);
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                e[m + i] / K
            } else {
                K * e[m + i]
            }
        })
        .collect()
}

/// 9/7 inverse on one signal (f64).
pub fn inverse_97(y: &[f64]) -> Vec<f64> {
    let n = y.len();
    if n <= 1 {
        return y.to_vec();
    }
    let m = 4;
    let scaled: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { y[i] * K } else { y[i] / K })
        .collect();
    let mut e = extend(&scaled, m);
    lift(&mut e, m, 0, -DELTA);
    lift(&mut e, m, 1, -GAMMA);
    lift(&mut e, m, 0, -BETA);
    lift(&mut e, m, 1, -ALPHA);
    e[m..m + n].to_vec()
}

/// Interleaved (even, odd, even, …) to bands (evens, then odds).
fn to_bands<T: Copy>(y: &[T]) -> Vec<T> {
    y.iter()
        .step_by(2)
        .chain(y.iter().skip(1).step_by(2))
        .copied()
        .collect()
}

/// Bands back to interleaved.
fn from_bands<T: Copy>(b: &[T]) -> Vec<T> {
    let low = b.len().div_ceil(2);
    (0..b.len())
        .map(|i| if i % 2 == 0 { b[i / 2] } else { b[low + i / 2] })
        .collect()
}

/// The LL region of each level: (width, height) before level l, for l = 0..levels.
pub fn regions(width: usize, height: usize, levels: u32) -> Vec<(usize, usize)> {
    let mut r = Vec::new();
    let (mut w, mut h) = (width, height);
    for _ in 0..levels {
        r.push((w, h));
        w = w.div_ceil(2);
        h = h.div_ceil(2);
    }
    r
}

/// Most levels for a `width` × `height` plane: until LL is 1 × 1.
pub fn max_levels(width: usize, height: usize) -> u32 {
    let (mut w, mut h, mut l) = (width.max(1), height.max(1), 0);
    while w > 1 || h > 1 {
        w = w.div_ceil(2);
        h = h.div_ceil(2);
        l += 1;
    }
    l
}

/// Apply `f` to every column then every row (`rows_first`: rows then columns) of the region
/// `w` × `h` of a plane of pitch `pitch`.
fn each_line<T: Copy>(
    plane: &mut [T],
    pitch: usize,
    (w, h): (usize, usize),
    rows_first: bool,
    f: &dyn Fn(&[T]) -> Vec<T>,
) {
    let cols = |plane: &mut [T]| {
        for x in 0..w {
            let line: Vec<T> = (0..h).map(|y| plane[y * pitch + x]).collect();
            for (y, v) in f(&line).into_iter().enumerate() {
                plane[y * pitch + x] = v;
            }
        }
    };
    let rows = |plane: &mut [T]| {
        for y in 0..h {
            let line: Vec<T> = plane[y * pitch..y * pitch + w].to_vec();
            plane[y * pitch..y * pitch + w].copy_from_slice(&f(&line));
        }
    };
    if rows_first {
        rows(plane);
        cols(plane);
    } else {
        cols(plane);
        rows(plane);
    }
}

/// The forward 2D transform of a 5/3 plane in place (Mallat layout), `levels` levels:
/// per level, columns then rows.
pub fn forward_2d_53(plane: &mut [i32], width: usize, height: usize, levels: u32) {
    for r in regions(width, height, levels) {
        each_line(plane, width, r, false, &|l| to_bands(&forward_53(l)));
    }
}

/// The inverse of [`forward_2d_53`]: per level from the last, rows then columns.
pub fn inverse_2d_53(plane: &mut [i32], width: usize, height: usize, levels: u32) {
    for r in regions(width, height, levels).into_iter().rev() {
        each_line(plane, width, r, true, &|l| inverse_53(&from_bands(l)));
    }
}

/// The forward 2D 9/7 transform in f64.
pub fn forward_2d_97(plane: &mut [f64], width: usize, height: usize, levels: u32) {
    for r in regions(width, height, levels) {
        each_line(plane, width, r, false, &|l| to_bands(&forward_97(l)));
    }
}

/// The inverse 2D 9/7 transform in f64.
pub fn inverse_2d_97(plane: &mut [f64], width: usize, height: usize, levels: u32) {
    for r in regions(width, height, levels).into_iter().rev() {
        each_line(plane, width, r, true, &|l| inverse_97(&from_bands(l)));
    }
}

/// Which reference transform a wavelet uses (for messages).
pub fn name(w: Wavelet) -> &'static str {
    match w {
        Wavelet::Reversible53 => "5/3",
        Wavelet::Irreversible97 => "9/7",
        Wavelet::Fixed97 => "fixed-point 9/7",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked from the equations (Mallat order: low band, then high band).
    #[test]
    fn five_three_by_hand() {
        // n = 1 passes through.
        assert_eq!(to_bands(&forward_53(&[7])), [7]);
        // n = 2, x = (2, 0): X(2) = X(PSE(2)) = X(0) = 2, so Y(1) = 0 − ⌊(2 + 2)/2⌋ = −2;
        // Y(−1) = Y(1), so Y(0) = 2 + ⌊(−2 − 2 + 2)/4⌋ = 2 + ⌊−0.5⌋ = 1 (a truncating
        // division would give 2).
        assert_eq!(to_bands(&forward_53(&[2, 0])), [1, -2]);
        // n = 2, x = (10, 3): Y(1) = 3 − 10 = −7; Y(0) = 10 + ⌊(−14 + 2)/4⌋ = 7.
        assert_eq!(to_bands(&forward_53(&[10, 3])), [7, -7]);
        // n = 3, x = (1, 5, 2): Y(1) = 5 − ⌊3/2⌋ = 4; Y(0) = 1 + ⌊(4 + 4 + 2)/4⌋ = 3;
        // Y(3) = Y(PSE(3)) = Y(1), so Y(2) = 2 + ⌊10/4⌋ = 4.
        assert_eq!(to_bands(&forward_53(&[1, 5, 2])), [3, 4, 4]);
        // n = 4, x = (4, 8, 6, 2): Y(1) = 8 − 5 = 3; X(4) = X(2) = 6, Y(3) = 2 − 6 = −4;
        // Y(0) = 4 + ⌊8/4⌋ = 6; Y(2) = 6 + ⌊(3 − 4 + 2)/4⌋ = 6.
        assert_eq!(to_bands(&forward_53(&[4, 8, 6, 2])), [6, 6, 3, -4]);
        // n = 5, x = (0, 4, 8, 4, 0): Y(1) = 4 − 4 = 0, Y(3) = 4 − 4 = 0;
        // Y(0) = 0 + ⌊2/4⌋ = 0, Y(2) = 8 + ⌊2/4⌋ = 8, Y(4) = 0 + ⌊(0 + 0 + 2)/4⌋ = 0.
        assert_eq!(to_bands(&forward_53(&[0, 4, 8, 4, 0])), [0, 8, 0, 0, 0]);
        // n = 6, x = (1, 2, 3, 4, 5, 6): Y(1) = 2 − 2 = 0, Y(3) = 4 − 4 = 0;
        // X(6) = X(PSE(6)) = X(4) = 5, Y(5) = 6 − 5 = 1;
        // Y(0) = 1 + ⌊2/4⌋ = 1, Y(2) = 3 + ⌊2/4⌋ = 3, Y(4) = 5 + ⌊(0 + 1 + 2)/4⌋ = 5.
        assert_eq!(
            to_bands(&forward_53(&[1, 2, 3, 4, 5, 6])),
            [1, 3, 5, 0, 0, 1]
        );
    }

    #[test]
    fn tiny_2d_by_hand() {
        // 2 × 2, one level: columns (2, 0) → (1, −2) and (10, 3) → (7, −7); then rows
        // (1, 7) → (1 + ⌊(6 + 6 + 2)/4⌋, 7 − 1) = (4, 6) and (−2, −7) → (−2 + ⌊(−5·2 + 2)/4⌋,
        // −7 + 2) = (−4, −5).
        let mut p = [2, 10, 0, 3];
        forward_2d_53(&mut p, 2, 2, 1);
        assert_eq!(p, [4, 6, -4, -5]);
        inverse_2d_53(&mut p, 2, 2, 1);
        assert_eq!(p, [2, 10, 0, 3]);
    }

    #[test]
    fn round_trips() {
        let mut rng = fastrand::Rng::with_seed(5);
        for n in 1..40 {
            let x: Vec<i32> = (0..n).map(|_| rng.i32(-65536..65536)).collect();
            assert_eq!(inverse_53(&forward_53(&x)), x, "5/3 n={n}");
            let f: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            let back = inverse_97(&forward_97(&f));
            for (a, b) in f.iter().zip(&back) {
                assert!((a - b).abs() < 1e-6, "9/7 n={n}");
            }
        }
        for (w, h) in [(1, 1), (1, 9), (9, 1), (7, 5), (16, 16), (33, 18)] {
            for levels in 0..=max_levels(w, h) {
                let x: Vec<i32> = (0..w * h).map(|_| rng.i32(0..65536)).collect();
                let mut p = x.clone();
                forward_2d_53(&mut p, w, h, levels);
                inverse_2d_53(&mut p, w, h, levels);
                assert_eq!(p, x, "{w}x{h} levels {levels}");
            }
        }
    }

    #[test]
    fn gains_of_the_97_bands() {
        // A constant goes to the low band unchanged (DC gain 1); an alternating signal to the
        // high band at twice its amplitude (Nyquist gain 2).
        let c = forward_97(&[3.0; 16]);
        for i in (0..16).step_by(2) {
            assert!((c[i] - 3.0).abs() < 1e-9 && c[i + 1].abs() < 1e-9);
        }
        let a: Vec<f64> = (0..16)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let c = forward_97(&a);
        for i in (2..14).step_by(2) {
            assert!(c[i].abs() < 1e-9, "{c:?}");
            assert!((c[i + 1].abs() - 2.0).abs() < 1e-6, "{c:?}");
        }
    }
}

/// JPEG 2000's reversible colour transform (T.800 G.2) of three planes of `n` samples each,
/// one after another, in place: R, G, B become Y = ⌊(R + 2G + B) / 4⌋, Cb = B − G, Cr = R − G.
pub fn rct_forward(x: &mut [i32], n: usize) {
    for i in 0..n {
        let (r, g, b) = (x[i], x[n + i], x[2 * n + i]);
        x[i] = (r + 2 * g + b) >> 2;
        x[n + i] = b - g;
        x[2 * n + i] = r - g;
    }
}

/// The inverse of [`rct_forward`]: G = Y − ⌊(Cb + Cr) / 4⌋, R = Cr + G, B = Cb + G.
pub fn rct_inverse(x: &mut [i32], n: usize) {
    for i in 0..n {
        let (y, cb, cr) = (x[i], x[n + i], x[2 * n + i]);
        let g = y - ((cb + cr) >> 2);
        x[i] = cr + g;
        x[n + i] = g;
        x[2 * n + i] = cb + g;
    }
}

/// JPEG 2000's irreversible colour transform (T.800 G.3), in place on three planes.
pub fn ict_forward(x: &mut [f64], n: usize) {
    for i in 0..n {
        let (r, g, b) = (x[i], x[n + i], x[2 * n + i]);
        x[i] = 0.299 * r + 0.587 * g + 0.114 * b;
        x[n + i] = -0.16875 * r - 0.33126 * g + 0.5 * b;
        x[2 * n + i] = 0.5 * r - 0.41869 * g - 0.08131 * b;
    }
}

/// The inverse of [`ict_forward`] (T.800 G.3's inverse, as JPEG 2000 specifies it: not the
/// exact inverse matrix, so a round trip is within about 1e-4 of a sample's range).
pub fn ict_inverse(x: &mut [f64], n: usize) {
    for i in 0..n {
        let (y, cb, cr) = (x[i], x[n + i], x[2 * n + i]);
        x[i] = y + 1.402 * cr;
        x[n + i] = y - 0.34413 * cb - 0.71414 * cr;
        x[2 * n + i] = y + 1.772 * cb;
    }
}

#[cfg(test)]
mod color_tests {
    use super::*;

    #[test]
    fn rct_round_trips_exactly_and_matches_hand_values() {
        // R, G, B = 10, 20, 5: Y = floor(55 / 4) = 13, Cb = -15, Cr = -10.
        let mut x = vec![10, 20, 5];
        rct_forward(&mut x, 1);
        assert_eq!(x, [13, -15, -10]);
        // Negative sums round down (floor, as T.800's), not toward zero.
        let mut y = vec![-3, -1, 0];
        rct_forward(&mut y, 1);
        assert_eq!(y, [(-3 - 2) >> 2, 1, -2]);
        assert_eq!(y[0], -2);
        let mut r = fastrand::Rng::with_seed(5);
        let orig: Vec<i32> = (0..3 * 1000).map(|_| r.i32(-32768..32768)).collect();
        let mut z = orig.clone();
        rct_forward(&mut z, 1000);
        rct_inverse(&mut z, 1000);
        assert_eq!(z, orig);
    }

    #[test]
    fn ict_round_trips_within_its_precision() {
        let mut r = fastrand::Rng::with_seed(6);
        let orig: Vec<f64> = (0..3 * 500).map(|_| r.f64() * 255.0 - 128.0).collect();
        let mut z = orig.clone();
        ict_forward(&mut z, 500);
        // Pure grey: no colour difference.
        let mut g = vec![100.0, 100.0, 100.0];
        ict_forward(&mut g, 1);
        assert!(
            (g[0] - 100.0).abs() < 1e-9 && g[1].abs() < 1e-3 && g[2].abs() < 1e-3,
            "{g:?}"
        );
        ict_inverse(&mut z, 500);
        let worst = z
            .iter()
            .zip(&orig)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 0.05, "{worst}");
    }
}
