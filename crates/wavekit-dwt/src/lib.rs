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
//! let ctx = GpuContext::new(&Default::default())?;
//! let plane: Vec<i32> = (0..35).map(|i| (i * 7) % 13).collect();
//! let dwt = Dwt::new(&ctx, Wavelet::Reversible53, 7, 5, 2, 1)?;
//! let coeffs = dwt.forward_i32(&ctx, &plane)?;
//! assert_eq!(dwt.inverse_i32(&ctx, &coeffs)?, plane);
//! # Ok::<(), wavekit_dwt::DwtError>(())
//! ```

pub mod bench;
pub mod reference;
pub mod sim;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::prelude::{KernelBuilder, WgslSource};

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

/// The transform's WGSL files (built on wavekit's kernel prelude).
pub static SOURCES: &[WgslSource] = &[wavekit::wgsl_source!("dwt/tile", "tile.wgsl")];

/// How a level's kernel cuts the plane: a workgroup of `columns × segments` invocations, each
/// holding one column of `rows` samples plus an apron in registers. The tile it transforms is
/// `columns − 2·apron` wide and `rows · segments` high (ADR-019).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct TileShape {
    /// Columns per workgroup, the apron on both sides included (even).
    pub columns: u32,
    /// Rows per invocation (even).
    pub rows: u32,
    /// Invocations down a column.
    pub segments: u32,
}

impl TileShape {
    /// The samples transformed by one workgroup: width and height.
    pub fn tile(self, wavelet: Wavelet) -> (u32, u32) {
        (self.columns - 2 * apron(wavelet), self.rows * self.segments)
    }

    /// Invocations per workgroup.
    pub fn invocations(self) -> u32 {
        self.columns * self.segments
    }

    /// Workgroup memory, in bytes.
    pub fn workgroup_bytes(self, wavelet: Wavelet) -> u32 {
        self.segments * (self.rows + 2 * apron(wavelet)) * self.columns * 4
    }

    fn check(self, ctx: &GpuContext, wavelet: Wavelet) -> Result<()> {
        let a = apron(wavelet);
        let TileShape {
            columns,
            rows,
            segments,
        } = self;
        if columns < 2 * a + 2
            || !columns.is_multiple_of(2)
            || rows < 2
            || !rows.is_multiple_of(2)
            || segments == 0
        {
            return Err(DwtError::InvalidArgument(format!(
                "a tile of {columns} columns, {rows} rows, {segments} segments: columns and \
                 rows must be even, columns at least {} (the apron of {a} on both sides and \
                 two), rows at least 2, segments at least 1",
                2 * a + 2
            )));
        }
        let limits = &ctx.caps.limits;
        if self.invocations() > limits.max_compute_invocations_per_workgroup {
            return Err(DwtError::InvalidArgument(format!(
                "a tile of {columns} columns by {segments} segments needs {} invocations; this \
                 adapter allows {} per workgroup",
                self.invocations(),
                limits.max_compute_invocations_per_workgroup
            )));
        }
        let room = limits.max_compute_workgroup_storage_size;
        if self.workgroup_bytes(wavelet) > room {
            return Err(DwtError::InvalidArgument(format!(
                "a tile of {columns} columns, {rows} rows, {segments} segments needs {} bytes of \
                 workgroup memory; this adapter has {room}: choose a smaller tile",
                self.workgroup_bytes(wavelet)
            )));
        }
        Ok(())
    }
}

/// Shapes tried in order; the first that fits the adapter is taken.
pub const SHAPES: [TileShape; 3] = [
    TileShape {
        columns: 128,
        rows: 8,
        segments: 2,
    },
    TileShape {
        columns: 64,
        rows: 8,
        segments: 2,
    },
    TileShape {
        columns: 32,
        rows: 8,
        segments: 2,
    },
];

/// The transform's tuning (for benchmarks): `None` fields keep [`Dwt::new`]'s choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// One tile shape for every level (no small levels).
    pub shape: Option<TileShape>,
    /// Regions (samples of all planes) up to which levels take the small shape.
    pub small_samples: Option<u64>,
}

/// Regions (samples of all planes) up to which [`Dwt::new`]'s plans use tiles of half the rows
/// (ADR-032): a 4K plane (3840 × 2160) and smaller. [`Dwt::with_small_levels`] sets another.
pub const SMALL_LEVEL_SAMPLES: u64 = 3840 * 2160;

