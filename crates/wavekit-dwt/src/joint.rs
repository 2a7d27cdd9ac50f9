//! Two images transformed together ([`JointDwt`]): each step one dispatch that takes a level of
//! each image where their regions have the same size, as a 4:2:0 frame's luma at level l + 1
//! and its chroma planes at level l (ADR-0105).

use wavekit::GpuContext;

use crate::bound::{BoundDwt, LevelPass, LevelSpec};
use crate::error::{DwtError, Result};
use crate::kernel::*;
use crate::plan::{Dwt, LlScratch, Loc, PartLocs, apart, level_words, placeholders};
use crate::reference;

/// Whether every band of a plane `width` samples wide, over `levels` levels, has an even width
/// and starts at an even column, so that 16-bit coefficients two to a word never share a word
/// between two bands ([`JointDwt::with_16_bit_coefficients`]): the width is a multiple of
/// 2^(levels + 1).
pub fn bands_fill_whole_words(width: u32, levels: u32) -> bool {
    levels < 31 && width.is_multiple_of(1 << (levels + 1))
}

/// Where one image's 8-bit planes are in a buffer of bytes ([`JointDwt::bind_bytes`]): its
/// first sample's byte, and the bytes from one plane's first sample to the next's (at least
/// the plane's samples). Rows are the plan's width, one after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BytePlanes {
    /// The first plane's first byte.
    pub first: u32,
    /// Bytes from a plane's first sample to the next plane's.
    pub stride: u32,
}

/// What a joint transform's first forward level reads and its last inverse level writes.
enum Ends<'b> {
    /// Samples (i32 or f32) in `image`, each image from its element.
    Samples(&'b wgpu::Buffer),
    /// 8-bit samples in a buffer of bytes, each image's planes where its `BytePlanes` say.
    Bytes(&'b wgpu::Buffer, [BytePlanes; 2]),
}

impl Ends<'_> {
    /// Image k's 8-bit planes, where the ends are bytes.
    fn bytes(&self, k: usize) -> Option<BytePlanes> {
        match self {
            Ends::Samples(_) => None,
            Ends::Bytes(_, planes) => Some(planes[k]),
        }
    }
}

/// One image of a joint transform: its plan, its first element in the buffers, its 8-bit
/// planes where it is bound to bytes, its regions and LL areas in the scratch buffer (as a plan
/// alone has them, from the element given).
struct Img<'p> {
    plan: &'p Dwt,
    at: u32,
    bytes: Option<BytePlanes>,
    lls: LlScratch,
}

impl<'p> Img<'p> {
    fn new(plan: &'p Dwt, at: u32, bytes: Option<BytePlanes>, scratch_at: u32) -> Self {
        Img {
            plan,
            at,
            bytes,
            lls: LlScratch::new(plan, scratch_at),
        }
    }
}

/// Two plans run as one: `a` and `b` have the same wavelet and level count, and from some step
/// `delay` on, `b`'s region at level l has the size of `a`'s at level l + `delay` (a 4:2:0
/// frame's chroma planes against its luma: 1; planes of one size: 0; at most the level count).
/// Each step is one dispatch of both images' levels where both have one (`a`'s first `delay`
/// levels and `b`'s last run alone): `levels + delay` dispatches a direction instead of
/// `2 · levels`.
///
/// Both images live in the same two buffers: `a`'s planes from element 0, `b`'s from element
/// `b_offset`, in the image buffer and in the coefficient buffer alike (each laid out as
/// [`Dwt::bind`] says). The coefficients equal those of `a` and `b` run apart.
#[derive(Debug)]
pub struct JointDwt {
    a: Dwt,
    b: Dwt,
    delay: u32,
    b_offset: u32,
    sels: bool,
    c16: bool,
}

