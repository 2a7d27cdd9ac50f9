//! Every primitive on seeded data against its plain Rust reference, on the page's device: the
//! self-test, reduce, scan (exclusive and inclusive), segmented scan, select, partition, sort
//! (keys, and pairs) and histogram, at sizes around a tile and a few larger ones. Outputs are
//! poisoned first, so that an element the GPU never wrote fails the check. Each primitive is
//! timed once on 2^16 elements with GPU timestamps where the device has them.

use serde::Serialize;
use wavekit::histogram::{Histogram, HistogramConfig};
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig, reference};
use wavekit::select::{Keep, Select, SelectConfig};
use wavekit::sort::{KeyType, RadixSort, SortConfig, Values};
use wavekit::{GpuContext, GpuTimer, Result, TimestampSupport};

/// One line of the page's table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// What was checked ("scan", "ui panel", …).
    pub name: String,
    /// Whether it matched its reference (a skip passes and says why in `detail`).
    pub ok: bool,
    /// Sizes tried, mismatches, or why it was skipped.
    pub detail: String,
    /// Median GPU time of one run on 2^16 elements, in microseconds, where measured.
    pub gpu_us: Option<f64>,
}

impl Row {
    pub fn new(name: &str, result: Result<(bool, String, Option<f64>), String>) -> Self {
        match result {
            Ok((ok, detail, gpu_us)) => Self {
                name: name.into(),
                ok,
                detail,
                gpu_us,
            },
            Err(e) => Self {
                name: name.into(),
                ok: false,
                detail: format!("error: {e}"),
                gpu_us: None,
            },
        }
    }
}

/// A line of progress in the browser's console (the test driver prints it with the time).
fn progress(what: &str) {
    web_sys::console::log_1(&format!("wavekit progress {what}").into());
}

/// Elements timed per primitive.
const TIMED: usize = 1 << 16;

fn sizes(tile: u32) -> Vec<usize> {
    let t = tile as usize;
    let mut s = vec![1, 2, t - 1, t, t + 1, 3 * t + 7, 10_007, TIMED];
    s.sort_unstable();
    s.dedup();
    s
}

fn words(seed: u64, n: usize, below: u32) -> Vec<u32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(|_| rng.u32(..below)).collect()
}

/// The first index where `got` and `want` differ, in words.
fn first_difference<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} elements, expected {}", got.len(), want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .map(|i| format!("element {i}: {:?}, expected {:?}", got[i], want[i]))
}

/// Median GPU time of `record`, in µs; `None` without timestamp queries.
/// Timed runs a GPU time is the median of (the page's `runs` parameter; 10 by default), after
/// three tenths as many warm-up runs (3 for 10).
pub static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(10);

/// (warm-up runs, timed runs) for every GPU time on the page.
pub fn runs() -> (u32, u32) {
    let n = RUNS.load(std::sync::atomic::Ordering::Relaxed).max(1);
    ((3 * n).div_ceil(10), n)
}

async fn time(
    ctx: &GpuContext,
    record: impl FnMut(&mut wgpu::CommandEncoder),
) -> Result<Option<f64>> {
    if ctx.caps.timestamps == TimestampSupport::None {
        return Ok(None);
    }
    let (warm, n) = runs();
    let timer = GpuTimer::new(ctx, n);
    let t = timer.measure_async(ctx, warm, n, record).await?;
    Ok(Some(t.median_ns / 1000.0))
}

/// Gather the outcome over sizes: every size must pass; the detail names the sizes or the
/// first failure.
struct Tally {
    sizes: Vec<usize>,
    failure: Option<String>,
}

impl Tally {
    fn new() -> Self {
        Self {
            sizes: Vec::new(),
            failure: None,
        }
    }

    fn add(&mut self, n: usize, problem: Option<String>) {
        self.sizes.push(n);
        if let (None, Some(p)) = (&self.failure, problem) {
            self.failure = Some(format!("n = {n}: {p}"));
        }
    }