/// Samples of apron on each side of a tile: one per lifting step of a direction.
pub fn apron(wavelet: Wavelet) -> u32 {
    match wavelet {
        Wavelet::Reversible53 => 2,
        Wavelet::Irreversible97 => 4,
    }
}

/// One of the level kernel's pipelines: its direction, and the buffers its source region and
/// its result region are in (see tile.wgsl: `image` 0, `coeffs` 1, `scratch` 2, `image_out`
/// 3, `out8` 4), compiled in so that no load or store branches on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The inverse transform.
    pub inverse: bool,
    /// The source region's buffer.
    pub src: u32,
    /// The result region's buffer.
    pub dst: u32,
    /// The colour transform fused into the first level: 0 none, 1 RCT, 2 ICT.
    pub color: u32,
}

const fn variant(inverse: bool, src: u32, dst: u32) -> Variant {
    Variant {
        inverse,
        src,
        dst,
        color: 0,
    }
}

/// JPEG 2000's component transforms of a three-plane RGB image (T.800 Annex G), fused into the
/// first level of the transform: the forward turns R, G, B into Y, Cb, Cr as it loads them, the
/// inverse turns them back as it stores the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Color {
    /// The planes are transformed as they are.
    #[default]
    None,
    /// The reversible colour transform, with the 5/3 (integers; the round trip is exact).
    Rct,
    /// The irreversible colour transform, with the 9/7.
    Ict,
}

impl Color {
    /// The kernels' `COLOR` constant.
    fn code(self) -> u32 {
        match self {
            Color::None => 0,
            Color::Rct => 1,
            Color::Ict => 2,
        }
    }
}

/// Every variant a plan may use: the forward from the image (samples or 8-bit) or scratch to
/// the coefficients or scratch, the inverse from the coefficients or scratch to scratch, the
/// image or 8-bit output.
pub const VARIANTS: [Variant; 12] = [
    variant(false, IMAGE_IN, COEFFS),
    variant(false, IMAGE_IN, SCRATCH),
    variant(false, IMAGE8, COEFFS),
    variant(false, IMAGE8, SCRATCH),
    variant(false, SCRATCH, COEFFS),
    variant(false, SCRATCH, SCRATCH),
    variant(true, COEFFS, SCRATCH),
    variant(true, COEFFS, IMAGE_OUT),
    variant(true, COEFFS, OUT8),
    variant(true, SCRATCH, SCRATCH),
    variant(true, SCRATCH, IMAGE_OUT),
    variant(true, SCRATCH, OUT8),
];

/// The fused level kernel for a wavelet, variant and tile shape, on wavekit's kernel prelude
/// (it uses no subgroup operation: workgroup memory and registers only).
pub fn builder(wavelet: Wavelet, variant: Variant, shape: TileShape) -> KernelBuilder {
    let sample = match wavelet {
        Wavelet::Reversible53 => "alias S = i32;\n",
        Wavelet::Irreversible97 => "alias S = f32;\n",
    };
    let a = apron(wavelet);
    KernelBuilder::new("dwt/tile", SOURCES)
        .workgroup_size(shape.invocations())
        .constant("COLUMNS", shape.columns)
        .constant("HALF", shape.columns / 2)
        .constant("ROWS", shape.rows)
        .constant("SEGMENTS", shape.segments)
        .constant("APRON", a)
        .constant("REGS", shape.rows + 2 * a)
        .constant("WAVELET", u32::from(wavelet == Wavelet::Irreversible97))
        .constant("INVERSE", variant.inverse)
        .constant("COLOR", variant.color)
        .constant("SRC_SEL", variant.src)
        .constant("DST_SEL", variant.dst)
        .generated("dwt/sample", sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_validates_with_naga() {
        for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
            let color = match wavelet {
                Wavelet::Reversible53 => Color::Rct,
                Wavelet::Irreversible97 => Color::Ict,
            };
            for variant in VARIANTS {
                for shape in SHAPES {
                    builder(wavelet, variant, shape).check().unwrap();
                }
                // The first level's variants with the colour transform fused.
                if variant.dst != OUT8 && variant.src != IMAGE8 {
                    let v = Variant {
                        color: color.code(),
                        ..variant
                    };
                    builder(wavelet, v, SHAPES[0]).check().unwrap();
                }
            }
        }
    }

    #[test]
    fn the_smallest_shape_fits_webgpu_defaults() {
        let last = *SHAPES.last().unwrap();
        for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
            assert!(last.workgroup_bytes(wavelet) <= 16 * 1024);
            assert!(last.invocations() <= 256);
        }
    }
}

