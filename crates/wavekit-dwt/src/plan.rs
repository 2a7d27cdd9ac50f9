//! A transform planned once for a size ([`Dwt`]): its levels, tile shapes and kernels, and the
//! buffers it binds ([`Dwt::bind`] and its kin), and the host conveniences (`forward_i32` …).

use std::sync::Arc;

use wavekit::GpuContext;
use wavekit::kernel::{Kernel, KernelCache};

use crate::bound::{BoundDwt, LevelPass, LevelSpec};
use crate::error::{DwtError, Result};
use crate::kernel::*;
use crate::reference::{self, max_levels};

/// An error saying `message` if `image` and `coeffs` are the same buffer.
pub(crate) fn apart(image: &wgpu::Buffer, coeffs: &wgpu::Buffer, message: &str) -> Result<()> {
    if image == coeffs {
        return Err(DwtError::InvalidArgument(message.into()));
    }
    Ok(())
}

/// Where a level reads or writes a region: buffer (see tile.wgsl), first element, row pitch,
/// plane stride.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc {
    pub(crate) sel: u32,
    pub(crate) offset: u32,
    pub(crate) pitch: u32,
    pub(crate) plane: u32,
}

/// The three small buffers bound where a level reads or writes no image or 8-bit output.
pub(crate) fn placeholders(ctx: &GpuContext) -> Result<[wgpu::Buffer; 3]> {
    Ok([
        ctx.storage_uninit("dwt no image in", 16)?,
        ctx.storage_uninit("dwt no image out", 16)?,
        ctx.storage_uninit("dwt no 8-bit output", 16)?,
    ])
}

/// One part of a level's dispatch (tile.wgsl's `Part`): where its source region is, where its
/// result region goes, and where its bands are in `coeffs`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartLocs {
    pub(crate) src: Loc,
    pub(crate) dst: Loc,
    pub(crate) bands: Loc,
}

impl PartLocs {
    fn words(&self) -> [u32; 12] {
        let (s, d, c) = (self.src, self.dst, self.bands);
        [
            s.offset, s.pitch, s.plane, d.offset, d.pitch, d.plane, c.offset, c.pitch, c.plane,
            s.sel, d.sel, 0,
        ]
    }
}

/// The most fraction bits [`Dwt::with_fraction_bits`] takes.
pub const MAX_FRACTION_BITS: u32 = 12;

/// A level's parameters (tile.wgsl's `Params`): the region and its tiles, the split, the
/// level shift of 8-bit samples, the first part's planes, the fraction bits of 8-bit samples,
/// then the two parts' places.
pub(crate) fn level_words(
    (rw, rh): (u32, u32),
    (tx, ty): (u32, u32),
    split: u32,
    (planes_a, frac): (u32, u32),
    a: &PartLocs,
    b: &PartLocs,
) -> [u32; 32] {
    let mut words = [0u32; 32];
    words[..8].copy_from_slice(&[rw, rh, tx, ty, split, 128, planes_a, frac]);
    words[8..20].copy_from_slice(&a.words());
    words[20..].copy_from_slice(&b.words());
    words
}

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
/// Each level is one dispatch (ADR-0019): a workgroup per tile and plane transforms its tile in
/// both directions in workgroup memory and writes the three detail bands to their place in
/// the coefficients and LL to scratch (or, at the last level, to its place); the next level
/// reads it from there.
#[derive(Debug)]
pub struct Dwt {
    pub(crate) wavelet: Wavelet,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) levels: u32,
    pub(crate) planes: u32,
    pub(crate) shape: TileShape,
    /// Levels whose region (all planes) has at most this many samples use this shape instead:
    /// more, shorter tiles, for levels too small to keep the GPU's memory busy (ADR-0032).
    pub(crate) small: Option<(TileShape, u64)>,
    /// The colour transform fused into the first level.
    pub(crate) color: Color,
    /// Fraction bits of 8-bit samples read and written (`with_fraction_bits`).
    pub(crate) frac: u32,
    /// The level kernel's variants and shapes, compiled when first bound (shared by resized
    /// plans).
    kernels: KernelCache<(Variant, TileShape)>,
    pub(crate) copy: Arc<wavekit::copy::CopyKernel>,
}

/// A plan's level regions (level l's at l, then the last LL's) and its LL areas in the
/// scratch buffer from element `at`: the LL of even levels, then of odd levels, each compact
/// (two areas, so that a level never reads the area it writes).
pub(crate) struct LlScratch {
    pub(crate) regions: Vec<(u32, u32)>,
    planes: u32,
    at: u32,
}

impl LlScratch {
    pub(crate) fn new(plan: &Dwt, at: u32) -> Self {
        let regions =
            reference::regions(plan.width as usize, plan.height as usize, plan.levels + 1)
                .into_iter()
                .map(|(w, h)| (w as u32, h as u32))
                .collect();
        LlScratch {
            regions,
            planes: plan.planes,
            at,
        }
    }

    /// Samples of level l's region, all planes.
    fn size(&self, l: usize) -> u32 {
        self.regions[l].0 * self.regions[l].1 * self.planes
    }

