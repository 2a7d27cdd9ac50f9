//! The CPU reference renderer: the GPU pipeline's stages (`crate::gpu`) ported to plain Rust,
//! run on the same encoded draw list, one file a stage under the kernel's name:
//!
//! | GPU kernel (`src/gpu/`) | CPU twin (`src/cpu/`) |
//! |---|---|
//! | `records.wgsl` (the record layout) | `crate::records` (the layout's one source of truth, both sides) |
//! | `bbox.wgsl` | [`bbox`] ([`bounds`]) |
//! | `bin_count.wgsl`, `bin_emit.wgsl` | [`bin`] ([`bin_lists`], by definition) and [`bin_sim`] (as the kernels compute it, at every subgroup width) |
//! | `fine.wgsl` | [`fine`] ([`render`]) |
//! | `shade.wgsl` | [`shade`] (function for function) |
//!
//! The tests hold the GPU to it pixel for pixel.

pub mod bbox;
pub mod bin;
pub mod bin_sim;
pub mod fine;
pub mod shade;

pub use bbox::bounds;
pub use bin::{bin_lists, bins};
pub use fine::{background, glyph_words, render, scene_data};

/// The largest difference between two pixels in any channel (how the GPU's image is compared
/// with the reference: a GPU may round a channel by one where it fuses a multiply and an add).
pub fn channel_difference(a: &image::Rgba<u8>, b: &image::Rgba<u8>) -> u8 {
    a.0.iter()
        .zip(b.0)
        .map(|(x, y)| x.abs_diff(y))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, Rect, Scene};

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