impl JointDwt {
    /// `a` and `b` together, `b`'s planes from element `b_offset` of both buffers. Fails
    /// unless the plans have the same wavelet and level count, neither fuses a colour
    /// transform, and `b` starts past `a`'s samples. Where `b`'s regions never match `a`'s,
    /// the delay is the level count: every dispatch takes one image, as the plans apart would.
    pub fn new(a: &Dwt, b: &Dwt, ctx: &GpuContext, b_offset: u32) -> Result<Self> {
        if a.wavelet != b.wavelet || a.levels != b.levels {
            return Err(DwtError::InvalidArgument(format!(
                "a joint transform takes two plans of one wavelet and the same number of levels: \
                 these have {:?} with {} and {:?} with {}",
                a.wavelet, a.levels, b.wavelet, b.levels
            )));
        }
        if a.frac != b.frac {
            return Err(DwtError::InvalidArgument(format!(
                "a joint transform takes plans of the same fraction bits: these have {} and {}",
                a.frac, b.frac
            )));
        }
        if a.color != Color::None || b.color != Color::None {
            return Err(DwtError::InvalidArgument(
                "a joint transform fuses no colour transform: run such a plan alone".into(),
            ));
        }
        let a_len = u64::from(a.width) * u64::from(a.height) * u64::from(a.planes);
        if u64::from(b_offset) < a_len {
            return Err(DwtError::InvalidArgument(format!(
                "the second image from element {b_offset} overlaps the first's {a_len} samples"
            )));
        }
        let b_len = u64::from(b.width) * u64::from(b.height) * u64::from(b.planes);
        ctx.check_binding("joint wavelet buffers", (u64::from(b_offset) + b_len) * 4)?;
        let levels = a.levels as usize;
        let ra = reference::regions(a.width as usize, a.height as usize, a.levels + 1);
        let rb = reference::regions(b.width as usize, b.height as usize, b.levels + 1);
        // The first delay from which every step's regions match (the level count at worst:
        // no step shared, the plans one after the other).
        let delay = (0..=levels)
            .find(|&d| (d..levels).all(|s| ra[s] == rb[s - d]))
            .unwrap_or(levels);
        Ok(Self {
            a: a.resized(ctx, a.width, a.height, a.levels, a.planes)?,
            b: b.resized(ctx, b.width, b.height, b.levels, b.planes)?,
            delay: delay as u32,
            b_offset,
            sels: false,
            c16: false,
        })
    }

    /// The same transform with its coefficients stored as 16-bit integers, two to a 4-byte
    /// word (element e in word e / 2, the low half where e is even): half the coefficient
    /// buffer and half its traffic. Each stored coefficient is saturated to −32768..=32767, so
    /// the caller must know that its coefficients fit (8-bit samples with up to 5 fraction bits
    /// do under the fixed-point 9/7: ADR-0108). Needs an integer wavelet, at least one level,
    /// both images' widths multiples of 2^(levels + 1) (every band's width even, so that a
    /// word never holds two bands), `b_offset` even and a tile of a whole number of words;
    /// otherwise an error says which.
    pub fn with_16_bit_coefficients(mut self, on: bool) -> Result<Self> {
        if !on {
            self.c16 = false;
            return Ok(self);
        }
        let wavelet = self.a.wavelet;
        if !wavelet.is_integer() {
            return Err(DwtError::InvalidArgument(format!(
                "16-bit coefficients need an integer wavelet (5/3 or the fixed-point 9/7), not \
                 {wavelet:?}"
            )));
        }
        let levels = self.a.levels;
        if levels == 0 {
            return Err(DwtError::InvalidArgument(
                "16-bit coefficients need at least one level: with none the transform is a copy"
                    .into(),
            ));
        }
        for (name, plan) in [("first", &self.a), ("second", &self.b)] {
            if !bands_fill_whole_words(plan.width, levels) {
                return Err(DwtError::InvalidArgument(format!(
                    "16-bit coefficients over {levels} levels need widths that are multiples \
                     of {}: the {name} image is {} wide (keep 32-bit coefficients)",
                    1u64 << (levels + 1),
                    plan.width
                )));
            }
        }
        if !self.b_offset.is_multiple_of(2) {
            return Err(DwtError::InvalidArgument(format!(
                "16-bit coefficients need the second image from an even element, not {}",
                self.b_offset
            )));
        }
        let shapes = std::iter::once(self.a.shape).chain(self.a.small.map(|(s, _)| s));
        for shape in shapes {
            let (tile_w, _) = shape.tile(wavelet);
            if !tile_w.is_multiple_of(4) {
                return Err(DwtError::InvalidArgument(format!(
                    "16-bit coefficients need tiles a multiple of 4 columns wide (two words of \
                     each band): {tile_w} is not"
                )));
            }
        }
        self.c16 = true;
        Ok(self)
    }

