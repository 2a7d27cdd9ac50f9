//! A CPU port of `tile.wgsl`: the same tiles, segments, column aprons and row aprons, the same
//! stale edges (a step leaves the first and last held sample, and the edge columns, as they
//! were), the same order of steps and the same arithmetic, run serially. Its tests check the
//! kernel's index arithmetic — tiles, aprons, mirroring, bands, the order of the inverse — for
//! every small size and many tile shapes against the reference, with no GPU.
//!
//! One level of one plane at a time: `forward_level` turns a `w × h` region into its four bands
//! in the Mallat layout (LL at the top left); `inverse_level` undoes it.

use crate::reference::{self, pse};
use crate::{FIXED_97_Q, TileShape, Wavelet, apron};

/// A sample type of the kernel: i32 (5/3) or f32 (9/7).
pub trait Sample: Copy + Default {
    /// As an integer (5/3 steps).
    fn int(self) -> i32;
    /// From an integer.
    fn from_int(v: i32) -> Self;
    /// As a float (9/7 steps).
    fn float(self) -> f32;
    /// From a float.
    fn from_float(v: f32) -> Self;
}

impl Sample for i32 {
    fn int(self) -> i32 {
        self
    }
    fn from_int(v: i32) -> Self {
        v
    }
    fn float(self) -> f32 {
        self as f32
    }
    fn from_float(v: f32) -> Self {
        v as i32
    }
}

impl Sample for f32 {
    fn int(self) -> i32 {
        self as i32
    }
    fn from_int(v: i32) -> Self {
        v as f32
    }
    fn float(self) -> f32 {
        self
    }
    fn from_float(v: f32) -> Self {
        v
    }
}

// T.800's constants (the reference's), rounded to f32 as tile.wgsl's literals are.
const ALPHA: f32 = reference::ALPHA as f32;
const BETA: f32 = reference::BETA as f32;
const GAMMA: f32 = reference::GAMMA as f32;
const DELTA: f32 = reference::DELTA as f32;
const K: f32 = reference::K as f32;
const INV_K: f32 = 1.0 / K;

#[derive(Clone, Copy)]
enum Step {
    PredictFwd,
    PredictInv,
    UpdateFwd,
    UpdateInv,
    Lift(f32),
    /// A fixed-point lifting step: the constant in units of 2^-12.
    Fixed(i32),
}

fn lift1<T: Sample>(x: T, l: T, r: T, step: Step) -> T {
    match step {
        Step::PredictFwd => T::from_int(x.int() - ((l.int() + r.int()) >> 1)),
        Step::PredictInv => T::from_int(x.int() + ((l.int() + r.int()) >> 1)),
        Step::UpdateFwd => T::from_int(x.int() + ((l.int() + r.int() + 2) >> 2)),
        Step::UpdateInv => T::from_int(x.int() - ((l.int() + r.int() + 2) >> 2)),
        Step::Lift(c) => T::from_float(x.float() + c * (l.float() + r.float())),
        // tile.wgsl's i32 arithmetic wraps; so does this.
        Step::Fixed(q) => T::from_int(
            x.int().wrapping_add(
                q.wrapping_mul(l.int().wrapping_add(r.int()))
                    .wrapping_add(2048)
                    >> 12,
            ),
        ),
    }
}

/// The fixed-point scaling of one sample: forward even · 1/K, odd · K; inverse the other way.
fn scale_fixed<T: Sample>(x: T, even: bool, inverse: bool) -> T {
    let [.., k, inv_k] = FIXED_97_Q;
    let q = if even == inverse { k } else { inv_k };
    T::from_int(x.int().wrapping_mul(q).wrapping_add(2048) >> 12)
}

/// A float constant in units of 2^-12, as tile.wgsl's `i32(round(c * 4096.0))`.
fn fixed(c: f32) -> Step {
    Step::Fixed((c * 4096.0).round() as i32)
}

fn scale<T: Sample>(x: T, even: bool, inverse: bool) -> T {
    let v = x.float();
    let up = even == inverse;
    T::from_float(v * if up { K } else { INV_K })
}

