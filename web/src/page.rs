//! What the page's JavaScript calls: [`start`] makes the context, then the methods of
//! [`Page`] run the checks and draw into canvases. Every method that waits for the GPU returns
//! a promise; the results are JSON rows (see [`crate::checks::Row`]).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use wavekit::{ContextOptions, GpuContext, GpuTimer, TimestampSupport};
use wavekit_codec::cpu::EncodeConfig;
use wavekit_codec::gpu::Decoder;
use wavekit_codec::{Chroma, Header, Source};
use wavekit_ui::gpu::{RenderConfig, UiRenderer};

use crate::checks::{self, Row};

/// Checks [`Page::run_check`] runs.
const CHECKS: u32 = 10;

#[wasm_bindgen(start)]
fn init() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("wavekit-web panicked: {info}");
        web_sys::console::error_1(&message.clone().into());
        // Tell the page's driver at once: a panic ends the module, and nothing else would.
        if let Some(state) = web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &"wavekit".into()).ok())
            .filter(|s| s.is_object())
        {
            let _ = js_sys::Reflect::set(&state, &"error".into(), &message.into());
            let _ = js_sys::Reflect::set(&state, &"done".into(), &true.into());
        }
    }));
}

/// The page's device and renderer.
#[wasm_bindgen]
pub struct Page {
    ctx: Rc<GpuContext>,
    ui: Rc<UiRenderer>,
}

/// Make the context (`subgroups`: false hides them, so that the emulated path runs) and the
/// UI renderer; every GPU time on the page is the median of `runs` timed runs.
#[wasm_bindgen]
pub async fn start(subgroups: bool, runs: u32) -> Result<Page, JsValue> {
    checks::RUNS.store(runs.max(1), std::sync::atomic::Ordering::Relaxed);
    let options = ContextOptions {
        disable_subgroups: !subgroups,
        ..Default::default()
    };
    let ctx = GpuContext::new_async(&options).await.map_err(text)?;
    let ui = UiRenderer::new(&ctx, RenderConfig::default()).map_err(text)?;
    Ok(Page {
        ctx: Rc::new(ctx),
        ui: Rc::new(ui),
    })
}

fn text(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

fn json(v: &impl serde::Serialize) -> JsValue {
    JsValue::from_str(&serde_json::to_string(v).unwrap_or_else(|e| format!("\"{e}\"")))
}

fn draw(canvas: &str, rgba: &[u8], width: u32, height: u32) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = document
        .get_element_by_id(canvas)
        .ok_or_else(|| format!("no canvas '{canvas}' on the page"))?
        .dyn_into()?;
    canvas.set_width(width);
    canvas.set_height(height);
    let c2d: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or("no 2d context")?
        .dyn_into()?;
    let image = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
        wasm_bindgen::Clamped(rgba),
        width,
        height,
    )?;
    c2d.put_image_data(&image, 0.0, 0.0)
}

#[wasm_bindgen]
impl Page {
    /// The adapter and what the device was created with, as JSON.
    pub fn adapter(&self) -> JsValue {
        json(&serde_json::json!({
            "summary": self.ctx.summary,
            "label": self.ctx.summary.label(),
            "caps": self.ctx.caps,
        }))
    }

    /// How many checks [`Page::run_check`] has: the self-test and every primitive.
    pub fn check_count(&self) -> u32 {
        CHECKS
    }

    /// Check `index` (0 to [`Page::check_count`] − 1) on inputs from `seed`: a promise of a
    /// JSON row. One at a time, so that the page shows progress.
    pub fn run_check(&self, index: u32, seed: u32) -> js_sys::Promise {
        let ctx = self.ctx.clone();
        future_to_promise(async move {
            let ctx = &*ctx;
            let seed = u64::from(seed) + u64::from(index);
            let row = match index {
                0 => selftest(ctx, seed).await,
                1 => Row::new("reduce u32 add", err(checks::reduce(ctx, seed).await)),
                2 => Row::new(
                    "scan exclusive u32 add",
                    err(checks::scan(ctx, seed, false).await),
                ),
                3 => Row::new(
                    "scan inclusive u32 add",
                    err(checks::scan(ctx, seed, true).await),
                ),
                4 => Row::new(
                    "segmented scan u32 add",
                    err(checks::segmented(ctx, seed).await),
                ),
                5 => Row::new("select (odd)", err(checks::select(ctx, seed, false).await)),
                6 => Row::new(
                    "partition, both sides stable",
                    err(checks::select(ctx, seed, true).await),
                ),
                7 => Row::new("sort u32 keys", err(checks::sort(ctx, seed, false).await)),
                8 => Row::new("sort u32 pairs", err(checks::sort(ctx, seed, true).await)),
                9 => Row::new(
                    "histogram f32, 64 bins",
                    err(checks::histogram(ctx, seed).await),
                ),
                _ => return Err(JsValue::from_str(&format!("no check {index}"))),
            };
            // The web reports GPU errors late: a check is not passed while one is pending.
            let row = match ctx.check_health() {
                Err(e) if row.ok => Row {
                    ok: false,
                    detail: format!("{}; then a GPU error: {e}", row.detail),
                    ..row
                },
                _ => row,
            };
            Ok(json(&row))
        })
    }

