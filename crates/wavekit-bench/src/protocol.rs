//! The measurement protocol every wavekit benchmark follows, so that numbers are taken at full
//! clock (an idle GPU drops its clock within about a second; the H200 fell to 345 MHz while a
//! cold process compiled its pipelines, and kernels timed right after ran 2–5× slow):
//! - each case is warmed up **by time**: at least [`Protocol::warm_up`] of its own sustained
//!   load (batches of runs in one submission, back to back), immediately before it is timed;
//! - the cases are **interleaved round by round** ([`Protocol::rounds`]), so a slow phase of
//!   the device shows as a spread instead of biasing one case;
//! - the **spread across rounds** (of each round's median) is reported beside the median of
//!   all runs;
//! - where the caller can read the GPU's clock (a [`ClockReader`]: the CLI reads NVIDIA's
//!   through NVML), the clock during each case's timed runs is kept and a case timed below
//!   90 % of the maximum clock is **flagged**.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use wavekit::context::GpuContext;
use wavekit::error::{Error, Result};
use wavekit::timer::{GpuTimer, Timing};

/// How cases are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Protocol {
    /// Timed runs per case and round (one submission each).
    pub runs: u32,
    /// Rounds; every case is measured once per round, in the same order.
    pub rounds: u32,
    /// The case's own sustained load right before each timing.
    pub warm_up: Duration,
    /// Bracket runs with empty marker passes even where the device can write timestamps between
    /// passes (ADR-0041: they add about 1.8 µs a run on the H200).
    pub marker_passes: bool,
}

impl Default for Protocol {
    fn default() -> Self {
        Self {
            runs: 30,
            rounds: 3,
            warm_up: Duration::from_millis(200),
            marker_passes: false,
        }
    }
}

impl Protocol {
    /// Fails on a protocol that would time nothing.
    pub fn check(&self) -> Result<()> {
        if self.runs == 0 || self.rounds == 0 || self.runs > 1024 {
            return Err(Error::InvalidArgument(format!(
                "benchmark protocol: {} runs × {} rounds; use 1 to 1024 runs and at least one \
                 round",
                self.runs, self.rounds
            )));
        }
        Ok(())
    }
}

/// What the GPU's SM clock did while a case was timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockWindow {
    /// Lowest reading during the timed runs, MHz.
    pub min_mhz: u32,
    /// Highest reading, MHz.
    pub max_mhz: u32,
    /// The device's maximum SM clock, MHz.
    pub max_supported_mhz: u32,
}

impl ClockWindow {
    /// Whether some reading was below 90 % of the maximum clock.
    pub fn below_max(&self) -> bool {
        u64::from(self.min_mhz) * 10 < u64::from(self.max_supported_mhz) * 9
    }

    /// The worse of two windows (the lower minimum).
    fn worst(self, other: ClockWindow) -> ClockWindow {
        ClockWindow {
            min_mhz: self.min_mhz.min(other.min_mhz),
            max_mhz: self.max_mhz.max(other.max_mhz),
            max_supported_mhz: self.max_supported_mhz.max(other.max_supported_mhz),
        }
    }
}

/// Reads the GPU's clock over a window of time (the CLI samples NVML in the background).
pub trait ClockReader {
    /// The clock between `from` and `to`, if it can be read on this device.
    fn window(&self, from: Instant, to: Instant) -> Option<ClockWindow>;
}

/// No clock reading (devices and platforms without one).
pub struct NoClock;

impl ClockReader for NoClock {
    fn window(&self, _: Instant, _: Instant) -> Option<ClockWindow> {
        None
    }
}

/// Recording into an encoder.
type Record<'a> = Box<dyn FnMut(&mut wgpu::CommandEncoder) + 'a>;

/// One case: work recorded into an encoder, with optional untimed work before each run (e.g.
/// restoring the input of a sort that works in place).
pub struct Case<'a> {
    /// The case's name, as results report it.
    pub name: String,
    setup: Option<Record<'a>>,
    record: Record<'a>,
}

impl<'a> Case<'a> {
    /// A case that records `record`.
    pub fn new(
        name: impl Into<String>,
        record: impl FnMut(&mut wgpu::CommandEncoder) + 'a,
    ) -> Self {
        Self {
            name: name.into(),
            setup: None,
            record: Box::new(record),
        }
    }

    /// The same case with `setup` recorded, untimed, before every run.
    pub fn with_setup(mut self, setup: impl FnMut(&mut wgpu::CommandEncoder) + 'a) -> Self {
        self.setup = Some(Box::new(setup));
        self
    }
}

/// One case measured under the protocol.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// The case's name.
    pub name: String,
    /// Every timed run of every round.
    pub timing: Timing,
    /// Each round's median, in round order.
    pub round_medians_ns: Vec<f64>,
    /// (largest − smallest round median) / median of all runs.
    pub spread: f64,
    /// GPU time spent warming the case up before each timing (estimated from the runs), ms.
    pub warm_up_ms: f64,
    /// The clock during the timed runs (worst round), where it can be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock in some round: the number is suspect.
    pub clock_low: bool,
}

/// The clock column of a report: the lowest reading during the timed runs, flagged when below
/// 90 % of the maximum; `-` where the clock cannot be read.
pub fn clock_text(clock: Option<ClockWindow>, low: bool) -> String {
    match clock {
        None => "-".into(),
        Some(c) if low => format!("{}! LOW", c.min_mhz),
        Some(c) => c.min_mhz.to_string(),
    }
}