/// The steps of one direction, in order (the 9/7 scaling is separate).
fn steps(wavelet: Wavelet, inverse: bool) -> Vec<(usize, Step)> {
    match (wavelet, inverse) {
        (Wavelet::Reversible53, false) => vec![(1, Step::PredictFwd), (0, Step::UpdateFwd)],
        (Wavelet::Reversible53, true) => vec![(0, Step::UpdateInv), (1, Step::PredictInv)],
        (Wavelet::Irreversible97, false) => vec![
            (1, Step::Lift(ALPHA)),
            (0, Step::Lift(BETA)),
            (1, Step::Lift(GAMMA)),
            (0, Step::Lift(DELTA)),
        ],
        (Wavelet::Irreversible97, true) => vec![
            (0, Step::Lift(-DELTA)),
            (1, Step::Lift(-GAMMA)),
            (0, Step::Lift(-BETA)),
            (1, Step::Lift(-ALPHA)),
        ],
        (Wavelet::Fixed97, false) => vec![
            (1, fixed(ALPHA)),
            (0, fixed(BETA)),
            (1, fixed(GAMMA)),
            (0, fixed(DELTA)),
        ],
        (Wavelet::Fixed97, true) => vec![
            (0, fixed(-DELTA)),
            (1, fixed(-GAMMA)),
            (0, fixed(-BETA)),
            (1, fixed(-ALPHA)),
        ],
    }
}

/// The padded column of invocation `c` (evens in the first half, odds in the second).
pub fn column_of(c: u32, columns: u32) -> u32 {
    let half = columns / 2;
    if c < half { 2 * c } else { 2 * (c - half) + 1 }
}

/// Coordinate `c` of a signal of `n` samples in the bands (as `band` in tile.wgsl).
/// tile.wgsl's `band_row`: `band(first + k, n, true)` for an even `first`, from k's parity.
fn band_row(first: usize, k: usize, n: usize) -> usize {
    (if k.is_multiple_of(2) {
        0
    } else {
        n.div_ceil(2)
    }) + first / 2
        + k / 2
}

fn band(c: usize, n: usize, split: bool) -> usize {
    if !split {
        c
    } else if c.is_multiple_of(2) {
        c / 2
    } else {
        n.div_ceil(2) + c / 2
    }
}

/// One segment of one tile: the registers of every padded column, `regs[p][j]`.
struct Segment<T> {
    regs: Vec<Vec<T>>,
}

impl<T: Sample> Segment<T> {
    /// A vertical step on every column (rows 1..REGS-1 of parity `par`).
    fn vstep(&mut self, par: usize, step: Step) {
        for col in &mut self.regs {
            let n = col.len();
            for j in (par..n).step_by(2) {
                if j >= 1 && j + 1 < n {
                    col[j] = lift1(col[j], col[j - 1], col[j + 1], step);
                }
            }
        }
    }

    /// A horizontal step on rows lo..hi of the columns of parity `par`; neighbours beyond the
    /// padded tile are taken from the other side (those columns go stale).
    fn hstep(&mut self, par: usize, lo: usize, hi: usize, step: Step) {
        let cols = self.regs.len();
        // The other parity is not written by this step: reading it in place is what the
        // kernel's workgroup memory holds.
        for p in (par..cols).step_by(2) {
            let pl = if p > 0 { p - 1 } else { p + 1 };
            let pr = if p + 1 < cols { p + 1 } else { p - 1 };
            for j in lo..hi {
                self.regs[p][j] = lift1(self.regs[p][j], self.regs[pl][j], self.regs[pr][j], step);
            }
        }
    }

    fn scale_rows(&mut self, by_row: bool, inverse: bool, fixed: bool) {
        for (p, col) in self.regs.iter_mut().enumerate() {
            for (j, x) in col.iter_mut().enumerate() {
                let even = if by_row { j % 2 == 0 } else { p % 2 == 0 };
                *x = if fixed {
                    scale_fixed(*x, even, inverse)
                } else {
                    scale(*x, even, inverse)
                };
            }
        }
    }
}

