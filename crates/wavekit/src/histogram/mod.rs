//! Histogram with even bins: u32, i32 or f32 samples, 1 to 4096 bins over `[lower, upper)`;
//! samples below, at or above `upper`, and NaN are counted apart, never dropped. Inputs past
//! one storage binding are counted in chunks into the same histogram. Counts are
//! privatised per subgroup in workgroup memory (several copies when the bins are few), then
//! added to the global histogram once per workgroup and bin.

pub mod reference;

use crate::clear::{BoundClear, ClearKernel};
use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Range};
use crate::monoid::{Monoid, Op, Scalar};
use crate::prelude::subgroup_api;
use crate::record;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{check_fits, chunk_elements};
use crate::tuning::{
    HISTOGRAM_COUNTERS, HISTOGRAM_MAX_WORKGROUPS, HISTOGRAM_QUADS, HISTOGRAM_WORKGROUP,
};
pub use reference::{Counts, Sample};

/// The histogram's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    crate::wgsl_source!("histogram/histogram", "histogram.wgsl"),
    crate::wgsl_source!("histogram/sample_int", "sample_int.wgsl"),
    crate::wgsl_source!("histogram/sample_float", "sample_float.wgsl"),
];

/// Most bins.
pub const MAX_BINS: u32 = 4096;

/// Per bin, how far from a whole number the integer kernel's f32 estimate of a bin must be
/// for the kernel to take it without the exact check: 2^-21, above the estimate's worst error
/// of 2.5 · 2^-23 per bin (histogram/sample_int.wgsl).
const FAST_MARGIN_PER_BIN: f32 = 4.768_371_6e-7;

/// The histogram kernel's WGSL for `scalar` samples.
/// How a histogram is tiled (the measurements are in [`crate::tuning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HistogramPolicy {
    /// Invocations per workgroup (64, 128, 256, 512 or 1024).
    pub workgroup: u32,
    /// Most workgroups of a dispatch (each counts a contiguous run of samples into its own
    /// copies of the counters, then adds them), 1 to 65535.
    pub max_workgroups: u32,
}

impl Default for HistogramPolicy {
    fn default() -> Self {
        Self {
            workgroup: HISTOGRAM_WORKGROUP,
            max_workgroups: HISTOGRAM_MAX_WORKGROUPS,
        }
    }
}

impl HistogramPolicy {
    /// Fails on a shape the kernel is not written for.
    pub fn check(&self) -> Result<()> {
        if ![64, 128, 256, 512, 1024].contains(&self.workgroup)
            || !(1..=65535).contains(&self.max_workgroups)
        {
            return Err(Error::InvalidArgument(format!(
                "histogram policy: workgroup {} and max_workgroups {}: use a workgroup of 64, \
                 128, 256, 512 or 1024 and 1 to 65535 workgroups",
                self.workgroup, self.max_workgroups
            )));
        }
        Ok(())
    }
}

/// Which histogram: `bins` even bins over `[lower, upper)` of samples of type `T`.
#[derive(Clone, Copy, Debug)]
pub struct HistogramConfig<T> {
    /// Bins, 1 to [`MAX_BINS`].
    pub bins: u32,
    /// The first bin's lower edge.
    pub lower: T,
    /// The last bin's upper edge (excluded).
    pub upper: T,
    /// The tiling; `None`: [`HistogramPolicy::default`], measured on the H200.
    pub policy: Option<HistogramPolicy>,
}

impl<T: Sample> HistogramConfig<T> {
    /// `bins` even bins over `[lower, upper)`, the default policy.
    pub fn new(bins: u32, lower: T, upper: T) -> Self {
        Self {
            bins,
            lower,
            upper,
            policy: None,
        }
    }
}

/// The histogram kernel's WGSL for samples of `scalar`.
pub fn composed(scalar: Scalar, policy: &HistogramPolicy, subgroups: bool) -> Result<Composed> {
    let sample = match scalar {
        Scalar::F32 => "#import histogram/sample_float\n".to_string(),
        s => format!("alias D = {};\n#import histogram/sample_int\n", s.wgsl()),
    };
    compose(
        "histogram/histogram",
        &[
            ("WG_SIZE", ConstValue::U32(policy.workgroup)),
            ("MAX_BINS", ConstValue::U32(HISTOGRAM_COUNTERS)),
            ("QUADS", ConstValue::U32(HISTOGRAM_QUADS)),
            ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
            ("FAST_MARGIN_PER_BIN", ConstValue::F32(FAST_MARGIN_PER_BIN)),
        ],
        SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            (
                "monoid",
                &Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups),
            ),
            ("histogram/sample", &sample),
        ],
    )
}

