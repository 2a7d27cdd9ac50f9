//! The items of a draw list, as the builder takes them (`Scene::rect`, `Scene::ellipse`, …).
//! Coordinates are pixels, origin top left, y down; colours are 8-bit sRGB-encoded RGBA with
//! straight alpha.

use crate::atlas::ImageId;

/// Straight-alpha 8-bit sRGB-encoded RGBA.
pub type Color = [u8; 4];

/// A fill: one colour, or a linear gradient.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    /// A flat colour.
    Solid(Color),
    /// A linear gradient.
    Linear(LinearGradient),
}

impl From<Color> for Fill {
    fn from(c: Color) -> Fill {
        Fill::Solid(c)
    }
}

/// A linear gradient from `start` to `end` (pixels): colour stops at offsets 0..=1 along it,
/// in order; before the first and after the last the end colours continue. Colours are
/// interpolated premultiplied, in sRGB-encoded space.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearGradient {
    /// Where offset 0 is.
    pub start: [f32; 2],
    /// Where offset 1 is.
    pub end: [f32; 2],
    /// (offset, colour), offsets non-decreasing, at least two.
    pub stops: Vec<(f32, Color)>,
}

/// A border drawn inside a shape's edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Border {
    /// Width in pixels.
    pub width: f32,
    /// Colour.
    pub color: Color,
}

/// A rectangle with a radius per corner (top-left, top-right, bottom-right, bottom-left).
#[derive(Clone, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
    /// Corner radii: top-left, top-right, bottom-right, bottom-left.
    pub radius: [f32; 4],
    /// The fill (inside the border).
    pub fill: Fill,
    /// A border inside the edge.
    pub border: Option<Border>,
    /// Only a ring of this width inside the edge is filled (no inside, no border).
    pub ring: Option<f32>,
    /// Opacity of the whole item, 0..=1.
    pub opacity: f32,
}

impl Rect {
    /// A filled rectangle with square corners.
    pub fn new(x: f32, y: f32, w: f32, h: f32, fill: impl Into<Fill>) -> Rect {
        Rect {
            x,
            y,
            w,
            h,
            radius: [0.0; 4],
            fill: fill.into(),
            border: None,
            ring: None,
            opacity: 1.0,
        }
    }

    /// The same with one radius on every corner.
    pub fn radius(mut self, r: f32) -> Rect {
        self.radius = [r; 4];
        self
    }

    /// The same with a border.
    pub fn border(mut self, width: f32, color: Color) -> Rect {
        self.border = Some(Border { width, color });
        self
    }
}

/// An ellipse (a circle when `rx == ry`), filled, with a border, or a ring.
#[derive(Clone, Debug, PartialEq)]
pub struct Ellipse {
    /// Centre x.
    pub cx: f32,
    /// Centre y.
    pub cy: f32,
    /// Radius along x.
    pub rx: f32,
    /// Radius along y.
    pub ry: f32,
    /// The fill.
    pub fill: Fill,
    /// A border inside the edge.
    pub border: Option<Border>,
    /// Only a ring of this width inside the edge is filled.
    pub ring: Option<f32>,
    /// Opacity, 0..=1.
    pub opacity: f32,
}

impl Ellipse {
    /// A filled circle.
    pub fn circle(cx: f32, cy: f32, r: f32, fill: impl Into<Fill>) -> Ellipse {
        Ellipse {
            cx,
            cy,
            rx: r,
            ry: r,
            fill: fill.into(),
            border: None,
            ring: None,
            opacity: 1.0,
        }
    }
}

/// How an image is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Filter {
    /// The nearest texel.
    Nearest,
    /// Bilinear between the four nearest texels (clamped to the image's edge).
    #[default]
    Bilinear,
}

/// An image (a region of the atlas) drawn into a rectangle.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
    /// The image.
    pub image: ImageId,
    /// A part of it (x, y, w, h in its pixels); `None`: all of it.
    pub src: Option<[u32; 4]>,
    /// Sampling.
    pub filter: Filter,
    /// Multiplies every texel (straight alpha).
    pub tint: Color,
    /// Opacity, 0..=1.
    pub opacity: f32,
}

/// A run of text on one baseline (`\n` moves down a line).
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    /// Start of the baseline.
    pub x: f32,
    /// The baseline.
    pub y: f32,
    /// Pixels to the em.
    pub size: f32,
    /// Colour.
    pub color: Color,
    /// The font, from [`crate::Scene::add_font`].
    pub font: FontId,
    /// The text.
    pub text: String,
    /// Opacity, 0..=1.
    pub opacity: f32,
}

/// How a paragraph's lines sit in its width (JSON: `"start"`, `"end"`, `"left"`, `"right"`,
/// `"center"`, `"justify"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    /// The line's own start: left for a left-to-right line, right for a right-to-left one.
    #[default]
    Start,
    /// The line's end.
    End,
    /// Left.
    Left,
    /// Right.
    Right,
    /// Centred.
    Center,
    /// Stretched to the width (the last line of a paragraph at its start).
    Justify,
}

