//! `wavekit bench dwt`: the transform at video sizes, timed on the GPU under wavekit's
//! measurement protocol (each case warmed up by time, cases interleaved round by round, the
//! spread and the GPU clock reported: `crate::protocol`), beside the copy kernel on
//! the same bytes in the same run. Three bindings: separate image and coefficient buffers
//! (what the kernels do), in place (one more copy of the planes each way), and an 8-bit image
//! with separate coefficients (`Dwt::bind_u8`: a codec's ends).

use wavekit::GpuContext;

use crate::error::Result;
use crate::protocol::{Case, ClockReader, ClockWindow, Protocol, measure};

use wavekit_dwt::{BoundDwt, Dwt, Wavelet, reference};

/// The named sizes (360p: a quick look, and the tests' size).
pub const SIZES: &[(&str, u32, u32)] = &[
    ("360p", 640, 360),
    ("1080p", 1920, 1080),
    ("1440p", 2560, 1440),
    ("4k", 3840, 2160),
    ("8k", 7680, 4320),
];

/// The bindings measured: "separate", "in place", "8-bit".
pub const BINDINGS: &[&str] = &["separate", "in place", "8-bit"];

/// One measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DwtBench {
    /// Size name.
    pub size: String,
    /// Width and height.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Planes transformed in the same dispatches.
    pub planes: u32,
    /// Levels.
    pub levels: u32,
    /// "5/3" or "9/7".
    pub wavelet: &'static str,
    /// "forward" or "inverse".
    pub direction: &'static str,
    /// "separate" (image and coefficients in two buffers), "in place" or "8-bit" (an 8-bit
    /// image and separate coefficients).
    pub binding: &'static str,
    /// The colour transform fused into the first level (three planes).
    pub color: wavekit_dwt::Color,
    /// The tile shape the kernels work in.
    pub shape: wavekit_dwt::TileShape,
    /// The samples one workgroup transforms (width, height).
    pub tile: (u32, u32),
    /// Levels whose region (all planes) has at most this many samples use tiles of this many
    /// rows an invocation instead (ADR-0032): (rows, samples).
    pub small_levels: Option<(u32, u64)>,
    /// Median GPU time (all rounds).
    pub median_ns: f64,
    /// 10th percentile.
    pub p10_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// Samples (all planes) per second.
    pub samples_per_s: f64,
    /// The memory traffic of an ideal transform: per level, its LL region read once and its
    /// coefficients written once (4 bytes a sample, all planes; the image's side of the first
    /// level 1 byte a sample with the 8-bit binding).
    pub bound_bytes: u64,
    /// The copy kernel's GB/s on the planes' bytes, in the same run.
    pub copy_gbps: f64,
    /// Time the bound would take at the copy kernel's speed, over the measured time.
    pub bound_fraction: f64,
    /// The copy kernel's median time on the planes' bytes (4 bytes a sample), in the same run.
    pub copy_ns: f64,
    /// This case's time over the copy's: the "copy floor" ratio.
    pub copy_ratio: f64,
    /// Each round's median.
    pub round_medians_ns: Vec<f64>,
    /// (largest − smallest round median) / median.
    pub spread: f64,
    /// The GPU's clock during the timed runs, where it could be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
}

/// Bytes an ideal transform of `levels` levels moves, with `image_bytes` per sample on the
/// image's side (4, or 1 for 8-bit samples).
pub fn bound_bytes(width: u32, height: u32, planes: u32, levels: u32, image_bytes: u64) -> u64 {
    let all: u64 = reference::regions(width as usize, height as usize, levels)
        .into_iter()
        .map(|(w, h)| 2 * 4 * (w * h) as u64 * u64::from(planes))
        .sum();
    let samples = u64::from(width) * u64::from(height) * u64::from(planes);
    all - if levels > 0 {
        (4 - image_bytes) * samples
    } else {
        0
    }
}

