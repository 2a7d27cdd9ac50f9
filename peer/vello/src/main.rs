//! The Vello 0.11 peer of `wavekit ui bench`.
//!
//! `vello-peer SCENES_DIR [--runs N] [--png DIR] [--only NAME,...]` renders every
//! `SCENE-ITEMS.json` that `wavekit ui bench --write-scenes SCENES_DIR` wrote, at its size, into
//! an `Rgba8Unorm` texture, and prints one JSON line per scene: the GPU time of Vello's render
//! (median and p99 of `--runs` runs after at least 300 ms of warm-up), measured with GPU
//! timestamps by Vello's own profiler scopes around each of its passes (from the first pass's
//! start to the last pass's end), and the wall time of a frame (Vello's encoding on the CPU,
//! upload and GPU). Before timing, each scene is rendered once with large buffers and Vello's
//! buffers are then sized from its bump counters (its defaults overflow at 100 000 items; bin
//! data is sized as the draw-info words plus the binning room, which cannot wrap: see
//! vello_encoding-sizes.patch). Rounded rectangles keep their four radii; a box shadow takes
//! one radius (the largest), as Vello's blurred rounded rectangle has one (its issue 1245).
//! Paragraphs (the `paragraphs` scene) are laid out by parley 0.12, Vello's own text layout,
//! with the same sample fonts wavekit-ui embeds and fallback for each script filled in (parley
//! without system fonts has none); as wavekit's scene, once before the frames are timed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vello::kurbo::{Affine, Circle, Ellipse, Rect, RoundedRect, RoundedRectRadii, Stroke};
use vello::peniko::{
    self, Blob, Color, Fill, FontData, Gradient, ImageAlphaType, ImageBrush, ImageData,
    ImageFormat, ImageQuality,
};
use vello::{AaConfig, AaSupport, RenderParams, Renderer, RendererOptions, Scene};
use wavekit_ui::json::{FillJson, FilterJson, Item, SceneFile};

/// wavekit-ui's sample fonts (`Font::noto_samples`), in its order: Noto Sans first.
const SAMPLES: [&[u8]; 7] = [
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSans-subset.ttf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSansArabic-subset.ttf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSansHebrew-subset.ttf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSansDevanagari-subset.ttf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSansThai-subset.ttf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoSansSC-subset.otf"),
    include_bytes!("../../../crates/wavekit-ui/fonts/NotoColorEmoji-subset.ttf"),
];

/// parley's contexts over the sample fonts, and each font as Vello takes it.
struct Shaper {
    fcx: parley::FontContext,
    lcx: parley::LayoutContext<[u8; 4]>,
    layout: parley::Layout<[u8; 4]>,
    /// (parley's blob id, face index) → Vello's font.
    fonts: Vec<(u64, u32, FontData)>,
}

impl Shaper {
    fn new() -> Shaper {
        use parley::fontique::{
            Collection, CollectionOptions, FallbackKey, GenericFamily, Script, SourceCache,
        };
        let mut collection = Collection::new(CollectionOptions {
            shared: false,
            system_fonts: false,
        });
        let ids: Vec<_> = SAMPLES
            .iter()
            .map(|b| collection.register_fonts(parley::fontique::Blob::from(b.to_vec()), None)[0].0)
            .collect();
        for (i, script) in [(1, b"Arab"), (2, b"Hebr"), (3, b"Deva"), (4, b"Thai"), (5, b"Hani")] {
            let key = FallbackKey::from(Script::from_bytes(*script));
            collection.append_fallbacks(key, std::iter::once(ids[i]));
        }
        collection.append_generic_families(GenericFamily::Emoji, std::iter::once(ids[6]));
        Shaper {
            fcx: parley::FontContext {
                collection,
                source_cache: SourceCache::default(),
            },
            lcx: parley::LayoutContext::new(),
            layout: parley::Layout::new(),
            fonts: Vec::new(),
        }
    }

    fn font(&mut self, f: &parley::FontData) -> FontData {
        let key = (f.data.id(), f.index);
        if let Some((.., d)) = self.fonts.iter().find(|(id, ix, _)| (*id, *ix) == key) {
            return d.clone();
        }
        let d = FontData::new(Blob::new(std::sync::Arc::new(f.data.data().to_vec())), f.index);
        self.fonts.push((key.0, key.1, d.clone()));
        d
    }

