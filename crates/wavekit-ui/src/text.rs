//! Text on the CPU: fonts (TrueType/OpenType through `ab_glyph`), layout along a baseline
//! with advances and kerning (the font's `kern` table), and glyph coverage rasterized into the
//! glyph atlas, cached by font, glyph, size and subpixel offset. A run becomes one glyph item
//! a visible glyph, at whole pixels: the subpixel part of its position is in the rasterized
//! coverage, so the kernel reads the atlas one texel a pixel.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ab_glyph::{Font as _, FontArc, PxScale, ScaleFont as _};

use crate::atlas::GlyphAtlas;
use crate::error::{Result, UiError};
use crate::records::SUBPIXEL_STEPS;

/// A font: TrueType or OpenType outlines.
#[derive(Clone)]
pub struct Font {
    inner: FontArc,
    name: Arc<str>,
    /// The file's bytes, for the paragraph shaper's font database.
    bytes: FontBytes,
}

/// A font file's bytes, shared.
pub(crate) type FontBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Font({})", self.name)
    }
}

impl Font {
    /// A font from the bytes of a `.ttf` or `.otf` file (`name` appears in errors).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Font> {
        let bytes: Arc<Vec<u8>> = Arc::new(bytes);
        let inner = FontArc::try_from_vec(bytes.to_vec()).map_err(|e| {
            UiError::Invalid(format!(
                "font '{name}' is not a TrueType/OpenType font: {e}"
            ))
        })?;
        Ok(Font {
            inner,
            name: name.into(),
            bytes,
        })
    }

    /// A font read from a file.
    pub fn from_file(path: &Path) -> Result<Font> {
        let bytes = std::fs::read(path).map_err(|e| UiError::File {
            path: path.display().to_string(),
            message: format!("cannot read the font: {e}"),
        })?;
        Font::from_bytes(&path.display().to_string(), bytes)
    }

    /// DejaVu Sans, embedded in this crate (always available: tests, the demo).
    pub fn dejavu_sans() -> Font {
        let inner = FontArc::try_from_slice(dejavu::sans::regular()).expect("embedded font");
        Font {
            inner,
            name: "DejaVu Sans (embedded)".into(),
            bytes: Arc::new(dejavu::sans::regular()),
        }
    }

    /// Noto fonts cut down to the sample text of [`SAMPLE_TEXT`] (the demo's text field and
    /// the shaping tests): Noto Sans, Sans Arabic, Hebrew, Devanagari, Thai, Sans CJK SC and
    /// Color Emoji, in that order (SIL Open Font License 1.1: `fonts/OFL.txt`). 150 KB in all.
    pub fn noto_samples() -> Vec<Font> {
        macro_rules! sample {
            ($file:literal, $name:literal) => {{
                let bytes: &'static [u8] = include_bytes!(concat!("../fonts/", $file));
                Font {
                    inner: FontArc::try_from_slice(bytes).expect("embedded font"),
                    name: concat!($name, " (sample, embedded)").into(),
                    bytes: Arc::new(bytes),
                }
            }};
        }
        vec![
            sample!("NotoSans-subset.ttf", "Noto Sans"),
            sample!("NotoSansArabic-subset.ttf", "Noto Sans Arabic"),
            sample!("NotoSansHebrew-subset.ttf", "Noto Sans Hebrew"),
            sample!("NotoSansDevanagari-subset.ttf", "Noto Sans Devanagari"),
            sample!("NotoSansThai-subset.ttf", "Noto Sans Thai"),
            sample!("NotoSansSC-subset.otf", "Noto Sans CJK SC"),
            sample!("NotoColorEmoji-subset.ttf", "Noto Color Emoji"),
        ]
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> FontBytes {
        self.bytes.clone()
    }

    /// The name errors use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// ab_glyph's scale for a CSS-like size: `size` pixels to the em.
    fn scale(&self, size: f32) -> PxScale {
        let f = &self.inner;
        let em = f.units_per_em().unwrap_or(1000.0);
        PxScale::from(size * f.height_unscaled() / em)
    }

    /// The pen positions of `text` at `size` from `x` along one baseline (`\n` starts a new
    /// line one line height down): (glyph, x, baseline) of every character.
    pub fn layout(
        &self,
        text: &str,
        size: f32,
        x: f32,
        y: f32,
    ) -> Vec<(ab_glyph::GlyphId, f32, f32)> {
        let scaled = self.inner.as_scaled(self.scale(size));
        let line = scaled.height() + scaled.line_gap();
        let (mut pen, mut base) = (x, y);
        let mut prev = None;
        let mut out = Vec::with_capacity(text.len());
        for ch in text.chars() {
            if ch == '\n' {
                pen = x;
                base += line;
                prev = None;
                continue;
            }
            let id = scaled.glyph_id(ch);
            if let Some(p) = prev {
                pen += scaled.kern(p, id);
            }
            out.push((id, pen, base));
            pen += scaled.h_advance(id);
            prev = Some(id);
        }
        out
    }

    /// The advance of `text` at `size` (the widest line's).
    pub fn measure(&self, text: &str, size: f32) -> f32 {
        let scaled = self.inner.as_scaled(self.scale(size));
        let mut widest: f32 = 0.0;
        for line in text.split('\n') {
            let mut pen = 0.0;
            let mut prev = None;
            for ch in line.chars() {
                let id = scaled.glyph_id(ch);
                if let Some(p) = prev {
                    pen += scaled.kern(p, id);
                }
                pen += scaled.h_advance(id);
                prev = Some(id);
            }
            widest = widest.max(pen);
        }
        widest
    }

    /// Ascent and descent (negative) at `size`.
    pub fn metrics(&self, size: f32) -> (f32, f32) {
        let s = self.inner.as_scaled(self.scale(size));
        (s.ascent(), s.descent())
    }
}

