//! `wavekit bench dwt`: the transform at video sizes, timed on the GPU (median of many runs,
//! the input restored before each run outside the timed part), beside the copy kernel on the
//! same bytes in the same run. Three bindings: separate image and coefficient buffers (what the
//! kernels do), in place (one more copy of the planes each way), and an 8-bit image with
//! separate coefficients (`Dwt::bind_u8`: a codec's ends).

use wavekit::{GpuContext, GpuTimer};

use crate::{Dwt, Result, Wavelet, reference};

/// The named sizes.
pub const SIZES: &[(&str, u32, u32)] = &[
    ("1080p", 1920, 1080),
    ("1440p", 2560, 1440),
    ("4k", 3840, 2160),
    ("8k", 7680, 4320),
];

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
    /// The tile shape the kernels work in.
    pub shape: crate::TileShape,
    /// The samples one workgroup transforms (width, height).
    pub tile: (u32, u32),
    /// Levels whose region (all planes) has at most this many samples use tiles of this many
    /// rows an invocation instead (ADR-032): (rows, samples).
    pub small_levels: Option<(u32, u64)>,
    /// Median GPU time.
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

/// Measure forward and inverse of both wavelets at each size and plane count.
pub fn run(
    ctx: &GpuContext,
    sizes: &[(&str, u32, u32)],
    planes: &[u32],
    levels: u32,
    runs: u32,
    tuning: &crate::Tuning,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<DwtBench>> {
    let timer = GpuTimer::new(ctx, runs);
    let mut out = Vec::new();
    let total = sizes.len() * planes.len() * 12;
    for &(name, width, height) in sizes {
        for &p in planes {
            let n = (width * height * p) as usize;
            let bytes = 4 * n as u64;
            let mut rng = fastrand::Rng::with_seed(u64::from(width) * 7 + u64::from(p));
            let ints: Vec<i32> = (0..n).map(|_| rng.i32(-128..128)).collect();
            let floats: Vec<f32> = ints.iter().map(|&v| v as f32).collect();
            let bytes8: Vec<u8> = (0..n.next_multiple_of(4)).map(|_| rng.u8(..)).collect();
            let copy = wavekit::bench::bench_copy(ctx, bytes, 5, runs)?;
            for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
                let dwt = Dwt::tuned(ctx, (wavelet, width, height, levels, p), tuning)?;
                let pristine = match wavelet {
                    Wavelet::Reversible53 => ctx.storage_from("dwt input", &ints)?,
                    Wavelet::Irreversible97 => ctx.storage_from("dwt input", &floats)?,
                };
                let data = ctx.storage_uninit("dwt data", bytes)?;
                let in_place = dwt.bind(ctx, &data)?;
                let separate = dwt.bind_separate(ctx, &pristine, &data)?;
                let image8 = ctx.storage_from("dwt 8-bit input", &bytes8)?;
                let eight = dwt.bind_u8(ctx, &image8, &data)?;
                for (binding, direction) in [
                    ("separate", "forward"),
                    ("separate", "inverse"),
                    ("in place", "forward"),
                    ("in place", "inverse"),
                    ("8-bit", "forward"),
                    ("8-bit", "inverse"),
                ] {
                    let bound = match binding {
                        "separate" => &separate,
                        "in place" => &in_place,
                        _ => &eight,
                    };
                    out.push(DwtBench {
                        size: name.to_string(),
                        width,
                        height,
                        planes: p,
                        levels,
                        wavelet: reference::name(wavelet),
                        direction,
                        binding,
                        shape: dwt.shape(),
                        tile: dwt.tile(),
                        small_levels: dwt.small_levels().map(|(t, most)| (t.rows, most)),
                        median_ns: 0.0,
                        p10_ns: 0.0,
                        p90_ns: 0.0,
                        samples_per_s: 0.0,
                        bound_bytes: bound_bytes(
                            width,
                            height,
                            p,
                            levels,
                            if binding == "8-bit" { 1 } else { 4 },
                        ),
                        copy_gbps: copy.gbps,
                        bound_fraction: 0.0,
                    });
                    let step = out.len();
                    let r = out.last_mut().expect("just pushed");
                    progress(format!(
                        "[{step}/{total}] {} {name} x{p} {direction} {binding} ...",
                        r.wavelet
                    ));
                    let t = timer.measure_after(
                        ctx,
                        5,
                        runs,
                        |e| {
                            // In place, each run starts from the same planes (untimed);
                            // separate leaves its source as it was.
                            if binding == "in place" {
                                e.copy_buffer_to_buffer(&pristine, 0, &data, 0, Some(bytes));
                            }
                        },
                        |e| {
                            if direction == "forward" {
                                bound.record_forward(e);
                            } else {
                                bound.record_inverse(e);
                            }
                        },
                    )?;
                    r.median_ns = t.median_ns;
                    r.p10_ns = t.p10_ns;
                    r.p90_ns = t.p90_ns;
                    r.samples_per_s = n as f64 / t.median_ns * 1e9;
                    r.bound_fraction = r.bound_bytes as f64 / copy.gbps / t.median_ns;
                }
            }
        }
    }
    Ok(out)
}
