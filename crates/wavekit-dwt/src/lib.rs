//! wavekit-dwt: the 2D discrete wavelet transform of JPEG 2000 (ITU-T T.800 Annex F) on the
//! GPU — the reversible 5/3 on `i32` and the irreversible 9/7 on `f32`, forward and inverse,
//! several levels, several planes at once.
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
//! let ctx = GpuContext::from_env()?;
//! let plane: Vec<i32> = (0..35).map(|i| (i * 7) % 13).collect();
//! let dwt = Dwt::new(&ctx, Wavelet::Reversible53, 7, 5, 2, 1)?;
//! let coeffs = dwt.forward_i32(&ctx, &plane)?;
//! assert_eq!(dwt.inverse_i32(&ctx, &coeffs)?, plane);
//! # Ok::<(), wavekit_dwt::DwtError>(())
//! ```

pub mod bench;
pub mod reference;

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::shader::{ConstValue, compose};

pub use reference::max_levels;

/// The README's examples (both libraries), compiled as doctests so that they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The wavelets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wavelet {
    /// Reversible 5/3 (LeGall), integer, exact.
    Reversible53,
    /// Irreversible 9/7 (CDF), f32.
    Irreversible97,
}

/// The crate's errors.
#[derive(Debug, thiserror::Error)]
pub enum DwtError {
    /// An error of the GPU layer.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// A size, level count or plane count that cannot be transformed.
    #[error("{0}")]
    InvalidArgument(String),
}

/// Result with [`DwtError`].
pub type Result<T> = std::result::Result<T, DwtError>;

const LIFT_WGSL: &str = include_str!("lift.wgsl");
const WORKGROUP: u32 = 256;

