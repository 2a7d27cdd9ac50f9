//! The draw list: a typed builder whose every call encodes one item (or a few glyphs) into the
//! flat records the GPU reads, in O(1) per item. Later items are drawn over earlier ones.
//!
//! Coordinates are pixels, origin top left, y down; a pixel's centre is at `(x + 0.5, y +
//! 0.5)`. Colours are 8-bit sRGB-encoded RGBA with straight alpha ([`Color`]).

use crate::atlas::{GlyphAtlas, ImageAtlas, ImageId};
use crate::error::{Result, UiError};
use crate::records::{
    self, CLIP_WORDS, ITEM_WORDS, MAX_SIDE, PixelBox, clip_word, flag, kind, pack_f16x4, premul,
    word,
};
use crate::shape::{Shaper, SharedShaper};
use crate::text::{Font, GlyphCache, split_pen};
use std::collections::{HashMap, HashSet};

/// Glyphs whose pen is this far from the origin are not drawn: none can reach the frame (at
/// most 16 384 pixels a side, glyphs at most 512 to the em), and their pixel boxes would
/// overflow an i32.
const FAR: f32 = 1.0e7;

/// The largest ellipse radius: a distance of 10^6 pixels holds its edge to 1/16 pixel in f32.
const MAX_ELLIPSE_RADIUS: f32 = 1.0e6;

fn max4(r: [f32; 4]) -> f32 {
    r[0].max(r[1]).max(r[2].max(r[3]))
}

pub use crate::items::{
    Align, Border, BoxShadow, Clip, Color, Direction, Ellipse, Fill, Filter, FontId, Image,
    LinearGradient, Paragraph, ParagraphLayout, Rect, ShapedGlyph, Text,
};

/// The longest paragraph, in characters: shaping is CPU work on every frame that changes it.
pub const MAX_PARAGRAPH_CHARS: usize = 100_000;

/// Rows the glyph atlas may use: an item names its glyph's row in 16 bits.
const GLYPH_ATLAS_ROWS: u32 = 1 << 16;

/// Rows of glyph atlas past which [`Scene::clear`] starts it afresh (the next frame rasterizes
/// what it draws again): 16 MiB of coverage.
const GLYPH_ATLAS_KEEP_ROWS: u32 = 1 << 14;

/// A paragraph being laid out: its glyphs with their index in their run and their pen
/// position in their line.
#[derive(Default)]
struct Layout {
    glyphs: Vec<(ShapedGlyph, usize, f32)>,
    lines: usize,
    width: f32,
    height: f32,
}

/// A paragraph glyph as rasterized: coverage in the glyph atlas, or colour in the image atlas.
#[derive(Clone, Copy, Debug)]
enum Raster {
    /// Atlas region (x, y, w, h) and the offset of its top-left from the whole-pixel pen.
    Mask([u32; 4], [i32; 2]),
    /// An image of the image atlas, its size, and the offset.
    Colour(ImageId, [u32; 2], [i32; 2]),
}

/// A scene being built: the viewport, the encoded items, clips and gradients, and the
/// resources they sample (fonts, the glyph atlas and its cache, the image atlas). [`Scene::clear`]
/// drops the items and keeps the resources, for the next frame.
#[derive(Clone, Debug)]
pub struct Scene {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) background: Color,
    pub(crate) items: Vec<u32>,
    pub(crate) clips: Vec<u32>,
    pub(crate) gradients: Vec<u32>,
    /// Clip index + 1 of every open clip, innermost last.
    stack: Vec<u32>,
    fonts: Vec<Font>,
    cache: GlyphCache,
    pub(crate) glyphs: GlyphAtlas,
    pub(crate) images: ImageAtlas,
    /// Item–bin pairs, a bound: room for the bin lists.
    pub(crate) pair_bound: u64,
    /// What the items need of the fine kernel ([`records::feature`]).
    pub(crate) features: u32,
    /// Changes whenever an atlas does (the renderer uploads them again).
    pub(crate) atlas_version: u64,
    /// Paragraph shaping (fonts, fallback, rasterizer), shared with clones.
    shaper: SharedShaper,
    /// Whether the shaper loads the system's fonts.
    system_fonts: bool,
    /// Paragraph glyphs rasterized so far (`None`: nothing to draw, a space).
    rasters: HashMap<cosmic_text::CacheKey, Option<Raster>>,
    /// What the scene reported (characters no font covers, an atlas started afresh).
    warnings: Vec<String>,
    /// Characters already reported missing.
    reported: HashSet<char>,
}

fn finite(what: &str, v: f32) -> Result<f32> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(UiError::Invalid(format!(
            "{what} is {v}: give a finite number"
        )))
    }
}

fn size(what: &str, v: f32) -> Result<f32> {
    let v = finite(what, v)?;
    if v < 0.0 {
        return Err(UiError::Invalid(format!(
            "{what} is {v}: sizes cannot be negative"
        )));
    }
    Ok(v)
}

fn opacity(v: f32) -> Result<f32> {
    let v = finite("opacity", v)?;
    if !(0.0..=1.0).contains(&v) {
        return Err(UiError::Invalid(format!(
            "opacity is {v}: give a value from 0 to 1"
        )));
    }
    Ok(v)
}

