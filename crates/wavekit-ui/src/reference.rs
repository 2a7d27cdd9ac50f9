//! The CPU reference renderer: the GPU pipeline's stages ported to plain Rust and run on the
//! same encoded draw list. [`bounds`] is the `bbox` kernel, [`bin_lists`] what the binning
//! kernels produce (each bin's items in draw order), [`render`] the `fine` kernel (every tile's
//! candidates in order, every pixel composited with [`crate::shade`]). It draws everything
//! beneath opaque items too: the GPU's culling must not change a pixel.

use crate::atlas::{GLYPH_ATLAS_WIDTH, IMAGE_ATLAS_WIDTH};
use crate::encode::{self, BIN, ITEM_WORDS, PixelBox, TILE};
use crate::scene::Scene;
use crate::shade::{self, SceneData};

/// The glyph atlas as words, as the renderer uploads it.
pub fn glyph_words(scene: &Scene) -> Vec<u32> {
    scene.glyphs.words()
}

/// The scene's data for [`shade::shade`] (`glyphs` from [`glyph_words`]).
pub fn scene_data<'a>(scene: &'a Scene, glyphs: &'a [u32]) -> SceneData<'a> {
    SceneData {
        items: &scene.items,
        clips: &scene.clips,
        gradients: &scene.gradients,
        glyphs,
        glyph_row_words: GLYPH_ATLAS_WIDTH / 4,
        images: &scene.images.texels,
        image_row: IMAGE_ATLAS_WIDTH,
    }
}

/// Every item's pixel box and opaque box (the `bbox` kernel).
pub fn bounds(scene: &Scene) -> Vec<(PixelBox, PixelBox)> {
    scene
        .items
        .chunks(ITEM_WORDS)
        .map(|rec| encode::item_bounds(rec, &scene.clips, scene.width, scene.height))
        .collect()
}

/// Bins across and down.
pub fn bins(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(BIN), height.div_ceil(BIN))
}

/// Each bin's items in draw order, bins row by row: what the binning kernels write.
pub fn bin_lists(scene: &Scene) -> Vec<Vec<u32>> {
    let (bx, by) = bins(scene.width, scene.height);
    let rects: Vec<u32> = bounds(scene)
        .iter()
        .map(|(outer, _)| encode::bin_rect(*outer))
        .collect();
    let mut out = vec![Vec::new(); (bx * by) as usize];
    for y in 0..by {
        for x in 0..bx {
            out[(y * bx + x) as usize] = rects
                .iter()
                .enumerate()
                .filter(|(_, r)| encode::bin_rect_has(**r, x, y))
                .map(|(i, _)| i as u32)
                .collect();
        }
    }
    out
}

/// The scene's background, premultiplied as the kernel starts every pixel.
pub fn background(scene: &Scene) -> [f32; 4] {
    encode::premul(scene.background, 1.0)
}

/// Render the scene on the CPU: straight-alpha RGBA8, row-major.
pub fn render(scene: &Scene) -> image::RgbaImage {
    let (w, h) = (scene.width, scene.height);
    let glyphs = glyph_words(scene);
    let data = scene_data(scene, &glyphs);
    let boxes = bounds(scene);
    let bg = background(scene);
    let mut img = image::RgbaImage::new(w, h);
    for ty in 0..h.div_ceil(TILE) {
        for tx in 0..w.div_ceil(TILE) {
            let tile = PixelBox {
                x0: (tx * TILE) as i32,
                y0: (ty * TILE) as i32,
                x1: ((tx + 1) * TILE) as i32,
                y1: ((ty + 1) * TILE) as i32,
            };
            // The tile's candidates, in draw order.
            let items: Vec<u32> = boxes
                .iter()
                .enumerate()
                .filter(|(_, (outer, _))| !outer.and(tile).is_empty())
                .map(|(i, _)| i as u32)
                .collect();
            for py in tile.y0 as u32..(tile.y1 as u32).min(h) {
                for px in tile.x0 as u32..(tile.x1 as u32).min(w) {
                    let mut acc = bg;
                    for &i in &items {
                        let (outer, _) = boxes[i as usize];
                        let inside = (px as i32) >= outer.x0
                            && (px as i32) < outer.x1
                            && (py as i32) >= outer.y0
                            && (py as i32) < outer.y1;
                        if inside {
                            acc = shade::over(shade::shade(&data, i, px, py), acc);
                        }
                    }
                    img.put_pixel(px, py, image::Rgba(shade::quantise(acc)));
                }
            }
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, Rect};

    fn row(s: &Scene) -> Vec<[u8; 4]> {
        render(s).pixels().map(|p| p.0).collect()
    }

    /// Pixels computed by hand: coverage `clamp(0.5 − d)` at pixel centres, source-over on
    /// white, colours through f16, rounding half up.
    #[test]
    fn pixels_by_hand() {
        let mut s = Scene::new(4, 1).unwrap();
        s.set_background([255; 4]);
        // Centres 0.5 .. 3.5; the rect spans 1 .. 3: pixels 1 and 2 inside by half a pixel
        // (coverage 1), pixels 0 and 3 outside by half a pixel (coverage 0).
        s.rect(&Rect::new(1.0, -10.0, 2.0, 20.0, [255, 0, 0, 255]))
            .unwrap();
        let white = [255; 4];
        let red = [255, 0, 0, 255];
        assert_eq!(row(&s), [white, red, red, white]);
        // From 0.75: pixel 0 is a quarter covered: green 0.75 · 255 = 191.25 -> 191.
        s.clear(4, 1).unwrap();
        s.rect(&Rect::new(0.75, -10.0, 3.0, 20.0, [255, 0, 0, 255]))
            .unwrap();
        assert_eq!(row(&s)[0], [255, 191, 191, 255]);
        // Half-transparent blue over white: alpha 128/255 is 0.501953125 in f16; red and
        // green keep 1 − 0.501953125 = 0.498046875 -> 127.0 -> 127; blue 1.0 -> 255.
        s.clear(4, 1).unwrap();
        s.rect(&Rect::new(-1.0, -1.0, 9.0, 3.0, [0, 0, 255, 128]))
            .unwrap();
        assert_eq!(row(&s), [[127, 127, 255, 255]; 4]);
        // A clip from 2: the same rect only on pixels 2 and 3.
        s.clear(4, 1).unwrap();
        s.push_clip(&Clip {
            x: 2.0,
            y: -5.0,
            w: 9.0,
            h: 9.0,
            radius: [0.0; 4],
        })
        .unwrap();
        s.rect(&Rect::new(-1.0, -1.0, 9.0, 3.0, [0, 0, 255, 128]))
            .unwrap();
        s.pop_clip().unwrap();
        assert_eq!(
            row(&s),
            [white, white, [127, 127, 255, 255], [127, 127, 255, 255]]
        );
        // Transparent background: straight alpha out (the colour, alpha 128).
        let mut t = Scene::new(1, 1).unwrap();
        t.rect(&Rect::new(0.0, 0.0, 1.0, 1.0, [10, 200, 30, 128]))
            .unwrap();
        assert_eq!(row(&t), [[10, 200, 30, 128]]);
    }
}
