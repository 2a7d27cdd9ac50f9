//! wavekit-dwt: the 2D discrete wavelet transform of JPEG 2000 (ITU-T T.800 Annex F) on the
//! GPU — the reversible 5/3 on `i32`, the irreversible 9/7 on `f32` and in fixed point on `i32`,
//! forward and inverse, several levels, several planes at once; two images whose levels reach
//! the same size (a 4:2:0 frame's luma and chroma) in one dispatch a step with [`JointDwt`].
//!
//! Layout (Mallat, in place): after one level of a `W × H` plane, the first `⌈W/2⌉` columns of
//! the first `⌈H/2⌉` rows hold LL, the columns to their right HL, the rows below LH, and the
//! rest HH; the next level works on LL. A level is the columns then the rows (forward) and the
//! rows then the columns (inverse); the order matters for 5/3, whose rounding is not linear.
//! Any size from 1 × 1 (a signal of one sample passes through) and any number of levels up to
//! the point where LL is 1 × 1 ([`max_levels`]). The image origin is (0, 0): every signal
//! starts at an even index.
//!
//! ```
//! use wavekit::GpuContext;
//! use wavekit_dwt::{Dwt, Wavelet};
//! let ctx = GpuContext::new(&Default::default())?;
//! let plane: Vec<i32> = (0..35).map(|i| (i * 7) % 13).collect();
//! let dwt = Dwt::new(&ctx, Wavelet::Reversible53, 7, 5, 2, 1)?;
//! let coeffs = dwt.forward_i32(&ctx, &plane)?;
//! assert_eq!(dwt.inverse_i32(&ctx, &coeffs)?, plane);
//! # Ok::<(), wavekit_dwt::DwtError>(())
//! ```

#![warn(missing_docs)]
mod bound;
mod error;
mod joint;
mod kernel;
mod plan;
pub mod reference;
pub mod sim;

pub use bound::BoundDwt;
pub use error::{DwtError, Result};
pub use joint::{BytePlanes, JointDwt, bands_fill_whole_words};
pub use kernel::{
    Color, FIXED_97_Q, SHAPES, SMALL_LEVEL_SAMPLES, SOURCES, TileShape, Tuning, VARIANTS, Variant,
    Wavelet, apron, builder,
};
pub use plan::{Coefficient, Dwt, MAX_FRACTION_BITS};
pub use reference::max_levels;
