//! The compositor on the GPU against the CPU reference, pixel for pixel, on scenes that stress
//! draw order (translucent stacks, text over buttons, a knob over its track, clips in clips,
//! items straddling tiles and bins, 10 000 items on one tile), every item kind, edge sizes,
//! the opaque culling, the compaction variants, the texture target, and the bin lists.
//!
//! Pixels are compared exactly, except that a channel may differ by 1 where the GPU's f32
//! arithmetic rounds differently (fused multiply-adds; `exp`, `sqrt` and division that are not
//! correctly rounded); those pixels are counted and bounded per case, and any larger difference
//! fails.

use wavekit::GpuContext;
use wavekit_harness::gpu;
use wavekit_ui::*;

/// At most this fraction of a case's pixels may differ by one in a channel.
const ONE_OFF_FRACTION: f64 = 0.01;

fn renderer(ctx: &GpuContext, config: RenderConfig) -> UiRenderer {
    UiRenderer::new(ctx, config).unwrap()
}

/// Pixels that differ, and the largest channel difference.
fn diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (usize, u8) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut n = 0;
    let mut worst = 0u8;
    for (p, q) in a.pixels().zip(b.pixels()) {
        if p != q {
            n += 1;
            for c in 0..4 {
                worst = worst.max(p.0[c].abs_diff(q.0[c]));
            }
        }
    }
    (n, worst)
}

/// GPU against the reference: no channel off by more than 1, and few off by 1.
fn check(ctx: &GpuContext, ui: &UiRenderer, scene: &Scene, case: &str) -> image::RgbaImage {
    let t = std::time::Instant::now();
    let got = ui.render_to_image(ctx, scene).unwrap();
    let gpu_s = t.elapsed().as_secs_f64();
    let want = cpu::render(scene);
    let cpu_s = t.elapsed().as_secs_f64() - gpu_s;
    let (n, worst) = diff(&got, &want);
    let pixels = (scene.width() * scene.height()) as usize;
    eprintln!(
        "{case}: {n} of {pixels} pixels differ from the reference (by at most {worst}); \
         GPU {gpu_s:.2} s, reference {cpu_s:.2} s"
    );
    if worst > 1 || n as f64 > ONE_OFF_FRACTION * pixels as f64 + 1.0 {
        let dir = std::env::temp_dir();
        got.save(dir.join("ui-gpu-failed.png")).ok();
        want.save(dir.join("ui-cpu-failed.png")).ok();
        panic!(
            "{case}: {n} of {pixels} pixels differ, by up to {worst} (images in {})",
            dir.display()
        );
    }
    got
}

fn colour(rng: &mut fastrand::Rng, alpha: bool) -> Color {
    [
        rng.u8(..),
        rng.u8(..),
        rng.u8(..),
        if alpha { rng.u8(..) } else { 255 },
    ]
}

fn test_image(w: u32, h: u32, seed: u8) -> image::RgbaImage {
    image::RgbaImage::from_fn(w, h, |x, y| {
        let a = if (x + y) % 5 == 0 { 128 } else { 255 };
        image::Rgba([
            (x * 37) as u8 ^ seed,
            (y * 59) as u8,
            ((x * y) as u8).wrapping_add(seed),
            a,
        ])
    })
}

/// Random items of every kind over a `w × h` viewport, many overlapping and translucent,
/// some straddling the viewport's edge, some in nested clips.
fn random_scene(seed: u64, w: u32, h: u32, n: usize) -> Scene {
    random_scene_of(seed, w, h, n, u32::MAX)
}

/// Rolls of [`random_scene_of`]: 0-2 rectangles, 3-4 ellipses, 5 images, 6 text, 7 shadows,
/// 8 clips pushed (9: popped), and bit 10 gradient fills.
const ROLL_SHAPES: u32 = 0b11111;
const ROLL_IMAGES: u32 = 1 << 5;
const ROLL_TEXT: u32 = 1 << 6;
const ROLL_SHADOWS: u32 = 1 << 7;
const ROLL_CLIPS: u32 = 0b11 << 8;
const ROLL_GRADIENTS: u32 = 1 << 10;

