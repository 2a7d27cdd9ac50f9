//! The compositor's demo panel (every item kind: text, buttons, a slider, a checkbox, an image
//! in a rounded clip, a clipped list, a shadowed tooltip) drawn on the GPU and by the CPU
//! reference, pixel by pixel.

use wavekit::GpuContext;
use wavekit_ui::{RenderConfig, UiRenderer};

use crate::{Result, check};

/// Run it with the slider's knob at `knob` (0 to 1); returns the GPU's image and a line saying
/// what was checked.
pub fn run(ctx: &GpuContext, knob: f32) -> Result<(image::RgbaImage, String)> {
    let scene = wavekit_ui::demo::panel(knob, 1.5)?;
    let ui = UiRenderer::new(ctx, RenderConfig::default())?;
    let gpu = ui.render_to_image(ctx, &scene)?;
    let cpu = wavekit_ui::cpu::render(&scene);
    // A GPU may round a channel by one where it fuses a multiply and an add (the crate's
    // tests count those pixels); no channel may differ by more.
    let mut off_by_one = 0;
    let mut worse = 0;
    for (a, b) in gpu.pixels().zip(cpu.pixels()) {
        let d = wavekit_ui::cpu::channel_difference(a, b);
        match d {
            0 => {}
            1 => off_by_one += 1,
            _ => worse += 1,
        }
    }
    check(worse == 0, "compositor", || {
        format!("{worse} pixels differ by more than one")
    })?;
    let line = format!(
        "the demo panel ({} items, {} x {}) matches the CPU reference ({off_by_one} pixels off \
         by one)",
        scene.len(),
        gpu.width(),
        gpu.height()
    );
    Ok((gpu, line))
}
