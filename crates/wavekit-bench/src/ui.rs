//! The compositor's benchmark: seeded scenes at 3840 × 2160 — (a) rounded rectangles with
//! borders, (b) a wall of 14 px text, (c) images from an atlas, (d) a mix of every kind with
//! clips, (e) 10 000 items stacked on one tile — written as JSON scene files (so that a peer
//! renders exactly the same items), loaded back, and timed on the GPU under the one protocol
//! ([`crate::protocol`]: warm-up by time, interleaved rounds, the spread, the SM clock): median
//! and p99, the three compaction variants side by side on (d) and (e), and the wall time from
//! draw list to finished frame (upload and GPU) for the largest mix, after the same warm-up.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wavekit::{GpuContext, Timing, TimingMethod};

use crate::error::Result;
use crate::protocol::{Case, ClockReader, ClockWindow, Protocol, measure, warm_up_case};
use wavekit_ui::error::UiError;
use wavekit_ui::gpu::{Compaction, PLACE_MIN_ITEMS, RenderConfig, UiRenderer};
use wavekit_ui::json::{
    self, BorderJson, CircleJson, ClipJson, EllipseJson, FillJson, FilterJson, GradientJson,
    ImageJson, Item, ParagraphJson, PopJson, Radius, RectJson, SceneFile, ShadowJson, TextJson,
};
use wavekit_ui::scene::{Color, Scene};

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchArgs {
    /// Item counts of the scenes rects, text, images and mix.
    pub items: Vec<usize>,
    /// Scenes: `rects`, `text`, `images`, `mix`, `stack`, `paragraphs`.
    pub scenes: Vec<String>,
    /// Viewport.
    pub size: (u32, u32),
    /// How each case is measured.
    pub protocol: Protocol,
    /// Also time every scene with each of the renderer's speed-ups taken away ([`VARIANTS`]).
    pub variants: bool,
}

/// The variants `variants` times beside the default, each with one speed-up taken away (or,
/// `by-chunk`, the bin lists placed by chunk at every size): name,
/// [`RenderConfig::cover_flags`], [`RenderConfig::specialize`], [`RenderConfig::stage_records`],
/// [`RenderConfig::place_min_items`] (`u32::MAX`: never by chunk).
pub const VARIANTS: [(&str, bool, bool, bool, u32); 5] = [
    ("no-flags", false, true, true, PLACE_MIN_ITEMS),
    ("general", true, false, true, PLACE_MIN_ITEMS),
    ("unstaged", true, true, false, PLACE_MIN_ITEMS),
    ("by-bin", true, true, true, u32::MAX),
    ("by-chunk", true, true, true, 0),
];

/// The scene kinds.
pub const SCENES: [&str; 6] = ["rects", "text", "images", "mix", "stack", "paragraphs"];

/// Items of the stacked scene (e).
pub const STACK_ITEMS: usize = 10_000;

/// The font file the written scenes name (written beside them).
pub const FONT_FILE: &str = "DejaVuSans.ttf";

/// Source images of the image scenes.
pub const IMAGES: usize = 8;

/// One measured case.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchResult {
    /// Scene kind.
    pub scene: String,
    /// Items encoded (a glyph is an item).
    pub items: usize,
    /// Items asked for: the scene file's count (`scene-N.json`), which keys a peer's results
    /// (a paragraph scene holds more glyphs than the items asked for).
    #[serde(default)]
    pub requested: usize,
    /// `ordered`, `serial`, `atomic` (GPU time of the frame with that compaction), `binning`
    /// (GPU time of the binning stages alone, ordered), or `frame` (draw list to finished frame,
    /// wall clock).
    pub variant: String,
    /// Median, ns.
    pub median_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 10th percentile, ns.
    pub p10_ns: f64,
    /// Runs measured.
    pub runs: usize,
    /// How: GPU timestamps or wall clock.
    pub method: String,
    /// (largest − smallest round median) / median (GPU cases).
    #[serde(default)]
    pub spread: f64,
    /// The SM clock during the timed runs (worst round), where it can be read.
    #[serde(default)]
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    #[serde(default)]
    pub clock_low: bool,
}