/// A random scene of the kinds of item whose rolls `allow` holds.
fn random_scene_of(seed: u64, w: u32, h: u32, n: usize, allow: u32) -> Scene {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut s = Scene::new(w, h).unwrap();
    let translucent = rng.bool();
    s.set_background(colour(&mut rng, translucent));
    let font = s.add_font(Font::dejavu_sans());
    let img = s.add_image(&test_image(13, 9, 3)).unwrap();
    let (fw, fh) = (w as f32, h as f32);
    let mut depth = 0;
    for _ in 0..n {
        let x = rng.f32() * fw * 1.2 - fw * 0.1;
        let y = rng.f32() * fh * 1.2 - fh * 0.1;
        let iw = rng.f32() * fw * 0.5 + 0.5;
        let ih = rng.f32() * fh * 0.5 + 0.5;
        let fill = if rng.u32(..5) == 0 && allow & ROLL_GRADIENTS != 0 {
            Fill::Linear(LinearGradient {
                start: [x, y],
                end: [x + iw, y + ih * rng.f32()],
                stops: vec![
                    (0.0, colour(&mut rng, true)),
                    (rng.f32() * 0.5 + 0.2, colour(&mut rng, true)),
                    (1.0, colour(&mut rng, true)),
                ],
            })
        } else {
            let translucent = rng.bool();
            Fill::Solid(colour(&mut rng, translucent))
        };
        let opacity = if rng.bool() { 1.0 } else { rng.f32() };
        let roll = rng.u32(..10);
        if allow & (1 << roll) == 0 {
            continue;
        }
        match roll {
            0..=2 => {
                let mut r = Rect::new(x, y, iw, ih, fill);
                r.radius = [0, 1, 2, 3].map(|_| rng.f32() * 12.0);
                if rng.bool() {
                    r.border = Some(Border {
                        width: rng.f32() * 4.0,
                        color: colour(&mut rng, true),
                    });
                } else if rng.u32(..4) == 0 {
                    r.ring = Some(rng.f32() * 5.0 + 0.5);
                }
                r.opacity = opacity;
                s.rect(&r).unwrap();
            }
            3 | 4 => {
                let mut e = Ellipse::circle(x, y, iw * 0.3, fill);
                e.ry = if rng.bool() { e.rx } else { ih * 0.3 };
                if rng.bool() {
                    e.border = Some(Border {
                        width: rng.f32() * 3.0,
                        color: colour(&mut rng, true),
                    });
                } else if rng.u32(..3) == 0 {
                    e.ring = Some(rng.f32() * 4.0 + 0.5);
                }
                e.opacity = opacity;
                s.ellipse(&e).unwrap();
            }
            5 => {
                s.image(&Image {
                    x,
                    y,
                    w: iw,
                    h: ih,
                    image: img,
                    src: if rng.bool() { None } else { Some([2, 1, 7, 6]) },
                    filter: if rng.bool() {
                        Filter::Bilinear
                    } else {
                        Filter::Nearest
                    },
                    tint: colour(&mut rng, true),
                    opacity,
                })
                .unwrap();
            }
            6 => {
                s.text(&Text {
                    x,
                    y,
                    size: 6.0 + rng.f32() * 20.0,
                    color: colour(&mut rng, true),
                    font,
                    text: "Wavy AV ok".into(),
                    opacity,
                })
                .unwrap();
            }
            7 => {
                s.shadow(&BoxShadow {
                    x,
                    y,
                    w: iw,
                    h: ih,
                    radius: [0, 1, 2, 3].map(|_| rng.f32() * 10.0),
                    offset: [rng.f32() * 6.0 - 3.0, rng.f32() * 6.0],
                    blur: rng.f32() * 12.0,
                    spread: rng.f32() * 4.0 - 2.0,
                    color: colour(&mut rng, true),
                    opacity,
                })
                .unwrap();
            }
            8 if depth < 3 => {
                s.push_clip(&Clip {
                    x,
                    y,
                    w: iw * 1.5,
                    h: ih * 1.5,
                    radius: [0, 1, 2, 3].map(|_| rng.f32() * 9.0),
                })
                .unwrap();
                depth += 1;
            }
            _ if depth > 0 => {
                s.pop_clip().unwrap();
                depth -= 1;
            }
            _ => {}
        }
    }
    for _ in 0..depth {
        s.pop_clip().unwrap();
    }
    s
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn random_stacks_of_every_kind_match_the_reference_at_every_size() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    // 1 x 1, below a tile, a tile, a tile and one, a prime width, across bins (128 px).
    for (i, (w, h, n)) in [
        (1, 1, 20),
        (5, 3, 30),
        (16, 16, 60),
        (17, 15, 60),
        (37, 23, 80),
        (100, 70, 200),
        (300, 90, 300),
        (263, 271, 400),
        (900, 600, 2500),
    ]
    .into_iter()
    .enumerate()
    {
        let scene = random_scene(100 + i as u64, w, h, n);
        check(ctx, &ui, &scene, &format!("{w}x{h}, {n} items"));
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn an_empty_scene_is_its_background() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    for (w, h) in [(1, 1), (33, 17)] {
        let mut s = Scene::new(w, h).unwrap();
        s.set_background([10, 20, 30, 40]);
        let got = check(ctx, &ui, &s, "empty");
        assert!(got.pixels().all(|p| p.0 == [10, 20, 30, 40]));
    }
}

/// The demo panel: buttons with text, a knob over its track, a checkbox, an image, a clipped
/// list.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_demo_panel_matches_the_reference() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let scene = wavekit_ui::demo::panel(0.37, 1.5).unwrap();
    let got = check(ctx, &ui, &scene, "demo panel");
    got.save(std::env::temp_dir().join("wavekit-ui-demo-test.png"))
        .ok();
}

