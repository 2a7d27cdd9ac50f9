//! The GPU records a draw list is encoded into: their layout (one source of truth: the WGSL
//! side gets it as the generated piece `ui/layout`), colours as the kernels read them, and the
//! bounds of an item as the `bbox` kernel computes them (its CPU port, [`item_bounds`]).
//!
//! An item is [`ITEM_WORDS`] words: kind and flags, its clip, four f32 of geometry, two words of
//! radii (four f16) or atlas coordinates, two colours of four f16 each (premultiplied, in
//! sRGB-encoded space, the item's opacity folded in), and two f32 of parameters. A clip is
//! [`CLIP_WORDS`] words: its rounded rectangle, its parent, and the pixel boxes of its whole
//! chain (outside the outer one every clip's coverage is 0; inside the inner one it is 1).

use half::f16;

/// Words per item record.
pub const ITEM_WORDS: usize = 16;
/// Words per clip record.
pub const CLIP_WORDS: usize = 12;
/// Pixels per side of a fine tile (one workgroup of `TILE * TILE` invocations).
pub const TILE: u32 = 16;
/// Tiles per side of a coarse bin.
pub const BIN_TILES: u32 = 8;
/// Pixels per side of a coarse bin.
pub const BIN: u32 = TILE * BIN_TILES;
/// Items per binning chunk (the workgroup size of the `bbox` and binning kernels).
pub const CHUNK: u32 = 256;

/// Chunks of one bin a `bin_emit` workgroup takes (it skips those with no item on the bin).
pub const EMIT_CHUNKS: u32 = 8;
/// The largest viewport side (bin coordinates are packed in 8 bits; wgpu's textures stop at
/// 16384 on most devices anyway).
pub const MAX_SIDE: u32 = 16384;
/// Samples along y of the box shadow's integral.
pub const SHADOW_SAMPLES: u32 = 6;
/// Glyph positions are rounded to this many steps per pixel along x.
pub const SUBPIXEL_STEPS: u32 = 4;

/// Item kinds (word 0, bits 0..8).
pub mod kind {
    /// Rounded rectangle: fill, border or ring.
    pub const RECT: u32 = 0;
    /// Ellipse (a circle when both radii agree): fill, border or ring.
    pub const ELLIPSE: u32 = 1;
    /// A region of the image atlas drawn into a rectangle.
    pub const IMAGE: u32 = 2;
    /// A glyph's coverage from the glyph atlas, at integer pixels.
    pub const GLYPH: u32 = 3;
    /// A Gaussian-blurred rounded rectangle.
    pub const SHADOW: u32 = 4;
}

/// Item flags (word 0, bits 8..16).
pub mod flag {
    /// The fill is a linear gradient (word 8: its offset in the gradient buffer).
    pub const GRADIENT: u32 = 1 << 8;
    /// An inner shape exists (border or ring of width word 12).
    pub const INNER: u32 = 1 << 9;
    /// The fill covers the ring between the outer and inner shapes, not the inside.
    pub const RING: u32 = 1 << 10;
    /// Bilinear sampling (images).
    pub const BILINEAR: u32 = 1 << 11;
    /// The fill is opaque everywhere (alpha exactly 1; an image: every texel and its tint):
    /// the item may hide what is beneath.
    pub const OPAQUE: u32 = 1 << 12;
}

/// What a scene holds, as the fine kernel is specialised for it
/// ([`crate::gpu::RenderConfig::specialize`]): a kind of item, or a gradient fill or a clip.
pub mod feature {
    /// Rounded rectangles and ellipses.
    pub const SHAPE: u32 = 1;
    /// Images.
    pub const IMAGE: u32 = 1 << 1;
    /// Glyphs.
    pub const GLYPH: u32 = 1 << 2;
    /// Shadows.
    pub const SHADOW: u32 = 1 << 3;
    /// A gradient fill.
    pub const GRADIENT: u32 = 1 << 4;
    /// An item inside a clip.
    pub const CLIP: u32 = 1 << 5;
    /// Everything: the general kernel.
    pub const ALL: u32 = (1 << 6) - 1;
}

/// The features an item record needs of the fine kernel.
pub fn item_features(rec: &[u32]) -> u32 {
    let head = rec[word::KIND];
    let mut f = match head & 0xff {
        kind::RECT | kind::ELLIPSE => feature::SHAPE,
        kind::IMAGE => feature::IMAGE,
        kind::GLYPH => feature::GLYPH,
        kind::SHADOW => feature::SHADOW,
        _ => feature::ALL,
    };
    if head & flag::GRADIENT != 0 {
        f |= feature::GRADIENT;
    }
    if rec[word::CLIP] != 0 {
        f |= feature::CLIP;
    }
    f
}