/// A peer's result line (peer/vello writes them).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PeerResult {
    /// Scene kind.
    pub scene: String,
    /// Items requested (the scene file's name).
    pub items: usize,
    /// Median GPU time, ns.
    pub median_ns: f64,
    /// p99, ns.
    #[serde(default)]
    pub p99_ns: f64,
    /// Wall time of a frame (encode, upload and GPU), ns, where measured.
    #[serde(default)]
    pub frame_ns: Option<f64>,
    /// The peer's name.
    #[serde(default)]
    pub peer: String,
}

/// Deterministic text of the text scenes.
const WORDS: &str = "the quick brown fox jumps over a lazy dog while compute shaders composite \
    every widget of the frame in draw order kerning AV Wa To tiles bins chunks glyphs atlas";

fn colour(rng: &mut fastrand::Rng, alpha: u8) -> Color {
    [rng.u8(..), rng.u8(..), rng.u8(..), alpha]
}

fn visible(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

fn file_name(scene: &str, items: usize) -> String {
    format!("{scene}-{items}.json")
}

fn image_name(i: usize) -> String {
    format!("image-{i}.png")
}

/// Source image `i` of the image scenes (64 × 64, a pattern of its own, some translucent).
pub fn bench_image(i: usize) -> image::RgbaImage {
    let k = i as u32 + 1;
    image::RgbaImage::from_fn(64, 64, |x, y| {
        let a = if i.is_multiple_of(3) && (x / 8 + y / 8).is_multiple_of(2) {
            160
        } else {
            255
        };
        image::Rgba([
            ((x * k * 4) % 256) as u8,
            ((y * 4 + k * 30) % 256) as u8,
            (((x ^ y) * k) % 256) as u8,
            a,
        ])
    })
}

fn text_item(x: f32, y: f32, color: Color, text: String) -> Item {
    Item::Text(TextJson {
        x,
        y,
        size: 14.0,
        color,
        font: FONT_FILE.into(),
        text,
        opacity: 1.0,
    })
}

/// The scene file of kind `scene` with about `n` items (glyphs count one each), seeded.
pub fn scene_file(scene: &str, n: usize, (w, h): (u32, u32)) -> Result<SceneFile> {
    let mut rng = fastrand::Rng::with_seed(0x5eed ^ n as u64 ^ (scene.len() as u64) << 32);
    let (fw, fh) = (w as f32, h as f32);
    let mut items = Vec::new();
    let mut count = 0usize;
    let words: Vec<&str> = WORDS.split(' ').filter(|s| !s.is_empty()).collect();
    let rect = |rng: &mut fastrand::Rng| {
        let (iw, ih) = (16.0 + rng.f32() * 144.0, 12.0 + rng.f32() * 68.0);
        let alpha = if rng.bool() { 255 } else { 200 };
        Item::Rect(RectJson {
            x: rng.f32() * (fw - iw),
            y: rng.f32() * (fh - ih),
            w: iw,
            h: ih,
            radius: Radius::Four([0, 1, 2, 3].map(|_| rng.f32() * 12.0)),
            fill: FillJson::Solid(colour(rng, alpha)),
            border: Some(BorderJson {
                width: 1.0 + rng.f32() * 2.0,
                color: colour(rng, 255),
            }),
            ring: None,
            opacity: 1.0,
        })
    };
    let image = |rng: &mut fastrand::Rng| {
        let (iw, ih) = (16.0 + rng.f32() * 48.0, 16.0 + rng.f32() * 48.0);
        Item::Image(ImageJson {
            x: rng.f32() * (fw - iw),
            y: rng.f32() * (fh - ih),
            w: iw,
            h: ih,
            path: image_name(rng.usize(..IMAGES)),
            filter: if rng.bool() {
                FilterJson::Bilinear
            } else {
                FilterJson::Nearest
            },
            tint: [255, 255, 255, 255],
            src: None,
            opacity: 1.0,
        })
    };
    let phrase = |rng: &mut fastrand::Rng, len: usize| {
        let mut s = String::new();
        while s.len() < len {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(words[rng.usize(..words.len())]);
        }
        s
    };
    match scene {
        "rects" => {
            while count < n {
                items.push(rect(&mut rng));
                count += 1;
            }
        }
        "images" => {
            while count < n {
                items.push(image(&mut rng));
                count += 1;
            }
        }
        "text" => {
            // Lines of 14 px text across the screen, 17 px apart; a second layer when the
            // screen is full.
            let (mut x, mut y, mut layer) = (4.0f32, 16.0f32, 0.0f32);
            while count < n {
                let t = phrase(&mut rng, 48);
                let left = n - count;
                let t: String = if visible(&t) > left {
                    t.chars()
                        .filter(|c| !c.is_whitespace())
                        .take(left)
                        .collect()
                } else {
                    t
                };
                count += visible(&t);
                items.push(text_item(x, y, [20, 20, 20, 255], t));
                x += 48.0 * 8.0;
                if x > fw - 400.0 {
                    x = 4.0 + layer * 3.0;
                    y += 17.0;
                    if y > fh - 4.0 {
                        layer += 1.0;
                        y = 16.0 + layer * 7.0;
                    }
                }
            }
        }
        "mix" => {
            while count < n {
                let roll = rng.u32(..100);
                if roll < 2 {
                    // A clip holding a few items.
                    let (cw, ch) = (100.0 + rng.f32() * 300.0, 60.0 + rng.f32() * 200.0);
                    let (cx, cy) = (rng.f32() * (fw - cw), rng.f32() * (fh - ch));
                    items.push(Item::PushClip(ClipJson {
                        x: cx,
                        y: cy,
                        w: cw,
                        h: ch,
                        radius: Radius::One(8.0),
                    }));
                    for _ in 0..10 {
                        let mut r = rect(&mut rng);
                        if let Item::Rect(r) = &mut r {
                            r.x = cx - 20.0 + rng.f32() * cw;
                            r.y = cy - 20.0 + rng.f32() * ch;
                        }
                        items.push(r);
                        count += 1;
                    }
                    items.push(Item::PopClip(PopJson {}));
                } else if roll < 35 {
                    items.push(rect(&mut rng));
                    count += 1;
                } else if roll < 45 {
                    let r = 4.0 + rng.f32() * 30.0;
                    let (cx, cy) = (rng.f32() * fw, rng.f32() * fh);
                    let fill = FillJson::Solid(colour(&mut rng, 255));
                    items.push(if rng.bool() {
                        Item::Circle(CircleJson {
                            cx,
                            cy,
                            r,
                            fill,
                            border: None,
                            ring: if rng.u32(..4) == 0 { Some(2.0) } else { None },
                            opacity: 1.0,
                        })
                    } else {
                        Item::Ellipse(EllipseJson {
                            cx,
                            cy,
                            rx: r,
                            ry: r * 0.6,
                            fill,
                            border: None,
                            ring: None,
                            opacity: 0.8,
                        })
                    });
                    count += 1;
                } else if roll < 75 {
                    let t = phrase(&mut rng, 10);
                    count += visible(&t);
                    items.push(text_item(
                        rng.f32() * (fw - 120.0),
                        14.0 + rng.f32() * (fh - 20.0),
                        colour(&mut rng, 255),
                        t,
                    ));
                } else if roll < 87 {
                    items.push(image(&mut rng));
                    count += 1;
                } else if roll < 92 {
                    let (iw, ih) = (30.0 + rng.f32() * 150.0, 20.0 + rng.f32() * 80.0);
                    items.push(Item::Shadow(ShadowJson {
                        x: rng.f32() * (fw - iw),
                        y: rng.f32() * (fh - ih),
                        w: iw,
                        h: ih,
                        radius: Radius::One(6.0 + rng.f32() * 10.0),
                        offset: [0.0, 3.0],
                        blur: 4.0 + rng.f32() * 12.0,
                        spread: 0.0,
                        color: [0, 0, 0, 100],
                        opacity: 1.0,
                    }));
                    count += 1;
                } else {
                    let (iw, ih) = (40.0 + rng.f32() * 200.0, 20.0 + rng.f32() * 80.0);
                    let (x, y) = (rng.f32() * (fw - iw), rng.f32() * (fh - ih));
                    items.push(Item::Rect(RectJson {
                        x,
                        y,
                        w: iw,
                        h: ih,
                        radius: Radius::One(6.0),
                        fill: FillJson::Gradient {
                            linear: GradientJson {
                                start: [x, y],
                                end: [x + iw, y + ih],
                                stops: vec![
                                    (0.0, colour(&mut rng, 255)),
                                    (0.5, colour(&mut rng, 230)),
                                    (1.0, colour(&mut rng, 255)),
                                ],
                            },
                        },
                        border: None,
                        ring: None,
                        opacity: 1.0,
                    }));
                    count += 1;
                }
            }
        }
        "paragraphs" => {
            // Shaped paragraphs of every sample script and emoji (the sample fonts), wrapped to
            // widths of 200 to 600 pixels, aligned each way, until about n glyphs.
            let lines: Vec<&str> = wavekit_ui::SAMPLE_TEXT.lines().collect();
            let aligns = wavekit_ui::Align::ALL;
            // The glyphs are counted as drawn (ligatures, marks and emoji sequences make fewer
            // glyphs than characters).
            let mut scratch = Scene::new(w, h)?;
            let font = wavekit_ui::Font::noto_samples()
                .into_iter()
                .map(|f| scratch.add_font(f))
                .collect::<Vec<_>>()[0];
            let mut i = 0usize;
            while count < n {
                let mut text = String::new();
                for _ in 0..2 + rng.usize(..4) {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(lines[rng.usize(..lines.len())]);
                }
                let width = 200.0 + rng.f32() * 400.0;
                let (x, y) = (
                    rng.f32() * (fw - width).max(1.0),
                    rng.f32() * (fh - 60.0).max(1.0),
                );
                let size = 12.0 + rng.f32() * 8.0;
                let mut p = wavekit_ui::Paragraph::new(text.clone(), font, size, x, y);
                p.width = Some(width);
                p.line_height = 1.3;
                p.align = aligns[i % aligns.len()];
                let before = scratch.len();
                scratch.paragraph(&p)?;
                count += scratch.len() - before;
                items.push(Item::Paragraph(ParagraphJson {
                    x,
                    y,
                    width: p.width,
                    size,
                    line_height: p.line_height,
                    color: colour(&mut rng, 255),
                    font: wavekit_ui::json::SAMPLE_FONTS.into(),
                    fallback: Vec::new(),
                    align: p.align,
                    direction: p.direction,
                    text,
                    opacity: 1.0,
                }));
                i += 1;
            }
        }
        "stack" => {
            // Every item within one 16 x 16 tile.
            let (tx, ty) = ((fw * 0.4).floor(), (fh * 0.4).floor());
            for i in 0..n {
                let (x, y) = (tx + 2.0 + rng.f32() * 10.0, ty + 2.0 + rng.f32() * 10.0);
                let alpha = 40 + rng.u8(..200);
                let c = colour(&mut rng, alpha);
                items.push(if i % 2 == 0 {
                    Item::Rect(RectJson {
                        x: x - 2.0,
                        y: y - 2.0,
                        w: 4.0,
                        h: 4.0,
                        radius: Radius::One(1.0),
                        fill: FillJson::Solid(c),
                        border: None,
                        ring: None,
                        opacity: 1.0,
                    })
                } else {
                    Item::Circle(CircleJson {
                        cx: x,
                        cy: y,
                        r: 2.0,
                        fill: FillJson::Solid(c),
                        border: None,
                        ring: None,
                        opacity: 1.0,
                    })
                });
            }
        }
        other => {
            return Err(crate::Error::InvalidArgument(format!(
                "unknown bench scene '{other}': the scenes are {}",
                SCENES.join(", ")
            )));
        }
    }
    Ok(SceneFile {
        width: w,
        height: h,
        background: [255, 255, 255, 255],
        system_fonts: false,
        items,
    })
}

/// The (scene, items) cases `args` asks for.
pub fn cases(args: &BenchArgs) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for s in &args.scenes {
        if s == "stack" {
            out.push((s.clone(), STACK_ITEMS));
        } else {
            for &n in &args.items {
                out.push((s.clone(), n));
            }
        }
    }
    out
}