/// The lifting kernel's WGSL for a wavelet, direction and longest line.
pub fn composed(
    wavelet: Wavelet,
    inverse: bool,
    longest: u32,
) -> std::result::Result<wavekit::shader::Composed, wavekit::Error> {
    let sample = match wavelet {
        Wavelet::Reversible53 => "alias S = i32;\n",
        Wavelet::Irreversible97 => "alias S = f32;\n",
    };
    compose(
        "dwt/lift",
        &[
            ("WG_SIZE", ConstValue::U32(WORKGROUP)),
            ("MAX_LINE", ConstValue::U32(longest.max(2))),
            (
                "WAVELET",
                ConstValue::U32(u32::from(wavelet == Wavelet::Irreversible97)),
            ),
            ("INVERSE", ConstValue::Bool(inverse)),
        ],
        &[("dwt/lift", LIFT_WGSL), ("dwt/sample", sample)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_validates_with_naga() {
        for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
            for inverse in [false, true] {
                let c = composed(wavelet, inverse, 7680).unwrap();
                wavekit::shader::validate(&c, false).unwrap();
            }
        }
    }
}

/// A transform planned once for a size, level count, wavelet and number of planes; run it on
/// the caller's buffers: [`Dwt::bind`], then [`BoundDwt::record_forward`] and
/// [`BoundDwt::record_inverse`].
#[derive(Debug)]
pub struct Dwt {
    wavelet: Wavelet,
    width: u32,
    height: u32,
    levels: u32,
    planes: u32,
    forward: Kernel,
    inverse: Kernel,
    /// Per level: the parameters of its column pass and its row pass.
    passes: Vec<[wgpu::Buffer; 2]>,
    /// The parameters of the last inverse pass when it writes 8-bit samples.
    last8: wgpu::Buffer,
}

impl Dwt {
    /// Plan `levels` levels of `wavelet` on `planes` planes of `width × height` samples.
    pub fn new(
        ctx: &GpuContext,
        wavelet: Wavelet,
        width: u32,
        height: u32,
        levels: u32,
        planes: u32,
    ) -> Result<Self> {
        if width == 0 || height == 0 || planes == 0 {
            return Err(DwtError::InvalidArgument(format!(
                "a {width} × {height} image of {planes} planes: every size must be at least 1"
            )));
        }
        let most = max_levels(width as usize, height as usize);
        if levels > most {
            return Err(DwtError::InvalidArgument(format!(
                "{levels} levels on {width} × {height}: at most {most} (LL is 1 × 1 after that)"
            )));
        }
        // The longest line sits in workgroup memory.
        let room = ctx.caps.limits.max_compute_workgroup_storage_size / 4;
        let longest = width.max(height);
        if longest > room {
            return Err(DwtError::InvalidArgument(format!(
                "lines of {longest} samples: this adapter holds at most {room} in workgroup memory"
            )));
        }
        if planes > 65535 || longest > 65535 {
            return Err(DwtError::InvalidArgument(format!(
                "{planes} planes of {width} × {height}: at most 65535 planes and 65535 lines"
            )));
        }
        let kernel = |inverse: bool| -> Result<Kernel> {
            Ok(Kernel::new(ctx, &composed(wavelet, inverse, longest)?)?)
        };
        let stride = width * height;
        // [pitch, plane stride, region width, height, axis, identity, out8, shift].
        let params = |w: u32, h: u32, axis: u32, identity: u32, out8: u32| {
            ctx.uniform_from(
                "dwt params",
                &[width, stride, w, h, axis, identity, out8, 128],
            )
        };
        let regions = reference::regions(width as usize, height as usize, levels);
        let passes = regions
            .iter()
            .map(|&(w, h)| -> Result<[wgpu::Buffer; 2]> {
                Ok([
                    params(w as u32, h as u32, 1, 0, 0)?,
                    params(w as u32, h as u32, 0, 0, 0)?,
                ])
            })
            .collect::<Result<Vec<_>>>()?;
        // The last inverse pass with 8-bit output: level 0's columns, or with no levels a
        // store-only pass over the rows.
        let last8 = if levels == 0 {
            params(width, height, 0, 1, 1)?
        } else {
            params(width, height, 1, 0, 1)?
        };
        Ok(Self {
            wavelet,
            width,
            height,
            levels,
            planes,
            forward: kernel(false)?,
            inverse: kernel(true)?,
            passes,
            last8,
        })
    }

    /// Samples per plane times planes: the length `data` must have.
    pub fn len(&self) -> usize {
        (self.width * self.height * self.planes) as usize
    }

    /// Whether the plan has no samples (never: every size is at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check(&self, data: &wgpu::Buffer) -> Result<()> {
        let need = self.len() as u64 * 4;
        if data.size() < need {
            return Err(DwtError::InvalidArgument(format!(
                "a buffer of {} bytes for {} planes of {} × {} samples: needs {need}",
                data.size(),
                self.planes,
                self.width,
                self.height
            )));
        }
        Ok(())
    }

    /// Bind to `data`: the planes one after another, each row-major, `len()` samples (i32 for
    /// 5/3, f32 for 9/7). The transforms then run in place on it.
    pub fn bind(&self, ctx: &GpuContext, data: &wgpu::Buffer) -> Result<BoundDwt> {
        self.bind_all(ctx, data, None)
    }

    /// Bind like [`Dwt::bind`], with the inverse's last pass writing 8-bit samples to `out`
    /// instead of `data`: rounded, plus 128 (the level shift of 8-bit samples), clamped to
    /// 0..=255, four to a `u32`, in the same order as the samples (`out` holds at least
    /// `len()` bytes). The forward transform is as with [`Dwt::bind`].
    pub fn bind_u8_output(
        &self,
        ctx: &GpuContext,
        data: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<BoundDwt> {
        let need = (self.len() as u64).next_multiple_of(4);
        if out.size() < need {
            return Err(DwtError::InvalidArgument(format!(
                "an 8-bit output of {} bytes for {} samples: needs {need}",
                out.size(),
                self.len()
            )));
        }
        self.bind_all(ctx, data, Some(out))
    }

    fn bind_all(
        &self,
        ctx: &GpuContext,
        data: &wgpu::Buffer,
        out8: Option<&wgpu::Buffer>,
    ) -> Result<BoundDwt> {
        self.check(data)?;
        let placeholder = ctx.storage_uninit("dwt no 8-bit output", 16)?;
        let regions = reference::regions(self.width as usize, self.height as usize, self.levels);
        let mut forward = Vec::new();
        let mut inverse = Vec::new();
        for (l, &(w, h)) in regions.iter().enumerate() {
            // The columns (a workgroup per column) first, then the rows.
            for (pass, lines) in [(0usize, w), (1, h)] {
                let entries = [(0, &self.passes[l][pass]), (1, data), (2, &placeholder)];
                forward.push((self.forward.bind(ctx, &entries)?, lines as u32));
                inverse.push((self.inverse.bind(ctx, &entries)?, lines as u32));
            }
        }
        // The inverse runs the forward's passes in exactly the reverse order: per level from
        // the last, rows then columns.
        inverse.reverse();
        if let Some(out) = out8 {
            let entries = [(0, &self.last8), (1, data), (2, out)];
            let bind = self.inverse.bind(ctx, &entries)?;
            if self.levels == 0 {
                inverse.push((bind, self.height));
            } else {
                *inverse.last_mut().expect("a level has passes") = (bind, self.width);
            }
        }
        Ok(BoundDwt {
            forward_kernel: self.forward.clone(),
            inverse_kernel: self.inverse.clone(),
            forward,
            inverse,
            planes: self.planes,
            out8: out8.cloned(),
            _placeholder: placeholder,
        })
    }

    fn run_u8<T: bytemuck::Pod>(
        &self,
        ctx: &GpuContext,
        coeffs: &[T],
        want: Wavelet,
    ) -> Result<Vec<u8>> {
        self.check_input(coeffs.len(), want)?;
        let buf = ctx.storage_from("dwt data", coeffs)?;
        let out = ctx.storage_uninit(
            "dwt 8-bit output",
            (coeffs.len() as u64).next_multiple_of(4),
        )?;
        let bound = self.bind_u8_output(ctx, &buf, &out)?;
        ctx.submit(|enc| bound.record_inverse(enc));
        let words: Vec<u32> = ctx.read_back("dwt 8-bit output", &out, coeffs.len().div_ceil(4))?;
        Ok(bytemuck::cast_slice(&words)[..coeffs.len()].to_vec())
    }

    /// Inverse 5/3 straight to 8-bit samples (see [`Dwt::bind_u8_output`]).
    pub fn inverse_i32_to_u8(&self, ctx: &GpuContext, coeffs: &[i32]) -> Result<Vec<u8>> {
        self.run_u8(ctx, coeffs, Wavelet::Reversible53)
    }

    /// Inverse 9/7 straight to 8-bit samples.
    pub fn inverse_f32_to_u8(&self, ctx: &GpuContext, coeffs: &[f32]) -> Result<Vec<u8>> {
        self.run_u8(ctx, coeffs, Wavelet::Irreversible97)
    }

    fn check_input(&self, len: usize, want: Wavelet) -> Result<()> {
        if self.wavelet != want {
            return Err(DwtError::InvalidArgument(format!(
                "this plan is for the {} wavelet: 5/3 takes i32 samples, 9/7 f32",
                reference::name(self.wavelet)
            )));
        }
        if len != self.len() {
            return Err(DwtError::InvalidArgument(format!(
                "{len} samples for {} planes of {} × {}: give {}",
                self.planes,
                self.width,
                self.height,
                self.len()
            )));
        }
        Ok(())
    }

    fn run<T: bytemuck::Pod>(
        &self,
        ctx: &GpuContext,
        planes: &[T],
        inverse: bool,
        want: Wavelet,
    ) -> Result<Vec<T>> {
        self.check_input(planes.len(), want)?;
        let buf = ctx.storage_from("dwt data", planes)?;
        let bound = self.bind(ctx, &buf)?;
        ctx.submit(|enc| {
            if inverse {
                bound.record_inverse(enc);
            } else {
                bound.record_forward(enc);
            }
        });
        Ok(ctx.read_back("dwt data", &buf, planes.len())?)
    }

    /// Forward 5/3 of `planes` (a one-call convenience).
    pub fn forward_i32(&self, ctx: &GpuContext, planes: &[i32]) -> Result<Vec<i32>> {
        self.run(ctx, planes, false, Wavelet::Reversible53)
    }

    /// Inverse 5/3.
    pub fn inverse_i32(&self, ctx: &GpuContext, coeffs: &[i32]) -> Result<Vec<i32>> {
        self.run(ctx, coeffs, true, Wavelet::Reversible53)
    }

    /// Forward 9/7 of `planes`.
    pub fn forward_f32(&self, ctx: &GpuContext, planes: &[f32]) -> Result<Vec<f32>> {
        self.run(ctx, planes, false, Wavelet::Irreversible97)
    }

    /// Inverse 9/7.
    pub fn inverse_f32(&self, ctx: &GpuContext, coeffs: &[f32]) -> Result<Vec<f32>> {
        self.run(ctx, coeffs, true, Wavelet::Irreversible97)
    }
}

/// A transform bound to its buffer, ready to record any number of times.
#[derive(Debug)]
pub struct BoundDwt {
    forward_kernel: Kernel,
    inverse_kernel: Kernel,
    /// Per pass, in order: bind group and number of lines.
    forward: Vec<(wgpu::BindGroup, u32)>,
    inverse: Vec<(wgpu::BindGroup, u32)>,
    planes: u32,
    /// The 8-bit output, cleared before each inverse.
    out8: Option<wgpu::Buffer>,
    _placeholder: wgpu::Buffer,
}

impl BoundDwt {
    fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        passes: &[(wgpu::BindGroup, u32)],
    ) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.dwt"),
            timestamp_writes: None,
        });
        for (bind, lines) in passes {
            kernel.dispatch_grid(&mut pass, bind, *lines, self.planes);
        }
    }

    /// Record the forward transform, in place.
    pub fn record_forward(&self, enc: &mut wgpu::CommandEncoder) {
        self.record(enc, &self.forward_kernel, &self.forward);
    }

    /// Record the inverse transform, in place (its last pass to the 8-bit output, if bound
    /// with one).
    pub fn record_inverse(&self, enc: &mut wgpu::CommandEncoder) {
        if let Some(out) = &self.out8 {
            enc.clear_buffer(out, 0, None);
        }
        self.record(enc, &self.inverse_kernel, &self.inverse);
    }
}