/// An error saying `message` if `image` and `coeffs` are the same buffer.
fn apart(image: &wgpu::Buffer, coeffs: &wgpu::Buffer, message: &str) -> Result<()> {
    if image == coeffs {
        return Err(DwtError::InvalidArgument(message.into()));
    }
    Ok(())
}

/// Where a level reads or writes a region: buffer (see tile.wgsl), first element, row pitch,
/// plane stride.
#[derive(Clone, Copy, Debug)]
struct Loc {
    sel: u32,
    offset: u32,
    pitch: u32,
    plane: u32,
}

const IMAGE_IN: u32 = 0;
const COEFFS: u32 = 1;
const SCRATCH: u32 = 2;
const IMAGE_OUT: u32 = 3;
const OUT8: u32 = 4;
const IMAGE8: u32 = 5;

/// What a binding writes to: the same buffer (in place), separate image and coefficients,
/// in place with the inverse to 8-bit samples, or an 8-bit image and separate coefficients.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    InPlace,
    Separate,
    InPlaceU8,
    /// Separate, the image 8-bit: read by the forward, written by the inverse.
    SeparateU8,
}

/// A transform planned once for a size, level count, wavelet and number of planes; run it on
/// the caller's buffers: [`Dwt::bind`] (in place) or [`Dwt::bind_separate`] (image and
/// coefficients apart), then [`BoundDwt::record_forward`] and [`BoundDwt::record_inverse`].
///
/// Each level is one dispatch (ADR-019): a workgroup per tile and plane transforms its tile in
/// both directions in workgroup memory and writes the three detail bands to their place in
/// the coefficients and LL to scratch (or, at the last level, to its place); the next level
/// reads it from there.
#[derive(Debug)]
pub struct Dwt {
    wavelet: Wavelet,
    width: u32,
    height: u32,
    levels: u32,
    planes: u32,
    shape: TileShape,
    /// Levels whose region (all planes) has at most this many samples use this shape instead:
    /// more, shorter tiles, for levels too small to keep the GPU's memory busy (ADR-032).
    small: Option<(TileShape, u64)>,
    /// The colour transform fused into the first level.
    color: Color,
    /// The level kernel's variants and shapes, compiled when first bound (shared by resized
    /// plans).
    kernels: Arc<Mutex<HashMap<(Variant, TileShape), Kernel>>>,
    copy: Arc<wavekit::copy::CopyKernel>,
}

impl Dwt {
    /// [`Dwt::new`] with the tuning of `tuning` (a tile shape for every level, or where the
    /// small levels begin); the defaults where it says nothing. Any shapes give the same
    /// coefficients.
    pub fn tuned(
        ctx: &GpuContext,
        (wavelet, width, height, levels, planes): (Wavelet, u32, u32, u32, u32),
        tuning: &Tuning,
    ) -> Result<Self> {
        if let Some(shape) = tuning.shape {
            return Self::with_shape(ctx, wavelet, width, height, levels, planes, shape);
        }
        let plan = Self::new(ctx, wavelet, width, height, levels, planes)?;
        match (tuning.small_samples, plan.small) {
            (Some(samples), Some((shape, _))) => plan.with_small_levels(ctx, shape, samples),
            _ => Ok(plan),
        }
    }

    /// Plan `levels` levels of `wavelet` on `planes` planes of `width × height` samples.
    pub fn new(
        ctx: &GpuContext,
        wavelet: Wavelet,
        width: u32,
        height: u32,
        levels: u32,
        planes: u32,
    ) -> Result<Self> {
        let shape = *SHAPES
            .iter()
            .find(|t| t.check(ctx, wavelet).is_ok())
            .unwrap_or(SHAPES.last().expect("shapes"));
        let plan = Self::with_shape(ctx, wavelet, width, height, levels, planes, shape)?;
        // Small levels: the same tile with half the rows per invocation (ADR-032).
        let half = TileShape {
            rows: shape.rows / 2,
            ..shape
        };
        if half.rows < 2 || !half.rows.is_multiple_of(2) || half.check(ctx, wavelet).is_err() {
            return Ok(plan);
        }
        plan.with_small_levels(ctx, half, SMALL_LEVEL_SAMPLES)
    }

    /// The same plan with the levels whose region (all planes together) has at most
    /// `up_to_samples` samples transformed in tiles of `shape`: for tests and tuning; any
    /// shapes give the same coefficients. [`Dwt::new`] does this by itself (ADR-032).
    pub fn with_small_levels(
        mut self,
        ctx: &GpuContext,
        shape: TileShape,
        up_to_samples: u64,
    ) -> Result<Self> {
        shape.check(ctx, self.wavelet)?;
        self.small = Some((shape, up_to_samples));
        Ok(self)
    }