fn io(path: &Path, e: impl std::fmt::Display) -> UiError {
    UiError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Write every case's scene file, the font and the source images into `dir`. Returns how many
/// scenes.
pub fn write_scenes(args: &BenchArgs, dir: &Path) -> Result<usize> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let font = dir.join(FONT_FILE);
    std::fs::write(&font, dejavu::sans::regular()).map_err(|e| io(&font, e))?;
    for i in 0..IMAGES {
        let p = dir.join(image_name(i));
        bench_image(i).save(&p).map_err(|e| io(&p, e))?;
    }
    let all = cases(args);
    for (scene, n) in &all {
        let f = scene_file(scene, *n, args.size)?;
        let p = dir.join(file_name(scene, *n));
        let text = serde_json::to_string(&f).map_err(|e| io(&p, e))?;
        std::fs::write(&p, text).map_err(|e| io(&p, e))?;
    }
    Ok(all.len())
}

fn result(scene: &str, items: usize, variant: &str, t: &Timing) -> BenchResult {
    BenchResult {
        scene: scene.into(),
        items,
        requested: items,
        variant: variant.into(),
        median_ns: t.median_ns,
        p99_ns: t.p99_ns,
        p10_ns: t.p10_ns,
        runs: t.samples_ns.len(),
        method: format!("{:?}", t.method),
        spread: 0.0,
        clock: None,
        clock_low: false,
    }
}