/// Every (tile x, tile y, segment) of a `w × h` region, with the first held row of the segment.
fn segments(shape: TileShape, wavelet: Wavelet, w: usize, h: usize) -> Vec<(usize, i64)> {
    let (tw, th) = shape.tile(wavelet);
    let a = apron(wavelet) as i64;
    let mut out = Vec::new();
    for ty in 0..h.div_ceil(th as usize) {
        for tx in 0..w.div_ceil(tw as usize) {
            for s in 0..shape.segments as usize {
                let y_first = (ty * th as usize + s * shape.rows as usize) as i64 - a;
                out.push((tx, y_first));
            }
        }
    }
    out
}

/// One forward level of a `w × h` region (row-major) into its bands, Mallat layout.
pub fn forward_level<T: Sample>(
    wavelet: Wavelet,
    shape: TileShape,
    x: &[T],
    w: usize,
    h: usize,
) -> Vec<T> {
    level(wavelet, shape, false, x, w, h)
}

/// One inverse level: the bands of a `w × h` region (Mallat layout) back to samples.
pub fn inverse_level<T: Sample>(
    wavelet: Wavelet,
    shape: TileShape,
    y: &[T],
    w: usize,
    h: usize,
) -> Vec<T> {
    level(wavelet, shape, true, y, w, h)
}

/// One level, as tile.wgsl does it: per segment, load every held sample (mirrored; the
/// inverse from the band that holds it), lift, store the segment's own samples (the forward
/// to their bands).
fn level<T: Sample>(
    wavelet: Wavelet,
    shape: TileShape,
    inverse: bool,
    src: &[T],
    w: usize,
    h: usize,
) -> Vec<T> {
    let a = apron(wavelet) as usize;
    let rows = shape.rows as usize;
    let regs = rows + 2 * a;
    let tw = shape.tile(wavelet).0 as usize;
    let (split_x, split_y) = (w > 1, h > 1);
    // Where sample (x, y) of the region lies in `src` (inverse) or goes in the output
    // (forward): its place in the bands.
    let banded = |x: usize, y: usize| band(y, h, split_y) * w + band(x, w, split_x);
    let mut out = vec![T::default(); w * h];
    for (tx, y_first) in segments(shape, wavelet, w, h) {
        // tile.wgsl's fast path: a segment inside the plane that starts at an even row finds
        // its rows' band rows with `band_row`, without mirroring or a per-row band test (the
        // inverse's loads, the forward's stores).
        let affine = y_first >= 0 && y_first as usize + regs <= h && split_y && y_first % 2 == 0;
        let mut seg = Segment {
            regs: (0..shape.columns as usize)
                .map(|p| {
                    let xi = pse((tx * tw + p) as i64 - a as i64, w);
                    (0..regs)
                        .map(|j| {
                            if inverse && affine {
                                let by = band_row(y_first as usize, j, h);
                                return src[by * w + band(xi, w, split_x)];
                            }
                            let yi = pse(y_first + j as i64, h);
                            src[if inverse { banded(xi, yi) } else { yi * w + xi }]
                        })
                        .collect()
                })
                .collect(),
        };
        let scaled = wavelet.is_97();
        let fixed = wavelet == Wavelet::Fixed97;
        let vertical = |seg: &mut Segment<T>| {
            if scaled && inverse {
                seg.scale_rows(true, true, fixed);
            }
            for (par, step) in steps(wavelet, inverse) {
                seg.vstep(par, step);
            }
            if scaled && !inverse {
                seg.scale_rows(true, false, fixed);
            }
        };
        // 5/3's inverse lifts every held row; otherwise only the segment's own.
        let (lo, hi) = if inverse && !scaled {
            (0, regs)
        } else {
            (a, a + rows)
        };
        let horizontal = |seg: &mut Segment<T>| {
            if scaled && inverse {
                seg.scale_rows(false, true, fixed);
            }
            for (par, step) in steps(wavelet, inverse) {
                seg.hstep(par, lo, hi, step);
            }
            if scaled && !inverse {
                seg.scale_rows(false, false, fixed);
            }
        };
        // Forward: columns, then rows. Inverse: 5/3 rows then columns (T.800's order);
        // 9/7 columns then rows (linear).
        if inverse && !scaled {
            if split_x {
                horizontal(&mut seg);
            }
            if split_y {
                vertical(&mut seg);
            }
        } else {
            if split_y {
                vertical(&mut seg);
            }
            if split_x {
                horizontal(&mut seg);
            }
        }
        for p in a..a + tw {
            let xi = tx * tw + p - a;
            for r in 0..rows {
                let yi = y_first + (a + r) as i64;
                if xi < w && yi >= 0 && (yi as usize) < h {
                    let yi = yi as usize;
                    let at = if inverse {
                        yi * w + xi
                    } else if affine {
                        band_row(y_first as usize + a, r, h) * w + band(xi, w, split_x)
                    } else {
                        banded(xi, yi)
                    };
                    out[at] = seg.regs[p][a + r];
                }
            }
        }
    }
    out
}

