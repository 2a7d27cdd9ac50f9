//! `wavekit encode` and `wavekit decode`: PNG frames to and from the codec's bitstream
//! (`docs/codec-bitstream.md`), on the GPU (`wavekit_codec::gpu`), or on the CPU reference
//! (`wavekit_codec::cpu`) with `--cpu`: the same bytes and pixels either way.

use std::path::{Path, PathBuf};

use wavekit_codec::cpu::{EncodeConfig, decode, encode, psnr};
use wavekit_codec::{Chroma, CodecError};

use wavekit_bench::codec::psnr_y;

use crate::error::CliError;
use crate::output::{check_output, file_err, write_atomic};

/// Chroma sampling on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ChromaArg {
    /// Cb and Cr at half width and height (the sides must be even).
    #[value(name = "420")]
    Yuv420,
    /// Cb and Cr at full size.
    #[value(name = "444")]
    Yuv444,
}

impl From<ChromaArg> for Chroma {
    fn from(c: ChromaArg) -> Self {
        match c {
            ChromaArg::Yuv420 => Chroma::Yuv420,
            ChromaArg::Yuv444 => Chroma::Yuv444,
        }
    }
}

impl From<CodecError> for CliError {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::Gpu(e) => CliError::Wavekit(e),
            e => CliError::Usage(e.to_string()),
        }
    }
}

/// How `wavekit encode` codes: chroma (default 4:2:0, 4:4:4 when lossless), levels, lossless.
pub struct Mode {
    /// Chroma sampling, if given.
    pub chroma: Option<ChromaArg>,
    /// Wavelet levels.
    pub levels: u8,
    /// Lossless coding.
    pub lossless: bool,
}

/// `wavekit encode`: on the GPU of `ctx`, or on the CPU (the same bytes).
pub fn encode_png(
    input: &Path,
    output: &Path,
    (bytes, bpp): (Option<usize>, Option<f64>),
    mode: Mode,
    ctx: Option<&wavekit::GpuContext>,
) -> Result<(), CliError> {
    let chroma = mode.chroma.unwrap_or(if mode.lossless {
        ChromaArg::Yuv444
    } else {
        ChromaArg::Yuv420
    });
    let levels = mode.levels;
    check_output(input, output)?;
    if crate::codec_y4m::is_y4m(input)? {
        return crate::codec_y4m::encode(input, output, (bytes, bpp), mode, ctx);
    }
    crate::dwt::check_pnm_maxval(input)?;
    let img =
        image::open(input).map_err(|e| file_err(input, format!("cannot read the image: {e}")))?;
    if img.color() != image::ColorType::Rgb8 {
        eprintln!(
            "note: {} is {:?}; coded as 8-bit RGB (alpha dropped, deeper samples rounded)",
            input.display(),
            img.color()
        );
    }
    let rgb = img.to_rgb8();
    let (w, h) = rgb.dimensions();
    let budget = budget_of((bytes, bpp), w, h, mode.lossless)?;
    let config = EncodeConfig {
        lossless: mode.lossless,
        source: wavekit_codec::format::Source::Rgb,
        chroma: chroma.into(),
        levels,
        budget,
    };
    encode_rgb(rgb, output, config, ctx)
}

/// The budget a frame from `--bytes` or `--bpp`; lossless without either, room for any frame.
pub(crate) fn budget_of(
    (bytes, bpp): (Option<usize>, Option<f64>),
    w: u32,
    h: u32,
    lossless: bool,
) -> Result<usize, CliError> {
    Ok(match (bytes, bpp) {
        (Some(b), None) => b,
        (None, Some(x)) if x.is_finite() && x > 0.0 => {
            (x * f64::from(w) * f64::from(h) / 8.0) as usize
        }
        (None, Some(x)) => {
            return Err(CliError::Usage(format!(
                "--bpp {x}: give a positive number of bits a pixel"
            )));
        }
        // Lossless without a cap: room for any frame (at most about 9.4 bytes a pixel and the
        // block table).
        (None, None) if lossless => {
            (12 * w as usize * h as usize + 65_536).min(wavekit_codec::gpu::MAX_FRAME_BYTES)
        }
        _ => {
            return Err(CliError::Usage(
                "give the frame's size: --bytes N or --bpp X".into(),
            ));
        }
    })
}