/// A histogram, built once for a sample type and bin count.
///
/// ```
/// use wavekit::{GpuContext, histogram::{Histogram, HistogramConfig}};
/// let ctx = GpuContext::new(&Default::default())?;
/// let h = Histogram::new(&ctx, &HistogramConfig::new(4, 0.0f32, 1.0))?;
/// let x = ctx.storage_from("x", &[0.1f32, 0.3, 0.35, 0.99, 1.5, f32::NAN, -2.0])?;
/// let bound = h.bind(&ctx, &x, 7)?;
/// ctx.submit(|enc| bound.record(enc));
/// let c = bound.read(&ctx)?;
/// assert_eq!(c.bins, [1, 2, 0, 1]);
/// assert_eq!((c.below, c.above, c.nan), (1, 1, 1));
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct Histogram {
    kernel: Kernel,
    scalar: Scalar,
    bins: u32,
    levels: [u32; 4],
    policy: HistogramPolicy,
    /// Clears the counts inside the histogram's pass (ADR-0081).
    clear: ClearKernel,
}

impl Histogram {
    /// Build the pipeline for `config` (its bins, range and policy are checked here).
    pub fn new<T: Sample>(ctx: &GpuContext, config: &HistogramConfig<T>) -> Result<Self> {
        let HistogramConfig {
            bins,
            lower,
            upper,
            policy,
        } = *config;
        let policy = policy.unwrap_or_default();
        policy.check()?;
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(Error::InvalidArgument(format!(
                "histogram of {bins} bins: 1 to {MAX_BINS} are supported"
            )));
        }
        let levels = levels(bins, lower, upper)?;
        let sg = ctx.caps.subgroups.supported;
        let kernel = Kernel::new(ctx, &composed(T::SCALAR, &policy, sg)?)?;
        Ok(Self {
            kernel,
            scalar: T::SCALAR,
            bins,
            levels,
            policy,
            clear: ClearKernel::new(ctx)?,
        })
    }

    /// The same pipelines for another bin count and range (of the same element type): no
    /// compile, so a caller with many ranges builds one histogram and re-ranges it.
    pub fn with_range<T: Sample>(&self, bins: u32, lower: T, upper: T) -> Result<Self> {
        if T::SCALAR != self.scalar {
            return Err(Error::InvalidArgument(format!(
                "histogram re-ranged with {:?} levels, built for {:?} samples: build one for {:?}",
                T::SCALAR,
                self.scalar,
                T::SCALAR
            )));
        }
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(Error::InvalidArgument(format!(
                "histogram of {bins} bins: 1 to {MAX_BINS} are supported"
            )));
        }
        Ok(Self {
            kernel: self.kernel.clone(),
            scalar: self.scalar,
            bins,
            levels: levels(bins, lower, upper)?,
            policy: self.policy,
            clear: self.clear.clone(),
        })
    }

    /// Bind to `n` samples in `samples`; the counts go to a buffer of the bound histogram.
    pub fn bind(&self, ctx: &GpuContext, samples: &wgpu::Buffer, n: u64) -> Result<BoundHistogram> {
        check_fits("histogram samples", samples, n, 1)?;
        if n >= 1 << 32 {
            return Err(crate::Error::InvalidArgument(format!(
                "histogram of {n} samples: the counts are 32-bit, so at most 2^32 - 1"
            )));
        }
        let counts = ctx.scoped("creating buffer 'histogram counts'", || {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wavekit.histogram.counts"),
                size: u64::from(self.bins + 3) * 4,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        // Samples past one storage binding are counted in chunks into the same counts.
        let placeholder = ctx.storage_uninit("histogram placeholder", 16)?;
        let per_chunk = chunk_elements(ctx, 1, 4);
        let mut chunks = Vec::new();
        let mut start = 0u64;
        while start < n {
            let len = (n - start).min(per_chunk) as u32;
            chunks.push(self.bind_chunk(ctx, samples, start, len, &counts, &placeholder)?);
            start += u64::from(len);
        }
        Ok(BoundHistogram {
            kernel: self.kernel.clone(),
            chunks,
            clear: self.clear.bind(ctx, &[&counts])?,
            counts,
            bins: self.bins,
        })
    }

    fn bind_chunk(
        &self,
        ctx: &GpuContext,
        samples: &wgpu::Buffer,
        start: u64,
        n: u32,
        counts: &wgpu::Buffer,
        placeholder: &wgpu::Buffer,
    ) -> Result<(wgpu::BindGroup, u32, wgpu::Buffer)> {
        let copies = (HISTOGRAM_COUNTERS / self.bins).clamp(1, 16);
        let groups = n
            .div_ceil(self.policy.workgroup * 16)
            .clamp(1, self.policy.max_workgroups);
        // A multiple of 4, so that every group's run starts on a whole quad.
        let per_group = n.div_ceil(groups).next_multiple_of(4).max(4);
        let params = ctx.uniform_from(
            "histogram params",
            &[
                n,
                self.bins,
                copies,
                per_group,
                self.levels[0],
                self.levels[1],
                self.levels[2],
                self.levels[3],
            ],
        )?;
        // The vector view covers the whole quads; fewer than four samples have none.
        let quad_bytes = u64::from(n) / 4 * 16;
        let quads: Range = if quad_bytes == 0 {
            (3, placeholder, 0, None)
        } else {
            (3, samples, start * 4, Some(quad_bytes))
        };
        let bind = self.kernel.bind_ranges(
            ctx,
            &[
                (0, &params, 0, None),
                (1, samples, start * 4, Some(u64::from(n) * 4)),
                (2, counts, 0, None),
                quads,
            ],
        )?;
        Ok((bind, n.div_ceil(per_group), params))
    }
}

/// The levels as the kernel takes them: lower and upper as bits, the f32 scale or the integer
/// range, and (integers) the ratio for the estimate.
fn levels<T: Sample>(bins: u32, lower: T, upper: T) -> Result<[u32; 4]> {
    let lo: u32 = bytemuck::cast(lower);
    let hi: u32 = bytemuck::cast(upper);
    let bad = |why: &str| {
        Err(Error::InvalidArgument(format!(
            "histogram range [{lower:?}, {upper:?}): {why}"
        )))
    };
    match T::SCALAR {
        Scalar::F32 => {
            let (l, u) = (f32::from_bits(lo), f32::from_bits(hi));
            if !l.is_finite() || !u.is_finite() {
                return bad("the levels must be finite");
            }
            if l >= u {
                return bad("lower must be below upper");
            }
            let (pre, scale) = reference::float_bin_form(bins, l, u);
            if !scale.is_finite() || scale == 0.0 {
                return bad("the bins are too narrow or too wide for f32");
            }
            // The pre-scale in the ratio's word: 0 for the plain form.
            let pre = if pre == 1.0 { 0 } else { pre.to_bits() };
            Ok([lo, hi, scale.to_bits(), pre])
        }
        Scalar::I32 => {
            if (lo as i32) >= (hi as i32) {
                return bad("lower must be below upper");
            }
            let range = hi.wrapping_sub(lo);
            Ok([lo, hi, range, ratio(bins, range)])
        }
        Scalar::U32 => {
            if lo >= hi {
                return bad("lower must be below upper");
            }
            Ok([lo, hi, hi - lo, ratio(bins, hi - lo)])
        }
    }
}

/// bins / range as f32 bits: the integer kernel's estimate, corrected exactly on the GPU.
fn ratio(bins: u32, range: u32) -> u32 {
    ((f64::from(bins) / f64::from(range)) as f32).to_bits()
}

/// A histogram bound to its samples, ready to record any number of times.
#[derive(Debug)]
pub struct BoundHistogram {
    kernel: Kernel,
    /// Per chunk of at most one binding: bind group, workgroups, parameters.
    chunks: Vec<(wgpu::BindGroup, u32, wgpu::Buffer)>,
    clear: BoundClear,
    counts: wgpu::Buffer,
    bins: u32,
}

impl BoundHistogram {
    /// The counts buffer: `bins` u32 counts, then below, above, NaN.
    pub fn counts(&self) -> &wgpu::Buffer {
        &self.counts
    }

    /// Record the histogram into `enc`: one compute pass, the counts cleared by a dispatch
    /// first (ADR-0081).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = record::compute_pass(enc, "wavekit.histogram");
        self.clear.dispatch(&mut pass);
        for (bind, groups, _) in &self.chunks {
            self.kernel.dispatch(&mut pass, bind, *groups);
        }
    }

    /// Read the counts back (after the recorded commands ran).
    pub fn read(&self, ctx: &GpuContext) -> Result<Counts> {
        let all: Vec<u32> =
            ctx.read_back("histogram counts", &self.counts, self.bins as usize + 3)?;
        let b = self.bins as usize;
        Ok(Counts {
            bins: all[..b].to_vec(),
            below: all[b],
            above: all[b + 1],
            nan: all[b + 2],
        })
    }
}

