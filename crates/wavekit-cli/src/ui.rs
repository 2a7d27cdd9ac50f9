//! `wavekit ui render|demo|bench`: the compute-shader UI compositor (crate wavekit-ui).

use std::path::{Path, PathBuf};

use clap::Subcommand;
use wavekit::GpuContext;
use wavekit_bench::ui::{self as uibench, BenchArgs};
use wavekit_ui::{RenderConfig, UiError, UiRenderer};

use crate::error::CliError;

/// `wavekit ui …`.
#[derive(Subcommand)]
pub enum UiCommand {
    /// Render a JSON scene (see wavekit_ui::json) to a PNG.
    Render {
        /// The scene file.
        scene: PathBuf,
        /// The image to write (.png, or another type that keeps alpha).
        #[arg(short, long)]
        output: PathBuf,
        /// Viewport WxH instead of the scene's.
        #[arg(long, value_parser = parse_size)]
        size: Option<(u32, u32)>,
        /// Render with the CPU reference instead of the GPU.
        #[arg(long)]
        cpu: bool,
        /// Let the scene name fonts and images anywhere, not only in its folder or below
        /// (only for a scene you trust).
        #[arg(long)]
        allow_any_path: bool,
        /// Let paragraphs fall back to the fonts installed on this system (as the scene's
        /// `"system_fonts": true` does) for characters the scene's fonts lack.
        #[arg(long)]
        system_fonts: bool,
    },
    /// Render the demo settings panel to a PNG.
    Demo {
        /// The PNG to write.
        #[arg(short, long)]
        output: PathBuf,
        /// The slider's knob, 0 to 1.
        #[arg(long, default_value_t = 0.62)]
        knob: f32,
        /// Render with the CPU reference only (no GPU; the image the web page's canvas is
        /// compared with).
        #[arg(long)]
        cpu: bool,
    },
    /// The compositor at 3840x2160: rounded rects, text, images, a mix, 10 000 items on one
    /// tile, shaped multilingual paragraphs; GPU time (median, p99), the compaction variants side by side, draw list to
    /// finished frame; with --peer, a peer's times and the ratio.
    Bench {
        /// Item counts of the scenes (a)-(d).
        #[arg(long, value_delimiter = ',', default_values_t = [10_000usize, 50_000, 100_000])]
        items: Vec<usize>,
        /// Scenes: rects, text, images, mix, stack, paragraphs.
        #[arg(long, value_delimiter = ',', default_values_t = ["rects".to_string(), "text".into(), "images".into(), "mix".into(), "stack".into(), "paragraphs".into()])]
        scenes: Vec<String>,
        /// Viewport WxH.
        #[arg(long, value_parser = parse_size, default_value = "3840x2160")]
        size: (u32, u32),
        /// How each case is measured.
        #[command(flatten)]
        protocol: crate::bench::ProtocolArgs,
        /// Write every scene as JSON (with its font and images) into this folder, for a peer.
        #[arg(long)]
        write_scenes: Option<PathBuf>,
        /// A peer's results (JSON lines: scene, items, median_ns), e.g. from peer/vello.
        #[arg(long)]
        peer: Option<PathBuf>,
        /// Also write the results as JSON lines to this file.
        #[arg(long)]
        save: Option<PathBuf>,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// Also time every scene with each speed-up taken away: `no-flags` (the fine pass
        /// walks for opaque covers in every bin), `general` (one fine kernel for every scene).
        #[arg(long)]
        variants: bool,
    },
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}': give WIDTHxHEIGHT, e.g. 800x600"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}': give WIDTHxHEIGHT, e.g. 800x600"))
    };
    Ok((p(w)?, p(h)?))
}

impl From<UiError> for CliError {
    fn from(e: UiError) -> Self {
        match e {
            UiError::Gpu(e) => CliError::Wavekit(e),
            UiError::File { path, message } => CliError::File { path, message },
            e => CliError::Usage(e.to_string()),
        }
    }
}

/// The format of an RGBA output, checked before any work: one that keeps the alpha channel
/// (a `.pgm` used to become a P7 PAM file other tools cannot open).
fn rgba_output(path: &Path) -> Result<image::ImageFormat, CliError> {
    use image::ImageFormat as F;
    match F::from_path(path) {
        Ok(f @ (F::Png | F::Tiff | F::WebP | F::Tga | F::Qoi | F::Bmp)) => Ok(f),
        other => Err(CliError::File {
            path: path.display().to_string(),
            message: format!(
                "{}: the panel is RGBA; name a .png (or .tif, .webp, .tga, .qoi, .bmp), which \
                 keeps the alpha channel",
                match other {
                    Ok(f) => format!("a {f:?} file holds no alpha channel here"),
                    Err(_) => "not an image type wavekit writes".into(),
                }
            ),
        }),
    }
}

