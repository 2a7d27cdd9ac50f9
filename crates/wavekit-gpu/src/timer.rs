//! GPU timing on timestamp queries: warm-up, N runs, median and spread.
//!
//! Each measured run is bracketed by two timestamps, so any recorded work (one pass or many,
//! copies included) is timed: written between passes where the device can
//! (`TIMESTAMP_QUERY_INSIDE_ENCODERS`), otherwise by two empty compute passes, which needs only
//! `TIMESTAMP_QUERY` (ADR-0003, ADR-0041). Without timestamps the timer falls back to wall-clock
//! time around submit-and-wait, and says so in [`Timing::method`].

use serde::Serialize;

use crate::context::{GpuContext, TimestampSupport};
use crate::error::Result;

/// How a [`Timing`] was measured.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimingMethod {
    /// GPU timestamp queries.
    GpuTimestamps,
    /// Host wall clock around submit-and-wait (includes submission overhead).
    WallClock,
}

/// Statistics of repeated runs, in nanoseconds.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// How the samples were taken.
    pub method: TimingMethod,
    /// Median.
    pub median_ns: f64,
    /// Fastest run.
    pub min_ns: f64,
    /// Slowest run.
    pub max_ns: f64,
    /// 10th percentile.
    pub p10_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// Every sample, in run order.
    pub samples_ns: Vec<f64>,
}

impl Timing {
    /// Statistics of `samples` (must be non-empty).
    pub fn from_samples(method: TimingMethod, samples_ns: Vec<f64>) -> Self {
        let mut s = samples_ns.clone();
        s.sort_by(f64::total_cmp);
        let q = |p: f64| {
            if s.is_empty() {
                return f64::NAN;
            }
            let i = ((s.len() - 1) as f64 * p).round() as usize;
            s[i]
        };
        let median_ns = if s.is_empty() {
            f64::NAN
        } else if s.len() % 2 == 1 {
            s[s.len() / 2]
        } else {
            (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
        };
        Self {
            method,
            median_ns,
            min_ns: q(0.0),
            max_ns: q(1.0),
            p10_ns: q(0.1),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            samples_ns,
        }
    }
}

/// Times recorded GPU work.
pub struct GpuTimer {
    query_set: Option<wgpu::QuerySet>,
    capacity: u32,
    // Bracket runs with empty marker passes instead of timestamps between passes.
    markers: bool,
}

impl GpuTimer {
    /// A timer for up to `max_runs` measured runs per [`GpuTimer::measure`] call.
    pub fn new(ctx: &GpuContext, max_runs: u32) -> Self {
        let capacity = max_runs.clamp(1, 2048) * 2;
        let query_set = (ctx.caps.timestamps != TimestampSupport::None).then(|| {
            ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("wavekit.timer"),
                ty: wgpu::QueryType::Timestamp,
                count: capacity,
            })
        });
        let markers = ctx.caps.timestamps != TimestampSupport::InsideEncoders;
        Self {
            query_set,
            capacity,
            markers,
        }
    }

    /// The same timer bracketing runs with two empty marker passes, as on devices that cannot
    /// write timestamps between passes (to compare the two; they add about 1.8 µs a run on the
    /// H200, ADR-0041).
    pub fn with_marker_passes(mut self) -> Self {
        self.markers = true;
        self
    }

    /// Whether runs are bracketed by marker passes (rather than timestamps between passes).
    pub fn uses_marker_passes(&self) -> bool {
        self.query_set.is_some() && self.markers
    }

    /// The method this timer will use on its device.
    pub fn method(&self) -> TimingMethod {
        if self.query_set.is_some() {
            TimingMethod::GpuTimestamps
        } else {
            TimingMethod::WallClock
        }
    }

    /// Record and submit the work `warmup` times unmeasured, then `runs` times measured, one
    /// submission each, and return the statistics.
    pub fn measure(
        &self,
        ctx: &GpuContext,
        warmup: u32,
        runs: u32,
        record: impl FnMut(&mut wgpu::CommandEncoder),
    ) -> Result<Timing> {
        self.measure_after(ctx, warmup, runs, |_| {}, record)
    }

    /// Like [`GpuTimer::measure`], with `setup` recorded before each run, outside the timed
    /// part (e.g. restoring the input of a sort that works in place).
    pub fn measure_after(
        &self,
        ctx: &GpuContext,
        warmup: u32,
        runs: u32,
        setup: impl FnMut(&mut wgpu::CommandEncoder),
        record: impl FnMut(&mut wgpu::CommandEncoder),
    ) -> Result<Timing> {
        let submitted = self.submit_runs(ctx, warmup, runs, setup, record)?;
        // With a blocking read-back nothing in `finish` waits: one poll completes it.
        crate::buffers::complete_now(
            Self::finish(ctx, submitted, true),
            "timing GPU work",
            "GpuTimer::measure_async",
        )
    }

    /// [`GpuTimer::measure`] as a future, for the web (where a blocking read-back cannot wait).
    pub async fn measure_async(
        &self,
        ctx: &GpuContext,
        warmup: u32,
        runs: u32,
        record: impl FnMut(&mut wgpu::CommandEncoder),
    ) -> Result<Timing> {
        self.measure_after_async(ctx, warmup, runs, |_| {}, record)
            .await
    }

    /// [`GpuTimer::measure_after`] as a future. Without timestamp queries it fails on the web,
    /// where a wall clock cannot wait for the GPU.
    pub async fn measure_after_async(
        &self,
        ctx: &GpuContext,
        warmup: u32,
        runs: u32,
        setup: impl FnMut(&mut wgpu::CommandEncoder),
        record: impl FnMut(&mut wgpu::CommandEncoder),
    ) -> Result<Timing> {
        let submitted = self.submit_runs(ctx, warmup, runs, setup, record)?;
        Self::finish(ctx, submitted, false).await
    }

    /// The timing of submitted runs, reading the timestamps back blocking or awaited.
    async fn finish(ctx: &GpuContext, submitted: Submitted, blocking: bool) -> Result<Timing> {
        match submitted {
            Submitted::Timed(t) => Ok(t),
            Submitted::Stamps { resolve, count } => {
                let ticks: Vec<u64> = if blocking {
                    ctx.read_back("timestamps", &resolve, count)?
                } else {
                    ctx.read_back_async("timestamps", &resolve, count).await?
                };
                Ok(Self::timing(ctx, &ticks))
            }
        }
    }

    fn timing(ctx: &GpuContext, ticks: &[u64]) -> Timing {
        let period = f64::from(ctx.queue.get_timestamp_period());
        let samples = ticks
            .chunks_exact(2)
            .map(|p| p[1].wrapping_sub(p[0]) as f64 * period)
            .collect();
        Timing::from_samples(TimingMethod::GpuTimestamps, samples)
    }

    /// Submit the warm-up and the measured runs; with timestamps, the resolved stamps to read.
    fn submit_runs(
        &self,
        ctx: &GpuContext,
        warmup: u32,
        runs: u32,
        mut setup: impl FnMut(&mut wgpu::CommandEncoder),
        mut record: impl FnMut(&mut wgpu::CommandEncoder),
    ) -> Result<Submitted> {
        let runs = runs.clamp(1, self.capacity / 2);
        for _ in 0..warmup {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            setup(&mut enc);
            record(&mut enc);
            ctx.queue.submit([enc.finish()]);
        }
        // The warm-up done before the timed runs (on the web this waits for nothing).
        ctx.wait()?;
        let Some(qs) = &self.query_set else {
            #[cfg(target_arch = "wasm32")]
            {
                return Err(crate::error::Error::MissingFeature {
                    feature: "timestamp queries",
                    adapter: ctx.summary.label(),
                    hint: "on the web only GPU timestamps can time GPU work: use a browser and \
                           adapter with `timestamp-query`",
                });
            }
            #[cfg(not(target_arch = "wasm32"))]
            {
                let mut samples = Vec::with_capacity(runs as usize);
                for _ in 0..runs {
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    setup(&mut enc);
                    ctx.queue.submit([enc.finish()]);
                    ctx.wait()?;
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    record(&mut enc);
                    let start = std::time::Instant::now();
                    ctx.queue.submit([enc.finish()]);
                    ctx.wait()?;
                    samples.push(start.elapsed().as_nanos() as f64);
                }
                return Ok(Submitted::Timed(Timing::from_samples(
                    TimingMethod::WallClock,
                    samples,
                )));
            }
        };
        ctx.scoped("timing GPU work", || {
            // Timestamp `index` between passes, or in an empty pass at its start or end.
            let stamp = |enc: &mut wgpu::CommandEncoder, index: u32, begin: bool| {
                if self.markers {
                    marker(enc, qs, begin.then_some(index), (!begin).then_some(index));
                } else {
                    enc.write_timestamp(qs, index);
                }
            };
            for r in 0..runs {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                setup(&mut enc);
                stamp(&mut enc, 2 * r, true);
                record(&mut enc);
                stamp(&mut enc, 2 * r + 1, false);
                ctx.queue.submit([enc.finish()]);
            }
        })?;
        let count = 2 * runs;
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wavekit.timer.resolve"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.resolve_query_set(qs, 0..count, &resolve, 0);
        ctx.queue.submit([enc.finish()]);
        Ok(Submitted::Stamps {
            resolve,
            count: count as usize,
        })
    }
}