/// Shaped paragraphs of every sample script and emoji, wrapped, aligned every way, both
/// directions, translucent, over shapes and in a clip, at several sizes (subpixel pens, colour
/// glyphs from the image atlas): GPU = CPU.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn shaped_paragraphs_match_the_reference() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let mut s = Scene::new(333, 251).unwrap();
    s.set_background([250, 248, 240, 255]);
    let fonts: Vec<FontId> = Font::noto_samples()
        .into_iter()
        .map(|f| s.add_font(f))
        .collect();
    let mut rng = fastrand::Rng::with_seed(0x9a7a);
    s.rect(&Rect::new(20.0, 30.0, 140.0, 90.0, [60, 120, 220, 255]).radius(12.0))
        .unwrap();
    s.push_clip(&Clip {
        x: 3.0,
        y: 2.0,
        w: 320.0,
        h: 240.0,
        radius: [20.0; 4],
    })
    .unwrap();
    let aligns = Align::ALL;
    let mut y = -3.0;
    for (i, line) in SAMPLE_TEXT.lines().chain(SAMPLE_TEXT.lines()).enumerate() {
        let size = 9.0 + rng.f32() * 14.0;
        let mut p = Paragraph::new(line, fonts[0], size, 1.0 + rng.f32() * 30.0, y + rng.f32());
        p.width = Some(90.0 + rng.f32() * 200.0);
        p.align = aligns[i % aligns.len()];
        p.direction = [Direction::Auto, Direction::Rtl, Direction::Ltr][i % 3];
        p.color = colour(&mut rng, i % 2 == 1);
        p.opacity = if i % 4 == 3 { 0.6 } else { 1.0 };
        let l = s.paragraph(&p).unwrap();
        assert!(l.missing.is_empty(), "{line}: {:?}", l.missing);
        y += l.height * 0.8;
    }
    s.pop_clip().unwrap();
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    let got = check(ctx, &ui, &s, "shaped paragraphs");
    got.save(std::env::temp_dir().join("wavekit-ui-paragraphs-test.png"))
        .ok();
    // Colour glyphs drew colour: some pixel is far from grey and from every text colour.
    assert!(s.image_count() >= 3, "{} colour glyphs", s.image_count());
}

/// Order: each colour's later copy must win. A stack of opaque and translucent rectangles
/// where every pair overlaps, and text over buttons over a shadow.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn draw_order_is_kept_in_stacks_and_text_over_buttons() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let mut s = Scene::new(120, 80).unwrap();
    s.set_background([255; 4]);
    let font = s.add_font(Font::dejavu_sans());
    for i in 0..40 {
        let o = i as f32 * 1.5;
        let a = if i % 3 == 0 { 255 } else { 90 };
        s.rect(
            &Rect::new(
                5.0 + o,
                5.0 + o * 0.5,
                50.0,
                30.0,
                [(i * 6) as u8, 255 - (i * 6) as u8, 128, a],
            )
            .radius(4.0),
        )
        .unwrap();
    }
    s.shadow(&BoxShadow {
        x: 20.0,
        y: 40.0,
        w: 80.0,
        h: 28.0,
        radius: [2.0, 14.0, 6.0, 0.0],
        offset: [2.0, 3.0],
        blur: 8.0,
        spread: 1.0,
        color: [0, 0, 0, 160],
        opacity: 1.0,
    })
    .unwrap();
    s.rect(
        &Rect::new(20.0, 40.0, 80.0, 28.0, [40, 90, 200, 255])
            .radius(6.0)
            .border(1.5, [10, 20, 90, 255]),
    )
    .unwrap();
    s.text(&Text {
        x: 30.0,
        y: 59.0,
        size: 14.0,
        color: [255; 4],
        font,
        text: "Apply AV".into(),
        opacity: 1.0,
    })
    .unwrap();
    let got = check(ctx, &ui, &s, "stack, text over a button");
    // White text pixels survive on the blue button (text drawn after it).
    let on_button = (30..100).flat_map(|x| (46..62).map(move |y| (x, y)));
    assert!(
        on_button
            .clone()
            .any(|(x, y)| got.get_pixel(x, y).0[0] > 200)
    );
}

/// Clips inside clips: nothing outside the inner clip, everything inside it.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn clips_inside_clips() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let mut s = Scene::new(90, 90).unwrap();
    s.set_background([0, 0, 0, 255]);
    s.push_clip(&Clip {
        x: 10.0,
        y: 10.0,
        w: 70.0,
        h: 70.0,
        radius: [20.0, 0.0, 5.0, 10.0],
    })
    .unwrap();
    s.rect(&Rect::new(0.0, 0.0, 90.0, 90.0, [0, 0, 255, 255]))
        .unwrap();
    s.push_clip(&Clip {
        x: 40.0,
        y: 0.0,
        w: 60.0,
        h: 30.5,
        radius: [6.0; 4],
    })
    .unwrap();
    s.rect(&Rect::new(0.0, 0.0, 90.0, 90.0, [255, 0, 0, 200]))
        .unwrap();
    s.pop_clip().unwrap();
    s.ellipse(&Ellipse::circle(80.0, 80.0, 12.0, [0, 255, 0, 255]))
        .unwrap();
    s.pop_clip().unwrap();
    s.rect(&Rect::new(0.0, 85.0, 90.0, 5.0, [255, 255, 0, 255]))
        .unwrap();
    let got = check(ctx, &ui, &s, "clips in clips");
    assert_eq!(
        got.get_pixel(5, 5).0,
        [0, 0, 0, 255],
        "outside the outer clip"
    );
    assert_eq!(
        got.get_pixel(30, 60).0,
        [0, 0, 255, 255],
        "inside the outer clip only"
    );
    assert_eq!(got.get_pixel(60, 20).0[0], 200, "inside both clips");
    assert_eq!(
        got.get_pixel(60, 50).0,
        [0, 0, 255, 255],
        "below the inner clip"
    );
    assert_eq!(
        got.get_pixel(50, 87).0,
        [255, 255, 0, 255],
        "after both clips"
    );
}