    /// Render the UI demo panel with the knob at `knob` (0 to 1) into canvas `canvas`; with
    /// `check`, also against the CPU reference (every channel within 1) and timed. A promise
    /// of a JSON row.
    pub fn draw_panel(&self, canvas: String, knob: f32, check: bool) -> js_sys::Promise {
        let (ctx, ui) = (self.ctx.clone(), self.ui.clone());
        future_to_promise(async move {
            let scene = wavekit_ui::demo::panel(knob, 1.5).map_err(text)?;
            let img = ui.render_to_image_async(&ctx, &scene).await.map_err(text)?;
            draw(&canvas, img.as_raw(), img.width(), img.height())?;
            if !check {
                return Ok(JsValue::NULL);
            }
            let row = Row::new(
                "ui demo panel, GPU against the CPU reference",
                panel_check(&ctx, &ui, &scene, &img)
                    .await
                    .map_err(|e| e.to_string()),
            );
            Ok(json(&row))
        })
    }

    /// Decode a codec frame on the GPU into canvas `canvas` and check it against the CPU
    /// decoder, byte for byte: the first frame of `wkv` (a `.wkv` stream's bytes) or, when it
    /// is empty, a test picture encoded on the CPU here. A promise of a JSON row.
    pub fn decode_frame(&self, canvas: String, wkv: Vec<u8>) -> js_sys::Promise {
        let ctx = self.ctx.clone();
        future_to_promise(async move {
            let row = Row::new(
                "codec frame, GPU decode against the CPU decoder",
                decode_check(&ctx, &canvas, &wkv).await,
            );
            Ok(json(&row))
        })
    }

    /// Whether the device reported an error nobody caught (the web reports them late): a
    /// JSON row.
    pub fn health(&self) -> JsValue {
        let r = self.ctx.check_health();
        json(&Row {
            name: "no uncaught GPU errors".into(),
            ok: r.is_ok(),
            detail: match r {
                Ok(()) => "none reported by the device".into(),
                Err(e) => e.to_string(),
            },
            gpu_us: None,
        })
    }
}

