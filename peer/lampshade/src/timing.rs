//! Warm-up by time, then GPU-timestamp measurement of recorded lampshade work.
//!
//! Lampshade's `record_*` calls return a `Result`; wavekit's timer takes plain recording
//! closures, so the first error a call returns is kept and reported after the runs.

use std::time::{Duration, Instant};

use wavekit::{GpuContext, GpuTimer, Timing};

use crate::Failure;

/// Encoder work recorded before each run, untimed (e.g. restoring a sort's input).
pub type Setup<'a> = &'a mut dyn FnMut(&mut wgpu::CommandEncoder);
/// The timed work: lampshade's record calls.
pub type Record<'a> = &'a mut dyn FnMut(&mut wgpu::CommandEncoder) -> Result<(), lampshade::Error>;

/// Record (with `setup` first) and submit once, and wait: the run the checks read.
pub fn run_once(ctx: &GpuContext, setup: Setup, record: Record) -> Result<(), Failure> {
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    setup(&mut enc);
    ctx.scoped("recording lampshade's work", || record(&mut enc))??;
    ctx.scoped("submitting lampshade's work", || {
        ctx.queue.submit([enc.finish()])
    })?;
    ctx.wait()?;
    Ok(())
}

/// Run the case back to back for at least `warm` of wall time (the GPU's clocks fall when it
/// idles), then `runs` measured runs; returns the timing and how many warm-up runs there were.
pub fn measure(
    ctx: &GpuContext,
    timer: &GpuTimer,
    runs: u32,
    warm: Duration,
    setup: Setup,
    record: Record,
) -> Result<(Timing, u64), Failure> {
    let mut first_error = None;
    let mut record = |enc: &mut wgpu::CommandEncoder| {
        if let Err(e) = record(enc) {
            first_error.get_or_insert(e);
        }
    };
    let start = Instant::now();
    let (mut warm_runs, mut batch) = (0u64, 1u64);
    while start.elapsed() < warm {
        for _ in 0..batch {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            setup(&mut enc);
            record(&mut enc);
            ctx.queue.submit([enc.finish()]);
        }
        ctx.wait()?;
        warm_runs += batch;
        // Submit more per wait as the runs prove short, so that the GPU is rarely idle.
        batch = (batch * 2).min(256);
    }
    let timing = ctx.scoped("timing lampshade's work", || {
        timer.measure_after(ctx, 1, runs, &mut *setup, &mut record)
    })??;
    match first_error {
        Some(e) => Err(Failure::from(e)),
        None => Ok((timing, warm_runs)),
    }
}