/// 10 000 translucent items on one tile: 40 chunks of candidates, in order.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn ten_thousand_items_on_one_tile() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(10_000);
    let mut s = Scene::new(40, 40).unwrap();
    s.set_background([255; 4]);
    for i in 0..10_000 {
        let x = 16.0 + rng.f32() * 12.0;
        let y = 16.0 + rng.f32() * 12.0;
        if i % 2 == 0 {
            s.rect(&Rect::new(x - 3.0, y - 3.0, 6.0, 6.0, colour(&mut rng, true)).radius(2.0))
                .unwrap();
        } else {
            s.ellipse(&Ellipse::circle(x, y, 3.0, colour(&mut rng, true)))
                .unwrap();
        }
    }
    for compaction in [Compaction::Ordered, Compaction::Serial] {
        let ui = renderer(
            ctx,
            RenderConfig {
                compaction,
                ..Default::default()
            },
        );
        check(
            ctx,
            &ui,
            &s,
            &format!("10 000 items, {}", compaction.name()),
        );
    }
}

/// The renderer's speed-ups change no bit: the bins' cover flags (the walk for covers only
/// where one can be found: the same covers, so the same candidates composited), fine kernels
/// specialised for what a scene holds, records staged in workgroup memory and bin lists placed
/// by a workgroup a chunk (the cover flags set there), against the walk in every bin, the
/// general kernel, records read from the scene and lists by a workgroup a bin, on random scenes
/// of several bins and chunks.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn cover_flags_and_specialised_kernels_change_no_bit() {
    let ctx = gpu();
    let config = |cover_flags, specialize, stage_records, place_by_chunk| RenderConfig {
        stats: true,
        cover_flags,
        specialize,
        stage_records,
        place_by_chunk,
        place_min_items: 0,
        ..Default::default()
    };
    let base = renderer(ctx, config(false, false, false, false));
    let variants = [
        (config(true, false, false, false), "cover flags"),
        (config(false, true, false, false), "specialised"),
        (config(false, false, true, false), "staged"),
        (config(false, false, false, true), "placed by chunk"),
        (config(true, true, true, true), "all"),
    ]
    .map(|(c, name)| (renderer(ctx, c), name));
    // Without culling: every candidate composited.
    let off = renderer(
        ctx,
        RenderConfig {
            cull: false,
            ..config(false, false, false, false)
        },
    );
    let mut deepest = 0;
    for (seed, w, h, n) in [(31, 96, 64, 700), (32, 600, 280, 2500), (33, 530, 300, 900)] {
        let mut s = random_scene(seed, w, h, n);
        // Opaque covers over whole tiles, with translucent items above some of them.
        let mut rng = fastrand::Rng::with_seed(seed);
        for _ in 0..8 {
            let (x, y) = (rng.f32() * w as f32 * 0.8, rng.f32() * h as f32 * 0.8);
            let cover = Rect::new(x, y, 40.0 + rng.f32() * 60.0, 36.0, colour(&mut rng, false));
            s.rect(&cover.radius(4.0)).unwrap();
            let above = Rect::new(x + 8.0, y + 4.0, 20.0, 12.0, colour(&mut rng, true));
            s.rect(&above).unwrap();
        }
        // A stack of translucent items on one tile, deeper than two staging batches.
        let (x, y) = (rng.f32() * (w as f32 - 24.0), rng.f32() * (h as f32 - 24.0));
        for j in 0..150 {
            let r = Rect::new(
                x + (j % 7) as f32,
                y + (j % 5) as f32,
                12.0,
                10.0,
                colour(&mut rng, true),
            );
            s.rect(&r.radius(3.0)).unwrap();
        }
        let mut f = base.frame(ctx).unwrap();
        let want = base.render_frame_to_image(ctx, &mut f, &s).unwrap();
        let want_stats = base.tile_stats(ctx, &f).unwrap().per_tile;
        deepest = deepest.max(want_stats.iter().copied().max().unwrap_or(0));
        let mut culled = 0usize;
        for (ui, name) in &variants {
            let mut f = ui.frame(ctx).unwrap();
            let got = ui.render_frame_to_image(ctx, &mut f, &s).unwrap();
            let (d, worst) = diff(&got, &want);
            assert_eq!((d, worst), (0, 0), "seed {seed}, {name}: pixels differ");
            let stats = ui.tile_stats(ctx, &f).unwrap().per_tile;
            assert_eq!(
                stats, want_stats,
                "seed {seed}, {name}: candidates composited"
            );
        }
        let mut f = off.frame(ctx).unwrap();
        off.render_frame_to_image(ctx, &mut f, &s).unwrap();
        let all = off.tile_stats(ctx, &f).unwrap().per_tile;
        culled += all.iter().zip(&want_stats).filter(|(a, b)| a != b).count();
        // A scene where the walk finds nothing would not test the flags.
        assert!(culled > 0, "seed {seed}: no tile had an opaque cover");
        check(ctx, &variants[4].0, &s, &format!("seed {seed}, all"));
    }
    // The staging takes a tile's survivors in batches of 64: some tile must need several.
    assert!(
        deepest > 2 * 64,
        "the deepest tile composited only {deepest} candidates"
    );
}