    /// Where the odd levels' LL area starts: past the largest even one (level 0's LL).
    fn odd_at(&self) -> u32 {
        self.at
            + if self.regions.len() > 2 {
                self.size(1)
            } else {
                0
            }
    }

    /// The element past both areas.
    pub(crate) fn end(&self) -> u32 {
        self.odd_at()
            + if self.regions.len() > 3 {
                self.size(2)
            } else {
                0
            }
    }

    /// The LL of level l (l + 1's region), compact.
    pub(crate) fn ll(&self, l: usize) -> Loc {
        let (w, h) = self.regions[l + 1];
        Loc {
            sel: SCRATCH,
            offset: if l.is_multiple_of(2) {
                self.at
            } else {
                self.odd_at()
            },
            pitch: w,
            plane: w * h,
        }
    }
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
        // Small levels: the same tile with half the rows per invocation (ADR-0032).
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
    /// shapes give the same coefficients. [`Dwt::new`] does this by itself (ADR-0032).
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
    /// samples, if they have one of their own (ADR-0032).
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
            frac: 0,
            kernels: KernelCache::new(),
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

    /// The same plan with 8-bit samples read and written as fixed point with `bits` fraction
    /// bits (integer wavelets only, at most [`MAX_FRACTION_BITS`]): the 8-bit bindings'
    /// forward reads `(sample − 128) << bits`, their inverse writes each sample rounded at its
    /// fraction bits (half up), plus 128, clamped to 0..=255. A codec whose planes carry
    /// fraction bits over 8-bit samples reads and writes its pictures this way without a pass
    /// of its own. 0, the default, is whole samples.
    pub fn with_fraction_bits(mut self, bits: u32) -> Result<Self> {
        if bits > 0 && !self.wavelet.is_integer() {
            return Err(DwtError::InvalidArgument(format!(
                "{bits} fraction bits with the {} wavelet: fixed-point samples are for the \
                 integer wavelets (5/3, fixed-point 9/7)",
                reference::name(self.wavelet)
            )));
        }
        if bits > MAX_FRACTION_BITS {
            return Err(DwtError::InvalidArgument(format!(
                "{bits} fraction bits: at most {MAX_FRACTION_BITS} (an 8-bit sample's fixed \
                 point must leave the lifting room in 32 bits)"
            )));
        }
        self.frac = bits;
        Ok(self)
    }