/// Word offsets inside an item record.
pub mod word {
    /// Kind and flags.
    pub const KIND: usize = 0;
    /// Clip index + 1 (0: none).
    pub const CLIP: usize = 1;
    /// f32 x0, y0, x1, y1: the shape's box (an ellipse's bounding box; a glyph's pixels).
    pub const BOX: usize = 2;
    /// Radii tl, tr, br, bl as f16 (rect, shadow); atlas x | y << 16 (glyph, image) and
    /// w | h << 16 (image).
    pub const RADII: usize = 6;
    /// Fill colour (f16 × 4), or the gradient's offset.
    pub const FILL: usize = 8;
    /// Border colour (f16 × 4); an image's tint.
    pub const BORDER: usize = 10;
    /// f32: border or ring width; a shadow's sigma; an image's texels per pixel along x.
    pub const P0: usize = 12;
    /// f32: a shadow's extent (3 sigma); an image's texels per pixel along y.
    pub const P1: usize = 13;
}

/// The generated WGSL piece `ui/layout`: the constants above as WGSL.
pub fn layout_wgsl() -> String {
    let mut s =
        String::from("// Generated from crates/wavekit-ui/src/records.rs: the record layout.\n");
    let mut c = |name: &str, v: u32| s.push_str(&format!("const {name}: u32 = {v}u;\n"));
    c("ITEM_WORDS", ITEM_WORDS as u32);
    c("CLIP_WORDS", CLIP_WORDS as u32);
    c("TILE", TILE);
    c("BIN_TILES", BIN_TILES);
    c("BIN", BIN);
    c("EMIT_CHUNKS", EMIT_CHUNKS);
    c("MAX_BIN_WORDS", (MAX_SIDE / BIN) * (MAX_SIDE / BIN) / 2);
    c("SHADOW_SAMPLES", SHADOW_SAMPLES);
    c("K_RECT", kind::RECT);
    c("K_ELLIPSE", kind::ELLIPSE);
    c("K_IMAGE", kind::IMAGE);
    c("K_GLYPH", kind::GLYPH);
    c("K_SHADOW", kind::SHADOW);
    c("F_GRADIENT", flag::GRADIENT);
    c("F_INNER", flag::INNER);
    c("F_RING", flag::RING);
    c("F_BILINEAR", flag::BILINEAR);
    c("F_OPAQUE", flag::OPAQUE);
    c("W_KIND", word::KIND as u32);
    c("W_CLIP", word::CLIP as u32);
    c("W_BOX", word::BOX as u32);
    c("W_RADII", word::RADII as u32);
    c("W_FILL", word::FILL as u32);
    c("W_BORDER", word::BORDER as u32);
    c("W_P0", word::P0 as u32);
    c("W_P1", word::P1 as u32);
    c("C_RADII", clip_word::RADII as u32);
    c("C_PARENT", clip_word::PARENT as u32);
    c("C_OUTER", clip_word::OUTER as u32);
    c("C_INNER", clip_word::INNER as u32);
    s
}

/// A colour as the kernels read it: premultiplied RGBA in sRGB-encoded space, each channel
/// rounded to f16 (so that the GPU's unpacking is exact and both sides see the same value).
pub type Premul = [f32; 4];

/// Two words of f16 × 4.
pub fn pack_f16x4(v: [f32; 4]) -> [u32; 2] {
    let h = |x: f32| u32::from(f16::from_f32(x).to_bits());
    [h(v[0]) | h(v[1]) << 16, h(v[2]) | h(v[3]) << 16]
}

/// The f16 × 4 of two words, as f32 (WGSL's `unpack2x16float`).
pub fn unpack_f16x4(w: [u32; 2]) -> [f32; 4] {
    let h = |x: u32| f16::from_bits((x & 0xffff) as u16).to_f32();
    [h(w[0]), h(w[0] >> 16), h(w[1]), h(w[1] >> 16)]
}

/// Straight 8-bit sRGB-encoded RGBA with an opacity, as premultiplied f32 rounded to f16.
pub fn premul(rgba: [u8; 4], opacity: f32) -> Premul {
    let a = f32::from(rgba[3]) / 255.0 * opacity;
    let c = |v: u8| f16::from_f32(f32::from(v) / 255.0 * a).to_f32();
    [
        c(rgba[0]),
        c(rgba[1]),
        c(rgba[2]),
        f16::from_f32(a).to_f32(),
    ]
}

/// A pixel box `[x0, x1) × [y0, y1)`, possibly empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelBox {
    /// Left column.
    pub x0: i32,
    /// Top row.
    pub y0: i32,
    /// One past the right column.
    pub x1: i32,
    /// One past the bottom row.
    pub y1: i32,
}

impl PixelBox {
    /// Everything (the box of "no clip").
    pub const ALL: PixelBox = PixelBox {
        x0: 0,
        y0: 0,
        x1: 65535,
        y1: 65535,
    };
    /// Nothing.
    pub const EMPTY: PixelBox = PixelBox {
        x0: 0,
        y0: 0,
        x1: 0,
        y1: 0,
    };