    /// The shape of the levels whose region (all planes) has at most the given number of
    /// samples, if they have one of their own (ADR-032).
    pub fn small_levels(&self) -> Option<(TileShape, u64)> {
        self.small
    }

    /// The tile shape of a level whose region is `w × h`.
    fn level_shape(&self, w: u32, h: u32) -> TileShape {
        match self.small {
            Some((shape, most)) if u64::from(w) * u64::from(h) * u64::from(self.planes) <= most => {
                shape
            }
            _ => self.shape,
        }
    }

    /// [`Dwt::new`] with a given tile shape: for tests and tuning; any shape gives the same
    /// coefficients.
    pub fn with_shape(
        ctx: &GpuContext,
        wavelet: Wavelet,
        width: u32,
        height: u32,
        levels: u32,
        planes: u32,
        shape: TileShape,
    ) -> Result<Self> {
        Self::validate(ctx, wavelet, width, height, levels, planes, shape)?;
        Ok(Self {
            wavelet,
            width,
            height,
            levels,
            planes,
            shape,
            small: None,
            color: Color::None,
            kernels: Arc::default(),
            copy: Arc::new(wavekit::copy::CopyKernel::new(ctx)?),
        })
    }

    /// The same transform (wavelet, tile shape, compiled kernels) for another size, level
    /// count or number of planes: nothing is compiled again.
    pub fn resized(
        &self,
        ctx: &GpuContext,
        width: u32,
        height: u32,
        levels: u32,
        planes: u32,
    ) -> Result<Self> {
        Self::validate(ctx, self.wavelet, width, height, levels, planes, self.shape)?;
        Self {
            width,
            height,
            levels,
            planes,
            color: Color::None,
            kernels: self.kernels.clone(),
            copy: self.copy.clone(),
            ..*self
        }
        .with_color(self.color)
    }

    fn validate(
        ctx: &GpuContext,
        wavelet: Wavelet,
        width: u32,
        height: u32,
        levels: u32,
        planes: u32,
        shape: TileShape,
    ) -> Result<()> {
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
        shape.check(ctx, wavelet)?;
        let tile = shape.tile(wavelet);
        // The grid: tiles across in x, tiles down times planes in y.
        let most_groups = ctx.caps.limits.max_compute_workgroups_per_dimension;
        let (tx, ty) = (width.div_ceil(tile.0), height.div_ceil(tile.1));
        if tx > most_groups || u64::from(ty) * u64::from(planes) > u64::from(most_groups) {
            return Err(DwtError::InvalidArgument(format!(
                "{planes} planes of {width} × {height}: {tx} × {} tiles of {} × {}, over this \
                 adapter's {most_groups} workgroups per dimension (transform fewer planes at once)",
                u64::from(ty) * u64::from(planes),
                tile.0,
                tile.1
            )));
        }
        let samples = u64::from(width) * u64::from(height) * u64::from(planes);
        ctx.check_binding("wavelet coefficients", samples * 4)?;
        Ok(())
    }

    /// The tile shape this plan's kernels work in.
    pub fn shape(&self) -> TileShape {
        self.shape
    }

    /// The samples one workgroup transforms: width and height.
    pub fn tile(&self) -> (u32, u32) {
        self.shape.tile(self.wavelet)
    }

    /// The same plan with JPEG 2000's colour transform fused into its first level: three
    /// planes (R, G, B in, Y, Cb, Cr transformed), RCT with the 5/3 and ICT with the 9/7, at
    /// least one level, and bound with [`Dwt::bind`] or [`Dwt::bind_separate`] (the 8-bit
    /// bindings take no colour transform).
    pub fn with_color(mut self, color: Color) -> Result<Self> {
        let ok = match color {
            Color::None => true,
            Color::Rct => self.wavelet == Wavelet::Reversible53,
            Color::Ict => self.wavelet == Wavelet::Irreversible97,
        };
        if !ok {
            return Err(DwtError::InvalidArgument(format!(
                "{color:?} with the {:?} wavelet: JPEG 2000 pairs RCT with the 5/3 and ICT with \
                 the 9/7",
                self.wavelet
            )));
        }
        if color != Color::None && (self.planes != 3 || self.levels == 0) {
            return Err(DwtError::InvalidArgument(format!(
                "a colour transform takes three planes (R, G, B) and at least one level; this \
                 plan has {} plane(s) and {} level(s)",
                self.planes, self.levels
            )));
        }
        self.color = color;
        Ok(self)
    }