/// Measure `cases` under `protocol`, round by round; `progress` gets a line per case and round.
pub fn measure(
    ctx: &GpuContext,
    cases: &mut [Case<'_>],
    protocol: &Protocol,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<Measured>> {
    protocol.check()?;
    let mut timer = GpuTimer::new(ctx, protocol.runs);
    if protocol.marker_passes {
        timer = timer.with_marker_passes();
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut warmed: Vec<f64> = vec![0.0; cases.len()];
    let mut clocks: Vec<Option<ClockWindow>> = vec![None; cases.len()];
    let mut method = None;
    for round in 0..protocol.rounds {
        for (i, case) in cases.iter_mut().enumerate() {
            progress(format!(
                "[round {}/{}] {} …",
                round + 1,
                protocol.rounds,
                case.name
            ));
            warmed[i] = warm_up(ctx, &timer, case, protocol.warm_up, clock)?;
            let from = Instant::now();
            let t = match &mut case.setup {
                Some(setup) => {
                    timer.measure_after(ctx, 0, protocol.runs, setup, &mut case.record)?
                }
                None => timer.measure(ctx, 0, protocol.runs, &mut case.record)?,
            };
            if let Some(w) = clock.window(from, Instant::now()) {
                clocks[i] = Some(clocks[i].map_or(w, |c| c.worst(w)));
            }
            method = Some(t.method);
            medians[i].push(t.median_ns);
            samples[i].extend(t.samples_ns);
        }
    }
    let method = method.expect("at least one case and round were measured");
    Ok(cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let timing = Timing::from_samples(method, std::mem::take(&mut samples[i]));
            let lo = medians[i].iter().copied().fold(f64::INFINITY, f64::min);
            let hi = medians[i].iter().copied().fold(0.0, f64::max);
            Measured {
                name: case.name.clone(),
                spread: (hi - lo) / timing.median_ns,
                timing,
                round_medians_ns: std::mem::take(&mut medians[i]),
                warm_up_ms: warmed[i],
                clock: clocks[i],
                clock_low: clocks[i].is_some_and(|c| c.below_max()),
            }
        })
        .collect())
}

/// Longest a warm-up goes on past `warm` while the clock reads below its maximum.
const MAX_CLOCK_WAIT: Duration = Duration::from_secs(2);

/// The protocol's warm-up, for a measurement that is not GPU time (a wall-clock frame): keep
/// the GPU busy with `case` as [`measure`] does before each timing. Returns the GPU time spent,
/// in ms (estimated).
pub fn warm_up_case(
    ctx: &GpuContext,
    case: &mut Case<'_>,
    protocol: &Protocol,
    clock: &dyn ClockReader,
) -> Result<f64> {
    let timer = GpuTimer::new(ctx, 3);
    warm_up(ctx, &timer, case, protocol.warm_up, clock)
}

/// Keep the GPU busy with `case` for at least `warm` of GPU time: a few runs timed to learn
/// the case's cost, then batches of runs recorded into single submissions (about 20 ms of GPU
/// time each, so submission overhead does not leave the GPU idle), submitted back to back;
/// where the clock can be read and still reads below 90 % of its maximum, on for up to
/// [`MAX_CLOCK_WAIT`] more (seen on the H200: 200 ms right after a process built its pipelines
/// left the clock at 645 MHz). Returns the GPU time spent, in ms (estimated).
fn warm_up(
    ctx: &GpuContext,
    timer: &GpuTimer,
    case: &mut Case<'_>,
    warm: Duration,
    clock: &dyn ClockReader,
) -> Result<f64> {
    if warm.is_zero() {
        return Ok(0.0);
    }
    let probe = match &mut case.setup {
        Some(setup) => timer.measure_after(ctx, 0, 3, setup, &mut case.record)?,
        None => timer.measure(ctx, 0, 3, &mut case.record)?,
    };
    // A run's cost, never below 1 µs (so that a batch stays bounded).
    let run_ns = probe.median_ns.max(1_000.0);
    let target_ns = warm.as_nanos() as f64;
    let per_batch = (20e6 / run_ns).clamp(1.0, 4096.0) as u32;
    let mut spent = 3.0 * run_ns;
    let mut in_flight = 0;
    let started = Instant::now();
    let clock_low = || {
        let now = Instant::now();
        clock
            .window(
                now.checked_sub(Duration::from_millis(10)).unwrap_or(now),
                now,
            )
            .is_some_and(|w| w.below_max())
    };
    while spent < target_ns || (started.elapsed() < warm + MAX_CLOCK_WAIT && clock_low()) {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..per_batch {
            if let Some(setup) = &mut case.setup {
                setup(&mut enc);
            }
            (case.record)(&mut enc);
        }
        ctx.queue.submit([enc.finish()]);
        spent += f64::from(per_batch) * run_ns;
        in_flight += 1;
        // Keep a few batches queued, not all: memory of recorded work stays bounded.
        if in_flight >= 4 {
            ctx.wait()?;
            in_flight = 0;
        }
    }
    ctx.wait()?;
    Ok(spent / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_low_clock_is_flagged() {
        let w = |min| ClockWindow {
            min_mhz: min,
            max_mhz: 1980,
            max_supported_mhz: 1980,
        };
        assert!(!w(1980).below_max());
        assert!(!w(1782).below_max());
        assert!(w(1781).below_max());
        assert!(w(345).below_max());
        assert_eq!(w(1900).worst(w(400)).min_mhz, 400);
    }

    #[test]
    fn a_protocol_that_times_nothing_is_an_error() {
        Protocol::default().check().unwrap();
        for p in [
            Protocol {
                runs: 0,
                ..Default::default()
            },
            Protocol {
                rounds: 0,
                ..Default::default()
            },
        ] {
            assert!(p.check().is_err());
        }
    }
}