fn err<T>(r: wavekit::Result<T>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

async fn selftest(ctx: &GpuContext, seed: u64) -> Row {
    if !ctx.caps.subgroups.supported {
        return Row {
            name: "self-test of the subgroup operations".into(),
            ok: true,
            detail: "skipped: this device runs the emulated (no-subgroup) path".into(),
            gpu_us: None,
        };
    }
    let r = wavekit_selftest::run_async(ctx, seed).await;
    Row::new(
        "self-test of the subgroup operations",
        r.map(|report| {
            let failed: Vec<String> = report
                .families
                .iter()
                .filter(|f| !f.ok())
                .map(|f| format!("{f:?}"))
                .collect();
            let widths: Vec<u32> = report
                .shapes
                .iter()
                .flat_map(|s| s.widths_seen.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let ran = report.shapes.iter().filter(|s| s.skipped.is_none()).count();
            let detail = if failed.is_empty() {
                format!(
                    "{} families passed in {ran} workgroup shapes; subgroup widths seen {widths:?}",
                    report.families.len()
                )
            } else {
                format!("failed: {}", failed.join("; "))
            };
            (report.passed(), detail, None)
        })
        .map_err(|e| e.to_string()),
    )
}

async fn panel_check(
    ctx: &GpuContext,
    ui: &UiRenderer,
    scene: &wavekit_ui::scene::Scene,
    img: &image::RgbaImage,
) -> wavekit_ui::error::Result<(bool, String, Option<f64>)> {
    let want = wavekit_ui::cpu::render(scene);
    let (mut off, mut exact) = (0usize, 0usize);
    for (a, b) in img.pixels().zip(want.pixels()) {
        let d = wavekit_ui::cpu::channel_difference(a, b);
        off += usize::from(d > 1);
        exact += usize::from(d == 0);
    }
    let n = (img.width() * img.height()) as usize;
    let mut gpu_us = None;
    if ctx.caps.timestamps != TimestampSupport::None {
        let mut frame = ui.frame(ctx)?;
        ui.upload(ctx, &mut frame, scene)?;
        let out = ctx.storage_uninit("ui pixels", 4 * n as u64)?;
        ui.target_buffer(ctx, &mut frame, &out)?;
        let (warm, runs) = checks::runs();
        let t = GpuTimer::new(ctx, runs)
            .measure_async(ctx, warm, runs, |enc| {
                let _ = ui.record(&frame, enc);
            })
            .await?;
        gpu_us = Some(t.median_ns / 1000.0);
    }
    Ok((
        off == 0,
        format!(
            "{} items, {} x {}: {off} pixels off by more than 1 in a channel, {exact} of {n} exact",
            scene.len(),
            img.width(),
            img.height()
        ),
        gpu_us,
    ))
}

async fn decode_check(
    ctx: &GpuContext,
    canvas: &str,
    wkv: &[u8],
) -> Result<(bool, String, Option<f64>), String> {
    let s = |e: wavekit_codec::CodecError| e.to_string();
    let (frame, origin) = if wkv.is_empty() {
        let (w, h) = (320, 200);
        let rgb = wavekit_codec::cpu::test_picture(w, h, 7);
        let config = EncodeConfig {
            chroma: Chroma::Yuv420,
            levels: 5,
            budget: (w * h / 4) as usize,
            lossless: false,
            source: Source::Rgb,
        };
        let (frame, _) = wavekit_codec::cpu::encode(&rgb, w, h, &config).map_err(s)?;
        (
            frame,
            "a test picture encoded on the CPU in the page".to_string(),
        )
    } else if !wkv.starts_with(b"WKVS") {
        // `wavekit encode IN.png -o OUT.wkv` writes one bare frame.
        (wkv.to_vec(), format!("a {}-byte .wkv frame", wkv.len()))
    } else {
        let mut reader = wavekit_codec::stream::StreamReader::new(wkv).map_err(s)?;
        let f = reader
            .next_frame()
            .map_err(s)?
            .ok_or("the .wkv stream holds no frame")?;
        if f.truncated {
            return Err("the .wkv stream ends inside its first frame".into());
        }
        (
            f.bytes,
            format!("the first frame of a {}-byte .wkv stream", wkv.len()),
        )
    };
    let header = Header::parse(&frame).map_err(s)?;
    let decoder = Decoder::new(ctx, &header, frame.len()).map_err(s)?;
    let (rgb, report) = decoder.decode_async(ctx, &frame).await.map_err(s)?;
    let (_, want, _) = wavekit_codec::cpu::decode(&frame).map_err(s)?;
    let (w, h) = (header.width, header.height);
    let rgba: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    draw(canvas, &rgba, w, h).map_err(|e| format!("{e:?}"))?;
    let off = rgb
        .chunks_exact(3)
        .zip(want.chunks_exact(3))
        .filter(|(a, b)| a != b)
        .count();
    let mut gpu_us = None;
    if ctx.caps.timestamps != TimestampSupport::None {
        let (warm, runs) = checks::runs();
        let t = GpuTimer::new(ctx, runs)
            .measure_async(ctx, warm, runs, |enc| decoder.record(enc))
            .await
            .map_err(|e| e.to_string())?;
        gpu_us = Some(t.median_ns / 1000.0);
    }
    Ok((
        off == 0 && report.damaged.is_empty() && rgb.len() == want.len(),
        format!(
            "{origin}: {w} x {h}, {} bytes, {} blocks, {} damaged; {off} pixels differ from the \
             CPU decoder",
            frame.len(),
            report.blocks,
            report.damaged.len()
        ),
        gpu_us,
    ))
}