fn encode_rgb(
    rgb: image::RgbImage,
    output: &Path,
    config: EncodeConfig,
    ctx: Option<&wavekit::GpuContext>,
) -> Result<(), CliError> {
    let (w, h) = rgb.dimensions();
    let budget = config.budget;
    let mode = &config;
    let (frame, all_planes) = match ctx {
        None => {
            let (frame, stats) = encode(rgb.as_raw(), w, h, &config)?;
            (frame, stats.all_planes)
        }
        Some(ctx) => {
            let encoder = wavekit_codec::gpu::Encoder::new(ctx, w, h, &config)?;
            let (frame, stats) = encoder.encode_with_stats(ctx, rgb.as_raw())?;
            (frame, stats.all_planes)
        }
    };
    write_atomic(output, |tmp| {
        std::fs::write(tmp, &frame).map_err(|e| file_err(output, e))
    })?;
    let (_, back, _) = decode(&frame)?;
    let bits = 8.0 * frame.len() as f64 / (f64::from(w) * f64::from(h));
    if mode.lossless {
        if back != rgb.as_raw().as_slice() {
            return Err(CliError::CheckFailed(format!(
                "{}: the lossless frame does not decode to the input; please report it",
                output.display()
            )));
        }
        println!(
            "{}: {w} x {h}, {} bytes ({bits:.3} bpp), lossless: decodes to the input bit for bit",
            output.display(),
            frame.len()
        );
        return Ok(());
    }
    println!(
        "{}: {w} x {h}, {} bytes ({bits:.3} bpp, {:.1} % of the budget{}), PSNR-Y {:.2} dB, \
         PSNR-RGB {:.2} dB",
        output.display(),
        frame.len(),
        100.0 * frame.len() as f64 / budget as f64,
        if all_planes {
            "; every bit-plane fitted"
        } else {
            ""
        },
        psnr_y(rgb.as_raw(), &back, w as usize, h as usize),
        psnr(rgb.as_raw(), &back)
    );
    Ok(())
}

/// `wavekit decode`: on the GPU of `ctx`, or on the CPU.
pub fn decode_png(
    input: &Path,
    output: &Path,
    ctx: Option<&wavekit::GpuContext>,
) -> Result<(), CliError> {
    check_output(input, output)?;
    if crate::codec_y4m::wants_y4m(output) || crate::codec_y4m::is_stream(input)? {
        return crate::codec_y4m::decode(input, output, ctx);
    }
    let bytes = std::fs::read(input).map_err(|e| file_err(input, e))?;
    let (header, rgb, report) = match ctx {
        None => decode(&bytes).map_err(|e| file_err(input, e))?,
        Some(ctx) => {
            let header = wavekit_codec::Header::parse(&bytes).map_err(|e| file_err(input, e))?;
            let decoder = wavekit_codec::gpu::Decoder::new(ctx, &header, bytes.len())?;
            let (rgb, report) = decoder
                .decode(ctx, &bytes)
                .map_err(|e| file_err(input, e))?;
            (header, rgb, report)
        }
    };
    let img = image::RgbImage::from_raw(header.width, header.height, rgb)
        .expect("the decoder returns a whole frame");
    write_atomic(output, |tmp| {
        img.save_with_format(tmp, image::ImageFormat::Png)
            .map_err(|e| file_err(output, format!("cannot write the PNG: {e}")))
    })?;
    if !report.damaged.is_empty() {
        eprintln!(
            "warning: {} of {} blocks were damaged and decoded as flat (first: block {})",
            report.damaged.len(),
            report.blocks,
            report.damaged[0]
        );
    }
    println!(
        "{}: {} x {} from {} bytes",
        output.display(),
        header.width,
        header.height,
        bytes.len()
    );
    Ok(())
}

