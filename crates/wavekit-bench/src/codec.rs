//! `wavekit codec bench`: the codec on real frames at several sizes, chroma samplings and
//! budgets: the GPU encoder's and decoder's times on the measurement protocol (the input
//! uploaded once, then every stage recorded per run), the CPU reference encoder's wall time,
//! each frame's bytes, PSNR-Y and PSNR-RGB, and whether the GPU's bytes and decoded frame
//! equal the CPU's (checked before timing).

use std::time::Instant;

use serde::Serialize;
use wavekit::GpuContext;
use wavekit_codec::cpu::{EncodeConfig, color, decode, decode_ycbcr, encode, encode_ycbcr, psnr};
use wavekit_codec::format::{Source, YcbcrImage};
use wavekit_codec::gpu::{CoderPolicy, Decoder, Encoder, Output};
use wavekit_codec::{Chroma, Header};

use crate::error::Result;
use crate::protocol::{Case, ClockReader, Protocol, measure};

/// A frame to code: a name, its size and 8-bit RGB.
pub struct Frame {
    /// What the results call it.
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 8-bit RGB, rows top to bottom.
    pub rgb: Vec<u8>,
}

/// What to sweep besides frames, samplings and budgets.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The block coders' policies, a set of rows each (empty: the default policy).
    pub policies: Vec<CoderPolicy>,
    /// Also time each stage, as the difference of two prefixes of the stages.
    pub stages: bool,
    /// Code 8-bit planar YCbCr in full range (each frame's BT.709 samples, as a `.y4m`
    /// holds them) and decode to it, instead of RGB in and RGBA out: the form PyroWave's
    /// coders take and give.
    pub ycbcr: bool,
}

/// One frame coded at one budget.
#[derive(Clone, Debug, Serialize)]
pub struct CodecBench {
    /// The frame.
    pub frame: String,
    /// Width and height.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// "420" or "444".
    pub chroma: &'static str,
    /// What the coders took and gave: "rgb" (RGB in, RGBA out) or "ycbcr" (8-bit planar
    /// YCbCr in full range, in and out).
    pub pixels: &'static str,
    /// The budget in bits a pixel.
    pub bpp: f64,
    /// The budget in bytes.
    pub budget: usize,
    /// Invocations of the block encoder's and decoder's workgroups.
    pub block_workgroup: (u32, u32),
    /// The block encoder that ran: "subgroup" (one subgroup a block; the encoder's workgroup
    /// size then does not apply) or "workgroup".
    pub block_encoder: &'static str,
    /// The block decoder that ran, likewise.
    pub block_decoder: &'static str,
    /// Bits of each coefficient the coders kept: 16 where the policy asked for it and the
    /// frame allows it (`CoderPolicy::coefficients_16_bit_for`), else 32.
    pub coefficient_bits: u32,
    /// The coded frame's bytes.
    pub bytes: usize,
    /// PSNR of the luma (BT.709 Y), dB.
    pub psnr_y: f64,
    /// PSNR over R, G and B, dB (with `pixels` "ycbcr": over Y, Cb and Cr).
    pub psnr_rgb: f64,
    /// The GPU's decoded frame equals the CPU's.
    pub gpu_equals_cpu: bool,
    /// The GPU encoder's bytes equal the CPU encoder's.
    pub gpu_bytes_equal_cpu: bool,
    /// GPU encode time (colour, wavelet, blocks, rate control, packing): median, µs.
    pub encode_median_us: f64,
    /// 99th percentile, µs.
    pub encode_p99_us: f64,
    /// The CPU reference encoder's wall time, ms (one run).
    pub cpu_encode_ms: f64,
    /// GPU decode time: median, p90 and p99, µs.
    pub decode_median_us: f64,
    /// 90th percentile, µs.
    pub decode_p90_us: f64,
    /// 99th percentile, µs.
    pub decode_p99_us: f64,
    /// Spread of the round medians over the median.
    pub spread: f64,
    /// Each stage's median time, µs, where asked: the difference of the medians of the
    /// prefixes that end before and after it.
    pub stages_us: Vec<(String, f64)>,
    /// Lowest SM clock while timed, MHz (where it can be read).
    pub clock_mhz: Option<u32>,
    /// Timed below 90 % of the maximum clock.
    pub clock_low: bool,
}