/// One frame draws scenes of different kinds one after another: each takes the fine kernel
/// built for what it holds, bound afresh, and draws what the general kernel draws, bit for bit.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn specialised_kernels_follow_the_scene_from_frame_to_frame() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let general = renderer(
        ctx,
        RenderConfig {
            specialize: false,
            ..Default::default()
        },
    );
    let mut frame = ui.frame(ctx).unwrap();
    let mut general_frame = general.frame(ctx).unwrap();
    let cases = [
        ("shapes", ROLL_SHAPES),
        ("text", ROLL_TEXT),
        ("images", ROLL_IMAGES),
        (
            "shapes, gradients and shadows",
            ROLL_SHAPES | ROLL_GRADIENTS | ROLL_SHADOWS,
        ),
        (
            "text and images in clips",
            ROLL_TEXT | ROLL_IMAGES | ROLL_CLIPS,
        ),
        ("everything", u32::MAX),
        ("shapes again", ROLL_SHAPES),
    ];
    for (i, (name, allow)) in cases.into_iter().enumerate() {
        let s = random_scene_of(40 + i as u64, 150, 90, 400, allow);
        let got = ui.render_frame_to_image(ctx, &mut frame, &s).unwrap();
        let want = general
            .render_frame_to_image(ctx, &mut general_frame, &s)
            .unwrap();
        assert_eq!(diff(&got, &want), (0, 0), "{name}: pixels differ");
        check(ctx, &ui, &s, name);
    }
}

/// The opaque culling changes no pixel, and it draws nothing beneath an opaque cover: with
/// culling on, the covered tiles composite only what lies above the cover.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn culling_draws_nothing_beneath_an_opaque_cover_and_changes_no_pixel() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(5);
    let mut s = Scene::new(64, 48).unwrap();
    for _ in 0..500 {
        s.rect(&Rect::new(
            rng.f32() * 60.0,
            rng.f32() * 44.0,
            8.0,
            8.0,
            colour(&mut rng, true),
        ))
        .unwrap();
    }
    // An opaque rounded cover over tiles (0..3, 0..3) with a translucent border (its opaque
    // box, inset by border, radius and a pixel, holds tile (1, 1) only), and a rounded one
    // whose corners cut into tile (3, 0).
    s.rect(
        &Rect::new(0.0, 0.0, 48.0, 48.0, [10, 200, 10, 255])
            .radius(4.0)
            .border(2.0, [0, 0, 0, 128]),
    )
    .unwrap();
    s.rect(&Rect::new(40.0, 0.0, 24.0, 24.0, [10, 10, 200, 255]).radius(30.0))
        .unwrap();
    // A translucent cover hides nothing; an item above the cover is drawn.
    s.rect(&Rect::new(30.0, 30.0, 40.0, 20.0, [200, 10, 10, 254]))
        .unwrap();
    s.ellipse(&Ellipse::circle(8.0, 8.0, 4.0, [255, 255, 255, 100]))
        .unwrap();
    // An opaque image over tile (0, 2) and one with translucent texels over tile (1, 2).
    let solid = s
        .add_image(&image::RgbaImage::from_fn(4, 4, |x, y| {
            image::Rgba([x as u8 * 60, y as u8 * 60, 9, 255])
        }))
        .unwrap();
    let holes = s.add_image(&test_image(4, 4, 1)).unwrap();
    for (x, id) in [(-2.0, solid), (14.0, holes)] {
        s.image(&Image {
            x,
            y: 30.0,
            w: 22.0,
            h: 20.0,
            image: id,
            src: None,
            filter: Filter::Bilinear,
            tint: [255; 4],
            opacity: 1.0,
        })
        .unwrap();
    }
    let on = renderer(
        ctx,
        RenderConfig {
            stats: true,
            ..Default::default()
        },
    );
    let off = renderer(
        ctx,
        RenderConfig {
            stats: true,
            cull: false,
            ..Default::default()
        },
    );
    let mut f_on = on.frame(ctx).unwrap();
    let mut f_off = off.frame(ctx).unwrap();
    let a = on.render_frame_to_image(ctx, &mut f_on, &s).unwrap();
    let b = off.render_frame_to_image(ctx, &mut f_off, &s).unwrap();
    assert_eq!(a, b, "culling changed pixels");
    check(ctx, &on, &s, "culling");
    let st_on = on.tile_stats(ctx, &f_on).unwrap();
    let st_off = off.tile_stats(ctx, &f_off).unwrap();
    let t = |st: &FrameStats, x: u32, y: u32| st.per_tile[(y * st.tiles_x + x) as usize];
    // Tile (1, 1): the cover and the three later items whose boxes reach it (the translucent
    // rectangle from column 29, the two images from row 29); none of the 500 beneath.
    assert_eq!(
        t(&st_on, 1, 1),
        4,
        "tile (1, 1): the cover and what is above it"
    );
    assert!(
        t(&st_off, 1, 1) > 10,
        "without culling everything beneath is composited"
    );
    assert!(
        t(&st_on, 0, 0) > 2,
        "tile (0, 0) is not wholly inside the cover's opaque box"
    );
    assert!(
        t(&st_on, 2, 2) > 1,
        "tile (2, 2) reaches the cover's border"
    );
    assert!(
        t(&st_on, 3, 0) > 2,
        "a rounded corner does not hide the tile"
    );
    assert_eq!(
        t(&st_on, 3, 2),
        t(&st_off, 3, 2),
        "a translucent cover hides nothing"
    );
    // The translucent rectangle holds all of tile (3, 2): it would hide what is beneath.
    assert!(t(&st_on, 3, 2) > 2);
    assert!(
        t(&st_on, 0, 2) <= 2 && t(&st_off, 0, 2) > 5,
        "the opaque image hides tile (0, 2)"
    );
    assert_eq!(
        t(&st_on, 1, 2),
        t(&st_off, 1, 2),
        "an image with translucent texels hides nothing"
    );
}