/// The policies `codec bench` times: the encode and decode sizes paired in order, the shorter
/// list's last repeated.
/// Each block kernel of `encoders` (the encoder's and the decoder's alike) with every pair.
/// Each of `bits` (16: 16-bit coefficients where the frame allows them; 32: never) with every
/// kernel and pair.
pub fn policies(
    encode: &[u32],
    decode: &[u32],
    encoders: &[BlockKernelArg],
    bits: &[u32],
) -> Result<Vec<wavekit_codec::gpu::CoderPolicy>, CliError> {
    if let Some(b) = bits.iter().find(|&&b| b != 16 && b != 32) {
        return Err(CliError::Usage(format!(
            "--coefficient-bits {b}: give 16, 32 or both (16,32)"
        )));
    }
    let n = encode.len().max(decode.len());
    let at = |v: &[u32], i: usize| v.get(i).or(v.last()).copied().unwrap_or(256);
    Ok(bits
        .iter()
        .flat_map(|&b| {
            encoders.iter().flat_map(move |&e| {
                (0..n).map(move |i| wavekit_codec::gpu::CoderPolicy {
                    encode_workgroup: at(encode, i),
                    decode_workgroup: at(decode, i),
                    encoder: e.into(),
                    decoder: e.into(),
                    wavelet_buffers_at_run_time: None,
                    coefficients_16_bit: b == 16,
                })
            })
        })
        .collect())
}

/// `--block-kernel`: which block encoder and decoder `codec bench` times.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BlockKernelArg {
    /// One subgroup a block (where the device's subgroup width is fixed and at most 32).
    Subgroup,
    /// One workgroup a block.
    Workgroup,
}

impl From<BlockKernelArg> for wavekit_codec::gpu::BlockKernel {
    fn from(a: BlockKernelArg) -> Self {
        match a {
            BlockKernelArg::Subgroup => Self::Subgroup,
            BlockKernelArg::Workgroup => Self::Workgroup,
        }
    }
}

/// `--pixels`: what `codec bench`'s coders take and give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PixelsArg {
    /// 8-bit RGB in, RGBA out.
    #[default]
    Rgb,
    /// 8-bit planar YCbCr in full range in and out (each frame's BT.709 samples, as a .y4m
    /// holds them): the form PyroWave's coders take and give.
    Ycbcr,
}

/// `--bpp`'s budgets are positive numbers.
fn check_bpp(bpp: &[f64]) -> Result<(), CliError> {
    match bpp.iter().find(|b| !(b.is_finite() && **b > 0.0)) {
        Some(b) => Err(CliError::Usage(format!(
            "--bpp {b}: give positive numbers of bits a pixel"
        ))),
        None => Ok(()),
    }
}

/// `codec bench`'s frames: the PNGs given, or synthetic frames at 1080p, 1440p and 4K.
fn bench_frames(frames: &[PathBuf]) -> Result<Vec<wavekit_bench::codec::Frame>, CliError> {
    let mut list = Vec::new();
    if frames.is_empty() {
        for (w, h) in [(1920u32, 1080u32), (2560, 1440), (3840, 2160)] {
            list.push(wavekit_bench::codec::Frame {
                name: format!("synthetic-{w}x{h}"),
                width: w,
                height: h,
                rgb: wavekit_codec::cpu::test_picture(w, h, u64::from(w)),
            });
        }
    }
    for f in frames {
        let img = image::open(f).map_err(|e| file_err(f, format!("cannot read the image: {e}")))?;
        let rgb = img.to_rgb8();
        let (width, height) = rgb.dimensions();
        list.push(wavekit_bench::codec::Frame {
            name: f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            width,
            height,
            rgb: rgb.into_raw(),
        });
    }
    Ok(list)
}

