//! wavekit-ui: an ordered compute-shader UI compositor on wavekit. A frame's widgets —
//! rounded rectangles with a radius per corner and borders, circles and ellipses, images,
//! text, box shadows with a radius per corner, linear gradients, nested rounded clips, a
//! global opacity per item — are drawn by compute shaders alone, per 16 × 16 tile, in draw
//! order.
//!
//! ```text
//! Scene (CPU, O(1) an item)  ->  bbox  ->  bin_count -> scan -> bin_emit  ->  fine
//!   typed builder or JSON        pixel     each 256-px bin's items,          a workgroup a
//!   -> flat item records,        boxes     in draw order (wg_compact)         tile: chunks of
//!      clips, gradients,                                                      candidates,
//!      glyph + image atlases                                                  wg_compact, composite
//! ```
//!
//! - **Colour**: 8-bit sRGB-encoded RGBA with straight alpha in; blending premultiplied,
//!   source-over, in sRGB-encoded space (as browsers do), f32; out straight alpha, rounded
//!   half up (ADR-0042).
//! - **Order**: every bin's list holds its items in draw order without a sort — counts per
//!   (bin, chunk of 256 items), an exclusive scan, and each (bin, chunk) workgroup places its
//!   survivors with `wg_compact` at the place the scan gave it (ADR-0043) — and the fine kernel compacts each chunk
//!   of candidates that touch its tile with `wg_compact` again, so any number of items in one
//!   tile composites in order (ADR-0044). Two measurement-only variants, [`Compaction`].
//! - **Opaque culling**: where an opaque rounded rectangle covers the whole tile, nothing
//!   beneath it is drawn (ADR-0045).
//! - **Anti-aliasing** from signed distances; box shadows analytic (erf along x, a few
//!   samples along y, one radius per corner: ADR-0046); text from `ab_glyph`, kerned, cached
//!   by glyph, size and subpixel offset (ADR-0047).
//! - [`gpu`]: the pipeline, its kernels in `src/gpu/` (`records`, `bbox`, `bin_count`,
//!   `bin_emit`, `fine`, `shade`); [`cpu`]: the same stages ported to the CPU with the same
//!   arithmetic, one file a stage under the kernel's name (`cpu/bbox.rs`, `cpu/bin.rs`,
//!   `cpu/fine.rs`, `cpu/shade.rs`); the tests hold the GPU to it pixel for pixel.
//!
//! ```
//! use wavekit_ui::{Ellipse, Rect, RenderConfig, Scene, Text, UiRenderer, Font};
//! let ctx = wavekit::GpuContext::new(&Default::default())?;
//! let mut scene = Scene::new(160, 60)?;
//! scene.set_background([255, 255, 255, 255]);
//! let font = scene.add_font(Font::dejavu_sans());
//! scene.rect(&Rect::new(10.0, 10.0, 100.0, 40.0, [40, 90, 200, 255]).radius(8.0))?;
//! scene.text(&Text { x: 24.0, y: 35.0, size: 14.0, color: [255; 4], font, text: "OK".into(), opacity: 1.0 })?;
//! scene.ellipse(&Ellipse::circle(135.0, 30.0, 15.0, [220, 40, 40, 255]))?;
//! let ui = UiRenderer::new(&ctx, RenderConfig::default())?;
//! let image = ui.render_to_image(&ctx, &scene)?;
//! assert_eq!(image.get_pixel(60, 30).0, [40, 90, 200, 255]); // inside the button
//! // The CPU reference draws the same pixels (a GPU may round a channel by one).
//! assert_eq!(wavekit_ui::cpu::render(&scene).get_pixel(60, 30).0, [40, 90, 200, 255]);
//! # Ok::<(), wavekit_ui::UiError>(())
//! ```

#![warn(missing_docs)]
pub mod atlas;
pub mod cpu;
pub mod demo;
pub mod error;
pub mod gpu;
pub mod items;
pub mod json;
pub mod records;
pub mod scene;
pub mod shape;
pub mod text;

pub use atlas::ImageId;
pub use error::{Result, UiError};
pub use gpu::{Compaction, Frame, FrameStats, RenderConfig, TargetKind, UiRenderer};
pub use scene::{
    Align, Border, BoxShadow, Clip, Color, Direction, Ellipse, Fill, Filter, FontId, Image,
    LinearGradient, Paragraph, ParagraphLayout, Rect, Scene, ShapedGlyph, Text,
};
pub use text::{Font, SAMPLE_TEXT};

#[cfg(test)]
mod tests {
    use super::gpu::{Params, SOURCES, TargetKind, builder, params_fields};
    use super::*;

    /// Every kernel and variant validates with naga, with subgroups and without, and every
    /// WGSL file is used.
    #[test]
    fn every_kernel_validates() {
        let mut variants = Vec::new();
        for compaction in Compaction::ALL {
            for (cover_flags, stats, stage_records) in [
                (false, false, true),
                (true, true, false),
                (true, false, true),
            ] {
                let config = RenderConfig {
                    compaction,
                    stats,
                    cover_flags,
                    stage_records,
                    ..Default::default()
                };
                for target in [TargetKind::Buffer, TargetKind::Texture] {
                    for entry in ["ui/bin_count", "ui/bin_emit", "ui/bin_place", "ui/fine"] {
                        let b = builder(entry, &config, target);
                        b.check().unwrap_or_else(|e| panic!("{entry}: {e}"));
                        let composed = b.compose(true).unwrap();
                        // `Params` is declared twice, in records.wgsl and gpu/mod.rs.
                        wavekit::shader::check_uniform(
                            &composed,
                            0,
                            0,
                            std::mem::size_of::<Params>(),
                            &params_fields(),
                        )
                        .unwrap_or_else(|e| panic!("{entry}: {e}"));
                        variants.push((composed, true));
                    }
                }
            }
        }
        // The fine kernel specialised for scenes of some features.
        use crate::records::feature::*;
        for features in [
            0,
            SHAPE,
            IMAGE,
            GLYPH,
            SHAPE | SHADOW,
            SHAPE | GRADIENT | CLIP,
        ] {
            let b = gpu::fine_builder(&RenderConfig::default(), TargetKind::Texture, features);
            b.check()
                .unwrap_or_else(|e| panic!("fine for features {features:#b}: {e}"));
            variants.push((b.compose(true).unwrap(), true));
        }
        wavekit::prelude::check_kernels(SOURCES, &variants).unwrap();
    }
}