/// The measurement variants: the serial scan gives the same image; the atomic counter gives
/// the same image where no two items overlap (its order is arbitrary: that is what it
/// measures), and does not fail where they do.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_compaction_variants() {
    let ctx = gpu();
    let serial = renderer(
        ctx,
        RenderConfig {
            compaction: Compaction::Serial,
            ..Default::default()
        },
    );
    let atomic = renderer(
        ctx,
        RenderConfig {
            compaction: Compaction::Atomic,
            ..Default::default()
        },
    );
    let scene = random_scene(7, 150, 90, 300);
    check(ctx, &serial, &scene, "serial");
    // Apart: a grid of circles that do not touch (boxes overlap; coverage does not).
    let mut s = Scene::new(96, 64).unwrap();
    s.set_background([255; 4]);
    let mut rng = fastrand::Rng::with_seed(9);
    for y in 0..8 {
        for x in 0..12 {
            s.ellipse(&Ellipse::circle(
                x as f32 * 8.0 + 4.0,
                y as f32 * 8.0 + 4.0,
                2.5,
                colour(&mut rng, true),
            ))
            .unwrap();
        }
    }
    check(ctx, &atomic, &s, "atomic, apart");
    atomic.render_to_image(ctx, &scene).unwrap();
}

/// The texture target gives the buffer target's pixels.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_texture_target_matches_the_buffer_target() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let scene = random_scene(11, 70, 45, 120);
    let want = ui.render_to_image(ctx, &scene).unwrap();
    let (w, h) = (scene.width(), scene.height());
    let tex = gpu::storage_target(ctx, "ui test target", (w, h), wgpu::TextureUsages::COPY_SRC);
    let mut frame = ui.frame(ctx).unwrap();
    ui.upload(ctx, &mut frame, &scene).unwrap();
    ui.target_texture(ctx, &mut frame, &tex).unwrap();
    let pitch = (w * 4).next_multiple_of(256);
    let out = ctx
        .storage_poisoned("copy", (pitch * h / 4) as usize)
        .unwrap();
    ctx.submit(|enc| {
        ui.record(&frame, enc).unwrap();
        enc.copy_texture_to_buffer(
            tex.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &out,
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
    });
    let words: Vec<u32> = ctx
        .read_back("copy", &out, (pitch * h / 4) as usize)
        .unwrap();
    let got = image::RgbaImage::from_fn(w, h, |x, y| {
        image::Rgba(words[(y * pitch / 4 + x) as usize].to_le_bytes())
    });
    assert_eq!(got, want);
    // A texture of the wrong format is an error, not a panic.
    let bad = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    assert!(ui.target_texture(ctx, &mut frame, &bad).is_err());
}

/// The binning kernels' lists are the reference's: each bin's items in draw order, placed by
/// a workgroup a chunk (`bin_place`) and by a workgroup a bin (`bin_emit`).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bin_lists_hold_each_bins_items_in_draw_order() {
    let ctx = gpu();
    let mut placers = [true, false].map(|place_by_chunk| {
        let ui = renderer(
            ctx,
            RenderConfig {
                place_by_chunk,
                place_min_items: 0,
                ..Default::default()
            },
        );
        let frame = ui.frame(ctx).unwrap();
        (ui, frame, place_by_chunk)
    });
    let mut scenes = Vec::new();
    for (seed, w, h, n) in [
        (1, 600, 300, 700),
        (2, 257, 513, 1000),
        (3, 40, 40, 0),
        (4, 1000, 20, 3),
        (5, 300, 200, 1),
        (6, 700, 500, 255),
        (7, 700, 500, 256),
        (8, 700, 500, 257),
    ] {
        scenes.push((
            format!("{w}x{h}, {n} random items"),
            random_scene(seed, w, h, n),
        ));
    }
    // Small items scattered over many bins (a chunk's pairs mostly hold one item), a stack of
    // 600 on one bin across three chunks (pairs of up to 256), and items over every bin.
    let mut rng = fastrand::Rng::with_seed(9);
    let (w, h) = (1100u32, 700u32);
    let mut s = Scene::new(w, h).unwrap();
    for k in 0..1500 {
        let (x, y, size) = if k % 5 == 0 {
            (300.0 + rng.f32() * 40.0, 200.0 + rng.f32() * 40.0, 20.0)
        } else {
            (
                rng.f32() * w as f32,
                rng.f32() * h as f32,
                4.0 + rng.f32() * 8.0,
            )
        };
        s.rect(&Rect::new(x, y, size, size, colour(&mut rng, true)))
            .unwrap();
        if k % 500 == 250 {
            s.rect(&Rect::new(
                -5.0,
                -5.0,
                w as f32 + 10.0,
                h as f32 + 10.0,
                colour(&mut rng, false),
            ))
            .unwrap();
        }
    }
    scenes.push(("scattered, stacked and whole-frame items".into(), s));
    for (name, scene) in &scenes {
        let want = cpu::bin_lists(scene);
        for (ui, frame, by_chunk) in &mut placers {
            ui.render_frame_to_image(ctx, frame, scene).unwrap();
            assert_eq!(
                ui.bin_lists(ctx, frame).unwrap(),
                want,
                "{name}, placed by chunk: {by_chunk}"
            );
        }
    }
}