    /// Lay `p` out with parley and draw its glyph runs into `s`.
    fn paragraph(&mut self, s: &mut Scene, p: &wavekit_ui::json::ParagraphJson) {
        use parley::{
            Alignment, AlignmentOptions, FontFamily, FontFamilyName, LineHeight,
            PositionedLayoutItem, StyleProperty,
        };
        if p.font != wavekit_ui::json::SAMPLE_FONTS || !p.fallback.is_empty() {
            die(format!(
                "paragraph in '{}': the peer lays out paragraphs in the sample fonts only",
                p.font
            ));
        }
        let mut b = self.lcx.ranged_builder(&mut self.fcx, &p.text, 1.0, true);
        b.push_default(StyleProperty::FontFamily(FontFamily::Single(
            FontFamilyName::Named("Noto Sans".into()),
        )));
        b.push_default(StyleProperty::FontSize(p.size));
        b.push_default(StyleProperty::LineHeight(LineHeight::FontSizeRelative(
            p.line_height,
        )));
        b.build_into(&mut self.layout, &p.text);
        self.layout.break_all_lines(p.width);
        let align = match p.align {
            wavekit_ui::Align::Start => Alignment::Start,
            wavekit_ui::Align::End => Alignment::End,
            wavekit_ui::Align::Left => Alignment::Left,
            wavekit_ui::Align::Right => Alignment::Right,
            wavekit_ui::Align::Center => Alignment::Center,
            wavekit_ui::Align::Justify => Alignment::Justify,
        };
        self.layout.align(align, AlignmentOptions::default());
        let brush = color(p.color, p.opacity);
        let mut runs = Vec::new();
        for line in self.layout.lines() {
            for item in line.items() {
                if let PositionedLayoutItem::GlyphRun(run) = item {
                    let glyphs: Vec<vello::Glyph> = run
                        .positioned_glyphs()
                        .map(|g| vello::Glyph {
                            id: g.id,
                            x: p.x + g.x,
                            y: p.y + g.y,
                        })
                        .collect();
                    runs.push((run.run().font().clone(), run.run().font_size(), glyphs));
                }
            }
        }
        for (font, size, glyphs) in runs {
            let data = self.font(&font);
            s.draw_glyphs(&data)
                .font_size(size)
                .brush(brush)
                .draw(Fill::NonZero, glyphs.into_iter());
        }
    }
}

fn die(msg: String) -> ! {
    eprintln!("vello-peer: {msg}");
    std::process::exit(2)
}

fn color(c: [u8; 4], opacity: f32) -> Color {
    Color::from_rgba8(c[0], c[1], c[2], c[3]).multiply_alpha(opacity)
}

fn brush(f: &FillJson, opacity: f32) -> peniko::Brush {
    match f {
        FillJson::Solid(c) => peniko::Brush::Solid(color(*c, opacity)),
        FillJson::Gradient { linear } => {
            let stops: Vec<(f32, Color)> = linear
                .stops
                .iter()
                .map(|(o, c)| (*o, color(*c, opacity)))
                .collect();
            let g = Gradient::new_linear(
                (f64::from(linear.start[0]), f64::from(linear.start[1])),
                (f64::from(linear.end[0]), f64::from(linear.end[1])),
            )
            .with_stops(stops.as_slice());
            peniko::Brush::Gradient(g)
        }
    }
}

/// Fonts and images a scene file names, loaded once.
struct Assets {
    dir: PathBuf,
    /// Paragraphs' layout, made at the first.
    shaper: Option<Shaper>,
    fonts: Vec<(String, wavekit_ui::Font, FontData)>,
    images: Vec<(String, ImageData)>,
}

impl Assets {
    fn font(&mut self, name: &str) -> (wavekit_ui::Font, FontData) {
        if let Some((_, f, d)) = self.fonts.iter().find(|(n, ..)| n == name) {
            return (f.clone(), d.clone());
        }
        let path = self.dir.join(name);
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| die(format!("{}: {e}", path.display())));
        let f = wavekit_ui::Font::from_bytes(name, bytes.clone())
            .unwrap_or_else(|e| die(e.to_string()));
        let d = FontData::new(Blob::new(std::sync::Arc::new(bytes)), 0);
        self.fonts.push((name.into(), f.clone(), d.clone()));
        (f, d)
    }

    fn image(&mut self, name: &str) -> ImageData {
        if let Some((_, d)) = self.images.iter().find(|(n, _)| n == name) {
            return d.clone();
        }
        let path = self.dir.join(name);
        let img = image::open(&path)
            .unwrap_or_else(|e| die(format!("{}: {e}", path.display())))
            .to_rgba8();
        let (w, h) = img.dimensions();
        let d = ImageData {
            data: Blob::new(std::sync::Arc::new(img.into_raw())),
            format: ImageFormat::Rgba8,
            alpha_type: ImageAlphaType::Alpha,
            width: w,
            height: h,
        };
        self.images.push((name.into(), d.clone()));
        d
    }
}

