//! `wavekit bench primitives`: reduce, scan, select and partition on u32, each beside the copy
//! kernel measured on the same number of bytes in the same run.

use serde::{Deserialize, Serialize};

use crate::bench::bench_copy;
use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::histogram::Histogram;
use crate::monoid::{Monoid, Op, Scalar};
use crate::reduce::{Reduce, ReducePolicy};
use crate::scan::{Scan, ScanConfig, ScanPolicy};
use crate::select::{Keep, Select, SelectPolicy};
use crate::sort::{KeyType, RadixSort, SortConfig, SortPolicy, Values};
use crate::tiling::LookbackStats;
use crate::timer::GpuTimer;

/// The primitives benchmarked, by the names the CUB peer prints too.
pub const PRIMITIVES: &[&str] = &[
    "reduce",
    "scan_inclusive",
    "scan_exclusive",
    "select",
    "partition",
];

/// The sort and histogram benchmarks (run with `--only`): u32 keys; keys with u32 values; 256
/// and 4096 even bins over the whole u32 range.
pub const SORT_PRIMITIVES: &[&str] = &["sort_keys", "sort_pairs", "histogram256", "histogram4096"];

/// The predicate of the select and partition benchmarks (about half the inputs are odd).
pub const ODD: &str = "fn keep(x: u32, i: u32) -> bool { return (x & 1u) == 1u; }";