/// What [`GpuTimer::submit_runs`] left to do.
enum Submitted {
    /// Timed already (by the wall clock).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Timed(Timing),
    /// `count` timestamps resolved into `resolve`, to be read.
    Stamps { resolve: wgpu::Buffer, count: usize },
}

/// An empty compute pass that only writes timestamps.
fn marker(
    enc: &mut wgpu::CommandEncoder,
    qs: &wgpu::QuerySet,
    begin: Option<u32>,
    end: Option<u32>,
) {
    let pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("wavekit.timer.marker"),
        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
            query_set: qs,
            beginning_of_pass_write_index: begin,
            end_of_pass_write_index: end,
        }),
    });
    drop(pass);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_samples() {
        let t = Timing::from_samples(TimingMethod::WallClock, vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((t.median_ns, t.min_ns, t.max_ns), (3.0, 1.0, 5.0));
        let t = Timing::from_samples(TimingMethod::WallClock, vec![4.0, 1.0, 3.0, 2.0]);
        assert_eq!(t.median_ns, 2.5);
        let samples: Vec<f64> = (1..=11).map(f64::from).collect();
        let t = Timing::from_samples(TimingMethod::GpuTimestamps, samples);
        assert_eq!((t.p10_ns, t.p90_ns), (2.0, 10.0));
        assert_eq!(t.samples_ns.len(), 11);
        let samples: Vec<f64> = (1..=101).map(f64::from).collect();
        let t = Timing::from_samples(TimingMethod::GpuTimestamps, samples);
        assert_eq!((t.median_ns, t.p99_ns), (51.0, 100.0));
        let t = Timing::from_samples(TimingMethod::GpuTimestamps, vec![3.0]);
        assert_eq!((t.p10_ns, t.p99_ns), (3.0, 3.0));
    }
}