    /// The intersection.
    pub fn and(self, o: PixelBox) -> PixelBox {
        PixelBox {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
        }
    }

    /// Whether it holds no pixel.
    pub fn is_empty(self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    /// Clamped to 0..=65535 and packed as two words (`x | y << 16`), as the records hold it.
    pub fn pack(self) -> [u32; 2] {
        let c = |v: i32| v.clamp(0, 65535) as u32;
        [c(self.x0) | c(self.y0) << 16, c(self.x1) | c(self.y1) << 16]
    }

    /// The box of two packed words.
    pub fn unpack(w: [u32; 2]) -> PixelBox {
        PixelBox {
            x0: (w[0] & 0xffff) as i32,
            y0: (w[0] >> 16) as i32,
            x1: (w[1] & 0xffff) as i32,
            y1: (w[1] >> 16) as i32,
        }
    }

    /// Whether it contains the whole box `o`.
    pub fn contains(self, o: PixelBox) -> bool {
        self.x0 <= o.x0 && self.y0 <= o.y0 && self.x1 >= o.x1 && self.y1 >= o.y1
    }
}

/// The pixels where a rounded rectangle `[x0, x1] × [y0, y1]` with radii up to `r` may have
/// coverage: its box grown by one pixel beyond the half pixel of anti-aliasing.
pub fn outer_box(b: [f32; 4]) -> PixelBox {
    PixelBox {
        x0: floor_i(b[0]) - 1,
        y0: floor_i(b[1]) - 1,
        x1: ceil_i(b[2]) + 1,
        y1: ceil_i(b[3]) + 1,
    }
}

/// `floor` to an integer, clamped to ±10^6 first (as the kernel: no overflow further on).
pub fn floor_i(v: f32) -> i32 {
    v.floor().clamp(-1.0e6, 1.0e6) as i32
}

/// `ceil` to an integer, clamped to ±10^6 first.
pub fn ceil_i(v: f32) -> i32 {
    v.ceil().clamp(-1.0e6, 1.0e6) as i32
}

/// The pixels where a rounded rectangle `b` inset by `inset`, with radii up to `r`, certainly
/// has coverage exactly 1: inset by its largest radius and one pixel more (every pixel centre
/// there is at least 1.5 pixels inside, out of reach of the corners).
pub fn inner_box(b: [f32; 4], inset: f32, r: f32) -> PixelBox {
    let m = inset + r + 1.0;
    PixelBox {
        x0: ceil_i(b[0] + m),
        y0: ceil_i(b[1] + m),
        x1: floor_i(b[2] - m),
        y1: floor_i(b[3] - m),
    }
}

/// The four radii of a record, as f32.
pub fn radii(rec: &[u32]) -> [f32; 4] {
    unpack_f16x4([rec[word::RADII], rec[word::RADII + 1]])
}

/// An item's box as f32.
pub fn item_box(rec: &[u32]) -> [f32; 4] {
    let b = word::BOX;
    [
        f32::from_bits(rec[b]),
        f32::from_bits(rec[b + 1]),
        f32::from_bits(rec[b + 2]),
        f32::from_bits(rec[b + 3]),
    ]
}

/// What the `bbox` kernel computes for an item (its CPU port): the pixels it may touch (its
/// shape's reach, within its clip chain's outer box and the viewport), and its solid box: the
/// pixels where its shape and every clip of its chain certainly cover it with coverage exactly 1
/// (rounded rectangles that are not rings, inside their border; images), within its pixel box.
/// Where the item is also opaque ([`flag::OPAQUE`]), it hides everything beneath there.
pub fn item_bounds(rec: &[u32], clips: &[u32], width: u32, height: u32) -> (PixelBox, PixelBox) {
    let k = rec[word::KIND] & 0xff;
    let flags = rec[word::KIND];
    let b = item_box(rec);
    let mut outer = match k {
        kind::GLYPH => PixelBox {
            x0: b[0] as i32,
            y0: b[1] as i32,
            x1: b[2] as i32,
            y1: b[3] as i32,
        },
        kind::SHADOW => {
            let e = f32::from_bits(rec[word::P1]);
            outer_box([b[0] - e, b[1] - e, b[2] + e, b[3] + e])
        }
        _ => outer_box(b),
    };
    let mut solid = PixelBox::EMPTY;
    if k == kind::RECT && flags & flag::RING == 0 {
        let r = radii(rec);
        let inset = if flags & flag::INNER != 0 {
            f32::from_bits(rec[word::P0])
        } else {
            0.0
        };
        solid = inner_box(b, inset, r[0].max(r[1]).max(r[2].max(r[3])));
    } else if k == kind::IMAGE {
        solid = inner_box(b, 0.0, 0.0);
    }
    let view = PixelBox {
        x0: 0,
        y0: 0,
        x1: width as i32,
        y1: height as i32,
    };
    outer = outer.and(view);
    let clip = rec[word::CLIP];
    if clip != 0 {
        let c = &clips[(clip as usize - 1) * CLIP_WORDS..][..CLIP_WORDS];
        outer = outer.and(PixelBox::unpack([
            c[clip_word::OUTER],
            c[clip_word::OUTER + 1],
        ]));
        solid = solid.and(PixelBox::unpack([
            c[clip_word::INNER],
            c[clip_word::INNER + 1],
        ]));
    }
    if outer.is_empty() {
        outer = PixelBox::EMPTY;
    }
    solid = solid.and(outer);
    if solid.is_empty() {
        solid = PixelBox::EMPTY;
    }
    (outer, solid)
}

/// Whether an item hides what is beneath it within its solid box.
pub fn item_opaque(rec: &[u32]) -> bool {
    rec[word::KIND] & flag::OPAQUE != 0
}

/// Word offsets inside a clip record.
pub mod clip_word {
    /// f32 x0, y0, x1, y1.
    pub const BOX: usize = 0;
    /// Radii as f16 × 4.
    pub const RADII: usize = 4;
    /// Parent clip index + 1 (0: none).
    pub const PARENT: usize = 6;
    /// The chain's outer pixel box, packed.
    pub const OUTER: usize = 7;
    /// The chain's inner pixel box, packed.
    pub const INNER: usize = 9;
}

/// The bins an item's pixel box touches, packed as the `bbox` kernel writes them: first and
/// last bin column and row in 8 bits each (`x0 | y0 << 8 | x1 << 16 | y1 << 24`), or
/// [`NO_BINS`] for an empty box.
pub fn bin_rect(b: PixelBox) -> u32 {
    if b.is_empty() {
        return NO_BINS;
    }
    let bin = BIN as i32;
    let (x0, y0) = ((b.x0 / bin) as u32, (b.y0 / bin) as u32);
    let (x1, y1) = (((b.x1 - 1) / bin) as u32, ((b.y1 - 1) / bin) as u32);
    x0 | y0 << 8 | x1 << 16 | y1 << 24
}

/// The packed bin rectangle of an empty box (first bin past the last).
pub const NO_BINS: u32 = 0x00ff_00ff;

/// Whether a packed bin rectangle holds bin `(bx, by)`.
pub fn bin_rect_has(r: u32, bx: u32, by: u32) -> bool {
    bx >= (r & 0xff) && by >= (r >> 8 & 0xff) && bx <= (r >> 16 & 0xff) && by <= r >> 24
}

/// Bins touched by a packed bin rectangle.
pub fn bin_rect_count(r: u32) -> u64 {
    if r == NO_BINS {
        return 0;
    }
    let w = (r >> 16 & 0xff) + 1 - (r & 0xff);
    let h = (r >> 24) + 1 - (r >> 8 & 0xff);
    u64::from(w) * u64::from(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_premultiply_and_round_to_f16() {
        assert_eq!(premul([255, 255, 255, 255], 1.0), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(premul([10, 20, 30, 0], 1.0), [0.0; 4]);
        let c = premul([255, 0, 0, 128], 0.5);
        assert!((c[3] - 128.0 / 255.0 * 0.5).abs() < 1e-3 && c[0] == c[3]);
        assert_eq!(unpack_f16x4(pack_f16x4(c)), c);
    }

    #[test]
    fn boxes_pack_and_bins_cover_their_pixels() {
        // The last pixel row of the first bin row, from the first bin column into the second.
        let bin = BIN as i32;
        let b = PixelBox {
            x0: 3,
            y0: bin - 1,
            x1: bin + 1,
            y1: bin,
        };
        assert_eq!(PixelBox::unpack(b.pack()), b);
        let r = bin_rect(b);
        assert!(bin_rect_has(r, 0, 0) && bin_rect_has(r, 1, 0) && !bin_rect_has(r, 0, 1));
        assert_eq!(bin_rect_count(r), 2);
        assert_eq!(bin_rect(PixelBox::EMPTY), NO_BINS);
        assert_eq!(bin_rect_count(NO_BINS), 0);
        assert!(!bin_rect_has(NO_BINS, 0, 0));
    }

    #[test]
    fn the_inner_box_is_inside_the_outer_one() {
        let b = [10.3, 20.0, 90.7, 60.5];
        let o = outer_box(b);
        let i = inner_box(b, 2.0, 8.0);
        assert!(o.contains(i));
        assert_eq!(
            i,
            PixelBox {
                x0: 22,
                y0: 31,
                x1: 79,
                y1: 49
            }
        );
    }
}