/// The histogram of a slice (a one-call convenience).
pub fn histogram_slice<T: Sample>(
    ctx: &GpuContext,
    samples: &[T],
    bins: u32,
    lower: T,
    upper: T,
) -> Result<Counts> {
    let h = Histogram::new(ctx, &HistogramConfig::new(bins, lower, upper))?;
    let buf = ctx.storage_from("histogram samples", samples)?;
    let bound = h.bind(ctx, &buf, samples.len() as u64)?;
    ctx.submit_checked("a histogram", |enc| bound.record(enc))?;
    bound.read(ctx)
}

#[cfg(test)]
mod tests {
    use super::{FAST_MARGIN_PER_BIN, ratio};

    /// `x` moved by `ulps` units in the last place (the rounding WGSL allows either way).
    fn nudge(x: f32, ulps: i32) -> f32 {
        match ulps {
            0 => x,
            u if u > 0 => x.next_up(),
            _ => x.next_down(),
        }
    }

    /// The integer kernel's fast path (histogram/sample_int.wgsl) on the CPU, with the
    /// conversion and the product each rounded `conv` and `prod` ulps away from nearest:
    /// the bin, or None where it defers to the exact path.
    fn fast_bin(off: u32, bins: u32, ratio_bits: u32, conv: i32, prod: i32) -> Option<u32> {
        let e = nudge(nudge(off as f32, conv) * f32::from_bits(ratio_bits), prod);
        let whole = e.floor();
        let frac = e - whole;
        let margin = bins as f32 * FAST_MARGIN_PER_BIN;
        (frac > margin && frac < 1.0 - margin && whole < bins as f32).then_some(whole as u32)
    }