/// One measurement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PrimitiveResult {
    /// Primitive name (see [`PRIMITIVES`]).
    pub primitive: String,
    /// Elements (u32).
    pub n: u64,
    /// Median GPU time.
    pub median_ns: f64,
    /// 10th percentile.
    pub p10_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// Elements per second at the median.
    #[serde(default)]
    pub elements_per_s: f64,
    /// Bytes the primitive must move at least (read + write), per second, in GB/s.
    #[serde(default)]
    pub gbps: f64,
    /// The copy kernel's GB/s on 4n bytes in the same run.
    #[serde(default)]
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`.
    #[serde(default)]
    pub copy_fraction: f64,
    /// What the look-back did in the last run (single-pass primitives).
    #[serde(default)]
    pub lookback: Option<LookbackStats>,
}

/// The policies the benchmark builds the primitives with (the CLI fills them from its tuning
/// knobs; default: each primitive's).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Policies {
    /// The scans'.
    pub scan: ScanPolicy,
    /// Reduce's.
    pub reduce: ReducePolicy,
    /// Select's and partition's.
    pub select: SelectPolicy,
    /// The sorts'.
    pub sort: SortPolicy,
}

/// The inputs both wavekit and the CUB peer use: a hash of the index.
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| {
            let mut x = i.wrapping_mul(2_654_435_761) ^ 0x9e37_79b9;
            x ^= x >> 16;
            x = x.wrapping_mul(0x7feb_352d);
            x ^= x >> 15;
            x = x.wrapping_mul(0x846c_a68b);
            x ^ (x >> 16)
        })
        .collect()
}

/// Minimum bytes moved: reads plus writes.
fn bytes_moved(primitive: &str, n: u64, kept: u64) -> u64 {
    match primitive {
        "reduce" => 4 * n,
        "select" => 4 * n + 4 * kept,
        "histogram256" | "histogram4096" => 4 * n,
        "sort_pairs" => 16 * n,
        _ => 8 * n,
    }
}

/// Run the chosen primitives at each `2^log2` size. `progress` gets a line per step.
pub fn run(
    ctx: &GpuContext,
    log2_sizes: &[u32],
    runs: u32,
    which: &[String],
    policies: &Policies,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<PrimitiveResult>> {
    for w in which {
        if !PRIMITIVES.contains(&w.as_str()) && !SORT_PRIMITIVES.contains(&w.as_str()) {
            return Err(Error::InvalidArgument(format!(
                "unknown primitive '{w}'; choose from {}, {}",
                PRIMITIVES.join(", "),
                SORT_PRIMITIVES.join(", ")
            )));
        }
    }
    let add = Monoid::builtin(Scalar::U32, Op::Add);
    let reduce = Reduce::with_policy(ctx, &add, policies.reduce)?;
    let scan = |inclusive| {
        let config = ScanConfig {
            policy: Some(policies.scan),
            ..ScanConfig::new(add.clone(), inclusive)
        };
        Scan::new(ctx, &config)
    };
    let (incl, excl) = (scan(true)?, scan(false)?);
    let odd = Keep::Predicate(ODD.into());
    let select = Select::with_policy(ctx, Scalar::U32, &odd, false, policies.select)?;
    let partition = Select::with_policy(ctx, Scalar::U32, &odd, true, policies.select)?;
    let keys = SortConfig {
        policy: Some(policies.sort),
        ..SortConfig::keys(KeyType::U32)
    };
    let sort_keys = RadixSort::new(ctx, &keys)?;
    let sort_pairs = RadixSort::new(
        ctx,
        &SortConfig {
            values: Values::U32,
            ..keys
        },
    )?;
    let hist256 = Histogram::new(ctx, 256, 0u32, u32::MAX)?;
    let hist4096 = Histogram::new(ctx, 4096, 0u32, u32::MAX)?;
    let timer = GpuTimer::new(ctx, runs);
    let mut out = Vec::new();
    let steps = log2_sizes.len() * which.len();
    let mut step = 0;
    for &lg in log2_sizes {
        if lg > 31 {
            return Err(Error::InvalidArgument(format!(
                "2^{lg} elements: at most 2^31"
            )));
        }
        let n = 1u64 << lg;
        let data = input(n as usize);
        let kept = data.iter().filter(|x| *x & 1 == 1).count() as u64;
        let src = ctx.storage_from("bench input", &data)?;
        drop(data);
        let dst = ctx.storage_uninit("bench output", 4 * n)?;
        // Bring the clocks up before the first measurement (a fresh process finds the GPU idle).
        if step == 0 {
            bench_copy(ctx, 4 * n, 5, warm_up_runs(n))?;
        }
        for name in which {
            step += 1;
            progress(format!("[{step}/{steps}] {name} 2^{lg} ..."));
            // The yardstick right before each primitive: the GPU's speed drifts between
            // measurements (seen on the H200: the copy kernel from 1.6 to 4.0 TB/s).
            let copy = bench_copy(ctx, 4 * n, 5, runs)?;
            let (timing, lookback) = match name.as_str() {
                "reduce" => {
                    let b = reduce.bind(ctx, &src, n)?;
                    (timer.measure(ctx, 5, runs, |e| b.record(e))?, None)
                }
                "scan_inclusive" | "scan_exclusive" => {
                    let s = if name == "scan_inclusive" {
                        &incl
                    } else {
                        &excl
                    };
                    let b = s.bind(ctx, &src, Some(&dst), n)?;
                    let t = timer.measure(ctx, 5, runs, |e| b.record(e))?;
                    (t, Some(b.lookback_stats(ctx)?))
                }
                "sort_keys" | "sort_pairs" => {
                    // Sorted in place: the input is restored before every run, untimed.
                    let keys = ctx.storage_uninit("bench keys", 4 * n)?;
                    let pairs = name == "sort_pairs";
                    let values = if pairs {
                        Some(ctx.storage_uninit("bench values", 4 * n)?)
                    } else {
                        None
                    };
                    let s = if pairs { &sort_pairs } else { &sort_keys };
                    let b = s.bind(ctx, &keys, values.as_ref(), n)?;
                    let t = timer.measure_after(
                        ctx,
                        5,
                        runs,
                        |e| {
                            e.copy_buffer_to_buffer(&src, 0, &keys, 0, Some(4 * n));
                            if let Some(v) = &values {
                                e.copy_buffer_to_buffer(&src, 0, v, 0, Some(4 * n));
                            }
                        },
                        |e| b.record(e),
                    )?;
                    (t, b.lookback_stats(ctx)?)
                }
                "histogram256" | "histogram4096" => {
                    let h = if name == "histogram256" {
                        &hist256
                    } else {
                        &hist4096
                    };
                    let b = h.bind(ctx, &src, n)?;
                    (timer.measure(ctx, 5, runs, |e| b.record(e))?, None)
                }
                _ => {
                    let s = if name == "select" {
                        &select
                    } else {
                        &partition
                    };
                    let b = s.bind(ctx, &src, None, &dst, n)?;
                    let t = timer.measure(ctx, 5, runs, |e| b.record(e))?;
                    (t, Some(b.lookback_stats(ctx)?))
                }
            };
            let gbps = bytes_moved(name, n, kept) as f64 / timing.median_ns;
            out.push(PrimitiveResult {
                primitive: name.clone(),
                n,
                median_ns: timing.median_ns,
                p10_ns: timing.p10_ns,
                p90_ns: timing.p90_ns,
                elements_per_s: n as f64 / timing.median_ns * 1e9,
                gbps,
                copy_gbps: copy.gbps,
                copy_fraction: gbps / copy.gbps,
                lookback,
            });
        }
    }
    Ok(out)
}

/// Copy runs that keep the GPU busy for about half a second (at 3 TB/s) before measuring.
fn warm_up_runs(n: u64) -> u32 {
    let bytes_per_run = 8 * n;
    (1_500_000_000_000u64 / bytes_per_run.max(1)).clamp(5, 2000) as u32
}
