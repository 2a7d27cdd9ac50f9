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
