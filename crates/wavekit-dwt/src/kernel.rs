//! The level kernel (`tile.wgsl`, one level of every plane in one dispatch, both directions,
//! the colour transforms fused into the first level): the wavelets, its tile shapes and
//! tuning, its variants (which buffers a level reads and writes), and its builder on wavekit's
//! kernel prelude. Its CPU port is [`crate::sim`], its reference [`crate::reference`].

use wavekit::GpuContext;
use wavekit::prelude::{KernelBuilder, WgslSource};

use crate::error::{DwtError, Result};

/// The buffers a level reads and writes (the kernel's `sel` values, see tile.wgsl).
pub(crate) const IMAGE_IN: u32 = 0;
pub(crate) const COEFFS: u32 = 1;
pub(crate) const SCRATCH: u32 = 2;
pub(crate) const IMAGE_OUT: u32 = 3;
pub(crate) const OUT8: u32 = 4;
pub(crate) const IMAGE8: u32 = 5;

/// The wavelets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wavelet {
    /// Reversible 5/3 (LeGall), integer, exact.
    Reversible53,
    /// Irreversible 9/7 (CDF), f32.
    Irreversible97,
    /// The 9/7 in fixed point on `i32`: each lifting step `x + ((q·(l + r) + 2^11) >> 12)` and
    /// each scaling `(x·q + 2^11) >> 12`, with T.800's constants rounded to 12 fractional bits
    /// ([`FIXED_97_Q`]). Integer arithmetic only, so every device and the CPU port ([`crate::sim`])
    /// give the same coefficients bit for bit (what a codec needs whose GPU and CPU bitstreams
    /// must be equal); within about 2^-11 relative of the f64 9/7 per step. Not reversible.
    /// Samples up to ±2^16 never overflow; beyond that the arithmetic wraps (the same on
    /// every side).
    Fixed97,
}

/// [`Wavelet::Fixed97`]'s constants in units of 2^-12: α, β, γ, δ, K and 1/K rounded.
pub const FIXED_97_Q: [i32; 6] = [-6497, -217, 3616, 1817, 5039, 3330];

impl Wavelet {
    /// The 9/7 filters (float or fixed point): an apron of 4, scaling, columns first in the
    /// inverse.
    pub fn is_97(self) -> bool {
        self != Wavelet::Reversible53
    }

    /// Samples are `i32` (5/3 and fixed-point 9/7); otherwise `f32`.
    pub fn is_integer(self) -> bool {
        self != Wavelet::Irreversible97
    }

    /// The kernels' `WAVELET` constant.
    pub(crate) fn code(self) -> u32 {
        match self {
            Wavelet::Reversible53 => 0,
            Wavelet::Irreversible97 => 1,
            Wavelet::Fixed97 => 2,
        }
    }
}

/// The transform's WGSL files (built on wavekit's kernel prelude).
pub static SOURCES: &[WgslSource] = &[wavekit::wgsl_source!("dwt/tile", "tile.wgsl")];

/// How a level's kernel cuts the plane: a workgroup of `columns × segments` invocations, each
/// holding one column of `rows` samples plus an apron in registers. The tile it transforms is
/// `columns − 2·apron` wide and `rows · segments` high (ADR-0019).
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

    pub(crate) fn check(self, ctx: &GpuContext, wavelet: Wavelet) -> Result<()> {
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

/// The transform's tuning (for benchmarks): `None` fields keep [`crate::Dwt::new`]'s choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// One tile shape for every level (no small levels).
    pub shape: Option<TileShape>,
    /// Regions (samples of all planes) up to which levels take the small shape.
    pub small_samples: Option<u64>,
}

/// Regions (samples of all planes) up to which [`crate::Dwt::new`]'s plans use tiles of half the rows
/// (ADR-0032): a 4K plane (3840 × 2160) and smaller. [`crate::Dwt::with_small_levels`] sets another.
pub const SMALL_LEVEL_SAMPLES: u64 = 3840 * 2160;

/// Samples of apron on each side of a tile: one per lifting step of a direction.
pub fn apron(wavelet: Wavelet) -> u32 {
    match wavelet {
        Wavelet::Reversible53 => 2,
        Wavelet::Irreversible97 | Wavelet::Fixed97 => 4,
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
    /// The second part's source and result buffers, where a joint plan's dispatch takes two
    /// images' levels ([`crate::JointDwt`]); `src` and `dst` otherwise.
    pub src_b: u32,
    /// See `src_b`.
    pub dst_b: u32,
    /// Two parts in the dispatch (a joint step): each workgroup picks its part's places and
    /// buffers. A plan alone compiles without the choice.
    pub joint: bool,
    /// Every part's buffers taken from the parameters at run time (one pipeline for every step
    /// of a direction); `src`, `dst`, `src_b`, `dst_b` are then not compiled in.
    pub sels: bool,
    /// The coefficients as 16-bit integers, two to a word, saturated on store
    /// ([`crate::JointDwt::with_16_bit_coefficients`]; integer wavelets only).
    pub c16: bool,
}

const fn variant(inverse: bool, src: u32, dst: u32) -> Variant {
    Variant {
        inverse,
        src,
        dst,
        color: 0,
        src_b: src,
        dst_b: dst,
        joint: false,
        sels: false,
        c16: false,
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
    pub(crate) fn code(self) -> u32 {
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
    let sample = if wavelet.is_integer() {
        "alias S = i32;\n"
    } else {
        "alias S = f32;\n"
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
        .constant("WAVELET", wavelet.code())
        .constant("INVERSE", variant.inverse)
        .constant("COLOR", variant.color)
        .constant("SRC_SEL", variant.src)
        .constant("DST_SEL", variant.dst)
        .constant("SRC_SEL_B", variant.src_b)
        .constant("DST_SEL_B", variant.dst_b)
        .constant("JOINT", variant.joint)
        .constant("SELS", variant.sels)
        .constant("C16", variant.c16)
        .generated("dwt/sample", sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_validates_with_naga() {
        for wavelet in [
            Wavelet::Reversible53,
            Wavelet::Irreversible97,
            Wavelet::Fixed97,
        ] {
            let color = match wavelet {
                Wavelet::Reversible53 => Color::Rct,
                Wavelet::Irreversible97 => Color::Ict,
                Wavelet::Fixed97 => Color::None,
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
    fn joint_variants_validate_with_naga() {
        // Each pair of one direction's variants as a joint dispatch's two parts, the 8-bit
        // ends included (`JointDwt::bind_bytes`).
        for a in VARIANTS.iter() {
            for b in VARIANTS.iter() {
                if a.inverse != b.inverse {
                    continue;
                }
                let v = Variant {
                    src_b: b.src,
                    dst_b: b.dst,
                    joint: true,
                    ..*a
                };
                builder(Wavelet::Fixed97, v, SHAPES[0]).check().unwrap();
                let v = Variant { sels: true, ..v };
                builder(Wavelet::Fixed97, v, SHAPES[0]).check().unwrap();
                // With 16-bit coefficients, as the codec runs its lossy frames.
                let v = Variant { c16: true, ..v };
                builder(Wavelet::Fixed97, v, SHAPES[0]).check().unwrap();
                builder(Wavelet::Reversible53, v, SHAPES[2])
                    .check()
                    .unwrap();
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