/// PSNR of the BT.709 luma of `b` against `a`.
pub fn psnr_y(a: &[u8], b: &[u8], w: usize, h: usize) -> f64 {
    let y = |rgb: &[u8]| -> Vec<u8> {
        color::to_ycbcr(rgb, w, h, Chroma::Yuv444)[0]
            .iter()
            .map(|v| ((v + (128 << 5) + 16) >> 5).clamp(0, 255) as u8)
            .collect()
    };
    psnr(&y(a), &y(b))
}

/// Code every frame at every chroma sampling and budget; time the GPU decoder on `protocol`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    ctx: &GpuContext,
    frames: &[Frame],
    chromas: &[Chroma],
    bpps: &[f64],
    options: &Options,
    protocol: &Protocol,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<CodecBench>> {
    let mut decoders = Vec::new();
    let mut rows = Vec::new();
    let policies = if options.policies.is_empty() {
        vec![CoderPolicy::default()]
    } else {
        options.policies.clone()
    };
    for f in frames {
        for &chroma in chromas {
            for &bpp in bpps {
                progress(format!("encoding {} {chroma:?} at {bpp} bpp …", f.name));
                let px = f64::from(f.width) * f64::from(f.height);
                let budget = (bpp * px / 8.0) as usize;
                let picture = options.ycbcr.then(|| ycbcr_picture(f, chroma));
                let config = EncodeConfig {
                    lossless: false,
                    source: match picture {
                        Some(_) => Source::YcbcrFull,
                        None => Source::Rgb,
                    },
                    chroma,
                    levels: 5,
                    budget,
                };
                let t0 = Instant::now();
                let (frame, _) = match &picture {
                    Some(img) => encode_ycbcr(img, &config)?,
                    None => encode(&f.rgb, f.width, f.height, &config)?,
                };
                let cpu_encode_ms = t0.elapsed().as_secs_f64() * 1e3;
                let header = Header::parse(&frame)?;
                let (w, h) = (f.width as usize, f.height as usize);
                // What the CPU decodes, as bytes to compare the GPU's with, and its PSNRs.
                let (back, psnr_y, psnr_rgb) = match &picture {
                    Some(img) => {
                        let back = decode_ycbcr(&frame)?.1.planes;
                        let (all, all_back) = (img.planes.concat(), back.concat());
                        let (y, all) = (psnr(&img.planes[0], &back[0]), psnr(&all, &all_back));
                        (back, y, all)
                    }
                    None => {
                        let back = decode(&frame)?.1;
                        let p = (psnr_y(&f.rgb, &back, w, h), psnr(&f.rgb, &back));
                        ([back, Vec::new(), Vec::new()], p.0, p.1)
                    }
                };
                let output = match picture {
                    Some(_) => Output::Ycbcr,
                    None => Output::Rgb,
                };
                // The CPU reference once a case; a GPU coder a policy.
                for policy in &policies {
                    let decoder = Decoder::with_policy(ctx, &header, frame.len(), output, policy)?;
                    let gpu = match output {
                        Output::Ycbcr => decoder.decode_ycbcr(ctx, &frame)?.0.planes,
                        Output::Rgb => [decoder.decode(ctx, &frame)?.0, Vec::new(), Vec::new()],
                    };
                    let encoder = Encoder::with_policy(ctx, f.width, f.height, &config, policy)?;
                    let gpu_frame = match &picture {
                        Some(img) => encoder.encode_ycbcr(ctx, img)?,
                        None => encoder.encode(ctx, &f.rgb)?,
                    };
                    if gpu_frame != frame {
                        progress(match picture {
                            Some(_) => format!(
                                "MISMATCH {} {chroma:?} budget {budget} (YCbCr): GPU {} bytes, \
                                 CPU {}",
                                f.name,
                                gpu_frame.len(),
                                frame.len()
                            ),
                            None => diagnose(ctx, &encoder, f, &config, &frame, &gpu_frame)?,
                        });
                    }
                    rows.push(CodecBench {
                        frame: f.name.clone(),
                        width: f.width,
                        height: f.height,
                        chroma: chroma_name(chroma),
                        pixels: if options.ycbcr { "ycbcr" } else { "rgb" },
                        bpp,
                        budget,
                        block_workgroup: (policy.encode_workgroup, policy.decode_workgroup),
                        block_encoder: kernel_name(policy.encode_lanes(&ctx.caps.subgroups)),
                        block_decoder: kernel_name(policy.decode_lanes(&ctx.caps.subgroups)),
                        coefficient_bits: if policy.coefficients_16_bit_for(&header) {
                            16
                        } else {
                            32
                        },
                        bytes: frame.len(),
                        psnr_y,
                        psnr_rgb,
                        gpu_equals_cpu: gpu == back,
                        gpu_bytes_equal_cpu: gpu_frame == frame,
                        encode_median_us: 0.0,
                        encode_p99_us: 0.0,
                        cpu_encode_ms,
                        decode_median_us: 0.0,
                        decode_p90_us: 0.0,
                        decode_p99_us: 0.0,
                        spread: 0.0,
                        stages_us: Vec::new(),
                        clock_mhz: None,
                        clock_low: false,
                    });
                    decoders.push((decoder, encoder));
                }
            }
        }
    }

    // The prefixes timed for the stages: decode 1 ..= 2 (3 is the whole), encode 1 ..= 4.
    const DECODE: [&str; 3] = ["blocks", "inverse wavelet", "colour"];
    const ENCODE: [&str; 5] = ["colour", "wavelet", "blocks", "rate control", "packing"];
    let mut cases: Vec<Case> = Vec::new();
    for ((d, e), r) in decoders.iter().zip(&rows) {
        let what = format!(
            "{} {} {} bpp {}/{} wg {}/{} c{}",
            r.frame,
            r.chroma,
            r.bpp,
            r.block_encoder,
            r.block_decoder,
            r.block_workgroup.0,
            r.block_workgroup.1,
            r.coefficient_bits
        );
        cases.push(Case::new(format!("decode {what}"), move |enc| {
            d.record(enc)
        }));
        cases.push(Case::new(format!("encode {what}"), move |enc| {
            e.record(enc)
        }));
        if options.stages {
            for s in 1..DECODE.len() as u32 {
                cases.push(Case::new(format!("decode {s} stages {what}"), move |enc| {
                    d.record_until(enc, s)
                }));
            }
            for s in 1..ENCODE.len() as u32 {
                cases.push(Case::new(format!("encode {s} stages {what}"), move |enc| {
                    e.record_until(enc, s)
                }));
            }
        }
    }
    let measured = measure(ctx, &mut cases, protocol, clock, progress)?;
    let mut measured = measured.into_iter();
    for r in rows.iter_mut() {
        let m = measured.next().expect("a decode case a row");
        let enc = measured.next().expect("an encode case a row");
        if options.stages {
            let mut prefix = |n: usize, whole: f64| -> Vec<f64> {
                let mut v: Vec<f64> = (1..n)
                    .map(|_| measured.next().expect("a stage case").timing.median_ns / 1e3)
                    .collect();
                v.push(whole);
                v
            };
            let d = prefix(DECODE.len(), m.timing.median_ns / 1e3);
            let e = prefix(ENCODE.len(), enc.timing.median_ns / 1e3);
            for (names, times, dir) in [(&DECODE[..], &d, "decode"), (&ENCODE[..], &e, "encode")] {
                let mut before = 0.0;
                for (name, t) in names.iter().zip(times) {
                    r.stages_us.push((format!("{dir} {name}"), t - before));
                    before = *t;
                }
            }
        }
        r.encode_median_us = enc.timing.median_ns / 1e3;
        r.encode_p99_us = enc.timing.p99_ns / 1e3;
        r.decode_median_us = m.timing.median_ns / 1e3;
        r.decode_p90_us = m.timing.p90_ns / 1e3;
        r.decode_p99_us = m.timing.p99_ns / 1e3;
        r.spread = m.spread;
        r.clock_mhz = m.clock.map(|c| c.min_mhz);
        r.clock_low = m.clock_low;
    }
    Ok(rows)
}