    /// Whether the coefficients are 16-bit ([`JointDwt::with_16_bit_coefficients`]).
    pub fn has_16_bit_coefficients(&self) -> bool {
        self.c16
    }

    /// The same transform with every step's buffers taken at run time: one level pipeline a
    /// direction and tile shape (fewer to compile), where each step otherwise has its own.
    pub fn with_buffers_at_run_time(mut self, on: bool) -> Self {
        self.sels = on;
        self
    }

    /// How many levels `b` runs behind `a`: a step takes `a`'s level l + delay with `b`'s
    /// level l.
    pub fn delay(&self) -> u32 {
        self.delay
    }

    /// Dispatches a direction: the levels plus the delay.
    pub fn dispatches(&self) -> u32 {
        self.a.levels + self.delay
    }

    /// The elements each buffer must hold: `b_offset` plus `b`'s samples.
    pub fn len(&self) -> usize {
        self.b_offset as usize + self.b.len()
    }

    /// Whether the buffers hold no sample (never).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Bind to an image and a coefficient buffer (different buffers, each at least `len()`
    /// samples): the forward reads `image` and writes `coeffs`, the inverse reads `coeffs` and
    /// writes `image`, as [`Dwt::bind_separate`]; the elements between the images are neither
    /// read nor written where there are levels (without, each direction copies the buffers
    /// whole).
    pub fn bind_separate(
        &self,
        ctx: &GpuContext,
        image: &wgpu::Buffer,
        coeffs: &wgpu::Buffer,
    ) -> Result<BoundDwt> {
        apart(
            image,
            coeffs,
            "a joint transform's bind_separate takes two different buffers",
        )?;
        self.check_len("image", image)?;
        self.bind_ends(ctx, Ends::Samples(image), coeffs)
    }

    /// Bind to 8-bit images and a coefficient buffer: `a`'s and `b`'s planes as bytes in
    /// `bytes` where `planes` say (rows of each plan's width), the coefficients as
    /// [`JointDwt::bind_separate`] has them. The forward reads the bytes as the plans'
    /// 8-bit bindings do (level shift and [`Dwt::with_fraction_bits`]) and writes `coeffs`;
    /// the inverse reads `coeffs` and writes each image's bytes (rounded, shifted back,
    /// clamped), leaving every other byte as it was. Needs at least one level.
    pub fn bind_bytes(
        &self,
        ctx: &GpuContext,
        bytes: &wgpu::Buffer,
        coeffs: &wgpu::Buffer,
        planes: [BytePlanes; 2],
    ) -> Result<BoundDwt> {
        apart(
            bytes,
            coeffs,
            "a joint transform's bind_bytes takes two different buffers",
        )?;
        if self.a.levels == 0 {
            return Err(DwtError::InvalidArgument(
                "8-bit images need at least one level: with none the transform is a copy of \
                 samples (bind_separate)"
                    .into(),
            ));
        }
        let mut ends = Vec::new();
        for (name, plan, p) in [
            ("first", &self.a, planes[0]),
            ("second", &self.b, planes[1]),
        ] {
            let samples = u64::from(plan.width) * u64::from(plan.height);
            if plan.planes > 1 && u64::from(p.stride) < samples {
                return Err(DwtError::InvalidArgument(format!(
                    "the {name} image's 8-bit planes {} bytes apart: each holds {samples}",
                    p.stride
                )));
            }
            let end =
                u64::from(p.first) + u64::from(p.stride) * u64::from(plan.planes - 1) + samples;
            if end > bytes.size() {
                return Err(DwtError::InvalidArgument(format!(
                    "the {name} image's 8-bit planes end at byte {end}, past the buffer's {}",
                    bytes.size()
                )));
            }
            ends.push((u64::from(p.first), end));
        }
        if ends[0].0 < ends[1].1 && ends[1].0 < ends[0].1 {
            return Err(DwtError::InvalidArgument(format!(
                "the two images' 8-bit planes overlap (bytes {:?} and {:?})",
                ends[0], ends[1]
            )));
        }
        self.bind_ends(ctx, Ends::Bytes(bytes, planes), coeffs)
    }