    #[test]
    fn fast_integer_bins_are_exact_wherever_taken() {
        // Random levels and bin counts; samples at random and at and beside bin edges.
        // Wherever the fast path answers, under any rounding WGSL allows, it must be the exact
        // bin; and it must answer for nearly all random samples (or it would not be a fast
        // path).
        let mut rng = fastrand::Rng::with_seed(0x5eed_2026);
        let (mut taken, mut total) = (0u64, 0u64);
        for trial in 0..400 {
            let bins = match trial % 4 {
                0 => 4096,
                1 => 256,
                _ => rng.u32(1..=4096),
            };
            let lower = rng.u32(..);
            let range = match trial % 3 {
                0 => u32::MAX - lower,
                _ => rng.u32(1..=u32::MAX - lower),
            }
            .max(1);
            let r = ratio(bins, range);
            let mut offs: Vec<u32> = (0..64).map(|_| rng.u32(0..range)).collect();
            for _ in 0..64 {
                let k = u64::from(rng.u32(1..bins.max(2)));
                let edge = (k * u64::from(range)).div_ceil(u64::from(bins));
                for d in [-1i64, 0, 1] {
                    let o = edge as i64 + d;
                    if (0..i64::from(range)).contains(&o) {
                        offs.push(o as u32);
                    }
                }
            }
            for (i, off) in offs.into_iter().enumerate() {
                let exact = (u64::from(off) * u64::from(bins) / u64::from(range)) as u32;
                let random = i < 64;
                total += u64::from(random);
                let mut all = true;
                for conv in -1..=1 {
                    for prod in -1..=1 {
                        match fast_bin(off, bins, r, conv, prod) {
                            Some(q) => assert_eq!(
                                q, exact,
                                "off {off}, {bins} bins, range {range}, rounding {conv}/{prod}"
                            ),
                            None => all = false,
                        }
                    }
                }
                taken += u64::from(all && random);
            }
        }
        assert!(
            taken * 100 > total * 99,
            "fast path taken for {taken} of {total} random samples"
        );
    }
}

#[cfg(test)]
mod kernel_tests {
    use super::*;

    #[test]
    fn every_variant_validates() {
        let mut variants = Vec::new();
        for sg in [true, false] {
            for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
                variants.push((
                    composed(scalar, &HistogramPolicy::default(), sg).unwrap(),
                    sg,
                ));
            }
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
    }
}