    /// The colour transform fused into the first level.
    pub fn color(&self) -> Color {
        self.color
    }

    /// Levels of the transform.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Samples per plane times planes: the length `data` must have.
    pub fn len(&self) -> usize {
        (u64::from(self.width) * u64::from(self.height) * u64::from(self.planes)) as usize
    }

    /// Whether the plan has no samples (never: every size is at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check(&self, what: &str, data: &wgpu::Buffer) -> Result<()> {
        let need = self.len() as u64 * 4;
        if data.size() < need {
            return Err(DwtError::InvalidArgument(format!(
                "{what}: a buffer of {} bytes for {} planes of {} × {} samples: needs {need}",
                data.size(),
                self.planes,
                self.width,
                self.height
            )));
        }
        Ok(())
    }

    /// `what` (8-bit samples, four to a word) holds `len()` bytes, rounded up to a word.
    fn check_bytes(&self, what: &str, buf: &wgpu::Buffer) -> Result<()> {
        let need = (self.len() as u64).next_multiple_of(4);
        if buf.size() < need {
            return Err(DwtError::InvalidArgument(format!(
                "{what} of {} bytes for {} samples: needs {need}",
                buf.size(),
                self.len()
            )));
        }
        Ok(())
    }

    /// Bind to `data`: the planes one after another, each row-major, `len()` samples (i32 for
    /// 5/3, f32 for 9/7). The transforms then run in place on it (each copies the whole of
    /// it once to scratch: [`Dwt::bind_separate`] does without).
    pub fn bind(&self, ctx: &GpuContext, data: &wgpu::Buffer) -> Result<BoundDwt> {
        self.check("data", data)?;
        self.bind_all(ctx, data, data, None, Mode::InPlace)
    }

    /// Bind to an image and a coefficient buffer, both laid out as for [`Dwt::bind`]: the
    /// forward transform reads `image` and writes `coeffs`, the inverse reads `coeffs` and
    /// writes `image`; neither changes its source. They must be different buffers.
    pub fn bind_separate(
        &self,
        ctx: &GpuContext,
        image: &wgpu::Buffer,
        coeffs: &wgpu::Buffer,
    ) -> Result<BoundDwt> {
        apart(
            image,
            coeffs,
            "bind_separate takes two different buffers (use bind for one, in place)",
        )?;
        self.check("image", image)?;
        self.check("coefficients", coeffs)?;
        self.bind_all(ctx, image, coeffs, None, Mode::Separate)
    }

    /// Bind like [`Dwt::bind`], with the inverse's last pass writing 8-bit samples to `out`
    /// instead of `data`: rounded, plus 128 (the level shift of 8-bit samples), clamped to
    /// 0..=255, four to a `u32`, in the same order as the samples (`out` holds at least
    /// `len()` bytes; any past them are left as they were). The forward transform is as with
    /// [`Dwt::bind`]; the inverse leaves `data` as it was.
    pub fn bind_u8_output(
        &self,
        ctx: &GpuContext,
        data: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> Result<BoundDwt> {
        self.check_bytes("an 8-bit output", out)?;
        self.check("data", data)?;
        self.bind_all(ctx, data, data, Some(out), Mode::InPlaceU8)
    }

    /// Bind to 8-bit samples and a coefficient buffer: `image` holds `len()` bytes (four to a
    /// `u32`, in the same order as the samples of [`Dwt::bind`]; its size rounded up to 4),
    /// `coeffs` as for [`Dwt::bind`]. The forward transform reads the bytes with JPEG 2000's
    /// level shift (minus 128) and writes `coeffs`; the inverse reads `coeffs` and writes the
    /// bytes (rounded, plus 128, clamped to 0..=255, as [`Dwt::bind_u8_output`]). Neither
    /// changes its source. A codec's usual ends: a quarter of the first level's image traffic.
    pub fn bind_u8(
        &self,
        ctx: &GpuContext,
        image: &wgpu::Buffer,
        coeffs: &wgpu::Buffer,
    ) -> Result<BoundDwt> {
        apart(
            image,
            coeffs,
            "bind_u8 takes two different buffers: the 8-bit image and the coefficients",
        )?;
        self.check_bytes("an 8-bit image", image)?;
        self.check("coefficients", coeffs)?;
        self.bind_all(ctx, image, coeffs, Some(image), Mode::SeparateU8)
    }

    /// Compile the kernels of `keys` that are not compiled yet, together (drivers compile
    /// pipelines in parallel: a cold start's time divided by about their number).
    fn prebuild(&self, ctx: &GpuContext, keys: &[(Variant, TileShape)]) -> Result<()> {
        let mut missing: Vec<(Variant, TileShape)> = Vec::new();
        {
            let kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
            for k in keys {
                if !kernels.contains_key(k) && !missing.contains(k) {
                    missing.push(*k);
                }
            }
        }
        let composed = missing
            .iter()
            .map(|&(v, shape)| {
                builder(self.wavelet, v, shape).compose(ctx.caps.subgroups.supported)
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        for &(_, shape) in &missing {
            ctx.check_workgroup([shape.invocations(), 1, 1])?;
        }
        let built = Kernel::build_parallel(ctx, &composed)?;
        let mut kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        for (k, kernel) in missing.into_iter().zip(built) {
            kernels.insert(k, kernel);
        }
        Ok(())
    }

    /// The kernel of `variant` in tiles of `shape`, compiled on first use.
    fn kernel(&self, ctx: &GpuContext, variant: Variant, shape: TileShape) -> Result<Kernel> {
        let mut kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kernels.get(&(variant, shape)) {
            return Ok(k.clone());
        }
        let k = builder(self.wavelet, variant, shape).build(ctx)?;
        kernels.insert((variant, shape), k.clone());
        Ok(k)
    }

    fn bind_all(
        &self,
        ctx: &GpuContext,
        image: &wgpu::Buffer,
        coeffs: &wgpu::Buffer,
        out8: Option<&wgpu::Buffer>,
        mode: Mode,
    ) -> Result<BoundDwt> {
        if self.color != Color::None && matches!(mode, Mode::InPlaceU8 | Mode::SeparateU8) {
            return Err(DwtError::InvalidArgument(
                "the 8-bit bindings take no colour transform: bind the samples as i32 or f32 \
                 (Dwt::bind or Dwt::bind_separate)"
                    .into(),
            ));
        }
        let (w, h, p) = (self.width, self.height, self.planes);
        let n = w * h * p;
        let regions: Vec<(u32, u32)> = reference::regions(w as usize, h as usize, self.levels + 1)
            .into_iter()
            .map(|(a, b)| (a as u32, b as u32))
            .collect();
        let levels = self.levels as usize;
        // Scratch: the whole image (in place: the forward's source, the inverse's last
        // destination), then LL of even levels (A) and of odd levels (B), each compact.
        let full = if matches!(mode, Mode::Separate | Mode::SeparateU8) {
            0
        } else {
            n
        };
        let size = |l: usize| regions[l].0 * regions[l].1 * p;
        let a_off = full;
        let b_off = a_off + if levels >= 2 { size(1) } else { 0 };
        let scratch_len = b_off + if levels >= 3 { size(2) } else { 0 };
        ctx.check_binding("wavelet scratch", u64::from(scratch_len) * 4)?;
        let scratch = ctx.storage_uninit("dwt scratch", u64::from(scratch_len.max(1)) * 4)?;
        // The LL of level l (l + 1's region), compact.
        let ll = |l: usize| Loc {
            sel: SCRATCH,
            offset: if l.is_multiple_of(2) { a_off } else { b_off },
            pitch: regions[l + 1].0,
            plane: regions[l + 1].0 * regions[l + 1].1,
        };
        let whole = |sel: u32| Loc {
            sel,
            offset: 0,
            pitch: w,
            plane: w * h,
        };
        let split = |l: usize| u32::from(regions[l].0 > 1) | (u32::from(regions[l].1 > 1) << 1);
        let params =
            |l: usize, src: Loc, dst: Loc, split: u32, inverse: bool| -> Result<LevelSpec> {
                let (rw, rh) = regions[l];
                let shape = self.level_shape(rw, rh);
                let tile = shape.tile(self.wavelet);
                let (tx, ty) = (rw.div_ceil(tile.0), rh.div_ceil(tile.1));
                let most_groups = ctx.caps.limits.max_compute_workgroups_per_dimension;
                if tx > most_groups || u64::from(ty) * u64::from(p) > u64::from(most_groups) {
                    return Err(DwtError::InvalidArgument(format!(
                        "level {l} of {p} planes of {rw} × {rh}: {tx} × {} tiles of {} × {}, \
                         over this adapter's {most_groups} workgroups per dimension",
                        u64::from(ty) * u64::from(p),
                        tile.0,
                        tile.1
                    )));
                }
                let words: [u32; 16] = [
                    rw,
                    rh,
                    tx,
                    ty,
                    src.offset,
                    src.pitch,
                    src.plane,
                    dst.offset,
                    dst.pitch,
                    dst.plane,
                    w,
                    w * h,
                    split,
                    128,
                    0,
                    0,
                ];
                // The colour transform is fused into the first level; its inverse runs a
                // workgroup per tile for the three planes.
                let color = if l == 0 { self.color.code() } else { 0 };
                let variant = Variant {
                    inverse,
                    src: src.sel,
                    dst: dst.sel,
                    color,
                };
                let planes_in_grid = if color != 0 && inverse { 1 } else { p };
                Ok(LevelSpec {
                    key: (variant, shape),
                    params: ctx.uniform_from("dwt level params", &words)?,
                    groups: (tx, ty * planes_in_grid),
                })
            };
        let placeholder = [
            ctx.storage_uninit("dwt no image in", 16)?,
            ctx.storage_uninit("dwt no image out", 16)?,
            ctx.storage_uninit("dwt no 8-bit output", 16)?,
        ];
        let bind = |pass: &LevelPass, inverse: bool| -> Result<wgpu::BindGroup> {
            let image_in = if mode == Mode::Separate && !inverse {
                image
            } else {
                &placeholder[0]
            };
            let image_out = if mode == Mode::Separate && inverse {
                image
            } else {
                &placeholder[1]
            };
            // The 8-bit image: read by the forward, written by the inverse (never both bound in
            // one group: read-only and read-write bindings of one buffer conflict).
            let image8 = if mode == Mode::SeparateU8 && !inverse {
                image
            } else {
                &placeholder[0]
            };
            let out = match out8 {
                Some(o) if inverse || mode != Mode::SeparateU8 => o,
                _ => &placeholder[2],
            };
            Ok(pass.kernel.bind(
                ctx,
                &[
                    (0, &pass.params),
                    (1, image_in),
                    (2, coeffs),
                    (3, &scratch),
                    (4, image_out),
                    (5, out),
                    (6, image8),
                ],
            )?)
        };
        let mut forward = Vec::new();
        for l in 0..levels {
            let src = if l == 0 {
                match mode {
                    Mode::Separate => whole(IMAGE_IN),
                    Mode::SeparateU8 => whole(IMAGE8),
                    _ => whole(SCRATCH),
                }
            } else {
                ll(l - 1)
            };
            let dst = if l + 1 == levels {
                whole(COEFFS)
            } else {
                ll(l)
            };
            forward.push(params(l, src, dst, split(l), false)?);
        }
        let mut inverse = Vec::new();
        for l in (0..levels).rev() {
            let src = if l + 1 == levels {
                whole(COEFFS)
            } else {
                ll(l)
            };
            let dst = if l == 0 {
                match mode {
                    Mode::Separate => whole(IMAGE_OUT),
                    Mode::InPlace => whole(SCRATCH),
                    Mode::InPlaceU8 | Mode::SeparateU8 => whole(OUT8),
                }
            } else {
                ll(l - 1)
            };
            inverse.push(params(l, src, dst, split(l), true)?);
        }
        if levels == 0 && matches!(mode, Mode::InPlaceU8 | Mode::SeparateU8) {
            // No levels: a store-only pass to the 8-bit output.
            inverse.push(params(0, whole(COEFFS), whole(OUT8), 0, true)?);
        }
        if levels == 0 && mode == Mode::SeparateU8 {
            // And one from the 8-bit image.
            forward.push(params(0, whole(IMAGE8), whole(COEFFS), 0, false)?);
        }
        // Every kernel the levels need, the missing ones compiled together.
        let keys: Vec<(Variant, TileShape)> =
            forward.iter().chain(&inverse).map(|s| s.key).collect();
        self.prebuild(ctx, &keys)?;
        let pass = |spec: LevelSpec, inverse: bool| -> Result<(wgpu::BindGroup, LevelPass)> {
            let pass = LevelPass {
                kernel: self.kernel(ctx, spec.key.0, spec.key.1)?,
                params: spec.params,
                groups: spec.groups,
            };
            Ok((bind(&pass, inverse)?, pass))
        };
        let forward = forward
            .into_iter()
            .map(|s| pass(s, false))
            .collect::<Result<Vec<_>>>()?;
        let inverse = inverse
            .into_iter()
            .map(|s| pass(s, true))
            .collect::<Result<Vec<_>>>()?;
        let bytes = u64::from(n) * 4;
        let copy = |from: &wgpu::Buffer, to: &wgpu::Buffer| self.copy.bind(ctx, from, to, bytes);
        let (forward_copy, inverse_copy) = match mode {
            Mode::InPlace | Mode::InPlaceU8 if levels > 0 => (
                Some(copy(coeffs, &scratch)?),
                if mode == Mode::InPlace {
                    Some(copy(&scratch, coeffs)?)
                } else {
                    None
                },
            ),
            Mode::Separate if levels == 0 => {
                (Some(copy(image, coeffs)?), Some(copy(coeffs, image)?))
            }
            _ => (None, None),
        };
        Ok(BoundDwt {
            forward,
            inverse,
            forward_copy,
            inverse_copy,
            _buffers: (scratch, placeholder),
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

    fn run_from_u8<T: bytemuck::Pod>(
        &self,
        ctx: &GpuContext,
        bytes: &[u8],
        want: Wavelet,
    ) -> Result<Vec<T>> {
        self.check_input(bytes.len(), want)?;
        let mut words = bytes.to_vec();
        words.resize(bytes.len().next_multiple_of(4), 0);
        let image = ctx.storage_from("dwt 8-bit input", &words)?;
        let coeffs = ctx.storage_uninit("dwt coefficients", bytes.len() as u64 * 4)?;
        let bound = self.bind_u8(ctx, &image, &coeffs)?;
        ctx.submit(|enc| bound.record_forward(enc));
        Ok(ctx.read_back("dwt coefficients", &coeffs, bytes.len())?)
    }

    /// Forward 5/3 of 8-bit samples, level-shifted by −128 (see [`Dwt::bind_u8`]).
    pub fn forward_u8_to_i32(&self, ctx: &GpuContext, bytes: &[u8]) -> Result<Vec<i32>> {
        self.run_from_u8(ctx, bytes, Wavelet::Reversible53)
    }

    /// Forward 9/7 of 8-bit samples, level-shifted by −128.
    pub fn forward_u8_to_f32(&self, ctx: &GpuContext, bytes: &[u8]) -> Result<Vec<f32>> {
        self.run_from_u8(ctx, bytes, Wavelet::Irreversible97)
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

/// One level's dispatch before its kernel is looked up: the kernel's variant and shape, its
/// parameters and workgroup grid.
struct LevelSpec {
    key: (Variant, TileShape),
    params: wgpu::Buffer,
    groups: (u32, u32),
}

/// One level's dispatch: its kernel, parameters and workgroup grid.
#[derive(Debug)]
struct LevelPass {
    kernel: Kernel,
    params: wgpu::Buffer,
    groups: (u32, u32),
}

/// A transform bound to its buffers, ready to record any number of times.
#[derive(Debug)]
pub struct BoundDwt {
    /// Per level, in order: bind group and dispatch.
    forward: Vec<(wgpu::BindGroup, LevelPass)>,
    inverse: Vec<(wgpu::BindGroup, LevelPass)>,
    /// In place: the data to scratch before the forward, scratch back to the data after the
    /// inverse. Separate with no levels: the copy that is the whole transform.
    forward_copy: Option<wavekit::copy::BoundCopy>,
    inverse_copy: Option<wavekit::copy::BoundCopy>,
    _buffers: (wgpu::Buffer, [wgpu::Buffer; 3]),
}

impl BoundDwt {
    fn record(&self, enc: &mut wgpu::CommandEncoder, passes: &[(wgpu::BindGroup, LevelPass)]) {
        if passes.is_empty() {
            return;
        }
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.dwt"),
            timestamp_writes: None,
        });
        for (bind, level) in passes {
            level
                .kernel
                .dispatch_grid(&mut pass, bind, level.groups.0, level.groups.1);
        }
    }

    /// Record the forward transform.
    pub fn record_forward(&self, enc: &mut wgpu::CommandEncoder) {
        if let Some(c) = &self.forward_copy {
            c.record(enc);
        }
        self.record(enc, &self.forward);
    }

    /// Record the inverse transform (its last level to the 8-bit output, if bound with one).
    pub fn record_inverse(&self, enc: &mut wgpu::CommandEncoder) {
        self.record(enc, &self.inverse);
        if let Some(c) = &self.inverse_copy {
            c.record(enc);
        }
    }
}