    fn check_len(&self, what: &str, buf: &wgpu::Buffer) -> Result<()> {
        let need = self.len() as u64 * 4;
        self.check_bytes(what, buf, need)
    }

    /// Bytes the coefficient buffer must hold: `len()` elements of 4 bytes, or of 2 where they
    /// are 16-bit.
    pub fn coefficient_bytes(&self) -> u64 {
        if self.c16 {
            (self.len() as u64 * 2).next_multiple_of(4)
        } else {
            self.len() as u64 * 4
        }
    }

    fn check_bytes(&self, what: &str, buf: &wgpu::Buffer, need: u64) -> Result<()> {
        if buf.size() < need {
            return Err(DwtError::InvalidArgument(format!(
                "the joint transform's {what}: a buffer of {} bytes, needs {need}",
                buf.size()
            )));
        }
        Ok(())
    }

    fn bind_ends(&self, ctx: &GpuContext, ends: Ends, coeffs: &wgpu::Buffer) -> Result<BoundDwt> {
        self.check_bytes("coefficients", coeffs, self.coefficient_bytes())?;
        let levels = self.a.levels as usize;
        let delay = self.delay as usize;
        if levels == 0 {
            // No levels: the transform is a copy, of the whole buffers (the gap with them).
            let Ends::Samples(image) = ends else {
                unreachable!("bind_bytes refuses a transform without levels")
            };
            let placeholder = placeholders(ctx)?;
            let need = self.len() as u64 * 4;
            return Ok(BoundDwt {
                forward: Vec::new(),
                inverse: Vec::new(),
                forward_copy: Some(self.a.copy.bind(ctx, image, coeffs, need)?),
                inverse_copy: Some(self.a.copy.bind(ctx, coeffs, image, need)?),
                _buffers: (ctx.storage_uninit("dwt no scratch", 16)?, placeholder),
            });
        }
        let ia = Img::new(&self.a, 0, ends.bytes(0), 0);
        let ib = Img::new(&self.b, self.b_offset, ends.bytes(1), ia.lls.end());
        let scratch_len = ib.lls.end();
        ctx.check_binding("wavelet scratch", u64::from(scratch_len) * 4)?;
        let scratch = ctx.storage_uninit("dwt joint scratch", u64::from(scratch_len.max(1)) * 4)?;
        let whole = |im: &Img, sel: u32| Loc {
            sel,
            offset: im.at,
            pitch: im.plan.width,
            plane: im.plan.width * im.plan.height,
        };
        // The image itself, where the forward's first level reads and the inverse's last writes.
        let end = |im: &Img, inverse: bool| match im.bytes {
            None => whole(im, if inverse { IMAGE_OUT } else { IMAGE_IN }),
            Some(bytes) => Loc {
                sel: if inverse { OUT8 } else { IMAGE8 },
                offset: bytes.first,
                pitch: im.plan.width,
                plane: bytes.stride,
            },
        };
        let ll = |im: &Img, l: usize| im.lls.ll(l);
        let locs = |im: &Img, l: usize, inverse: bool| -> PartLocs {
            let (src, dst) = if inverse {
                (
                    if l + 1 == levels {
                        whole(im, COEFFS)
                    } else {
                        ll(im, l)
                    },
                    if l == 0 { end(im, true) } else { ll(im, l - 1) },
                )
            } else {
                (
                    if l == 0 {
                        end(im, false)
                    } else {
                        ll(im, l - 1)
                    },
                    if l + 1 == levels {
                        whole(im, COEFFS)
                    } else {
                        ll(im, l)
                    },
                )
            };
            PartLocs {
                src,
                dst,
                bands: whole(im, COEFFS),
            }
        };
        let most_groups = ctx.caps.limits.max_compute_workgroups_per_dimension;
        // Step s: a's level s and b's level s − delay, where each has one.
        let spec = |s: usize, inverse: bool| -> Result<LevelSpec> {
            let la = (s < levels).then_some(s);
            let lb = (s >= delay && s - delay < levels).then(|| s - delay);
            let parts: Vec<(&Img, usize)> = la
                .map(|l| (&ia, l))
                .into_iter()
                .chain(lb.map(|l| (&ib, l)))
                .collect();
            let (first, l0) = parts[0];
            let (rw, rh) = first.lls.regions[l0];
            let planes: u32 = parts.iter().map(|(im, _)| im.plan.planes).sum();
            let samples = u64::from(rw) * u64::from(rh) * u64::from(planes);
            let shape = match self.a.small {
                Some((small, most)) if samples <= most => small,
                _ => self.a.shape,
            };
            let tile = shape.tile(self.a.wavelet);
            let (tx, ty) = (rw.div_ceil(tile.0), rh.div_ceil(tile.1));
            if tx > most_groups || u64::from(ty) * u64::from(planes) > u64::from(most_groups) {
                return Err(DwtError::InvalidArgument(format!(
                    "step {s} of the joint transform: {tx} × {} tiles of {} × {}, over this \
                     adapter's {most_groups} workgroups per dimension",
                    u64::from(ty) * u64::from(planes),
                    tile.0,
                    tile.1
                )));
            }
            let split = u32::from(rw > 1) | (u32::from(rh > 1) << 1);
            let pa = locs(first, l0, inverse);
            let pb = parts.get(1).map_or(pa, |&(im, l)| locs(im, l, inverse));
            let words = level_words(
                (rw, rh),
                (tx, ty),
                split,
                (first.plan.planes, self.a.frac),
                &pa,
                &pb,
            );
            let variant = if self.sels {
                Variant {
                    inverse,
                    src: 0,
                    dst: 0,
                    color: 0,
                    src_b: 0,
                    dst_b: 0,
                    joint: true,
                    sels: true,
                    c16: self.c16,
                }
            } else {
                Variant {
                    inverse,
                    src: pa.src.sel,
                    dst: pa.dst.sel,
                    color: 0,
                    src_b: pb.src.sel,
                    dst_b: pb.dst.sel,
                    joint: parts.len() == 2,
                    sels: false,
                    c16: self.c16,
                }
            };
            Ok(LevelSpec {
                key: (variant, shape),
                params: ctx.uniform_from("dwt joint level params", &words)?,
                groups: (tx, ty * planes),
            })
        };
        let steps = levels + delay;
        let forward = (0..steps)
            .map(|s| spec(s, false))
            .collect::<Result<Vec<_>>>()?;
        let inverse = (0..steps)
            .rev()
            .map(|s| spec(s, true))
            .collect::<Result<Vec<_>>>()?;
        let placeholder = placeholders(ctx)?;
        let (image_in, image_out, no_out8) = (&placeholder[0], &placeholder[1], &placeholder[2]);
        let bind = |pass: &LevelPass, inverse: bool| -> Result<wgpu::BindGroup> {
            // The forward reads the image, the inverse writes it: samples through bindings 1
            // and 4, bytes through 6 and 5.
            let (read, write, read8, write8) = match (&ends, inverse) {
                (Ends::Samples(image), false) => (*image, image_out, image_in, no_out8),
                (Ends::Samples(image), true) => (image_in, *image, image_in, no_out8),
                (Ends::Bytes(bytes, _), false) => (image_in, image_out, *bytes, no_out8),
                (Ends::Bytes(bytes, _), true) => (image_in, image_out, image_in, *bytes),
            };
            let entries = [
                (0, &pass.params),
                (1, read),
                (2, coeffs),
                (3, &scratch),
                (4, write),
                (5, write8),
                (6, read8),
            ];
            Ok(pass.kernel.bind(ctx, &entries)?)
        };
        let (forward, inverse) = self.a.passes(ctx, forward, inverse, bind)?;
        Ok(BoundDwt {
            forward,
            inverse,
            forward_copy: None,
            inverse_copy: None,
            _buffers: (scratch, placeholder),
        })
    }
}
