//! Benchmark building blocks: the copy kernel's bandwidth (`copy::CopyKernel`), every
//! benchmark's 100 % line, and the primitives' benchmark.

pub mod chain;
pub mod occupancy;
pub mod primitives;
pub mod probe;
pub mod protocol;

use serde::Serialize;

use crate::context::GpuContext;
use crate::copy::CopyKernel;
use crate::error::Result;
use crate::timer::{GpuTimer, Timing};

/// One copy-bandwidth measurement.
#[derive(Clone, Debug, Serialize)]
pub struct CopyBench {
    /// Bytes copied per run.
    pub bytes: u64,
    /// Run-time statistics.
    pub timing: Timing,
    /// Read + write bandwidth at the median, in GB/s (10^9 bytes/s).
    pub gbps: f64,
}

/// Measure the copy kernel on `bytes` bytes: `warmup` unmeasured runs, then `runs`.
pub fn bench_copy(ctx: &GpuContext, bytes: u64, warmup: u32, runs: u32) -> Result<CopyBench> {
    let bytes = bytes.next_multiple_of(16).max(16);
    let src = ctx.storage_uninit("copy source", bytes)?;
    let dst = ctx.storage_uninit("copy destination", bytes)?;
    let copy = CopyKernel::new(ctx)?.bind(ctx, &src, &dst, bytes)?;
    let timer = GpuTimer::new(ctx, runs);
    let timing = timer.measure(ctx, warmup, runs, |enc| copy.record(enc))?;
    let gbps = 2.0 * bytes as f64 / timing.median_ns;
    Ok(CopyBench {
        bytes,
        timing,
        gbps,
    })
}