    fn finish(self, gpu_us: Option<f64>) -> (bool, String, Option<f64>) {
        match self.failure {
            Some(f) => (false, f, gpu_us),
            None => (
                true,
                format!("{} sizes, n = {:?}, exact", self.sizes.len(), self.sizes),
                gpu_us,
            ),
        }
    }
}

pub async fn reduce(ctx: &GpuContext, seed: u64) -> Result<(bool, String, Option<f64>)> {
    let r = Reduce::new(
        ctx,
        &ReduceConfig::new(Monoid::builtin(Scalar::U32, Op::Add)),
    )?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(r.tile_elements()).into_iter().enumerate() {
        let x = words(seed + k as u64, n, u32::MAX);
        let input = ctx.storage_from("reduce input", &x)?;
        let bound = r.bind(ctx, &input, n as u64)?;
        ctx.queue
            .write_buffer(bound.result(), 0, bytemuck::bytes_of(&wavekit::POISON));
        ctx.submit(|enc| bound.record(enc));
        let got: Vec<u32> = ctx
            .read_back_async("reduce result", bound.result(), 1)
            .await?;
        let want = x.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        tally.add(n, first_difference(&got, &[want]));
        if n == TIMED {
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}

pub async fn scan(
    ctx: &GpuContext,
    seed: u64,
    inclusive: bool,
) -> Result<(bool, String, Option<f64>)> {
    let config = ScanConfig {
        inclusive,
        ..ScanConfig::inclusive(Monoid::builtin(Scalar::U32, Op::Add))
    };
    let s = Scan::new(ctx, &config)?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(s.tile_elements()).into_iter().enumerate() {
        let x = words(seed + k as u64, n, u32::MAX);
        let input = ctx.storage_from("scan input", &x)?;
        let output = ctx.storage_poisoned("scan output", n)?;
        let bound = s.bind(ctx, &input, Some(&output), n as u64)?;
        ctx.submit(|enc| bound.record(enc));
        let got: Vec<u32> = ctx.read_back_async("scan output", &output, n).await?;
        tally.add(
            n,
            first_difference(&got, &reference::scan(&x, Op::Add, inclusive)),
        );
        if n == TIMED {
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}

pub async fn segmented(ctx: &GpuContext, seed: u64) -> Result<(bool, String, Option<f64>)> {
    let s = Scan::segmented(ctx, Scalar::U32, Op::Add, true, None)?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(s.tile_elements()).into_iter().enumerate() {
        let x = words(seed + k as u64, n, 1000);
        // A head about every 37 elements.
        let heads: Vec<u32> = words(seed + 1000 + k as u64, n, 37)
            .iter()
            .map(|&r| u32::from(r == 0))
            .collect();
        let input = ctx.storage_from("segmented input", &x)?;
        let flags = ctx.storage_from("segmented heads", &heads)?;
        let output = ctx.storage_poisoned("segmented output", n)?;
        let bound = s.bind_segmented(ctx, &input, &flags, &output, n as u64)?;
        ctx.submit(|enc| bound.record(enc));
        let got: Vec<u32> = ctx.read_back_async("segmented output", &output, n).await?;
        let want = reference::segmented_scan(&x, &heads, Op::Add, true);
        tally.add(n, first_difference(&got, &want));
        if n == TIMED {
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}

pub async fn select(
    ctx: &GpuContext,
    seed: u64,
    partition: bool,
) -> Result<(bool, String, Option<f64>)> {
    let keep = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return (x & 1u) == 1u; }".into());
    let s = Select::new(ctx, &SelectConfig::new(Scalar::U32, keep, partition))?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(s.tile_elements()).into_iter().enumerate() {
        let x = words(seed + k as u64, n, u32::MAX);
        let kept: Vec<bool> = x.iter().map(|v| v & 1 == 1).collect();
        let input = ctx.storage_from("select input", &x)?;
        let output = ctx.storage_poisoned("select output", n)?;
        let bound = s.bind(ctx, &input, None, &output, n as u64)?;
        ctx.queue
            .write_buffer(bound.count(), 0, bytemuck::bytes_of(&wavekit::POISON));
        ctx.submit(|enc| bound.record(enc));
        let count = ctx.read_back_async::<u32>("select count", bound.count(), 1);
        let out = ctx.read_back_async::<u32>("select output", &output, n);
        let (count, out) = (count.await?[0] as usize, out.await?);
        let (want, want_count) = if partition {
            reference::partition(&x, &kept)
        } else {
            let w = reference::select(&x, &kept);
            let c = w.len();
            (w, c)
        };
        let problem = if count != want_count {
            Some(format!("count {count}, expected {want_count}"))
        } else if partition {
            first_difference(&out, &want)
        } else {
            first_difference(&out[..count], &want)
        };
        tally.add(n, problem);
        if n == TIMED {
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}

pub async fn sort(ctx: &GpuContext, seed: u64, pairs: bool) -> Result<(bool, String, Option<f64>)> {
    let config = SortConfig {
        values: if pairs { Values::U32 } else { Values::None },
        policy: Some(wavekit::sort::SortPolicy {
            items: 4,
            ..wavekit::sort::SortPolicy::for_device(ctx)
        }),
        ..SortConfig::keys(KeyType::U32)
    };
    let what = if pairs { "sort pairs" } else { "sort keys" };
    progress(&format!("{what}: building the pipelines"));
    let s = RadixSort::new(ctx, &config)?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(s.tile_keys()).into_iter().enumerate() {
        progress(&format!("{what}: {n} keys"));
        // Keys from a small range as well as the full one: equal keys test stability.
        let below = if k % 2 == 0 { u32::MAX } else { 97 };
        let keys = words(seed + k as u64, n, below);
        let payload: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
        let kb = ctx.storage_from("sort keys", &keys)?;
        let vb = ctx.storage_from("sort values", &payload)?;
        let bound = s.bind(ctx, &kb, pairs.then_some(&vb), n as u64)?;
        ctx.submit(|enc| bound.record(enc));
        let got_keys = ctx.read_back_async::<u32>("sorted keys", &kb, n);
        let got_values = ctx.read_back_async::<u32>("sorted values", &vb, n);
        let (got_keys, got_values) = (got_keys.await?, got_values.await?);
        let order = wavekit::sort::reference::permutation(&keys, false, (0, 32));
        let want_keys: Vec<u32> = order.iter().map(|&i| keys[i as usize]).collect();
        let mut problem = first_difference(&got_keys, &want_keys);
        if pairs && problem.is_none() {
            let want_values: Vec<u32> = order.iter().map(|&i| payload[i as usize]).collect();
            problem = first_difference(&got_values, &want_values).map(|p| format!("values: {p}"));
        }
        tally.add(n, problem);
        if n == TIMED {
            // The sort works in place: each timed run sorts the sorted keys again.
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}

pub async fn histogram(ctx: &GpuContext, seed: u64) -> Result<(bool, String, Option<f64>)> {
    let (bins, lower, upper) = (64, 0.0f32, 1.0f32);
    let h = Histogram::new(ctx, &HistogramConfig::new(bins, lower, upper))?;
    let mut tally = Tally::new();
    let mut gpu = None;
    for (k, n) in sizes(4096).into_iter().enumerate() {
        let mut rng = fastrand::Rng::with_seed(seed + k as u64);
        let x: Vec<f32> = (0..n)
            .map(|i| match i % 101 {
                0 => f32::NAN,
                _ => rng.f32() * 1.2 - 0.1,
            })
            .collect();
        let input = ctx.storage_from("histogram samples", &x)?;
        let bound = h.bind(ctx, &input, n as u64)?;
        ctx.submit(|enc| bound.record(enc));
        let all: Vec<u32> = ctx
            .read_back_async("histogram counts", bound.counts(), bins as usize + 3)
            .await?;
        let want = wavekit::histogram::reference::histogram(&x, bins, lower, upper);
        let mut w = want.bins.clone();
        w.extend([want.below, want.above, want.nan]);
        tally.add(n, first_difference(&all, &w));
        if n == TIMED {
            gpu = time(ctx, |enc| bound.record(enc)).await?;
        }
    }
    Ok(tally.finish(gpu))
}
