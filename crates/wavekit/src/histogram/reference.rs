//! The plain Rust reference of the histogram: the same bin formula, in the same arithmetic.

/// A histogram: counts per bin, and the samples counted apart.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Samples per bin.
    pub bins: Vec<u32>,
    /// Samples below the lower level.
    pub below: u32,
    /// Samples at or above the upper level.
    pub above: u32,
    /// NaN samples (f32 only).
    pub nan: u32,
}

/// A sample type the histogram takes, with its reference bin formula.
pub trait Sample: crate::monoid::Element + Copy {
    /// Where `x` falls: `Ok(bin)`, or `Err(0 | 1 | 2)` for below, above, NaN.
    fn bin(x: Self, bins: u32, lower: Self, upper: Self) -> Result<u32, usize>;
}

impl Sample for u32 {
    fn bin(x: u32, bins: u32, lower: u32, upper: u32) -> Result<u32, usize> {
        if x < lower {
            return Err(0);
        }
        if x >= upper {
            return Err(1);
        }
        let off = u64::from(x - lower);
        Ok((off * u64::from(bins) / u64::from(upper - lower)) as u32)
    }
}

impl Sample for i32 {
    fn bin(x: i32, bins: u32, lower: i32, upper: i32) -> Result<u32, usize> {
        if x < lower {
            return Err(0);
        }
        if x >= upper {
            return Err(1);
        }
        let off = (i64::from(x) - i64::from(lower)) as u64;
        let range = (i64::from(upper) - i64::from(lower)) as u64;
        Ok((off * u64::from(bins) / range) as u32)
    }
}

impl Sample for f32 {
    fn bin(x: f32, bins: u32, lower: f32, upper: f32) -> Result<u32, usize> {
        if x.is_nan() {
            return Err(2);
        }
        if x < lower {
            return Err(0);
        }
        if x >= upper {
            return Err(1);
        }
        let (pre, scale) = float_bin_form(bins, lower, upper);
        let off = if pre == 1.0 {
            x - lower
        } else {
            x * pre - lower * pre
        };
        Ok(((off * scale).floor() as u32).min(bins - 1))
    }
}

/// The f32 scale both sides use: bins / (upper − lower), rounded to f32.
pub fn float_scale(bins: u32, lower: f32, upper: f32) -> f32 {
    (f64::from(bins) / (f64::from(upper) - f64::from(lower))) as f32
}

/// How both sides take a float's bin, `floor((x·pre − lower·pre) · scale)`: `pre` 1 and the
/// plain scale where `upper − lower` is finite in f32; otherwise (a range past f32's largest,
/// e.g. [−3e38, 3e38)) `pre` 1/4, so that the difference cannot overflow, and the scale 4×
/// (rounded from f64).
pub fn float_bin_form(bins: u32, lower: f32, upper: f32) -> (f32, f32) {
    if (upper - lower).is_finite() {
        (1.0, float_scale(bins, lower, upper))
    } else {
        // Rounded from f64 at its own size (bins / range itself may be subnormal in f32).
        let range = (f64::from(upper) - f64::from(lower)) * 0.25;
        (0.25, (f64::from(bins) / range) as f32)
    }
}

/// The histogram of `xs`.
pub fn histogram<T: Sample>(xs: &[T], bins: u32, lower: T, upper: T) -> Counts {
    let mut c = Counts {
        bins: vec![0; bins as usize],
        ..Counts::default()
    };
    for &x in xs {
        match T::bin(x, bins, lower, upper) {
            Ok(b) => c.bins[b as usize] += 1,
            Err(0) => c.below += 1,
            Err(1) => c.above += 1,
            Err(_) => c.nan += 1,
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_by_hand() {
        // 10 bins over [0, 100): 0..9 → 0, 95 → 9; 100 is above.
        let c = histogram(&[0u32, 9, 10, 95, 100, 5], 10, 0, 100);
        assert_eq!(c.bins, [3, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!((c.below, c.above), (0, 1));
        // 3 bins over [-3, 3): width 2.
        let c = histogram(&[-4i32, -3, -2, -1, 0, 1, 2, 3], 3, -3, 3);
        assert_eq!(c.bins, [2, 2, 2]);
        assert_eq!((c.below, c.above), (1, 1));
        let c = histogram(&[f32::NAN, -0.0, 0.5, 1.0, f32::INFINITY], 2, 0.0, 1.0);
        assert_eq!(c.bins, [1, 1]);
        assert_eq!((c.below, c.above, c.nan), (0, 2, 1));
        // The whole u32 range but its last value, in 4096 bins.
        let c = histogram(&[0u32, u32::MAX - 1, u32::MAX], 4096, 0, u32::MAX);
        assert_eq!(c.bins[0] + c.bins[4095], 2);
        assert_eq!(c.above, 1);
        // A range past f32's largest (upper − lower overflows; it gave [0 2 0 2]): numpy's
        // answer, [0 1 3 0]. (Issue 32's 0.0 sits exactly on the edge between bins 1 and 2,
        // where the f32 scale's rounding puts it in bin 1 and numpy's edge correction in 2.)
        let c = histogram(&[5e37f32, 1e38, -1e38, 1e37], 4, -3e38, 3e38);
        assert_eq!(c.bins, [0, 1, 3, 0]);
        let c = histogram(&[f32::MAX, -f32::MAX, 1e37], 2, -f32::MAX, f32::MAX);
        assert_eq!((c.bins[0], c.bins[1], c.above), (1, 1, 1));
    }
}