fn rrect(x: f32, y: f32, w: f32, h: f32, r: [f32; 4]) -> RoundedRect {
    let f = f64::from;
    RoundedRect::new(
        f(x),
        f(y),
        f(x + w),
        f(y + h),
        RoundedRectRadii::new(f(r[0]), f(r[1]), f(r[2]), f(r[3])),
    )
}

/// The scene file as a Vello scene: the same items, in the same order.
fn build(file: &SceneFile, assets: &mut Assets) -> Scene {
    let mut s = Scene::new();
    let id = Affine::IDENTITY;
    for item in &file.items {
        match item {
            Item::Rect(r) => {
                let radius = r.radius.corners();
                let outer = rrect(r.x, r.y, r.w, r.h, radius);
                let b = brush(&r.fill, r.opacity);
                match (r.border, r.ring) {
                    (_, Some(ring)) => {
                        let h = ring / 2.0;
                        let shape = rrect(
                            r.x + h,
                            r.y + h,
                            r.w - ring,
                            r.h - ring,
                            radius.map(|v| (v - h).max(0.0)),
                        );
                        s.stroke(&Stroke::new(f64::from(ring)), id, &b, None, &shape);
                    }
                    (Some(bd), None) => {
                        s.fill(Fill::NonZero, id, &b, None, &outer);
                        let h = bd.width / 2.0;
                        let shape = rrect(
                            r.x + h,
                            r.y + h,
                            r.w - bd.width,
                            r.h - bd.width,
                            radius.map(|v| (v - h).max(0.0)),
                        );
                        s.stroke(
                            &Stroke::new(f64::from(bd.width)),
                            id,
                            color(bd.color, r.opacity),
                            None,
                            &shape,
                        );
                    }
                    (None, None) => s.fill(Fill::NonZero, id, &b, None, &outer),
                }
            }
            Item::Circle(c) => {
                let shape = Circle::new((f64::from(c.cx), f64::from(c.cy)), f64::from(c.r));
                let b = brush(&c.fill, c.opacity);
                match c.ring {
                    Some(ring) => {
                        let inner = Circle::new(shape.center, shape.radius - f64::from(ring) / 2.0);
                        s.stroke(&Stroke::new(f64::from(ring)), id, &b, None, &inner);
                    }
                    None => s.fill(Fill::NonZero, id, &b, None, &shape),
                }
                if let Some(bd) = c.border {
                    let inner = Circle::new(shape.center, shape.radius - f64::from(bd.width) / 2.0);
                    s.stroke(
                        &Stroke::new(f64::from(bd.width)),
                        id,
                        color(bd.color, c.opacity),
                        None,
                        &inner,
                    );
                }
            }
            Item::Ellipse(e) => {
                let shape = Ellipse::new(
                    (f64::from(e.cx), f64::from(e.cy)),
                    (f64::from(e.rx), f64::from(e.ry)),
                    0.0,
                );
                s.fill(Fill::NonZero, id, &brush(&e.fill, e.opacity), None, &shape);
            }
            Item::Text(t) => {
                let (font, data) = assets.font(&t.font);
                let glyphs: Vec<vello::Glyph> = font
                    .layout(&t.text, t.size, t.x, t.y)
                    .into_iter()
                    .map(|(g, x, y)| vello::Glyph {
                        id: u32::from(g.0),
                        x,
                        y,
                    })
                    .collect();
                s.draw_glyphs(&data)
                    .font_size(t.size)
                    .brush(color(t.color, t.opacity))
                    .draw(Fill::NonZero, glyphs.into_iter());
            }
            Item::Paragraph(p) => {
                assets.shaper.get_or_insert_with(Shaper::new).paragraph(&mut s, p);
            }
            Item::Image(im) => {
                let data = assets.image(&im.path);
                let (iw, ih) = (f64::from(data.width), f64::from(data.height));
                let quality = match im.filter {
                    FilterJson::Nearest => ImageQuality::Low,
                    FilterJson::Bilinear => ImageQuality::Medium,
                };
                let b = ImageBrush::new(data)
                    .with_quality(quality)
                    .with_alpha(im.opacity);
                let t = Affine::translate((f64::from(im.x), f64::from(im.y)))
                    * Affine::scale_non_uniform(f64::from(im.w) / iw, f64::from(im.h) / ih);
                s.draw_image(&b, t);
            }
            Item::Shadow(sh) => {
                let r = sh.radius.corners();
                let radius = r.iter().cloned().fold(0.0f32, f32::max) + sh.spread.max(0.0);
                let rect = Rect::new(
                    f64::from(sh.x + sh.offset[0] - sh.spread),
                    f64::from(sh.y + sh.offset[1] - sh.spread),
                    f64::from(sh.x + sh.offset[0] + sh.w + sh.spread),
                    f64::from(sh.y + sh.offset[1] + sh.h + sh.spread),
                );
                s.draw_blurred_rounded_rect(
                    id,
                    rect,
                    color(sh.color, sh.opacity),
                    f64::from(radius),
                    f64::from(sh.blur / 2.0),
                );
            }
            Item::PushClip(c) => {
                s.push_clip_layer(
                    Fill::NonZero,
                    id,
                    &rrect(c.x, c.y, c.w, c.h, c.radius.corners()),
                );
            }
            Item::PopClip(_) => s.pop_layer(),
        }
    }
    s
}