/// One wavelet's plan, its pristine input, its in-place buffer, and the bound transforms by
/// binding.
struct Plan {
    wavelet: Wavelet,
    color: wavekit_dwt::Color,
    dwt: Dwt,
    pristine: wgpu::Buffer,
    data: wgpu::Buffer,
    bound: Vec<(&'static str, BoundDwt)>,
}

/// One (size, plane count)'s buffers, plans and bound transforms.
struct Setup {
    name: &'static str,
    width: u32,
    height: u32,
    planes: u32,
    copy: wavekit::copy::BoundCopy,
    /// Per wavelet: its plan, input and transforms.
    wavelets: Vec<Plan>,
}

/// Measure forward and inverse of both wavelets at each size and plane count, in each of
/// `bindings` (of [`BINDINGS`]), under `protocol`; with `colors`, the three-plane cases once
/// more with JPEG 2000's colour transform fused (RCT with 5/3, ICT with 9/7; not with the 8-bit
/// binding).
#[allow(clippy::too_many_arguments)]
pub fn run(
    ctx: &GpuContext,
    sizes: &[(&'static str, u32, u32)],
    planes: &[u32],
    levels: u32,
    bindings: &[&str],
    colors: bool,
    tuning: &wavekit_dwt::Tuning,
    protocol: &Protocol,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<DwtBench>> {
    if let Some(b) = bindings.iter().find(|b| !BINDINGS.contains(b)) {
        return Err(crate::Error::InvalidArgument(format!(
            "unknown binding '{b}'; use {}",
            BINDINGS.join(", ")
        )));
    }
    let copy_kernel = wavekit::copy::CopyKernel::new(ctx)?;
    let mut setups = Vec::new();
    for &(name, width, height) in sizes {
        for &p in planes {
            progress(format!("preparing {name} x{p} …"));
            let n = (width * height * p) as usize;
            let bytes = 4 * n as u64;
            let mut rng = fastrand::Rng::with_seed(u64::from(width) * 7 + u64::from(p));
            let ints: Vec<i32> = (0..n).map(|_| rng.i32(-128..128)).collect();
            let floats: Vec<f32> = ints.iter().map(|&v| v as f32).collect();
            let bytes8: Vec<u8> = (0..n.next_multiple_of(4)).map(|_| rng.u8(..)).collect();
            let image8 = ctx.storage_from("dwt 8-bit input", &bytes8)?;
            // The copy floor: the planes' bytes (4 a sample) copied once.
            let copy = copy_kernel.bind(
                ctx,
                &ctx.storage_uninit("dwt copy source", bytes)?,
                &ctx.storage_uninit("dwt copy destination", bytes)?,
                bytes,
            )?;
            let mut wavelets = Vec::new();
            for wavelet in [
                Wavelet::Reversible53,
                Wavelet::Irreversible97,
                Wavelet::Fixed97,
            ] {
                let pristine = if wavelet.is_integer() {
                    ctx.storage_from("dwt input", &ints)?
                } else {
                    ctx.storage_from("dwt input", &floats)?
                };
                let fused = match wavelet {
                    Wavelet::Reversible53 => Some(wavekit_dwt::Color::Rct),
                    Wavelet::Irreversible97 => Some(wavekit_dwt::Color::Ict),
                    Wavelet::Fixed97 => None,
                };
                let mut colors_here = vec![wavekit_dwt::Color::None];
                if let (true, 3, Some(fused)) = (colors, p, fused) {
                    colors_here.push(fused);
                }
                for color in colors_here {
                    let dwt = Dwt::tuned(ctx, (wavelet, width, height, levels, p), tuning)?
                        .with_color(color)?;
                    let data = ctx.storage_uninit("dwt data", bytes)?;
                    let mut bound = Vec::new();
                    for &b in BINDINGS.iter().filter(|b| bindings.contains(b)) {
                        let t = match b {
                            "separate" => dwt.bind_separate(ctx, &pristine, &data)?,
                            "in place" => dwt.bind(ctx, &data)?,
                            _ if color != wavekit_dwt::Color::None => continue,
                            _ => dwt.bind_u8(ctx, &image8, &data)?,
                        };
                        bound.push((b, t));
                    }
                    wavelets.push(Plan {
                        wavelet,
                        color,
                        dwt,
                        pristine: pristine.clone(),
                        data,
                        bound,
                    });
                }
            }
            setups.push(Setup {
                name,
                width,
                height,
                planes: p,
                copy,
                wavelets,
            });
        }
    }
    let mut cases = Vec::new();
    for s in &setups {
        let (name, p) = (s.name, s.planes);
        cases.push(Case::new(format!("copy {name} x{p}"), |e| s.copy.record(e)));
        for plan in &s.wavelets {
            let Plan {
                wavelet,
                color,
                dwt,
                pristine,
                data,
                bound,
            } = plan;
            for (binding, b) in bound {
                for forward in [true, false] {
                    let label = format!(
                        "{} {name} x{p} {} {binding}{}",
                        reference::name(*wavelet),
                        if forward { "forward" } else { "inverse" },
                        match color {
                            wavekit_dwt::Color::None => String::new(),
                            c => format!(" {c:?}"),
                        }
                    );
                    let bytes = 4 * dwt.len() as u64;
                    let case = Case::new(label, move |e| {
                        if forward {
                            b.record_forward(e);
                        } else {
                            b.record_inverse(e);
                        }
                    });
                    // In place, each run starts from the same planes (untimed); separate
                    // leaves its source as it was.
                    let case = if *binding == "in place" {
                        case.with_setup(move |e| {
                            e.copy_buffer_to_buffer(pristine, 0, data, 0, Some(bytes))
                        })
                    } else {
                        case
                    };
                    cases.push(case);
                }
            }
        }
    }
    let measured = measure(ctx, &mut cases, protocol, clock, progress)?;
    drop(cases);
    let mut m = measured.into_iter();
    let mut out = Vec::new();
    for s in &setups {
        let copy = m.next().expect("a copy case per size and plane count");
        let n = u64::from(s.width) * u64::from(s.height) * u64::from(s.planes);
        let copy_gbps = 2.0 * 4.0 * n as f64 / copy.timing.median_ns;
        for plan in &s.wavelets {
            let (wavelet, dwt, color) = (&plan.wavelet, &plan.dwt, plan.color);
            for (binding, _) in &plan.bound {
                for direction in ["forward", "inverse"] {
                    let r = m.next().expect("a case per transform");
                    let t = &r.timing;
                    let bound_bytes = bound_bytes(
                        s.width,
                        s.height,
                        s.planes,
                        dwt.levels(),
                        if *binding == "8-bit" { 1 } else { 4 },
                    );
                    out.push(DwtBench {
                        size: s.name.to_string(),
                        width: s.width,
                        height: s.height,
                        planes: s.planes,
                        levels: dwt.levels(),
                        wavelet: reference::name(*wavelet),
                        direction,
                        binding,
                        color,
                        shape: dwt.shape(),
                        tile: dwt.tile(),
                        small_levels: dwt.small_levels().map(|(t, most)| (t.rows, most)),
                        median_ns: t.median_ns,
                        p10_ns: t.p10_ns,
                        p90_ns: t.p90_ns,
                        samples_per_s: n as f64 / t.median_ns * 1e9,
                        bound_bytes,
                        copy_gbps,
                        bound_fraction: bound_bytes as f64 / copy_gbps / t.median_ns,
                        copy_ns: copy.timing.median_ns,
                        copy_ratio: t.median_ns / copy.timing.median_ns,
                        round_medians_ns: r.round_medians_ns.clone(),
                        spread: r.spread,
                        clock: r.clock,
                        clock_low: r.clock_low || copy.clock_low,
                    });
                }
            }
        }
    }
    Ok(out)
}
