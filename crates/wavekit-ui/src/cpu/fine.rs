//! The `fine` kernel (`gpu/fine.wgsl`) on the CPU: every tile's candidates in draw order,
//! every pixel composited with [`super::shade`] (`gpu/shade.wgsl`'s twin). It draws everything
//! beneath opaque items too: the GPU's culling must not change a pixel.

use super::bbox::bounds;
use super::shade::{self, SceneData};
use crate::atlas::{GLYPH_ATLAS_WIDTH, IMAGE_ATLAS_WIDTH};
use crate::records::{self, PixelBox, TILE};
use crate::scene::Scene;

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

/// The scene's background, premultiplied as the kernel starts every pixel.
pub fn background(scene: &Scene) -> [f32; 4] {
    records::premul(scene.background, 1.0)
}

/// Render the scene on the CPU: straight-alpha RGBA8, row-major.
pub fn render(scene: &Scene) -> image::RgbaImage {
    let (w, h) = (scene.width, scene.height);
    let glyphs = glyph_words(scene);
    let data = scene_data(scene, &glyphs);
    let boxes = bounds(scene);
    let bg = background(scene);
    let mut img = image::RgbaImage::new(w, h);
    let mut memo = shade::ClipMemo::default();
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
                    memo.next_pixel();
                    for &i in &items {
                        let (outer, _) = boxes[i as usize];
                        let inside = (px as i32) >= outer.x0
                            && (px as i32) < outer.x1
                            && (py as i32) >= outer.y0
                            && (py as i32) < outer.y1;
                        if inside {
                            acc = shade::over(shade::shade_memo(&data, i, px, py, &mut memo), acc);
                        }
                    }
                    img.put_pixel(px, py, image::Rgba(shade::quantise(acc)));
                }
            }
        }
    }
    img
}