/// A 4K-style target: an `Rgba8Unorm` storage texture, as a window's frame would be.
fn target(ctx: &GpuContext, w: u32, h: u32) -> wgpu::Texture {
    wavekit_ui::gpu::storage_target(
        ctx,
        "wavekit.ui.bench target",
        (w, h),
        wgpu::TextureUsages::COPY_SRC,
    )
}

/// Run every case: scenes written to a temporary folder and loaded back (the peer's input).
pub fn run(
    ctx: &GpuContext,
    args: &BenchArgs,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<BenchResult>> {
    let dir = std::env::temp_dir().join(format!("wavekit-ui-bench-{}", std::process::id()));
    write_scenes(args, &dir)?;
    let out = run_dir(ctx, args, &dir, clock, progress);
    std::fs::remove_dir_all(&dir).ok();
    out
}

fn run_dir(
    ctx: &GpuContext,
    args: &BenchArgs,
    dir: &Path,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<BenchResult>> {
    args.protocol.check()?;
    let (w, h) = args.size;
    let tex = target(ctx, w, h);
    // The default (ordered) renderer first, then the compaction variants (mix and stack).
    let mut renderers: Vec<(&'static str, UiRenderer)> = Compaction::ALL
        .iter()
        .map(|&c| {
            UiRenderer::new(
                ctx,
                RenderConfig {
                    compaction: c,
                    ..Default::default()
                },
            )
            .map(|r| (c.name(), r))
        })
        .collect::<std::result::Result<_, UiError>>()?;
    let compactions = renderers.len();
    if args.variants {
        for (name, cover_flags, specialize, stage_records, place_min_items) in VARIANTS {
            let config = RenderConfig {
                cover_flags,
                specialize,
                stage_records,
                place_min_items,
                ..Default::default()
            };
            renderers.push((name, UiRenderer::new(ctx, config)?));
        }
    }
    let all = cases(args);
    let biggest_mix = all
        .iter()
        .filter(|(s, _)| s == "mix")
        .map(|(_, n)| *n)
        .max();
    // Every scene's frames, uploaded and checked once; then every case under the protocol,
    // interleaved round by round.
    struct Prepared<'r> {
        scene: String,
        items: usize,
        requested: usize,
        variant: &'static str,
        stages: bool,
        ui: &'r UiRenderer,
        frame: wavekit_ui::gpu::Frame,
    }
    let mut prepared = Vec::new();
    let mut frame_scene = None;
    for (i, (scene_kind, n)) in all.iter().enumerate() {
        let scene: Scene = json::load(&dir.join(file_name(scene_kind, *n)), None)?;
        progress(format!(
            "[{}/{}] {scene_kind}: {} items loaded and uploaded",
            i + 1,
            all.len(),
            scene.len()
        ));
        let every = scene_kind == "mix" || scene_kind == "stack";
        for (i, (name, ui)) in renderers.iter().enumerate() {
            // The compaction variants on mix and stack; the binning stages alone (with the
            // default renderer) and the speed-up variants on every scene.
            if !every && i != 0 && i < compactions {
                continue;
            }
            let with_stages = i == 0;
            for stages in [false, true] {
                if stages && !with_stages {
                    continue;
                }
                let mut frame = ui.frame(ctx)?;
                ui.upload(ctx, &mut frame, &scene)?;
                ui.target_texture(ctx, &mut frame, &tex)?;
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                ui.record(&frame, &mut enc)?;
                ctx.queue.submit([enc.finish()]);
                ui.check_frame(ctx, &frame)?;
                prepared.push(Prepared {
                    scene: scene_kind.clone(),
                    items: scene.len(),
                    requested: *n,
                    variant: if stages { "binning" } else { name },
                    stages,
                    ui,
                    frame,
                });
            }
        }
        if Some(*n) == biggest_mix && scene_kind == "mix" {
            frame_scene = Some(scene);
        }
    }
    let mut cases: Vec<Case<'_>> = prepared
        .iter()
        .map(|p| {
            let name = format!("{} {} {}", p.scene, p.items, p.variant);
            Case::new(name, move |enc: &mut wgpu::CommandEncoder| {
                // Recording into a checked frame cannot fail; the binning stages alone tell
                // how the time divides.
                let _ = if p.stages {
                    p.ui.record_stages(&p.frame, enc, true, false)
                } else {
                    p.ui.record(&p.frame, enc)
                };
            })
        })
        .collect();
    let measured = measure(ctx, &mut cases, &args.protocol, clock, progress)?;
    drop(cases);
    let mut results: Vec<BenchResult> = prepared
        .iter()
        .zip(&measured)
        .map(|(p, m)| BenchResult {
            spread: m.spread,
            clock: m.clock,
            clock_low: m.clock_low,
            requested: p.requested,
            ..result(&p.scene, p.items, p.variant, &m.timing)
        })
        .collect();
    if let Some(scene) = frame_scene {
        // Draw list to finished frame: upload, record, submit, wait; wall clock, after the
        // protocol's warm-up.
        let ui = &renderers[0].1;
        progress(format!(
            "mix {} items: draw list to finished frame ...",
            scene.len()
        ));
        let mut frame = ui.frame(ctx)?;
        ui.upload(ctx, &mut frame, &scene)?;
        ui.target_texture(ctx, &mut frame, &tex)?;
        {
            let mut warm = Case::new("frame warm-up", |enc: &mut wgpu::CommandEncoder| {
                let _ = ui.record(&frame, enc);
            });
            warm_up_case(ctx, &mut warm, &args.protocol, clock)?;
        }
        let runs = (args.protocol.runs * args.protocol.rounds) as usize;
        let mut samples = Vec::with_capacity(runs);
        let from = Instant::now();
        for _ in 0..runs {
            let t = Instant::now();
            ui.upload(ctx, &mut frame, &scene)?;
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            ui.record(&frame, &mut enc)?;
            ctx.queue.submit([enc.finish()]);
            ctx.wait()?;
            samples.push(t.elapsed().as_nanos() as f64);
        }
        let window = clock.window(from, Instant::now());
        let t = Timing::from_samples(TimingMethod::WallClock, samples);
        results.push(BenchResult {
            clock: window,
            clock_low: window.is_some_and(|w| w.below_max()),
            requested: biggest_mix.unwrap_or(scene.len()),
            ..result("mix", scene.len(), "frame", &t)
        });
    }
    Ok(results)
}

/// Read a peer's JSON lines.
pub fn read_peer(path: &Path) -> Result<Vec<PeerResult>> {
    crate::peer::read_lines(path)
}

/// The results as a table: GPU time per case and variant, the ratio to the peer where it has
/// the case (peer time / ours).
pub fn report(results: &[BenchResult], peer: Option<&[PeerResult]>) -> Vec<String> {
    let mut out = vec![format!(
        "{:<7} {:>7} {:<8} {:>11} {:>11} {:>13} {:>7} {:>9}",
        "scene", "items", "variant", "median ms", "p99 ms", "peer ms", "ratio", "clock MHz"
    )];
    for r in results {
        // Peer results are keyed by the scene file's requested count.
        let p = peer.and_then(|p| {
            p.iter().find(|q| {
                q.scene == r.scene
                    && (q.items == r.requested || q.items == r.items || near(q.items, r.items))
            })
        });
        let (pm, ratio) = match (p, r.variant.as_str()) {
            (Some(p), "frame") => match p.frame_ns {
                Some(f) => (
                    format!("{:.3}", f / 1e6),
                    format!("{:.1}x", f / r.median_ns),
                ),
                None => (String::new(), String::new()),
            },
            (Some(p), "ordered") => (
                format!("{:.3}", p.median_ns / 1e6),
                format!("{:.1}x", p.median_ns / r.median_ns),
            ),
            _ => (String::new(), String::new()),
        };
        out.push(format!(
            "{:<7} {:>7} {:<8} {:>11.3} {:>11.3} {:>13} {:>7} {:>9}",
            r.scene,
            r.items,
            r.variant,
            r.median_ns / 1e6,
            r.p99_ns / 1e6,
            pm,
            ratio,
            crate::protocol::clock_text(r.clock, r.clock_low)
        ));
    }
    out
}

/// Requested and encoded item counts agree within 2 % (text scenes encode one item a glyph).
fn near(a: usize, b: usize) -> bool {
    a.abs_diff(b) * 50 <= a.max(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_are_deterministic_and_hold_about_the_items_asked_for() {
        let size = (640, 360);
        for s in SCENES {
            let a = serde_json::to_string(&scene_file(s, 500, size).unwrap()).unwrap();
            let b = serde_json::to_string(&scene_file(s, 500, size).unwrap()).unwrap();
            assert_eq!(a, b, "{s}");
        }
        let temp = tempfile::Builder::new()
            .prefix("wavekit-ui-bench-test-")
            .tempdir()
            .unwrap();
        let dir = temp.path().join("scenes");
        let args = BenchArgs {
            items: vec![300],
            scenes: SCENES.iter().map(|s| s.to_string()).collect(),
            size,
            protocol: Protocol::default(),
            variants: false,
        };
        assert_eq!(write_scenes(&args, &dir).unwrap(), SCENES.len());
        for (s, n) in cases(&args) {
            let scene = json::load(&dir.join(file_name(&s, n)), None).unwrap();
            let want = if s == "stack" { STACK_ITEMS } else { 300 };
            assert!(
                near(scene.len(), want) || scene.len() >= want,
                "{s}: {} items",
                scene.len()
            );
        }
        assert!(scene_file("nope", 1, size).is_err());
    }

    /// A peer's line is found by the count asked for (its file's name), not only by the items
    /// encoded: a paragraph scene asked for 10 000 glyphs holds 10 051.
    #[test]
    fn peer_results_are_matched_by_the_count_asked_for() {
        let t = Timing::from_samples(TimingMethod::WallClock, vec![1e6; 3]);
        let ours = |items, requested, variant: &str| BenchResult {
            requested,
            ..result("paragraphs", items, variant, &t)
        };
        let peer = |items| PeerResult {
            scene: "paragraphs".into(),
            items,
            median_ns: 4e6,
            p99_ns: 0.0,
            frame_ns: None,
            peer: "vello".into(),
        };
        let lines = report(
            &[
                ours(10_051, 10_000, "ordered"),
                ours(12_000, 12_000, "ordered"),
            ],
            Some(&[peer(10_000)]),
        );
        assert!(
            lines[1].contains("4.000") && lines[1].contains("4.0x"),
            "{}",
            lines[1]
        );
        // 12 000 is neither the count asked for nor within 2 % of it: no ratio.
        assert!(!lines[2].contains('x'), "{}", lines[2]);
    }
}