/// `wavekit codec bench --stream N`.
pub fn bench_stream(
    ctx: &wavekit::GpuContext,
    frames: &[PathBuf],
    bpp: &[f64],
    chroma: &[ChromaArg],
    options: &wavekit_bench::codec::Options,
    (count, in_flight): (usize, usize),
    json: bool,
) -> Result<(), CliError> {
    if options.ycbcr {
        return Err(CliError::Usage(
            "--pixels ycbcr times the protocol's cases; a --stream run decodes RGB: leave one \
             of them out"
                .into(),
        ));
    }
    if count == 0 || in_flight == 0 {
        return Err(CliError::Usage(format!(
            "--stream {count} --in-flight {in_flight}: give at least one frame and one in flight"
        )));
    }
    check_bpp(bpp)?;
    let list = bench_frames(frames)?;
    let chromas: Vec<Chroma> = chroma.iter().map(|&c| c.into()).collect();
    let clock = crate::bench::clock_reader(ctx);
    let policies = if options.policies.is_empty() {
        vec![wavekit_codec::gpu::CoderPolicy::default()]
    } else {
        options.policies.clone()
    };
    let mut all = Vec::new();
    for policy in &policies {
        policy
            .check()
            .map_err(|e| CliError::Usage(format!("--encode-workgroup/--decode-workgroup: {e}")))?;
        let rows = wavekit_bench::codec::stream(
            ctx,
            &list,
            &chromas,
            bpp,
            policy,
            count,
            in_flight,
            &*clock,
            &mut |m| eprintln!("{m}"),
        )?;
        if !json {
            println!(
                "{:<24} {:>6} {:>5} {:>7} {:>9} {:>10} {:>9} {:>9} {:>9} {:>6} {:>5}",
                "frame",
                "chroma",
                "bpp",
                "frames",
                "in flight",
                "frames/s",
                "lat p50",
                "lat p99",
                "lat max",
                "same",
                "clock"
            );
        }
        for r in &rows {
            if json {
                println!("{}", serde_json::to_string(r).expect("rows serialize"));
            } else {
                println!(
                    "{:<24} {:>6} {:>5} {:>7} {:>9} {:>10.0} {:>9.1} {:>9.1} {:>9.1} {:>6} {:>5}",
                    r.frame,
                    r.chroma,
                    r.bpp,
                    r.frames,
                    r.in_flight,
                    r.frames_per_second,
                    r.latency_median_us,
                    r.latency_p99_us,
                    r.latency_max_us,
                    r.stream_equals_single,
                    r.clock_mhz.map_or("-".into(), |c| c.to_string())
                );
            }
        }
        all.extend(rows);
    }
    if all.iter().any(|r| !r.stream_equals_single) {
        return Err(CliError::CheckFailed(
            "a frame decoded in the stream differs from the same frame decoded alone".into(),
        ));
    }
    Ok(())
}

/// `wavekit codec bench`.
pub fn bench(
    ctx: &wavekit::GpuContext,
    frames: &[PathBuf],
    bpp: &[f64],
    chroma: &[ChromaArg],
    options: &wavekit_bench::codec::Options,
    protocol: &wavekit_bench::protocol::Protocol,
    json: bool,
) -> Result<(), CliError> {
    for p in &options.policies {
        p.check()
            .map_err(|e| CliError::Usage(format!("--encode-workgroup/--decode-workgroup: {e}")))?;
    }
    check_bpp(bpp)?;
    let list = bench_frames(frames)?;
    let chromas: Vec<Chroma> = chroma.iter().map(|&c| c.into()).collect();
    let clock = crate::bench::clock_reader(ctx);
    let rows = wavekit_bench::codec::run(
        ctx,
        &list,
        &chromas,
        bpp,
        options,
        protocol,
        &*clock,
        &mut |m| eprintln!("{m}"),
    )?;
    if json {
        for r in &rows {
            println!("{}", serde_json::to_string(r).expect("rows serialize"));
        }
    } else {
        print_rows(&rows);
    }
    if rows.iter().any(|r| !r.gpu_equals_cpu) {
        return Err(CliError::CheckFailed(
            "the GPU's decoded frame differs from the CPU's".into(),
        ));
    }
    if rows.iter().any(|r| !r.gpu_bytes_equal_cpu) {
        return Err(CliError::CheckFailed(
            "the GPU encoder's bytes differ from the CPU's".into(),
        ));
    }
    Ok(())
}