/// Copy the `w × h` region at the top left of a plane of width `pitch` out, or back in.
fn region<T: Copy>(plane: &[T], pitch: usize, w: usize, h: usize) -> Vec<T> {
    (0..h)
        .flat_map(|r| plane[r * pitch..r * pitch + w].iter().copied())
        .collect()
}

fn put<T: Copy>(plane: &mut [T], pitch: usize, w: usize, v: &[T]) {
    for (r, row) in v.chunks(w).enumerate() {
        plane[r * pitch..r * pitch + w].copy_from_slice(row);
    }
}

/// `levels` forward levels of a `width × height` plane, in place (Mallat layout).
pub fn forward_2d<T: Sample>(
    wavelet: Wavelet,
    shape: TileShape,
    plane: &mut [T],
    width: usize,
    height: usize,
    levels: u32,
) {
    for (w, h) in reference::regions(width, height, levels) {
        let out = forward_level(wavelet, shape, &region(plane, width, w, h), w, h);
        put(plane, width, w, &out);
    }
}

/// `levels` inverse levels, in place.
pub fn inverse_2d<T: Sample>(
    wavelet: Wavelet,
    shape: TileShape,
    plane: &mut [T],
    width: usize,
    height: usize,
    levels: u32,
) {
    for (w, h) in reference::regions(width, height, levels).into_iter().rev() {
        let out = inverse_level(wavelet, shape, &region(plane, width, w, h), w, h);
        put(plane, width, w, &out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::max_levels;

    fn shape(columns: u32, rows: u32, segments: u32) -> TileShape {
        TileShape {
            columns,
            rows,
            segments,
        }
    }

    #[test]
    fn invocations_cover_every_padded_column_once() {
        for columns in (2..=256).step_by(2) {
            let mut seen: Vec<u32> = (0..columns).map(|c| column_of(c, columns)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..columns).collect::<Vec<_>>(), "{columns}");
        }
    }

    /// Every size to 23 × 23, every level count, shapes from tiles of 2 samples (9/7: an apron
    /// of 4, so a tile's apron spans two neighbours) to the H200's: 5/3 equal to the reference
    /// bit for bit and exact round trips.
    #[test]
    fn five_three_port_equals_the_reference_for_every_small_size_and_shape() {
        let mut rng = fastrand::Rng::with_seed(5);
        for s in [
            shape(6, 2, 1),
            shape(8, 2, 3),
            shape(10, 4, 2),
            shape(128, 8, 2),
        ] {
            for w in 1..=23 {
                for h in 1..=23 {
                    let x: Vec<i32> = (0..w * h).map(|_| rng.i32(-512..512)).collect();
                    for levels in 0..=max_levels(w, h) {
                        let mut got = x.clone();
                        forward_2d(Wavelet::Reversible53, s, &mut got, w, h, levels);
                        let mut want = x.clone();
                        reference::forward_2d_53(&mut want, w, h, levels);
                        assert_eq!(got, want, "{s:?} {w}x{h} levels {levels}");
                        inverse_2d(Wavelet::Reversible53, s, &mut got, w, h, levels);
                        assert_eq!(got, x, "{s:?} {w}x{h} levels {levels} round trip");
                    }
                }
            }
        }
    }

    /// 9/7: within 1e-5 of the f64 reference (relative to the largest coefficient), and the
    /// inverse (columns first) within 1e-4 of the input's range.
    #[test]
    fn nine_seven_port_within_tolerance_for_every_small_size_and_shape() {
        let mut rng = fastrand::Rng::with_seed(7);
        for s in [shape(10, 2, 1), shape(12, 4, 3), shape(128, 8, 2)] {
            for w in 1..=19 {
                for h in 1..=19 {
                    let x: Vec<f32> = (0..w * h).map(|_| rng.f32() * 255.0 - 128.0).collect();
                    let levels = max_levels(w, h).min(3);
                    let mut got = x.clone();
                    forward_2d(Wavelet::Irreversible97, s, &mut got, w, h, levels);
                    let mut want: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
                    reference::forward_2d_97(&mut want, w, h, levels);
                    let top = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                    for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (f64::from(*g) - r).abs() <= 1e-5 * top,
                            "{s:?} {w}x{h} coefficient {i}: {g} against {r}"
                        );
                    }
                    inverse_2d(Wavelet::Irreversible97, s, &mut got, w, h, levels);
                    for (i, (b, a)) in got.iter().zip(&x).enumerate() {
                        assert!((b - a).abs() <= 1e-4 * 128.0, "{s:?} {w}x{h} sample {i}");
                    }
                }
            }
        }
    }

    /// The fixed-point 9/7: its constants are tile.wgsl's (T.800's rounded to 12 bits), it is
    /// the same bit for bit whatever the tile shape (the kernel's plans mix shapes), within
    /// 2^-9 of the f64 reference relative to the largest coefficient, and its inverse brings
    /// samples of 12 fractional bits back within a few units.
    #[test]
    fn fixed_nine_seven_is_shape_independent_and_close_to_the_reference() {
        for (c, q) in [ALPHA, BETA, GAMMA, DELTA, K, INV_K].iter().zip(FIXED_97_Q) {
            assert_eq!((c * 4096.0).round() as i32, q);
        }
        let mut rng = fastrand::Rng::with_seed(8);
        let shapes = [
            shape(10, 2, 1),
            shape(12, 4, 3),
            shape(128, 8, 2),
            shape(64, 4, 2),
        ];
        for w in (1..=40).step_by(3) {
            for h in (1..=37).step_by(4) {
                // Pixels of 5 fractional bits, as the codec feeds it.
                let x: Vec<i32> = (0..w * h).map(|_| rng.i32(-128 * 32..128 * 32)).collect();
                let levels = max_levels(w, h).min(5);
                let mut first: Option<(Vec<i32>, Vec<i32>)> = None;
                for s in shapes {
                    let mut got = x.clone();
                    forward_2d(Wavelet::Fixed97, s, &mut got, w, h, levels);
                    let mut back = got.clone();
                    inverse_2d(Wavelet::Fixed97, s, &mut back, w, h, levels);
                    match &first {
                        None => first = Some((got, back)),
                        Some((f, b)) => {
                            assert_eq!(&got, f, "{s:?} {w}x{h} forward");
                            assert_eq!(&back, b, "{s:?} {w}x{h} inverse");
                        }
                    }
                }
                let (got, back) = first.unwrap();
                let mut want: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
                reference::forward_2d_97(&mut want, w, h, levels);
                let top = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (f64::from(*g) - r).abs() <= top / 512.0 + 8.0,
                        "{w}x{h} coefficient {i}: {g} against {r}"
                    );
                }
                let worst = back
                    .iter()
                    .zip(&x)
                    .map(|(b, a)| (b - a).abs())
                    .max()
                    .unwrap();
                assert!(worst <= 24, "{w}x{h}: off by {worst} in units of 2^-5");
            }
        }
    }
}
