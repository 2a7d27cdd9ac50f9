//! The two atlases a draw list samples: images (RGBA8, one u32 a texel) and glyph coverage (R8,
//! four texels a u32), both packed in shelves: rows of the height of their tallest entry,
//! filled left to right, a new shelf below when none has room. The width is fixed; the height
//! grows with what is added.

use crate::error::{Result, UiError};

/// Shelf packing in a fixed width.
#[derive(Clone, Debug, Default)]
pub struct Shelves {
    width: u32,
    height: u32,
    /// (top, height, next free x) of each shelf.
    shelves: Vec<(u32, u32, u32)>,
}

impl Shelves {
    /// An empty packer `width` texels wide.
    pub fn new(width: u32) -> Self {
        Self {
            width,
            height: 0,
            shelves: Vec::new(),
        }
    }

    /// Height in use.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// A place for a `w × h` entry (`None` if wider than the atlas).
    pub fn place(&mut self, w: u32, h: u32) -> Option<(u32, u32)> {
        if w > self.width {
            return None;
        }
        // The lowest shelf that is tall enough (without wasting more than half of it) and
        // has room.
        let fit = self
            .shelves
            .iter_mut()
            .filter(|s| s.1 >= h && s.1 <= h.max(1) * 2 && self.width - s.2 >= w)
            .min_by_key(|s| s.1);
        if let Some(s) = fit {
            let x = s.2;
            s.2 += w;
            return Some((x, s.0));
        }
        let top = self.height;
        self.shelves.push((top, h, w));
        self.height += h;
        Some((0, top))
    }
}

/// Where an image lies in the atlas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageId {
    pub(crate) index: u32,
}

/// The RGBA8 image atlas.
#[derive(Clone, Debug)]
pub struct ImageAtlas {
    shelves: Shelves,
    /// Texels, row-major, `width` a row (RGBA8 little-endian in a u32: R in the low byte).
    pub(crate) texels: Vec<u32>,
    /// (x, y, w, h) of each image.
    pub(crate) regions: Vec<[u32; 4]>,
    /// Whether every texel of each image has alpha 255.
    pub(crate) opaque: Vec<bool>,
}

/// Width of the image atlas in texels (and the widest image it takes).
pub const IMAGE_ATLAS_WIDTH: u32 = 4096;
/// Width of the glyph atlas in texels (a multiple of 4).
pub const GLYPH_ATLAS_WIDTH: u32 = 1024;

impl Default for ImageAtlas {
    fn default() -> Self {
        Self {
            shelves: Shelves::new(IMAGE_ATLAS_WIDTH),
            texels: Vec::new(),
            regions: Vec::new(),
            opaque: Vec::new(),
        }
    }
}

impl ImageAtlas {
    /// Add an image; its id names it in [`crate::Image`] items.
    pub fn add(&mut self, image: &image::RgbaImage) -> Result<ImageId> {
        let (w, h) = image.dimensions();
        if w == 0 || h == 0 {
            return Err(UiError::Invalid(format!(
                "an image of {w} x {h} pixels: images need at least one pixel"
            )));
        }
        let Some((x, y)) = self.shelves.place(w, h) else {
            return Err(UiError::Invalid(format!(
                "an image {w} pixels wide: the atlas takes images up to {IMAGE_ATLAS_WIDTH} \
                 pixels wide; scale it down first"
            )));
        };
        let rows = self.shelves.height() as usize;
        self.texels.resize(rows * IMAGE_ATLAS_WIDTH as usize, 0);
        for (i, p) in image.pixels().enumerate() {
            let (ix, iy) = (i as u32 % w, i as u32 / w);
            self.texels[((y + iy) * IMAGE_ATLAS_WIDTH + x + ix) as usize] = u32::from_le_bytes(p.0);
        }
        self.regions.push([x, y, w, h]);
        self.opaque.push(image.pixels().all(|p| p.0[3] == 255));
        Ok(ImageId {
            index: self.regions.len() as u32 - 1,
        })
    }