fn print_rows(rows: &[wavekit_bench::codec::CodecBench]) {
    println!(
        "{:<24} {:>5} {:>5} {:>7} {:>10} {:>8} {:>8} {:>9} {:>11} {:>10} {:>10} {:>5}",
        "frame",
        "chroma",
        "bpp",
        "wg e/d",
        "bytes",
        "PSNR-Y",
        "PSNR-RGB",
        "GPU=CPU",
        "CPU enc ms",
        "enc µs",
        "dec µs",
        "clock"
    );
    for r in rows {
        println!(
            "{:<24} {:>5} {:>5} {:>7} {:>10} {:>8.2} {:>8.2} {:>9} {:>11.1} {:>10.1} {:>10.1} {:>5}",
            if r.pixels == "ycbcr" {
                format!("{} ycbcr", r.frame)
            } else {
                r.frame.clone()
            },
            r.chroma,
            r.bpp,
            {
                let side = |kernel: &str, wg: u32| {
                    if kernel == "subgroup" {
                        "sg".to_string()
                    } else {
                        wg.to_string()
                    }
                };
                format!(
                    "{}/{}",
                    side(r.block_encoder, r.block_workgroup.0),
                    side(r.block_decoder, r.block_workgroup.1)
                )
            },
            r.bytes,
            r.psnr_y,
            r.psnr_rgb,
            r.gpu_equals_cpu && r.gpu_bytes_equal_cpu,
            r.cpu_encode_ms,
            r.encode_median_us,
            r.decode_median_us,
            r.clock_mhz.map_or("-".into(), |c| c.to_string())
        );
        if !r.stages_us.is_empty() {
            let s: Vec<String> = r
                .stages_us
                .iter()
                .map(|(n, t)| format!("{n} {t:.1}"))
                .collect();
            println!("    stages µs: {}", s.join(", "));
        }
    }
}

/// A real photograph for the demo (crates/wavekit-cli/assets/README.md).
const PHOTO: &[u8] = include_bytes!("../assets/astronaut-256.png");

/// `wavekit demo`'s codec step: the photograph coded at 1 bpp (4:2:0) on the GPU and decoded
/// there, its bytes and pixels checked against the CPU reference's, the decoded PNG written to
/// `dir`; also losslessly, checked bit for bit. Returns the checks, each printed with its numbers.
pub fn demo(ctx: &wavekit::GpuContext, dir: &Path) -> Result<Vec<(String, bool)>, CliError> {
    let img = image::load_from_memory(PHOTO)
        .map_err(|e| CliError::Usage(format!("the demo photograph: {e}")))?
        .to_rgb8();
    let (w, h) = img.dimensions();
    let rgb = img.as_raw();
    let mut checks = Vec::new();
    let config = EncodeConfig {
        chroma: Chroma::Yuv420,
        levels: 5,
        budget: (w * h / 8) as usize,
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
    };
    let encoder = wavekit_codec::gpu::Encoder::new(ctx, w, h, &config)?;
    let frame = encoder.encode(ctx, rgb)?;
    let (cpu_frame, _) = encode(rgb, w, h, &config)?;
    let header = wavekit_codec::Header::parse(&frame)?;
    let decoder = wavekit_codec::gpu::Decoder::new(ctx, &header, frame.len())?;
    let (back, report) = decoder.decode(ctx, &frame)?;
    let (_, cpu_back, _) = decode(&frame)?;
    let out = dir.join("wavekit-codec-demo.png");
    image::RgbImage::from_raw(w, h, back.clone())
        .expect("a whole frame")
        .save(&out)
        .map_err(|e| file_err(&out, e))?;
    checks.push((
        format!(
            "astronaut {w} x {h} at 1 bpp: {} of {} bytes, PSNR-Y {:.2} dB, PSNR-RGB {:.2} dB; \
             the GPU's bytes equal the CPU encoder's",
            frame.len(),
            config.budget,
            psnr_y(rgb, &back, w as usize, h as usize),
            psnr(rgb, &back)
        ),
        frame == cpu_frame && frame.len() <= config.budget,
    ));
    checks.push((
        format!(
            "decoded on the GPU, equal to the CPU's decode, written to {}",
            out.display()
        ),
        back == cpu_back && report.damaged.is_empty(),
    ));
    let lossless = EncodeConfig {
        chroma: Chroma::Yuv444,
        budget: 12 * (w * h) as usize + 65_536,
        lossless: true,
        source: wavekit_codec::format::Source::Rgb,
        ..config
    };
    let frame = wavekit_codec::gpu::Encoder::new(ctx, w, h, &lossless)?.encode(ctx, rgb)?;
    let header = wavekit_codec::Header::parse(&frame)?;
    let (exact, _) =
        wavekit_codec::gpu::Decoder::new(ctx, &header, frame.len())?.decode(ctx, &frame)?;
    checks.push((
        format!(
            "lossless: {} bytes ({:.2} bpp), decoded on the GPU bit for bit",
            frame.len(),
            8.0 * frame.len() as f64 / f64::from(w * h)
        ),
        exact == *rgb,
    ));
    Ok(checks)
}