/// One frame reused for scenes that grow and shrink, and for new atlases.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_frame_is_reused_across_scenes() {
    let ctx = gpu();
    let ui = renderer(ctx, RenderConfig::default());
    let mut frame = ui.frame(ctx).unwrap();
    for (seed, n, w, h) in [
        (20, 10, 30, 30),
        (21, 600, 200, 120),
        (22, 40, 64, 31),
        (23, 900, 260, 140),
    ] {
        let scene = random_scene(seed, w, h, n);
        let got = ui.render_frame_to_image(ctx, &mut frame, &scene).unwrap();
        let (d, worst) = diff(&got, &cpu::render(&scene));
        assert!(
            worst <= 1 && (d as f64) <= ONE_OFF_FRACTION * (w * h) as f64 + 1.0,
            "{n} items: {d} pixels, {worst}"
        );
    }
}

/// Stress (issue 32): 200 000 opaque 3 × 3 rectangles on 64 × 48 pixels, every tile's list
/// about 17 000 candidates long, 781 chunks on the one bin. On llvmpipe, whose loops stop after
/// 65 535 iterations in all, the fine stage once drew wrong pixels from about 135 000 items.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn stress_two_hundred_thousand_items() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(200_000);
    let mut s = Scene::new(64, 48).unwrap();
    s.set_background([0, 0, 0, 255]);
    for _ in 0..200_000 {
        let x = rng.f32() * 66.0 - 2.0;
        let y = rng.f32() * 50.0 - 2.0;
        s.rect(&Rect::new(x, y, 3.0, 3.0, colour(&mut rng, false)))
            .unwrap();
    }
    let ui = renderer(ctx, RenderConfig::default());
    check(ctx, &ui, &s, "200 000 opaque 3 x 3 rectangles");
}

/// Stress (issue 32): clips nested 5 000 deep, cycling through eight nested rounded boxes (some
/// edges on pixel centres, where each clip covers half), a translucent item every 50 levels
/// and a few at the bottom, then 5 000 pops and a last rectangle. On llvmpipe the deep items
/// take several fine passes (each walks its chain of clips: a loop up to 5 000 long); the
/// reference's walk stops where the chain's boxes settle it (deep chains cost it a step or two
/// a pixel, not their depth).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn stress_clips_five_thousand_deep() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(5_000);
    let (w, h) = (64.0f32, 48.0f32);
    let mut s = Scene::new(64, 48).unwrap();
    s.set_background([20, 20, 20, 255]);
    let depth = 5_000;
    for i in 0..depth {
        let k = (i % 8) as f32;
        let inset = 0.5 + 2.25 * k;
        s.push_clip(&Clip {
            x: inset,
            y: inset * 0.75,
            w: w - 2.0 * inset,
            h: h - 1.5 * inset,
            radius: if i % 3 == 0 {
                [0.0; 4]
            } else {
                [k, 0.0, 2.0, 0.5 * k]
            },
        })
        .unwrap();
        if i % 50 == 49 || i >= depth - 4 {
            let x = rng.f32() * w;
            let y = rng.f32() * h;
            if rng.bool() {
                s.rect(&Rect::new(
                    x - 20.0,
                    y - 15.0,
                    40.0,
                    30.0,
                    colour(&mut rng, true),
                ))
                .unwrap();
            } else {
                s.ellipse(&Ellipse::circle(x, y, 18.0, colour(&mut rng, true)))
                    .unwrap();
            }
        }
    }
    for _ in 0..depth {
        s.pop_clip().unwrap();
    }
    s.rect(&Rect::new(2.5, 2.5, 10.0, 10.0, [255, 255, 0, 255]))
        .unwrap();
    let ui = renderer(ctx, RenderConfig::default());
    let mut frame = ui.frame(ctx).unwrap();
    ui.upload(ctx, &mut frame, &s).unwrap();
    let passes = ui.fine_passes(&frame);
    eprintln!("clips 5 000 deep: {passes} fine passes on this adapter");
    if ctx.summary.software {
        assert!(
            passes > 1,
            "a software adapter draws the deep items in several passes"
        );
    }
    check(ctx, &ui, &s, "clips 5 000 deep");
}