    /// An image's region (x, y, w, h) in the atlas.
    pub fn region(&self, id: ImageId) -> Option<[u32; 4]> {
        self.regions.get(id.index as usize).copied()
    }

    /// Rows in use.
    pub fn height(&self) -> u32 {
        self.shelves.height()
    }

    /// Whether every texel of an image has alpha 255.
    pub fn is_opaque(&self, id: ImageId) -> bool {
        self.opaque.get(id.index as usize).copied().unwrap_or(false)
    }
}

/// The R8 glyph coverage atlas.
#[derive(Clone, Debug)]
pub struct GlyphAtlas {
    shelves: Shelves,
    /// Coverage bytes, row-major, [`GLYPH_ATLAS_WIDTH`] a row.
    pub(crate) bytes: Vec<u8>,
}

impl Default for GlyphAtlas {
    fn default() -> Self {
        Self {
            shelves: Shelves::new(GLYPH_ATLAS_WIDTH),
            bytes: Vec::new(),
        }
    }
}

impl GlyphAtlas {
    /// Room for a `w × h` glyph: its top-left texel.
    pub fn place(&mut self, w: u32, h: u32) -> Result<(u32, u32)> {
        let Some(at) = self.shelves.place(w, h) else {
            return Err(UiError::Invalid(format!(
                "a glyph {w} pixels wide: the glyph atlas takes glyphs up to \
                 {GLYPH_ATLAS_WIDTH} pixels wide; use a smaller text size"
            )));
        };
        self.bytes
            .resize((self.shelves.height() * GLYPH_ATLAS_WIDTH) as usize, 0);
        Ok(at)
    }

    /// Set one coverage texel.
    pub fn set(&mut self, x: u32, y: u32, v: u8) {
        self.bytes[(y * GLYPH_ATLAS_WIDTH + x) as usize] = v;
    }

    /// The coverage texel at (x, y).
    pub fn get(&self, x: u32, y: u32) -> u8 {
        self.bytes[(y * GLYPH_ATLAS_WIDTH + x) as usize]
    }

    /// The bytes as u32 words, four texels each, the first in the low byte (as the kernel
    /// reads them).
    pub fn words(&self) -> Vec<u32> {
        self.bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Rows in use.
    pub fn height(&self) -> u32 {
        self.shelves.height()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shelves_never_overlap_and_stay_in_the_width() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut s = Shelves::new(64);
        let mut placed: Vec<[u32; 4]> = Vec::new();
        for _ in 0..300 {
            let (w, h) = (rng.u32(1..=20), rng.u32(1..=20));
            let (x, y) = s.place(w, h).unwrap();
            assert!(x + w <= 64 && y + h <= s.height());
            for p in &placed {
                let apart = x + w <= p[0] || p[0] + p[2] <= x || y + h <= p[1] || p[1] + p[3] <= y;
                assert!(apart, "{:?} overlaps {:?}", [x, y, w, h], p);
            }
            placed.push([x, y, w, h]);
        }
        assert!(s.place(65, 1).is_none());
    }

    #[test]
    fn images_land_where_their_region_says() {
        let mut a = ImageAtlas::default();
        let img = image::RgbaImage::from_fn(3, 2, |x, y| image::Rgba([x as u8, y as u8, 7, 255]));
        a.add(&image::RgbaImage::new(5, 5)).unwrap();
        let id = a.add(&img).unwrap();
        let [x, y, w, h] = a.region(id).unwrap();
        assert_eq!((w, h), (3, 2));
        let t = a.texels[((y + 1) * IMAGE_ATLAS_WIDTH + x + 2) as usize].to_le_bytes();
        assert_eq!(t, [2, 1, 7, 255]);
        assert!(a.add(&image::RgbaImage::new(0, 3)).is_err());
        assert!(
            a.add(&image::RgbaImage::new(IMAGE_ATLAS_WIDTH + 1, 1))
                .is_err()
        );
    }
}