fn radii(r: [f32; 4]) -> Result<[f32; 4]> {
    for v in r {
        size("a corner radius", v)?;
    }
    Ok(r)
}

impl Scene {
    /// An empty scene of `width × height` pixels (1 to 16384 each) on a transparent
    /// background.
    pub fn new(width: u32, height: u32) -> Result<Scene> {
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(UiError::Invalid(format!(
                "a viewport of {width} x {height}: give 1 to {MAX_SIDE} pixels a side"
            )));
        }
        Ok(Scene {
            width,
            height,
            background: [0, 0, 0, 0],
            items: Vec::new(),
            clips: Vec::new(),
            gradients: Vec::new(),
            stack: Vec::new(),
            fonts: Vec::new(),
            cache: GlyphCache::default(),
            glyphs: GlyphAtlas::default(),
            images: ImageAtlas::default(),
            pair_bound: 0,
            features: 0,
            atlas_version: 0,
            shaper: SharedShaper::default(),
            system_fonts: false,
            rasters: HashMap::new(),
            warnings: Vec::new(),
            reported: HashSet::new(),
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Items encoded so far (a text run counts one a visible glyph).
    pub fn len(&self) -> usize {
        self.items.len() / ITEM_WORDS
    }

    /// Whether no item is encoded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The colour under everything.
    pub fn set_background(&mut self, c: Color) {
        self.background = c;
    }

    /// Drop every item, clip and gradient (fonts and atlases stay) and take a new size.
    pub fn clear(&mut self, width: u32, height: u32) -> Result<()> {
        let fresh = Scene::new(width, height)?;
        self.width = fresh.width;
        self.height = fresh.height;
        self.items.clear();
        self.clips.clear();
        self.gradients.clear();
        self.stack.clear();
        self.pair_bound = 0;
        self.features = 0;
        self.warnings.clear();
        // Shaped runs not drawn in the last two frames are dropped from the shaper's cache.
        if let Some(shaper) = self
            .shaper
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            shaper.system.shape_run_cache.trim(2);
        }
        if self.glyphs.height() > GLYPH_ATLAS_KEEP_ROWS {
            self.warnings.push(format!(
                "the glyph atlas held {} rows ({} glyphs): started afresh for this frame",
                self.glyphs.height(),
                self.cache.len() + self.rasters.len()
            ));
            self.glyphs = GlyphAtlas::default();
            self.cache = GlyphCache::default();
            self.rasters
                .retain(|_, r| !matches!(r, Some(Raster::Mask(..))));
            self.atlas_version += 1;
        }
        Ok(())
    }

    /// Add a font; its id names it in [`Text`] and [`Paragraph`] items, and paragraphs fall
    /// back to it (in the order fonts were added) for characters their own font lacks.
    pub fn add_font(&mut self, font: Font) -> FontId {
        self.fonts.push(font);
        self.reshape();
        FontId(self.fonts.len() as u32 - 1)
    }

    /// Whether paragraphs may also fall back to the fonts installed on this system (read once,
    /// on the next paragraph; none on the web). Off by default: a scene then renders the same
    /// everywhere.
    pub fn use_system_fonts(&mut self, yes: bool) {
        if self.system_fonts != yes {
            self.system_fonts = yes;
            self.reshape();
        }
    }

    /// The shaper is rebuilt on the next paragraph (its font database changed).
    fn reshape(&mut self) {
        // A clone keeps the old one; this scene takes a new slot. Font ids of the new font
        // database need not name the same fonts: what was rasterized is found again.
        self.shaper = SharedShaper::default();
        self.rasters.clear();
    }

    /// What building the scene reported since the last [`Scene::clear`]: characters no font
    /// covers (drawn as the missing-glyph box; each reported once), an atlas started afresh.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A font added earlier.
    pub fn font(&self, id: FontId) -> Option<&Font> {
        self.fonts.get(id.0 as usize)
    }

    /// Add an image to the atlas; its id names it in [`Image`] items.
    pub fn add_image(&mut self, image: &image::RgbaImage) -> Result<ImageId> {
        self.atlas_version += 1;
        self.images.add(image)
    }

    /// Glyphs rasterized so far (for text runs and paragraphs).
    pub fn cached_glyphs(&self) -> usize {
        self.cache.len() + self.rasters.len()
    }

    /// Rows of the glyph atlas in use (1024 texels a row).
    pub fn glyph_atlas_rows(&self) -> u32 {
        self.glyphs.height()
    }

    /// Images added so far (with [`Scene::add_image`]).
    pub fn image_count(&self) -> usize {
        self.images.regions.len()
    }

    fn push_item(&mut self, rec: [u32; ITEM_WORDS]) {
        let (outer, _) = records::item_bounds(&rec, &self.clips, self.width, self.height);
        if !outer.is_empty() {
            // One pixel more on every side than the kernel computes: room for any rounding
            // difference in its f32 arithmetic.
            let grown = PixelBox {
                x0: outer.x0 - 1,
                y0: outer.y0 - 1,
                x1: outer.x1 + 1,
                y1: outer.y1 + 1,
            };
            let view = PixelBox {
                x0: 0,
                y0: 0,
                x1: self.width as i32,
                y1: self.height as i32,
            };
            self.pair_bound += records::bin_rect_count(records::bin_rect(grown.and(view)));
        }
        self.features |= records::item_features(&rec);
        self.items.extend_from_slice(&rec);
    }

    fn header(&self, k: u32, flags: u32) -> [u32; ITEM_WORDS] {
        let mut rec = [0u32; ITEM_WORDS];
        rec[word::KIND] = k | flags;
        rec[word::CLIP] = self.stack.last().copied().unwrap_or(0);
        rec
    }

    /// Encode a fill into `rec`: the colour, or a gradient's record. Returns whether it is
    /// opaque everywhere.
    fn fill(&mut self, rec: &mut [u32; ITEM_WORDS], fill: &Fill, op: f32) -> Result<bool> {
        match fill {
            Fill::Solid(c) => {
                let p = premul(*c, op);
                rec[word::FILL..word::FILL + 2].copy_from_slice(&pack_f16x4(p));
                Ok(p[3] == 1.0)
            }
            Fill::Linear(g) => {
                if g.stops.len() < 2 {
                    return Err(UiError::Invalid(format!(
                        "a gradient of {} stops: give at least two",
                        g.stops.len()
                    )));
                }
                for v in g.start.iter().chain(&g.end) {
                    finite("a gradient end", *v)?;
                }
                let mut last = f32::NEG_INFINITY;
                for (o, _) in &g.stops {
                    let o = finite("a gradient stop offset", *o)?;
                    if !(0.0..=1.0).contains(&o) || o < last {
                        return Err(UiError::Invalid(format!(
                            "gradient stop offset {o}: offsets run from 0 to 1 in order"
                        )));
                    }
                    last = o;
                }
                let (dx, dy) = (g.end[0] - g.start[0], g.end[1] - g.start[1]);
                let len2 = dx * dx + dy * dy;
                // A gradient of no length is its last colour everywhere (t = 1).
                let (gx, gy, bias) = if len2 > 0.0 {
                    (dx / len2, dy / len2, 0.0f32)
                } else {
                    (0.0, 0.0, 1.0)
                };
                rec[word::FILL] = self.gradients.len() as u32;
                rec[word::KIND] |= flag::GRADIENT;
                let gr = &mut self.gradients;
                gr.extend([
                    g.start[0].to_bits(),
                    g.start[1].to_bits(),
                    gx.to_bits(),
                    gy.to_bits(),
                    bias.to_bits(),
                    g.stops.len() as u32,
                ]);
                let mut opaque = true;
                for (i, (o, c)) in g.stops.iter().enumerate() {
                    let next = g.stops.get(i + 1).map_or(*o, |s| s.0);
                    let inv = if next > *o { 1.0 / (next - o) } else { 0.0 };
                    let p = premul(*c, op);
                    opaque &= p[3] == 1.0;
                    let [a, b] = pack_f16x4(p);
                    gr.extend([o.to_bits(), inv.to_bits(), a, b]);
                }
                Ok(opaque)
            }
        }
    }

    fn shape(
        &mut self,
        k: u32,
        b: [f32; 4],
        fill: &Fill,
        border: Option<Border>,
        ring: Option<f32>,
        op: f32,
    ) -> Result<[u32; ITEM_WORDS]> {
        let op = opacity(op)?;
        let mut rec = self.header(k, 0);
        for (i, v) in b.iter().enumerate() {
            rec[word::BOX + i] = v.to_bits();
        }
        let opaque = self.fill(&mut rec, fill, op)?;
        if opaque {
            rec[word::KIND] |= flag::OPAQUE;
        }
        match (border, ring) {
            (Some(_), Some(_)) => {
                return Err(UiError::Invalid(
                    "a border and a ring on one shape: give one of them".into(),
                ));
            }
            (Some(bd), None) => {
                let w = size("a border width", bd.width)?;
                if w > 0.0 {
                    rec[word::KIND] |= flag::INNER;
                    rec[word::P0] = w.to_bits();
                    rec[word::BORDER..word::BORDER + 2]
                        .copy_from_slice(&pack_f16x4(premul(bd.color, op)));
                }
            }
            (None, Some(w)) => {
                let w = size("a ring width", w)?;
                rec[word::KIND] |= flag::INNER | flag::RING;
                rec[word::P0] = w.to_bits();
            }
            (None, None) => {}
        }
        Ok(rec)
    }

    /// A rounded rectangle.
    pub fn rect(&mut self, r: &Rect) -> Result<()> {
        let (x, y) = (finite("x", r.x)?, finite("y", r.y)?);
        let (w, h) = (size("width", r.w)?, size("height", r.h)?);
        let radius = radii(r.radius)?;
        let widths = r.border.map_or(0.0, |b| b.width.abs()) + r.ring.map_or(0.0, f32::abs);
        let mut rec = self.shape(
            kind::RECT,
            self.near_frame([x, y, x + w, y + h], max4(radius) + widths),
            &r.fill,
            r.border,
            r.ring,
            r.opacity,
        )?;
        rec[word::RADII..word::RADII + 2].copy_from_slice(&pack_f16x4(radius));
        self.push_item(rec);
        Ok(())
    }

    /// An ellipse or circle.
    pub fn ellipse(&mut self, e: &Ellipse) -> Result<()> {
        let (cx, cy) = (finite("cx", e.cx)?, finite("cy", e.cy)?);
        let (rx, ry) = (size("rx", e.rx)?, size("ry", e.ry)?);
        if rx.max(ry) > MAX_ELLIPSE_RADIUS {
            return Err(UiError::Invalid(format!(
                "an ellipse of radii {rx} x {ry}: give radii of at most {MAX_ELLIPSE_RADIUS} \
                 pixels (an edge further out cannot be placed to a pixel in f32; draw a \
                 rectangle for a straight edge)"
            )));
        }
        let rec = self.shape(
            kind::ELLIPSE,
            [cx - rx, cy - ry, cx + rx, cy + ry],
            &e.fill,
            e.border,
            e.ring,
            e.opacity,
        )?;
        self.push_item(rec);
        Ok(())
    }

    /// An image.
    pub fn image(&mut self, im: &Image) -> Result<()> {
        let (x, y) = (finite("x", im.x)?, finite("y", im.y)?);
        let (w, h) = (size("width", im.w)?, size("height", im.h)?);
        let op = opacity(im.opacity)?;
        let Some(region) = self.images.region(im.image) else {
            return Err(UiError::Invalid(format!(
                "image {} was not added to this scene",
                im.image.index
            )));
        };
        let [ax, ay, aw, ah] = region;
        let [sx, sy, sw, sh] = im.src.unwrap_or([0, 0, aw, ah]);
        if sw == 0 || sh == 0 || sx + sw > aw || sy + sh > ah {
            return Err(UiError::Invalid(format!(
                "source region {sx},{sy} {sw}x{sh} is not inside the {aw}x{ah} image"
            )));
        }
        let f = if im.filter == Filter::Bilinear {
            flag::BILINEAR
        } else {
            0
        };
        let mut rec = self.header(kind::IMAGE, f);
        for (i, v) in [x, y, x + w, y + h].iter().enumerate() {
            rec[word::BOX + i] = v.to_bits();
        }
        rec[word::RADII] = (ax + sx) | (ay + sy) << 16;
        rec[word::RADII + 1] = sw | sh << 16;
        let tint = premul(im.tint, op);
        rec[word::BORDER..word::BORDER + 2].copy_from_slice(&pack_f16x4(tint));
        // Opaque texels under an opaque tint: alpha exactly 1 (255 · (1/255) rounds to 1.0,
        // and so does any bilinear mix of ones).
        if tint[3] == 1.0 && self.images.is_opaque(im.image) {
            rec[word::KIND] |= flag::OPAQUE;
        }
        let sx = if w > 0.0 { sw as f32 / w } else { 0.0 };
        let sy = if h > 0.0 { sh as f32 / h } else { 0.0 };
        rec[word::P0] = sx.to_bits();
        rec[word::P1] = sy.to_bits();
        self.push_item(rec);
        Ok(())
    }

    /// A run of text: one glyph item per visible glyph. Returns the pen's advance.
    pub fn text(&mut self, t: &Text) -> Result<f32> {
        let (x, y) = (finite("x", t.x)?, finite("y", t.y)?);
        let s = size("size", t.size)?;
        let op = opacity(t.opacity)?;
        let Some(font) = self.fonts.get(t.font.0 as usize).cloned() else {
            return Err(UiError::Invalid(format!(
                "font {} was not added to this scene",
                t.font.0
            )));
        };
        if s == 0.0 || t.text.is_empty() {
            return Ok(0.0);
        }
        if s > 512.0 {
            return Err(UiError::Invalid(format!(
                "text size {s}: give at most 512 pixels to the em"
            )));
        }
        let colour = pack_f16x4(premul(t.color, op));
        let before = self.cache.len();
        let mut end = x;
        for (id, pen, base) in font.layout(&t.text, s, x, y) {
            end = end.max(pen);
            if !(pen.abs() < FAR && base.abs() < FAR) {
                continue;
            }
            let (px, sub) = split_pen(pen);
            let by = base.round() as i32;
            let g = self
                .cache
                .get(&mut self.glyphs, &font, t.font.0, id, s, sub)?;
            let Some(g) = g else { continue };
            self.push_glyph([px + g.offset[0], by + g.offset[1]], g.region, colour);
        }
        if self.cache.len() != before {
            self.atlas_version += 1;
        }
        Ok(font.measure(&t.text, s))
    }

    /// A paragraph: shaped, ordered, wrapped and aligned by cosmic-text (module [`crate::shape`]),
    /// one glyph item per visible glyph. Returns what was laid out.
    pub fn paragraph(&mut self, p: &Paragraph) -> Result<ParagraphLayout> {
        let (x, y) = (finite("x", p.x)?, finite("y", p.y)?);
        let s = size("size", p.size)?;
        let op = opacity(p.opacity)?;
        let lh = size("line height", p.line_height)?;
        let width = match p.width {
            Some(w) => Some(size("width", w)?),
            None => None,
        };
        if p.font.0 as usize >= self.fonts.len() {
            return Err(UiError::Invalid(format!(
                "font {} was not added to this scene",
                p.font.0
            )));
        }
        if s > 512.0 {
            return Err(UiError::Invalid(format!(
                "text size {s}: give at most 512 pixels to the em"
            )));
        }
        if lh > 100.0 {
            return Err(UiError::Invalid(format!(
                "line height {lh}: give a multiple of the size of at most 100"
            )));
        }
        let chars = p.text.chars().count();
        if chars > MAX_PARAGRAPH_CHARS {
            return Err(UiError::Invalid(format!(
                "a paragraph of {chars} characters: give at most {MAX_PARAGRAPH_CHARS} a \
                 paragraph (split long text into paragraphs, one a line or a block)"
            )));
        }
        if width.is_none() && !matches!(p.align, Align::Start) {
            return Err(UiError::Invalid(format!(
                "alignment {:?} without a width: give the paragraph a width to align in",
                p.align
            )));
        }
        if s == 0.0 || p.text.is_empty() {
            return Ok(ParagraphLayout::default());
        }
        let mut out = Layout::default();
        let shared = self.shaper.clone();
        let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
        let shaper = guard.get_or_insert_with(|| Shaper::new(&self.fonts, self.system_fonts));
        let family = shaper.families[p.font.0 as usize];
        // A directional mark at the start of each line sets its base direction (Unicode's
        // rule: the first strong character), where the caller chose one.
        let mark = match p.direction {
            Direction::Auto => None,
            Direction::Ltr => Some('\u{200e}'),
            Direction::Rtl => Some('\u{200f}'),
        };
        // Lines as cosmic-text splits them: glyph offsets count from their line's start.
        let line_starts: Vec<usize> = cosmic_text::LineIter::new(&p.text)
            .map(|(r, _)| r.start)
            .collect();
        let mark_len = mark.map_or(0, char::len_utf8);
        let text: std::borrow::Cow<str> = match mark {
            None => p.text.as_str().into(),
            Some(m) => {
                let mut t = String::with_capacity(p.text.len() + mark_len * line_starts.len());
                for (r, ending) in cosmic_text::LineIter::new(&p.text) {
                    t.push(m);
                    t.push_str(&p.text[r]);
                    t.push_str(ending.as_str());
                }
                t.into()
            }
        };
        let metrics = cosmic_text::Metrics::new(s, (s * lh).max(f32::MIN_POSITIVE));
        let mut buffer = cosmic_text::Buffer::new_empty(metrics);
        {
            let mut b = buffer.borrow_with(&mut shaper.system);
            b.set_wrap(if width.is_some() {
                cosmic_text::Wrap::WordOrGlyph
            } else {
                cosmic_text::Wrap::None
            });
            b.set_size(width, None);
            let attrs = cosmic_text::Attrs::new().family(cosmic_text::Family::Name(family));
            let align = match p.align {
                Align::Start => None,
                Align::End => Some(cosmic_text::Align::End),
                Align::Left => Some(cosmic_text::Align::Left),
                Align::Right => Some(cosmic_text::Align::Right),
                Align::Center => Some(cosmic_text::Align::Center),
                Align::Justify => Some(cosmic_text::Align::Justified),
            };
            b.set_text(&text, &attrs, cosmic_text::Shaping::Advanced, align);
            b.shape_until_scroll(false);
        }
        let colour = pack_f16x4(premul(p.color, op));
        let before = self.glyphs.height();
        let images_before = self.images.regions.len();
        let mut missing = Vec::new();
        let mut seen = HashSet::new();
        // Each font's family name, made once a paragraph.
        let mut names: HashMap<cosmic_text::fontdb::ID, std::sync::Arc<str>> = HashMap::new();
        for run in buffer.layout_runs() {
            out.lines += 1;
            out.width = out.width.max(run.line_w);
            out.height = out.height.max(run.line_top + run.line_height);
            let line_start = line_starts.get(run.line_i).copied().unwrap_or(0);
            let first = out.glyphs.len();
            for (index, g) in run.glyphs.iter().enumerate() {
                if g.start < mark_len {
                    continue; // the direction mark
                }
                let range = line_start + g.start - mark_len..line_start + g.end - mark_len;
                if g.glyph_id == 0 {
                    for c in p.text.get(range.clone()).unwrap_or("").chars() {
                        if !c.is_control() && seen.insert(c) {
                            missing.push(c);
                        }
                    }
                }
                let db = shaper.system.db();
                let fam = names
                    .entry(g.font_id)
                    .or_insert_with(|| {
                        db.face(g.font_id)
                            .and_then(|f| f.families.first().map(|(n, _)| n.as_str()))
                            .unwrap_or("")
                            .into()
                    })
                    .clone();
                let mut shaped = ShapedGlyph {
                    family: fam,
                    glyph: g.glyph_id,
                    x: x + g.x + g.font_size * g.x_offset,
                    y: y + run.line_y - g.font_size * g.y_offset,
                    advance: g.w,
                    text: range,
                    rtl: g.level.is_rtl(),
                    color: false,
                };
                // Far pens are not drawn (their pixel positions would overflow an i32).
                if shaped.x.abs() < FAR && shaped.y.abs() < FAR {
                    let physical = g.physical((x, y + run.line_y), 1.0);
                    let r = match self.rasters.get(&physical.cache_key) {
                        Some(r) => *r,
                        None => {
                            let r = rasterize(
                                shaper,
                                physical.cache_key,
                                &mut self.glyphs,
                                &mut self.images,
                            )?;
                            self.rasters.insert(physical.cache_key, r);
                            r
                        }
                    };
                    match r {
                        None => {}
                        Some(Raster::Mask(region, off)) => {
                            let at = [physical.x + off[0], physical.y + off[1]];
                            self.push_glyph(at, region, colour);
                        }
                        Some(Raster::Colour(image, [w, h], off)) => {
                            shaped.color = true;
                            self.image(&Image {
                                x: (physical.x + off[0]) as f32,
                                y: (physical.y + off[1]) as f32,
                                w: w as f32,
                                h: h as f32,
                                image,
                                src: None,
                                filter: Filter::Nearest,
                                tint: [255; 4],
                                opacity: op,
                            })?;
                        }
                    }
                }
                out.glyphs.push((shaped, index, g.x));
            }
            // Visual order: cosmic-text keeps a right-to-left run's glyphs in logical order;
            // glyphs at one pen position (marks) in the order the shaper drew them.
            out.glyphs[first..].sort_by(|(a, i, pa), (b, j, pb)| {
                pa.total_cmp(pb)
                    .then(if a.rtl && b.rtl { j.cmp(i) } else { i.cmp(j) })
            });
        }
        drop(guard);
        if self.glyphs.height() != before || self.images.regions.len() != images_before {
            self.atlas_version += 1;
        }
        let fresh: Vec<char> = missing
            .iter()
            .copied()
            .filter(|c| self.reported.insert(*c))
            .collect();
        if !fresh.is_empty() {
            let shown: String = fresh
                .iter()
                .take(8)
                .map(|c| format!("'{c}' (U+{:04X})", *c as u32))
                .collect::<Vec<_>>()
                .join(", ");
            let more = if fresh.len() > 8 {
                format!(" and {} more", fresh.len() - 8)
            } else {
                String::new()
            };
            self.warnings.push(format!(
                "no font of the scene covers {shown}{more}: drawn as the missing-glyph box; \
                 add a font that covers them (Scene::add_font, or the system's fonts)"
            ));
        }
        Ok(ParagraphLayout {
            glyphs: out.glyphs.into_iter().map(|(g, ..)| g).collect(),
            lines: out.lines,
            width: out.width,
            height: out.height,
            missing,
        })
    }

    /// A glyph item: the coverage at `region` (x, y, w, h) of the glyph atlas, its top-left
    /// pixel at `at`, in `colour` (premultiplied, packed).
    fn push_glyph(&mut self, at: [i32; 2], region: [u32; 4], colour: [u32; 2]) {
        let mut rec = self.header(kind::GLYPH, 0);
        let [ax, ay, w, h] = region;
        let [gx, gy] = at;
        for (i, v) in [gx, gy, gx + w as i32, gy + h as i32].iter().enumerate() {
            rec[word::BOX + i] = (*v as f32).to_bits();
        }
        rec[word::RADII] = ax | ay << 16;
        rec[word::FILL..word::FILL + 2].copy_from_slice(&colour);
        self.push_item(rec);
    }

    /// `b` with each side brought to within `margin` + 4 pixels of the frame: what the frame
    /// shows of a rectangle (its edge, its corners of radius up to `margin`) is the same, and its
    /// signed distance keeps its precision (a side at 1e9 pixels rounded a whole tile's
    /// distances to 0, a half-covered band; at 1e20 every distance was noise).
    fn near_frame(&self, b: [f32; 4], margin: f32) -> [f32; 4] {
        let m = margin + 4.0;
        let (w, h) = (self.width as f32 + m, self.height as f32 + m);
        [
            b[0].clamp(-m, w),
            b[1].clamp(-m, h),
            b[2].clamp(-m, w),
            b[3].clamp(-m, h),
        ]
    }

    /// A box shadow.
    pub fn shadow(&mut self, s: &BoxShadow) -> Result<()> {
        let (x, y) = (finite("x", s.x)?, finite("y", s.y)?);
        let (w, h) = (size("width", s.w)?, size("height", s.h)?);
        let radius = radii(s.radius)?;
        let blur = size("blur", s.blur)?;
        let spread = finite("spread", s.spread)?;
        let (dx, dy) = (
            finite("offset x", s.offset[0])?,
            finite("offset y", s.offset[1])?,
        );
        let op = opacity(s.opacity)?;
        // CSS: the spread grows the box and each non-zero radius with it.
        let b = [
            x + dx - spread,
            y + dy - spread,
            x + dx + w + spread,
            y + dy + h + spread,
        ];
        if b[2] <= b[0] || b[3] <= b[1] {
            return Ok(());
        }
        let r = radius.map(|r| if r > 0.0 { (r + spread).max(0.0) } else { 0.0 });
        let sigma = blur / 2.0;
        if sigma < 0.25 {
            // No visible blur: a rounded rectangle.
            return self.rect(&Rect {
                x: b[0],
                y: b[1],
                w: b[2] - b[0],
                h: b[3] - b[1],
                radius: r,
                fill: Fill::Solid(s.color),
                border: None,
                ring: None,
                opacity: op,
            });
        }
        let b = self.near_frame(b, max4(r) + 3.0 * sigma);
        let mut rec = self.header(kind::SHADOW, 0);
        for (i, v) in b.iter().enumerate() {
            rec[word::BOX + i] = v.to_bits();
        }
        rec[word::RADII..word::RADII + 2].copy_from_slice(&pack_f16x4(r));
        rec[word::FILL..word::FILL + 2].copy_from_slice(&pack_f16x4(premul(s.color, op)));
        rec[word::P0] = sigma.to_bits();
        rec[word::P1] = (3.0 * sigma).to_bits();
        self.push_item(rec);
        Ok(())
    }

    /// Start clipping to a rounded rectangle (inside the clips already open).
    pub fn push_clip(&mut self, c: &Clip) -> Result<()> {
        let (x, y) = (finite("x", c.x)?, finite("y", c.y)?);
        let (w, h) = (size("width", c.w)?, size("height", c.h)?);
        let r = radii(c.radius)?;
        let b = self.near_frame([x, y, x + w, y + h], max4(r));
        let parent = self.stack.last().copied().unwrap_or(0);
        let rm = r[0].max(r[1]).max(r[2].max(r[3]));
        // Packed and unpacked: frame pixels only, as the kernels see the boxes.
        let own_outer = PixelBox::unpack(records::outer_box(b).pack());
        let own_inner = PixelBox::unpack(records::inner_box(b, 0.0, rm).pack());
        let (mut outer, mut inner) = (own_outer, own_inner);
        let mut link = parent;
        if parent != 0 {
            let p = &self.clips[(parent as usize - 1) * CLIP_WORDS..][..CLIP_WORDS];
            let p_outer = PixelBox::unpack([p[clip_word::OUTER], p[clip_word::OUTER + 1]]);
            let p_inner = PixelBox::unpack([p[clip_word::INNER], p[clip_word::INNER + 1]]);
            let same = (0..4).all(|i| p[clip_word::BOX + i] == b[i].to_bits())
                && p[clip_word::RADII..clip_word::RADII + 2] == pack_f16x4(r);
            // A chain's coverage is its clips' least (ADR-0083). The same clip again, or one
            // that covers 1 wherever the chain may cover anything, changes nothing: the chain
            // stays as it is (a pop closes it all the same).
            if same || own_inner.contains(p_outer) || p_outer.is_empty() {
                self.stack.push(parent);
                return Ok(());
            }
            // Where this clip may cover anything, every clip above covers 1: it needs none.
            if p_inner.contains(own_outer) {
                link = 0;
            }
            outer = outer.and(p_outer);
            inner = inner.and(p_inner);
        }
        let mut rec = [0u32; CLIP_WORDS];
        for (i, v) in b.iter().enumerate() {
            rec[clip_word::BOX + i] = v.to_bits();
        }
        rec[clip_word::RADII..clip_word::RADII + 2].copy_from_slice(&pack_f16x4(r));
        rec[clip_word::PARENT] = link;
        rec[clip_word::OUTER..clip_word::OUTER + 2].copy_from_slice(&outer.pack());
        rec[clip_word::INNER..clip_word::INNER + 2].copy_from_slice(&inner.pack());
        self.clips.extend_from_slice(&rec);
        self.stack.push((self.clips.len() / CLIP_WORDS) as u32);
        Ok(())
    }

    /// Stop clipping to the innermost open clip.
    pub fn pop_clip(&mut self) -> Result<()> {
        if self.stack.pop().is_none() {
            return Err(UiError::Unbalanced(
                "pop_clip without a push_clip: every pop_clip closes a push_clip before it".into(),
            ));
        }
        Ok(())
    }

    /// Clips open now.
    pub fn clip_depth(&self) -> usize {
        self.stack.len()
    }

    /// Checks the scene is complete (every clip closed).
    pub fn check(&self) -> Result<()> {
        if !self.stack.is_empty() {
            return Err(UiError::Unbalanced(format!(
                "{} push_clip without their pop_clip at the end of the scene: close every clip",
                self.stack.len()
            )));
        }
        Ok(())
    }

    /// The encoded item records (for tests and tools).
    pub fn item_words(&self) -> &[u32] {
        &self.items
    }

    /// The encoded clip records.
    pub fn clip_words(&self) -> &[u32] {
        &self.clips
    }

    /// The conservative count of item–bin pairs that sizes the bin lists.
    pub fn pair_bound(&self) -> u64 {
        self.pair_bound
    }
}

/// Rasterize one paragraph glyph with swash: coverage into the glyph atlas, colour into the
/// image atlas; `None` for a glyph with nothing to draw.
fn rasterize(
    shaper: &mut Shaper,
    key: cosmic_text::CacheKey,
    glyphs: &mut GlyphAtlas,
    images: &mut ImageAtlas,
) -> Result<Option<Raster>> {
    let Some(img) = shaper.swash.get_image_uncached(&mut shaper.system, key) else {
        return Ok(None);
    };
    let (w, h) = (img.placement.width, img.placement.height);
    if w == 0 || h == 0 {
        return Ok(None);
    }
    let off = [img.placement.left, -img.placement.top];
    match img.content {
        cosmic_text::SwashContent::Color => {
            let Some(rgba) = image::RgbaImage::from_raw(w, h, img.data) else {
                return Ok(None);
            };
            // swash composes COLR layers premultiplied (bitmaps come straight); the atlas
            // holds straight alpha.
            if !matches!(img.source, swash::scale::Source::ColorOutline(_)) {
                let id = images.add(&rgba)?;
                return Ok(Some(Raster::Colour(id, [w, h], off)));
            }
            let rgba = image::RgbaImage::from_fn(w, h, |x, y| {
                let p = rgba.get_pixel(x, y).0;
                let a = p[3] as u32;
                let un = |c: u8| {
                    (c as u32 * 255 + a / 2)
                        .checked_div(a)
                        .map_or(0, |v| v.min(255) as u8)
                };
                image::Rgba([un(p[0]), un(p[1]), un(p[2]), p[3]])
            });
            let id = images.add(&rgba)?;
            Ok(Some(Raster::Colour(id, [w, h], off)))
        }
        cosmic_text::SwashContent::Mask | cosmic_text::SwashContent::SubpixelMask => {
            let per = if img.content == cosmic_text::SwashContent::Mask {
                1
            } else {
                4
            };
            let (ax, ay) = glyphs.place(w, h)?;
            if ay + h > GLYPH_ATLAS_ROWS {
                return Err(UiError::Invalid(format!(
                    "the glyph atlas is full ({GLYPH_ATLAS_ROWS} rows): this frame draws more \
                     distinct glyphs than fit; draw fewer sizes at once"
                )));
            }
            for yy in 0..h {
                for xx in 0..w {
                    let i = ((yy * w + xx) * per) as usize;
                    glyphs.set(ax + xx, ay + yy, img.data[i + per as usize - 1]);
                }
            }
            Ok(Some(Raster::Mask([ax, ay, w, h], off)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_errors() {
        let mut s = Scene::new(100, 100).unwrap();
        let e = s
            .rect(&Rect::new(0.0, 0.0, -1.0, 5.0, [0, 0, 0, 255]))
            .unwrap_err();
        assert!(e.to_string().contains("width is -1"), "{e}");
        let e = s
            .rect(&Rect::new(f32::NAN, 0.0, 1.0, 5.0, [0, 0, 0, 255]))
            .unwrap_err();
        assert!(e.to_string().contains("x is NaN"), "{e}");
        let mut r = Rect::new(0.0, 0.0, 1.0, 1.0, [0, 0, 0, 255]);
        r.opacity = 2.0;
        assert!(s.rect(&r).unwrap_err().to_string().contains("opacity"));
        assert!(s.pop_clip().is_err());
        s.push_clip(&Clip {
            x: 0.0,
            y: 0.0,
            w: 5.0,
            h: 5.0,
            radius: [0.0; 4],
        })
        .unwrap();
        assert!(
            s.check()
                .unwrap_err()
                .to_string()
                .contains("1 push_clip without")
        );
        s.pop_clip().unwrap();
        s.check().unwrap();
        assert!(Scene::new(0, 5).is_err() && Scene::new(5, 16385).is_err());
        let g = Fill::Linear(LinearGradient {
            start: [0.0, 0.0],
            end: [1.0, 0.0],
            stops: vec![(0.0, [0; 4])],
        });
        assert!(
            s.rect(&Rect::new(0.0, 0.0, 1.0, 1.0, g))
                .unwrap_err()
                .to_string()
                .contains("at least two")
        );
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn clip_chains_intersect_their_boxes() {
        let mut s = Scene::new(300, 300).unwrap();
        s.push_clip(&Clip {
            x: 10.0,
            y: 10.0,
            w: 100.0,
            h: 100.0,
            radius: [5.0; 4],
        })
        .unwrap();
        s.push_clip(&Clip {
            x: 50.0,
            y: 0.0,
            w: 200.0,
            h: 50.0,
            radius: [0.0; 4],
        })
        .unwrap();
        s.rect(&Rect::new(0.0, 0.0, 300.0, 300.0, [1, 2, 3, 255]))
            .unwrap();
        let (outer, opaque) = records::item_bounds(s.item_words(), s.clip_words(), 300, 300);
        assert_eq!(
            outer,
            PixelBox {
                x0: 49,
                y0: 9,
                x1: 111,
                y1: 51
            }
        );
        assert_eq!(
            opaque,
            PixelBox {
                x0: 51,
                y0: 16,
                x1: 104,
                y1: 49
            }
        );
        assert!(records::item_opaque(s.item_words()));
        assert!(s.pair_bound() >= 1);
    }
}