/// The GPU time of the last frame the profiler finished: first pass start to last pass end.
fn gpu_span(results: &[wgpu_profiler_results::Query]) -> Option<f64> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for q in results {
        if let Some(t) = &q.time {
            lo = lo.min(t.start);
            hi = hi.max(t.end);
        }
    }
    (hi > lo).then_some((hi - lo) * 1e9)
}

mod wgpu_profiler_results {
    pub use wgpu_profiler::GpuTimerQueryResult as Query;
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut runs = 50usize;
    let mut png: Option<PathBuf> = None;
    let mut only: Vec<String> = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| die("--runs N".into()))
            }
            "--png" => png = args.next().map(PathBuf::from),
            "--only" => {
                only = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(a)),
            _ => die(format!(
                "unexpected argument {a}; usage: vello-peer SCENES_DIR [--runs N] [--png DIR] [--only NAME,...]"
            )),
        }
    }
    let dir = dir.unwrap_or_else(|| {
        die("usage: vello-peer SCENES_DIR [--runs N] [--png DIR] [--only NAME,...]".into())
    });
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| die(format!("{}: {e}", dir.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| {
            only.is_empty()
                || only
                    .iter()
                    .any(|o| p.file_stem().is_some_and(|s| s.to_string_lossy() == *o))
        })
        .collect();
    files.sort();

    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .unwrap_or_else(|e| die(format!("no adapter: {e}")));
    let want = wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("vello-peer"),
        required_features: adapter.features() & want,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .unwrap_or_else(|e| die(format!("no device: {e}")));
    let info = adapter.get_info();
    eprintln!("vello-peer: {} ({:?})", info.name, info.backend);
    let mut renderer = Renderer::new(
        &device,
        RendererOptions {
            use_cpu: false,
            antialiasing_support: AaSupport::area_only(),
            num_init_threads: std::num::NonZeroUsize::new(1),
            pipeline_cache: None,
        },
    )
    .unwrap_or_else(|e| die(format!("vello renderer: {e}")));
    renderer
        .profiler
        .change_settings(wgpu_profiler::GpuProfilerSettings {
            enable_timer_queries: true,
            ..Default::default()
        })
        .ok();

    for path in files {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let Some((scene_kind, items)) = stem.rsplit_once('-') else {
            continue;
        };
        let items: usize = items.parse().unwrap_or(0);
        let file = wavekit_ui::json::read(&path).unwrap_or_else(|e| die(e.to_string()));
        let mut assets = Assets {
            dir: dir.clone(),
            shaper: None,
            fonts: Vec::new(),
            images: Vec::new(),
        };
        let scene = build(&file, &mut assets);
        let (w, h) = (file.width, file.height);
        let tex = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("vello-peer target"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = tex.create_view(&Default::default());
        let params = RenderParams {
            base_color: Color::from_rgba8(
                file.background[0],
                file.background[1],
                file.background[2],
                file.background[3],
            ),
            width: w,
            height: h,
            antialiasing_method: AaConfig::Area,
        };
        // Size the buffers from the bump counters of a render with large ones.
        // As large as one storage binding allows (elements of 4 to 24 bytes), at most 2^24.
        let limit = device.limits().max_storage_buffer_binding_size;
        let fit = |bytes: u64, most: u32| (limit / bytes).min(u64::from(most)) as u32 - 1024;
        let big = [
            fit(4, 1 << 24),
            fit(8, 1 << 24),
            fit(24, 1 << 24),
            fit(8, 1 << 24),
            fit(24, 1 << 24),
            fit(4, 1 << 22),
            fit(4, 1 << 26),
        ];
        *vello_encoding::PEER_SIZES.lock().unwrap() = Some(big);
        // The bump counters are read back through a mapping: something must poll the device
        // while the render waits for it.
        let counted = |renderer: &mut Renderer| {
            let done = std::sync::atomic::AtomicBool::new(false);
            std::thread::scope(|sc| {
                sc.spawn(|| {
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        device.poll(wgpu::PollType::Poll).ok();
                        std::thread::sleep(Duration::from_millis(1));
                    }
                });
                #[allow(deprecated)]
                let r = pollster::block_on(renderer.render_to_texture_async(
                    &device,
                    &queue,
                    &scene,
                    &view,
                    &params,
                    vello::low_level::DebugLayers::none(),
                ));
                done.store(true, std::sync::atomic::Ordering::Relaxed);
                r
            })
            .unwrap_or_else(|e| die(format!("{stem}: vello: {e}")))
        };
        let bump = counted(&mut renderer);
        // The per-tile command lists (PTCL) start with 64 words a tile at fixed places; the
        // bump counter counts only the blocks allocated past them (coarse.wgsl:
        // `ptcl_dyn_start`), so the buffer needs both.
        let ptcl_static = w.div_ceil(16) * h.div_ceil(16) * 64;
        let sizes = match bump {
            Some(b) if b.failed == 0 => {
                let g = |v: u32, min: u32| (v + v / 4).max(min);
                [
                    g(b.binning, 1 << 16),
                    g(b.tile, 1 << 16),
                    g(b.lines, 1 << 16),
                    g(b.seg_counts, 1 << 16),
                    g(b.segments, 1 << 16),
                    g(b.blend, 1 << 16),
                    ptcl_static + g(b.ptcl, 1 << 18),
                ]
            }
            Some(b) => die(format!(
                "{stem}: vello overflowed even the large buffers: {b:?}"
            )),
            None => die(format!(
                "{stem}: no bump counters (build with the debug_layers feature)"
            )),
        };
        *vello_encoding::PEER_SIZES.lock().unwrap() = Some(sizes);
        eprintln!("vello-peer: {stem}: buffers sized from the bump counters: {sizes:?}");
        let frame = |renderer: &mut Renderer| {
            renderer
                .render_to_texture(&device, &queue, &scene, &view, &params)
                .unwrap_or_else(|e| die(format!("{stem}: vello: {e}")));
            device.poll(wgpu::PollType::wait_indefinitely()).ok();
        };
        // Warm up with the scene's own work.
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_millis(300) {
            frame(&mut renderer);
        }
        renderer.profile_result = None;
        let mut gpu = Vec::new();
        let mut wall = Vec::new();
        for _ in 0..runs + 4 {
            let t = Instant::now();
            frame(&mut renderer);
            wall.push(t.elapsed().as_nanos() as f64);
            if let Some(r) = renderer.profile_result.take()
                && let Some(ns) = gpu_span(&r)
            {
                gpu.push(ns);
            }
        }
        if gpu.is_empty() {
            die(format!(
                "{stem}: the profiler returned no GPU times (timestamp queries missing?)"
            ));
        }
        gpu.sort_by(f64::total_cmp);
        wall.sort_by(f64::total_cmp);
        // The timed renders ran with these sizes: one more render with them, counted, must not
        // have run out of room in any stage (a stage that does drops its tiles' work).
        match counted(&mut renderer) {
            Some(b) if b.failed == 0 => {}
            other => die(format!(
                "{stem}: vello ran out of room with the sized buffers {sizes:?}: {other:?}"
            )),
        }
        // Check the output: pixels that differ from the background.
        let pitch = (w * 4).next_multiple_of(256);
        let buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: u64::from(pitch * h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            tex.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buf,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(pitch),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([enc.finish()]);
        buf.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device.poll(wgpu::PollType::wait_indefinitely()).ok();
        let bytes = buf.slice(..).get_mapped_range().unwrap().to_vec();
        let img = image::RgbaImage::from_fn(w, h, |x, y| {
            let o = (y * pitch + x * 4) as usize;
            image::Rgba([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
        });
        let drawn = img.pixels().filter(|p| p.0 != file.background).count();
        if let Some(d) = &png {
            std::fs::create_dir_all(d).ok();
            img.save(d.join(format!("{stem}.png"))).ok();
        }
        println!(
            "{}",
            serde_json::json!({
                "peer": "vello 0.11",
                "scene": scene_kind,
                "items": items,
                "median_ns": percentile(&gpu, 0.5),
                "p99_ns": percentile(&gpu, 0.99),
                "frame_ns": percentile(&wall, 0.5),
                "runs": gpu.len(),
                "pixels_drawn": drawn,
                "buffer_sizes": sizes,
            })
        );
        if drawn == 0 {
            die(format!("{stem}: vello drew nothing"));
        }
    }
    let _ = Path::new(".");
}