/// Where the GPU's bytes part from the CPU's: the first differing byte, the coefficients, the
/// first block whose planes, sizes or keys differ, the threshold.
fn diagnose(
    ctx: &GpuContext,
    encoder: &Encoder,
    f: &Frame,
    config: &EncodeConfig,
    want: &[u8],
    got: &[u8],
) -> Result<String> {
    use wavekit_codec::cpu::{self, block, rate, step_of};
    use wavekit_codec::format::Layout;
    let first = want.iter().zip(got).position(|(a, b)| a != b);
    let mut out = format!(
        "MISMATCH {} {:?} budget {}: GPU {} bytes, CPU {}, first difference at byte {first:?}",
        f.name,
        config.chroma,
        config.budget,
        got.len(),
        want.len()
    );
    let header = *encoder.header();
    let [_, _, records, control] = encoder.intermediates(ctx)?;
    let mut planes = cpu::color_planes(&f.rgb, &header);
    let dims = header.planes();
    let compare = |what: &str, planes: &[Vec<i32>; 3]| -> Result<String> {
        let [luma, chroma] = if what == "colour" {
            encoder.color_planes(ctx)?
        } else {
            let [luma, chroma, _, _] = encoder.intermediates(ctx)?;
            [luma, chroma]
        };
        let gpu = [
            luma,
            chroma[..dims[1].0 * dims[1].1].to_vec(),
            chroma[dims[1].0 * dims[1].1..].to_vec(),
        ];
        let mut out = String::new();
        for (k, (a, b)) in planes.iter().zip(&gpu).enumerate() {
            let diff = a.iter().zip(b).filter(|(x, y)| **x as u32 != **y).count();
            let at = a.iter().zip(b).position(|(x, y)| *x as u32 != *y);
            let show = at.map(|i| (a[i], b[i] as i32));
            out += &format!("; {what} plane {k}: {diff} differ (first {at:?}: CPU, GPU {show:?})");
        }
        Ok(out)
    };
    ctx.submit(|e| encoder.record_until(e, 1));
    out += &compare("colour", &planes)?;
    cpu::forward(&mut planes, &header);
    ctx.submit(|e| encoder.record_until(e, 2));
    out += &compare("wavelet", &planes)?;
    ctx.submit(|e| encoder.record_until(e, 5));
    let layout = Layout::of(&header);
    let mut costs = Vec::new();
    let mut reported = false;
    for (i, b) in layout.blocks.iter().enumerate() {
        let band = &layout.bands[b.band];
        let v = cpu::block_samples(&planes[band.plane], dims[band.plane].0, b);
        let q = block::quantize(&v, step_of(&header, band));
        let rates = block::code(&q).rates();
        let keys = block::keys(&q, &rates);
        let r = &records[i * 64..i * 64 + 64];
        let p = r[0] as usize;
        let g_rates: Vec<usize> = (0..=p.min(24))
            .map(|n| 2 + (r[1 + n] as usize).div_ceil(8))
            .collect();
        let g_keys: Vec<u32> = r[26..26 + p.min(24)].to_vec();
        if !reported && (p != usize::from(q.planes) || g_rates != rates || g_keys != keys) {
            out += &format!(
                "; block {i} (band {}, {}x{}): planes {p} vs {}, sizes {g_rates:?} vs \
                 {rates:?}, keys {g_keys:?} vs {keys:?}",
                b.band, b.width, b.height, q.planes
            );
            reported = true;
        }
        costs.push((rates, keys));
    }
    let choices: Vec<rate::Choices> = costs
        .iter()
        .map(|(r, k)| rate::Choices { rates: r, keys: k })
        .collect();
    let cpu = rate::threshold(&choices, config.budget - layout.overhead());
    out += &format!("; threshold GPU {:?} CPU {cpu:?}", &control[..2]);
    Ok(out)
}