/// Write `img` to `path` (format checked by [`rgba_output`]) through a temporary file, so a
/// failure leaves no file.
fn save(img: &image::RgbaImage, path: &Path) -> Result<(), CliError> {
    let format = rgba_output(path)?;
    crate::output::write_atomic(path, |tmp| {
        img.save_with_format(tmp, format)
            .map_err(|e| CliError::File {
                path: path.display().to_string(),
                message: format!("cannot write the image: {e}"),
            })
    })
}

/// Run a `wavekit ui` command; `ctx` makes the device when the command needs one.
pub fn run<C: std::ops::Deref<Target = GpuContext>>(
    cmd: UiCommand,
    ctx: impl FnOnce() -> Result<C, CliError>,
) -> Result<(), CliError> {
    match cmd {
        UiCommand::Render {
            scene,
            output,
            size,
            cpu,
            allow_any_path,
            system_fonts,
        } => {
            crate::output::check_output(&scene, &output)?;
            rgba_output(&output)?;
            let access = if allow_any_path {
                wavekit_ui::json::AssetAccess::Anywhere
            } else {
                wavekit_ui::json::AssetAccess::SceneFolder
            };
            let mut file = wavekit_ui::json::read(&scene)?;
            file.system_fonts |= system_fonts;
            let dir = scene.parent().unwrap_or(std::path::Path::new("."));
            let s = file.build_with(dir, size, access)?;
            for w in s.warnings() {
                eprintln!("wavekit ui render: {}: {w}", scene.display());
            }
            let img = if cpu {
                wavekit_ui::cpu::render(&s)
            } else {
                let ctx = ctx()?;
                UiRenderer::new(&ctx, RenderConfig::default())?.render_to_image(&ctx, &s)?
            };
            save(&img, &output)?;
            println!(
                "{} items, {} x {} -> {}",
                s.len(),
                s.width(),
                s.height(),
                output.display()
            );
            Ok(())
        }
        UiCommand::Demo { output, knob, cpu } => {
            if !(0.0..=1.0).contains(&knob) {
                return Err(CliError::Usage(format!(
                    "--knob {knob}: give a value from 0 to 1"
                )));
            }
            crate::output::check_outputs(&[("the panel", &output)])?;
            rgba_output(&output)?;
            if cpu {
                let scene = wavekit_ui::demo::panel(knob, 1.5)?;
                save(&wavekit_ui::cpu::render(&scene), &output)?;
                println!(
                    "ui demo: {} items composited on the CPU, {} x {} -> {}",
                    scene.len(),
                    scene.width(),
                    scene.height(),
                    output.display()
                );
                return Ok(());
            }
            let ctx = ctx()?;
            demo_png(&ctx, &output, knob)
        }
        UiCommand::Bench {
            items,
            scenes,
            size,
            protocol,
            write_scenes,
            peer,
            save,
            json,
            variants,
        } => {
            let args = BenchArgs {
                items,
                scenes,
                size,
                protocol: protocol.protocol()?,
                variants,
            };
            if let Some(dir) = &write_scenes {
                let n = uibench::write_scenes(&args, dir)?;
                eprintln!("wrote {n} scenes to {}", dir.display());
                if protocol.runs == 0 {
                    return Ok(());
                }
            }
            let ctx = ctx()?;
            let clock = crate::bench::clock_reader(&ctx);
            let results = uibench::run(&ctx, &args, &*clock, &mut |m| eprintln!("{m}"))?;
            let peer = match &peer {
                Some(p) => Some(uibench::read_peer(p)?),
                None => None,
            };
            let lines = uibench::report(&results, peer.as_deref());
            if json {
                for r in &results {
                    println!("{}", serde_json::to_string(r)?);
                }
            } else {
                println!("adapter: {}", ctx.summary.label());
                for l in lines {
                    println!("{l}");
                }
            }
            if let Some(path) = save {
                let text: Vec<String> = results
                    .iter()
                    .map(serde_json::to_string)
                    .collect::<Result<_, _>>()?;
                std::fs::write(&path, text.join("\n") + "\n").map_err(|e| CliError::File {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })?;
            }
            Ok(())
        }
    }
}

/// The demo panel rendered on the GPU, checked against the CPU reference, written to `output`.
pub fn demo_png(ctx: &GpuContext, output: &Path, knob: f32) -> Result<(), CliError> {
    let scene = wavekit_ui::demo::panel(knob, 1.5)?;
    let ui = UiRenderer::new(ctx, RenderConfig::default())?;
    let img = ui.render_to_image(ctx, &scene)?;
    let want = wavekit_ui::cpu::render(&scene);
    let off = img
        .pixels()
        .zip(want.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 1))
        .count();
    save(&img, output)?;
    println!(
        "ui demo: {} items composited on the GPU, {} x {} -> {}",
        scene.len(),
        scene.width(),
        scene.height(),
        output.display()
    );
    if off > 0 {
        return Err(CliError::CheckFailed(format!(
            "the demo panel differs from the CPU reference by more than 1 in {off} pixels"
        )));
    }
    Ok(())
}