/// Stress (issue 32): items far outside the frame and huge ones over it: rectangles of 1e9 and
/// 1e20 pixels (once a 16-pixel band of half coverage along the top and left edges, and at 1e20
/// a disagreement with the reference), ellipses, shadows, images and text centred far away.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn stress_items_far_outside_the_frame() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(1e9 as u64);
    let mut s = Scene::new(70, 50).unwrap();
    s.set_background([0, 0, 64, 255]);
    let font = s.add_font(Font::dejavu_sans());
    let img = s.add_image(&test_image(5, 4, 9)).unwrap();
    for far in [1e4f32, 1e6, 1e9, 1e12, 1e20, 1e30] {
        // Huge, over the frame: every pixel covered exactly once.
        s.rect(&Rect::new(
            -far,
            -far,
            2.0 * far,
            2.0 * far,
            colour(&mut rng, true),
        ))
        .unwrap();
        s.rect(&Rect::new(-far, 10.0, far + 20.5, 7.5, colour(&mut rng, true)).radius(4.0))
            .unwrap();
        // Far away, each side: nothing drawn.
        for (x, y) in [(-far, 20.0), (far, 20.0), (30.0, -far), (30.0, far)] {
            s.rect(&Rect::new(x, y, 10.0, 10.0, [255, 0, 0, 255]))
                .unwrap();
            s.ellipse(&Ellipse::circle(x, y, 5.0, [255, 0, 0, 255]))
                .unwrap();
            s.shadow(&BoxShadow {
                x,
                y,
                w: 10.0,
                h: 10.0,
                radius: [2.0; 4],
                offset: [1.0, 1.0],
                blur: 4.0,
                spread: 1.0,
                color: [255, 0, 0, 255],
                opacity: 1.0,
            })
            .unwrap();
            s.image(&Image {
                x,
                y,
                w: 8.0,
                h: 8.0,
                image: img,
                src: None,
                filter: Filter::Bilinear,
                tint: [255; 4],
                opacity: 1.0,
            })
            .unwrap();
            s.text(&Text {
                x,
                y,
                size: 12.0,
                color: [255, 0, 0, 255],
                font,
                text: "far".into(),
                opacity: 1.0,
            })
            .unwrap();
        }
        s.push_clip(&Clip {
            x: -far,
            y: -far,
            w: far + 60.0,
            h: far + 40.0,
            radius: [far * 0.5; 4],
        })
        .unwrap();
        if far <= 1e6 {
            s.ellipse(&Ellipse::circle(35.0, 25.0, far, colour(&mut rng, true)))
                .unwrap();
        } else {
            let e = s
                .ellipse(&Ellipse::circle(35.0, 25.0, far, colour(&mut rng, true)))
                .unwrap_err()
                .to_string();
            assert!(e.contains("at most 1000000 pixels"), "{e}");
        }
        s.pop_clip().unwrap();
    }
    let ui = renderer(ctx, RenderConfig::default());
    let got = check(ctx, &ui, &s, "items far outside the frame");
    // Nothing red from the far items: every pixel's red is what the huge items gave it, so
    // the corners (covered by the huge rectangles only) are alike.
    assert_eq!(got.get_pixel(0, 0), got.get_pixel(69, 49));
    assert_eq!(got.get_pixel(0, 0), got.get_pixel(69, 0));
    // Rectangles from the origin to 1e9 and 1e20 pixels cover every pixel alike: no band of
    // half coverage along the top and left edges.
    for far in [1e9f32, 1e20] {
        let mut s = Scene::new(70, 50).unwrap();
        s.set_background([0, 0, 64, 255]);
        s.rect(&Rect::new(0.0, 0.0, far, far, [200, 100, 50, 255]))
            .unwrap();
        s.rect(&Rect::new(0.0, 0.0, far, far, [0, 255, 0, 100]).radius(3.0))
            .unwrap();
        let got = check(ctx, &ui, &s, &format!("rectangles of {far} pixels"));
        let first = *got.get_pixel(40, 40);
        let alike = got.pixels().filter(|p| **p == first).count();
        // The rounded corner at the origin is the only place that differs.
        assert!(alike >= 70 * 50 - 9, "{far}: {alike} of 3500 pixels alike");
        assert_eq!(*got.get_pixel(5, 30), first, "{far}: the left edge");
        assert_eq!(*got.get_pixel(30, 5), first, "{far}: the top edge");
    }
}

/// A scene drawn in slices (a small loop budget: several fine passes, the colours carried
/// between them) gives the pixels of one pass, bit for bit, and the reference's; the tiles'
/// counts add up over the slices to at least one pass's (culling looks within a slice).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn slices_give_the_pixels_of_one_pass() {
    let ctx = gpu();
    let scene = random_scene(83, 300, 90, 400);
    let one = renderer(
        ctx,
        RenderConfig {
            loop_budget: Some(u32::MAX),
            stats: true,
            ..Default::default()
        },
    );
    check(ctx, &one, &scene, "one pass");
    let mut one_frame = one.frame(ctx).unwrap();
    let want = one
        .render_frame_to_image(ctx, &mut one_frame, &scene)
        .unwrap();
    assert_eq!(one.fine_passes(&one_frame), 1);
    let one_stats = one.tile_stats(ctx, &one_frame).unwrap();
    for budget in [300u32, 2_000] {
        let ui = renderer(
            ctx,
            RenderConfig {
                loop_budget: Some(budget),
                stats: true,
                ..Default::default()
            },
        );
        let mut frame = ui.frame(ctx).unwrap();
        let got = ui.render_frame_to_image(ctx, &mut frame, &scene).unwrap();
        let passes = ui.fine_passes(&frame);
        assert!(passes > 1, "budget {budget}: {passes} pass");
        eprintln!("budget {budget}: {passes} fine passes");
        assert!(
            got == want,
            "budget {budget}: the pixels differ from one pass's"
        );
        let stats = ui.tile_stats(ctx, &frame).unwrap();
        let (a, b): (u64, u64) = (
            stats.per_tile.iter().map(|&v| u64::from(v)).sum(),
            one_stats.per_tile.iter().map(|&v| u64::from(v)).sum(),
        );
        assert!(
            a >= b && a > 0,
            "budget {budget}: {a} composited against {b}"
        );
    }
}