/// A frame's 8-bit YCbCr in full range at `chroma`: the codec's own BT.709 planes of its RGB
/// (4:2:0 chroma the rounded mean of each 2 × 2 block) as 8-bit samples.
fn ycbcr_picture(f: &Frame, chroma: Chroma) -> YcbcrImage {
    let planes = color::to_ycbcr(&f.rgb, f.width as usize, f.height as usize, chroma);
    YcbcrImage {
        width: f.width,
        height: f.height,
        chroma,
        limited: false,
        planes: std::array::from_fn(|k| {
            planes[k]
                .iter()
                .map(|&p| color::plane_to_sample(p, k == 0, false))
                .collect()
        }),
    }
}

/// A row's name of a chroma sampling.
fn chroma_name(chroma: Chroma) -> &'static str {
    match chroma {
        Chroma::Yuv420 => "420",
        Chroma::Yuv444 => "444",
    }
}

fn kernel_name(lanes: Option<u32>) -> &'static str {
    if lanes.is_some() {
        "subgroup"
    } else {
        "workgroup"
    }
}

/// A stream decoded back to back (`codec bench --stream N`).
#[derive(Clone, Debug, Serialize)]
pub struct StreamBench {
    /// The frame the stream's frames are made from.
    pub frame: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// "420" or "444".
    pub chroma: &'static str,
    /// The budget in bits a pixel.
    pub bpp: f64,
    /// Frames decoded.
    pub frames: usize,
    /// Distinct coded frames among them (decoded in turn: no two consecutive frames alike).
    pub distinct: usize,
    /// Frames in flight: decoders, each with its own input and output, used in turn.
    pub in_flight: usize,
    /// The block decoder that ran: "subgroup" or "workgroup".
    pub block_decoder: &'static str,
    /// Frames decoded a second: frames over the wall time from the first upload to the last
    /// frame's decode finished.
    pub frames_per_second: f64,
    /// Each frame's latency, from its bytes handed to the decoder (the upload) to the GPU's
    /// decode of it finished, µs: median.
    pub latency_median_us: f64,
    /// 99th percentile, µs.
    pub latency_p99_us: f64,
    /// The largest, µs.
    pub latency_max_us: f64,
    /// The last frame each decoder decoded in the stream equals that frame decoded alone.
    pub stream_equals_single: bool,
    /// Lowest SM clock during the stream, MHz (where it can be read).
    pub clock_mhz: Option<u32>,
}