impl Align {
    /// Every alignment.
    pub const ALL: [Align; 6] = [
        Align::Start,
        Align::End,
        Align::Left,
        Align::Right,
        Align::Center,
        Align::Justify,
    ];
}

/// A paragraph's base direction (the direction of its lines, into which runs of the other
/// direction are ordered by the Unicode bidirectional algorithm; JSON: `"auto"`, `"ltr"`,
/// `"rtl"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the first strong character of each line (Unicode's rule).
    #[default]
    Auto,
    /// Left to right.
    Ltr,
    /// Right to left.
    Rtl,
}

/// A paragraph: text shaped in any script (joining, reordering, marks, ligatures, emoji),
/// ordered by the bidirectional algorithm, broken into lines at `width`, aligned; characters
/// the font lacks drawn from fallback fonts. `\n` starts a new line.
#[derive(Clone, Debug, PartialEq)]
pub struct Paragraph {
    /// Left of the paragraph's box.
    pub x: f32,
    /// Top of the paragraph's box (the first line's top; its baseline is lower by the line's
    /// ascent and half the leading).
    pub y: f32,
    /// The width lines wrap at (at word boundaries, inside a word too long for a line);
    /// `None`: lines end only at `\n`. Alignment other than the start needs a width.
    pub width: Option<f32>,
    /// Pixels to the em.
    pub size: f32,
    /// Line height as a multiple of `size` (CSS's unitless `line-height`).
    pub line_height: f32,
    /// The font tried first, from [`crate::Scene::add_font`].
    pub font: FontId,
    /// Alignment in the width.
    pub align: Align,
    /// Base direction.
    pub direction: Direction,
    /// Colour (colour glyphs, emoji, keep their own and take only the opacity).
    pub color: Color,
    /// Opacity, 0..=1.
    pub opacity: f32,
    /// The text.
    pub text: String,
}

impl Paragraph {
    /// A paragraph of `text` at `x, y` in `font` at `size`, black, unwrapped, start-aligned,
    /// direction from the text, lines 1.25 × the size apart.
    pub fn new(text: impl Into<String>, font: FontId, size: f32, x: f32, y: f32) -> Self {
        Paragraph {
            x,
            y,
            width: None,
            size,
            line_height: 1.25,
            font,
            align: Align::Start,
            direction: Direction::Auto,
            color: [0, 0, 0, 255],
            opacity: 1.0,
            text: text.into(),
        }
    }
}

/// One glyph of a laid-out paragraph, as the shaper placed it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapedGlyph {
    /// The family of the font that drew it (the paragraph's, or a fallback's).
    pub family: std::sync::Arc<str>,
    /// The glyph in that font (0: the missing-glyph box).
    pub glyph: u16,
    /// The pen position on its baseline, before rounding to the rasterized subpixel step.
    pub x: f32,
    /// The baseline.
    pub y: f32,
    /// The advance.
    pub advance: f32,
    /// The bytes of the text it draws (a cluster: several characters for a ligature).
    pub text: std::ops::Range<usize>,
    /// Whether it sits in a right-to-left run.
    pub rtl: bool,
    /// Whether it was drawn in colour (from the image atlas).
    pub color: bool,
}

/// What [`crate::Scene::paragraph`] laid out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParagraphLayout {
    /// The glyphs, line by line, each line in visual order (left to right).
    pub glyphs: Vec<ShapedGlyph>,
    /// Lines.
    pub lines: usize,
    /// The widest line's width.
    pub width: f32,
    /// The height of the lines.
    pub height: f32,
    /// Characters no font covers (drawn as the missing-glyph box).
    pub missing: Vec<char>,
}

/// A box shadow, as CSS's `box-shadow`: the rounded rectangle `x, y, w, h` with its radii,
/// moved by `offset`, grown by `spread`, blurred by a Gaussian of standard deviation `blur /
/// 2` (CSS's blur radius).
#[derive(Clone, Debug, PartialEq)]
pub struct BoxShadow {
    /// Left of the box casting it.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
    /// Corner radii: top-left, top-right, bottom-right, bottom-left.
    pub radius: [f32; 4],
    /// Offset (x, y).
    pub offset: [f32; 2],
    /// CSS blur radius (twice the standard deviation).
    pub blur: f32,
    /// Grows (or, negative, shrinks) the shape before the blur.
    pub spread: f32,
    /// Colour.
    pub color: Color,
    /// Opacity, 0..=1.
    pub opacity: f32,
}

/// A rounded clip rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clip {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub w: f32,
    /// Height.
    pub h: f32,
    /// Corner radii: top-left, top-right, bottom-right, bottom-left.
    pub radius: [f32; 4],
}

/// A font added to a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FontId(pub(crate) u32);