    /// Fraction bits of the 8-bit samples read and written ([`Dwt::with_fraction_bits`]).
    pub fn fraction_bits(&self) -> u32 {
        self.frac
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
    /// instead of `data`: rounded (at the plan's [`Dwt::with_fraction_bits`]), plus 128 (the
    /// level shift of 8-bit samples), clamped to 0..=255, four to a `u32`, in the same order as
    /// the samples (`out` holds at least `len()` bytes; any past them are left as they were).
    /// The forward transform is as with [`Dwt::bind`]; the inverse leaves `data` as it was.
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
    /// level shift (minus 128, then the plan's fraction bits) and writes `coeffs`; the inverse
    /// reads `coeffs` and writes the bytes (rounded, plus 128, clamped to 0..=255, as
    /// [`Dwt::bind_u8_output`]). Neither changes its source. A codec's usual ends: a quarter of the first level's image traffic.
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
    pub(crate) fn prebuild(&self, ctx: &GpuContext, keys: &[(Variant, TileShape)]) -> Result<()> {
        for &(_, shape) in keys {
            ctx.check_workgroup([shape.invocations(), 1, 1])?;
        }
        let sg = ctx.caps.subgroups.supported;
        self.kernels.prebuild(ctx, keys, |&(v, shape)| {
            Ok::<_, DwtError>(builder(self.wavelet, v, shape).compose(sg)?)
        })
    }

    /// The kernel of `variant` in tiles of `shape`, compiled on first use.
    pub(crate) fn kernel(
        &self,
        ctx: &GpuContext,
        variant: Variant,
        shape: TileShape,
    ) -> Result<Kernel> {
        ctx.check_workgroup([shape.invocations(), 1, 1])?;
        let sg = ctx.caps.subgroups.supported;
        self.kernels.get(ctx, &(variant, shape), |&(v, shape)| {
            Ok::<_, DwtError>(builder(self.wavelet, v, shape).compose(sg)?)
        })
    }

    /// The levels' passes, each direction's in order: every kernel they need (the missing ones
    /// compiled together), each pass bound by `bind` (given the pass and whether it is the
    /// inverse's).
    #[allow(clippy::type_complexity)]
    pub(crate) fn passes(
        &self,
        ctx: &GpuContext,
        forward: Vec<LevelSpec>,
        inverse: Vec<LevelSpec>,
        bind: impl Fn(&LevelPass, bool) -> Result<wgpu::BindGroup>,
    ) -> Result<(
        Vec<(wgpu::BindGroup, LevelPass)>,
        Vec<(wgpu::BindGroup, LevelPass)>,
    )> {
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
        let forward = forward.into_iter().map(|s| pass(s, false));
        let forward = forward.collect::<Result<Vec<_>>>()?;
        let inverse = inverse.into_iter().map(|s| pass(s, true));
        Ok((forward, inverse.collect::<Result<Vec<_>>>()?))
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
        let levels = self.levels as usize;
        // Scratch: the whole image (in place: the forward's source, the inverse's last
        // destination), then the LL areas.
        let full = if matches!(mode, Mode::Separate | Mode::SeparateU8) {
            0
        } else {
            n
        };
        let lls = LlScratch::new(self, full);
        let regions = &lls.regions;
        let scratch_len = lls.end();
        ctx.check_binding("wavelet scratch", u64::from(scratch_len) * 4)?;
        let scratch = ctx.storage_uninit("dwt scratch", u64::from(scratch_len.max(1)) * 4)?;
        let ll = |l: usize| lls.ll(l);
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
                let part = PartLocs {
                    src,
                    dst,
                    bands: whole(COEFFS),
                };
                let words = level_words((rw, rh), (tx, ty), split, (p, self.frac), &part, &part);
                // The colour transform is fused into the first level; its inverse runs a
                // workgroup per tile for the three planes.
                let color = if l == 0 { self.color.code() } else { 0 };
                let variant = Variant {
                    inverse,
                    src: src.sel,
                    dst: dst.sel,
                    color,
                    src_b: src.sel,
                    dst_b: dst.sel,
                    joint: false,
                    sels: false,
                    c16: false,
                };
                let planes_in_grid = if color != 0 && inverse { 1 } else { p };
                Ok(LevelSpec {
                    key: (variant, shape),
                    params: ctx.uniform_from("dwt level params", &words)?,
                    groups: (tx, ty * planes_in_grid),
                })
            };
        let placeholder = placeholders(ctx)?;
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
        let (forward, inverse) = self.passes(ctx, forward, inverse, bind)?;
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
        ctx.submit_checked("the inverse wavelet", |enc| bound.record_inverse(enc))?;
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
        ctx.submit_checked("the forward wavelet", |enc| bound.record_forward(enc))?;
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
        let same = self.wavelet == want
            || (want == Wavelet::Reversible53 && self.wavelet == Wavelet::Fixed97);
        if !same {
            return Err(DwtError::InvalidArgument(format!(
                "this plan is for the {} wavelet: 5/3 and fixed-point 9/7 take i32 samples, 9/7 \
                 f32",
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

    /// As the one-call forms ([`Dwt::forward_f32`] and the rest: `T` says which wavelet, f32
    /// the 9/7, i32 the 5/3 and the fixed-point 9/7), the result handed to `f` where the
    /// read-back left it (the context's mapped staging memory) instead of copied into a `Vec`,
    /// and `f`'s result returned: for callers that copy it into memory of their own (the
    /// Python package writes it into a numpy array).
    pub fn transform_with<T: Coefficient, R>(
        &self,
        ctx: &GpuContext,
        planes: &[T],
        inverse: bool,
        f: impl FnOnce(&[T]) -> R,
    ) -> Result<R> {
        self.check_input(planes.len(), T::WAVELET)?;
        let buf = ctx.storage_from("dwt data", planes)?;
        let bound = self.bind(ctx, &buf)?;
        ctx.submit_checked("a wavelet transform", |enc| {
            if inverse {
                bound.record_inverse(enc);
            } else {
                bound.record_forward(enc);
            }
        })?;
        Ok(ctx.read_back_with("dwt data", &buf, planes.len(), f)?)
    }

    /// Forward 5/3 or fixed-point 9/7 of `planes` (a one-call convenience).
    pub fn forward_i32(&self, ctx: &GpuContext, planes: &[i32]) -> Result<Vec<i32>> {
        self.transform_with(ctx, planes, false, <[i32]>::to_vec)
    }

    /// Inverse 5/3 or fixed-point 9/7.
    pub fn inverse_i32(&self, ctx: &GpuContext, coeffs: &[i32]) -> Result<Vec<i32>> {
        self.transform_with(ctx, coeffs, true, <[i32]>::to_vec)
    }

    /// Forward 9/7 of `planes`.
    pub fn forward_f32(&self, ctx: &GpuContext, planes: &[f32]) -> Result<Vec<f32>> {
        self.transform_with(ctx, planes, false, <[f32]>::to_vec)
    }

    /// Inverse 9/7.
    pub fn inverse_f32(&self, ctx: &GpuContext, coeffs: &[f32]) -> Result<Vec<f32>> {
        self.transform_with(ctx, coeffs, true, <[f32]>::to_vec)
    }
}

/// The sample and coefficient types of [`Dwt::transform_with`], each naming the wavelets that
/// take it: `f32` the 9/7, `i32` the 5/3 (and the fixed-point 9/7).
pub trait Coefficient: bytemuck::Pod {
    /// The wavelet checked against the plan's (the 5/3 stands for both integer wavelets).
    const WAVELET: Wavelet;
}

impl Coefficient for f32 {
    const WAVELET: Wavelet = Wavelet::Irreversible97;
}

impl Coefficient for i32 {
    const WAVELET: Wavelet = Wavelet::Reversible53;
}