/// Frame `i` of a stream made from `f`: `f` moved cyclically by (13·i, 7·i) pixels, so that
/// every frame differs from the one before and has the same content to code.
fn shifted(f: &Frame, i: usize) -> Vec<u8> {
    let (w, h) = (f.width as usize, f.height as usize);
    let (dx, dy) = ((13 * i) % w, (7 * i) % h);
    let mut out = Vec::with_capacity(f.rgb.len());
    for y in 0..h {
        let row = &f.rgb[((y + dy) % h) * w * 3..][..w * 3];
        out.extend_from_slice(&row[dx * 3..]);
        out.extend_from_slice(&row[..dx * 3]);
    }
    out
}

/// Decode `frames` frames back to back, made from each frame at each sampling and budget (at
/// most 32 distinct ones, coded on the GPU, decoded in turn), with `in_flight` decoders used in
/// turn: each frame's bytes uploaded as a player's would be, its decode submitted, and a
/// decoder reused once its previous frame is done. The decoded frames stay on the GPU (a
/// player shows them from there). Reports frames a second and each frame's latency.
#[allow(clippy::too_many_arguments)]
pub fn stream(
    ctx: &GpuContext,
    sources: &[Frame],
    chromas: &[Chroma],
    bpps: &[f64],
    policy: &CoderPolicy,
    frames: usize,
    in_flight: usize,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<StreamBench>> {
    use std::sync::{Arc, Mutex};
    if frames == 0 || in_flight == 0 {
        return Err(crate::error::Error::InvalidArgument(format!(
            "a stream of {frames} frames with {in_flight} in flight: give at least one of each"
        )));
    }
    let mut rows = Vec::new();
    for f in sources {
        for &chroma in chromas {
            for &bpp in bpps {
                let px = f64::from(f.width) * f64::from(f.height);
                let config = EncodeConfig {
                    lossless: false,
                    source: wavekit_codec::format::Source::Rgb,
                    chroma,
                    levels: 5,
                    budget: (bpp * px / 8.0) as usize,
                };
                let distinct = frames.min(32);
                progress(format!(
                    "stream {} {chroma:?} {bpp} bpp: coding {distinct} distinct frames …",
                    f.name
                ));
                let encoder = Encoder::with_policy(ctx, f.width, f.height, &config, policy)?;
                let coded: Vec<Vec<u8>> = (0..distinct)
                    .map(|i| encoder.encode(ctx, &shifted(f, i)))
                    .collect::<std::result::Result<_, _>>()?;
                drop(encoder);
                let header = Header::parse(&coded[0])?;
                let decoders: Vec<Decoder> = (0..in_flight)
                    .map(|_| Decoder::with_policy(ctx, &header, config.budget, Output::Rgb, policy))
                    .collect::<std::result::Result<_, _>>()?;
                // Warm up: every decoder once.
                for (d, c) in decoders.iter().zip(coded.iter().cycle()) {
                    d.upload(ctx, c)?;
                    ctx.submit(|enc| d.record(enc));
                }
                ctx.wait()?;
                progress(format!(
                    "stream {} {chroma:?} {bpp} bpp: {frames} frames …",
                    f.name
                ));
                let done: Arc<Mutex<Vec<Option<Instant>>>> =
                    Arc::new(Mutex::new(vec![None; frames]));
                let mut started = Vec::with_capacity(frames);
                let mut last_index: Vec<Option<wgpu::SubmissionIndex>> = vec![None; in_flight];
                let mut last_frame = vec![0usize; in_flight];
                let t0 = Instant::now();
                for i in 0..frames {
                    let slot = i % in_flight;
                    if let Some(index) = last_index[slot].take() {
                        ctx.device
                            .poll(wgpu::PollType::Wait {
                                submission_index: Some(index),
                                timeout: None,
                            })
                            .map_err(|e| {
                                crate::error::Error::InvalidArgument(format!(
                                    "the GPU stopped during the stream: {e}"
                                ))
                            })?;
                    }
                    let d = &decoders[slot];
                    started.push(Instant::now());
                    d.upload(ctx, &coded[i % distinct])?;
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    d.record(&mut enc);
                    let index = ctx.queue.submit([enc.finish()]);
                    let done = done.clone();
                    ctx.queue.on_submitted_work_done(move || {
                        if let Ok(mut d) = done.lock() {
                            d[i] = Some(Instant::now());
                        }
                    });
                    last_index[slot] = Some(index);
                    last_frame[slot] = i;
                    // Completions are noticed (and timed) here and while waiting above.
                    let _ = ctx.device.poll(wgpu::PollType::Poll);
                }
                ctx.wait()?;
                let wall = t0.elapsed().as_secs_f64();
                let clock_mhz = clock.window(t0, Instant::now()).map(|c| c.min_mhz);
                let done = done.lock().map(|d| d.clone()).unwrap_or_default();
                let mut lat: Vec<f64> = done
                    .iter()
                    .zip(&started)
                    .filter_map(|(d, s)| d.map(|d| d.duration_since(*s).as_secs_f64() * 1e6))
                    .collect();
                lat.sort_by(f64::total_cmp);
                let pick = |q: f64| lat[((lat.len() - 1) as f64 * q).round() as usize];
                // Each decoder's last frame against that frame decoded alone.
                let single =
                    Decoder::with_policy(ctx, &header, config.budget, Output::Rgb, policy)?;
                let mut same = lat.len() == frames;
                for (d, &i) in decoders.iter().zip(&last_frame) {
                    let words: Vec<u32> =
                        ctx.read_back("stream frame", d.output(), (f.width * f.height) as usize)?;
                    let (rgb, _) = single.decode(ctx, &coded[i % distinct])?;
                    same &= words
                        .iter()
                        .flat_map(|p| p.to_le_bytes().into_iter().take(3))
                        .eq(rgb.iter().copied());
                }
                rows.push(StreamBench {
                    frame: f.name.clone(),
                    width: f.width,
                    height: f.height,
                    chroma: chroma_name(chroma),
                    bpp,
                    frames,
                    distinct,
                    in_flight,
                    block_decoder: kernel_name(policy.decode_lanes(&ctx.caps.subgroups)),
                    frames_per_second: frames as f64 / wall,
                    latency_median_us: pick(0.5),
                    latency_p99_us: pick(0.99),
                    latency_max_us: lat.last().copied().unwrap_or(0.0),
                    stream_equals_single: same,
                    clock_mhz,
                });
            }
        }
    }
    Ok(rows)
}
