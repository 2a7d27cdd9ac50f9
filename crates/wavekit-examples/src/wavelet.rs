//! The reversible 5/3 wavelet of JPEG 2000 on a seeded 8-bit-range image of 333 × 217 (odd on
//! both sides), three levels: the GPU's coefficients equal the T.800 reference's, and the
//! inverse gives the image back exactly.

use wavekit::GpuContext;
use wavekit_dwt::{Dwt, Wavelet, reference};

use crate::{Result, check};

/// The image's size.
pub const SIZE: (u32, u32) = (333, 217);

/// Run it; returns a line saying what was checked.
pub fn run(ctx: &GpuContext, seed: u64) -> Result<String> {
    let (w, h) = SIZE;
    let mut rng = fastrand::Rng::with_seed(seed);
    // A smooth ramp with noise on it, as a photograph's rows are.
    let image: Vec<i32> = (0..w * h)
        .map(|i| ((i % w + i / w) as i32 / 3 + rng.i32(-8..8)).clamp(0, 255) - 128)
        .collect();
    let levels = 3;
    let dwt = Dwt::new(ctx, Wavelet::Reversible53, w, h, levels, 1)?;
    let coeffs = dwt.forward_i32(ctx, &image)?;
    let mut want = image.clone();
    reference::forward_2d_53(&mut want, w as usize, h as usize, levels);
    let differ = coeffs.iter().zip(&want).filter(|(a, b)| a != b).count();
    check(differ == 0, "wavelet", || {
        format!("{differ} coefficients differ")
    })?;
    let back = dwt.inverse_i32(ctx, &coeffs)?;
    check(back == image, "wavelet", || {
        "the inverse is not the image".into()
    })?;
    let ll = (w as usize).div_ceil(8) * (h as usize).div_ceil(8);
    Ok(format!(
        "5/3, {levels} levels of {w} x {h}: coefficients equal the reference ({ll} in LL), \
         the inverse exact"
    ))
}