/// The text the sample fonts ([`Font::noto_samples`]) cover, a line a script: Latin with
/// ligatures, Arabic, Hebrew with points, Devanagari, Thai, Chinese, emoji sequences.
pub const SAMPLE_TEXT: &str = include_str!("../fonts/strings.txt");

/// A rasterized glyph in the atlas: its texels and where its top-left pixel lies relative to
/// the pen's whole-pixel position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedGlyph {
    /// Atlas x, y, width, height.
    pub region: [u32; 4],
    /// Left and top offsets from the pen.
    pub offset: [i32; 2],
}

/// Glyphs rasterized so far, by (font, glyph, size, subpixel step).
#[derive(Clone, Debug, Default)]
pub struct GlyphCache {
    map: HashMap<(u32, u16, u32, u32), Option<CachedGlyph>>,
}

impl GlyphCache {
    /// Glyphs cached (visible or not).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The glyph `id` of `font` (number `font_index`) at `size`, its pen `sub` steps of
    /// 1/[`SUBPIXEL_STEPS`] pixel right of a whole pixel: rasterized into `atlas` the first
    /// time, `None` when it has no outline (a space).
    pub fn get(
        &mut self,
        atlas: &mut GlyphAtlas,
        font: &Font,
        font_index: u32,
        id: ab_glyph::GlyphId,
        size: f32,
        sub: u32,
    ) -> Result<Option<CachedGlyph>> {
        let key = (font_index, id.0, size.to_bits(), sub);
        if let Some(g) = self.map.get(&key) {
            return Ok(*g);
        }
        let pos = ab_glyph::point(sub as f32 / SUBPIXEL_STEPS as f32, 0.0);
        let glyph = id.with_scale_and_position(font.scale(size), pos);
        let cached = match font.inner.outline_glyph(glyph) {
            None => None,
            Some(outline) => {
                let b = outline.px_bounds();
                let (w, h) = (b.width() as u32, b.height() as u32);
                if w == 0 || h == 0 {
                    None
                } else {
                    let (ax, ay) = atlas.place(w, h)?;
                    outline.draw(|x, y, c| {
                        let v = (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
                        atlas.set(ax + x, ay + y, v);
                    });
                    Some(CachedGlyph {
                        region: [ax, ay, w, h],
                        offset: [b.min.x as i32, b.min.y as i32],
                    })
                }
            }
        };
        self.map.insert(key, cached);
        Ok(cached)
    }
}

/// A pen position split into whole pixels and subpixel steps (rounded to the nearest step).
pub fn split_pen(x: f32) -> (i32, u32) {
    let steps = (x * SUBPIXEL_STEPS as f32).round() as i64;
    let s = SUBPIXEL_STEPS as i64;
    (steps.div_euclid(s) as i32, steps.rem_euclid(s) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kerning_pulls_av_together() {
        let f = Font::dejavu_sans();
        let apart = f.measure("A", 40.0) + f.measure("V", 40.0);
        let kerned = f.measure("AV", 40.0);
        assert!(kerned < apart - 1.0, "AV {kerned} against A + V {apart}");
        let g = f.layout("AV", 40.0, 10.0, 50.0);
        assert_eq!(g.len(), 2);
        assert!((g[1].1 - 10.0 - (kerned - f.measure("V", 40.0))).abs() < 1e-3);
    }

    #[test]
    fn pens_split_into_pixels_and_steps() {
        assert_eq!(split_pen(3.0), (3, 0));
        assert_eq!(split_pen(3.26), (3, 1));
        assert_eq!(split_pen(3.9), (4, 0));
        assert_eq!(split_pen(-0.25), (-1, 3));
    }

    #[test]
    fn subpixel_offsets_rasterize_differently_and_are_cached() {
        let f = Font::dejavu_sans();
        let mut atlas = GlyphAtlas::default();
        let mut cache = GlyphCache::default();
        let id = f.inner.glyph_id('l');
        let a = cache.get(&mut atlas, &f, 0, id, 14.0, 0).unwrap().unwrap();
        let b = cache.get(&mut atlas, &f, 0, id, 14.0, 2).unwrap().unwrap();
        let col = |g: CachedGlyph| -> Vec<u8> {
            (0..g.region[2])
                .map(|x| atlas.get(g.region[0] + x, g.region[1] + 5))
                .collect()
        };
        assert_ne!(col(a), col(b), "half a pixel apart, the same coverage");
        assert_eq!(
            cache.get(&mut atlas, &f, 0, id, 14.0, 0).unwrap().unwrap(),
            a
        );
        assert_eq!(cache.len(), 2);
        let space = f.inner.glyph_id(' ');
        assert!(
            cache
                .get(&mut atlas, &f, 0, space, 14.0, 0)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_file_that_is_not_a_font_is_an_error() {
        let e = Font::from_bytes("x.ttf", vec![1, 2, 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.ttf") && e.contains("not a TrueType"), "{e}");
        let e = Font::from_file(Path::new("/nonexistent/f.ttf"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/f.ttf"), "{e}");
    }
}
