//! wavekit's benchmarks, on one protocol. A tool beside the library, not a layer in it: the
//! library crates (`wavekit`, `wavekit-dwt`, `wavekit-ui`, `wavekit-trace`) hold no timing
//! code of their own, and the CLI's `bench` subcommands call this crate.
//!
//! - [`protocol`]: how every case is measured (warm-up by time with the case's own load,
//!   interleaved rounds, the spread across rounds, the SM clock during the timed runs and a
//!   flag below 90 % of its maximum);
//! - [`clock`]: the SM clock through NVML where the device has it;
//! - [`bench_copy`]: the copy kernel's bandwidth, every benchmark's 100 % line;
//! - the benchmarks: [`primitives`], [`dwt`], [`ui`], [`trace`], [`spatial`], [`codec`], and the probes of the
//!   platform ([`probe`], [`occupancy`], [`chain`]);
//! - [`peer`]: peers' results (JSON lines), [`plot`]: throughput against size as SVG.

#![warn(missing_docs)]
pub mod chain;
pub mod clock;
pub mod codec;
pub mod dwt;
pub mod error;
pub mod occupancy;
pub mod peer;
pub mod plot;
pub mod primitives;
pub mod probe;
pub mod protocol;
pub mod spatial;
pub mod trace;
pub mod ui;

pub use error::{Error, Result};

use serde::Serialize;

use wavekit::context::GpuContext;
use wavekit::copy::CopyKernel;
use wavekit::timer::Timing;

/// One copy-bandwidth measurement.
#[derive(Clone, Debug, Serialize)]
pub struct CopyBench {
    /// Bytes copied per run.
    pub bytes: u64,
    /// Run-time statistics.
    pub timing: Timing,
    /// Read + write bandwidth at the median, in GB/s (10^9 bytes/s).
    pub gbps: f64,
    /// The SM clock during the timed runs, where it can be read.
    pub clock: Option<protocol::ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
}

/// Measure the copy kernel on `bytes` bytes under `protocol`.
pub fn bench_copy(
    ctx: &GpuContext,
    bytes: u64,
    protocol: &protocol::Protocol,
    clock: &dyn protocol::ClockReader,
) -> wavekit::Result<CopyBench> {
    let bytes = bytes.next_multiple_of(16).max(16);
    let src = ctx.storage_uninit("copy source", bytes)?;
    let dst = ctx.storage_uninit("copy destination", bytes)?;
    let copy = CopyKernel::new(ctx)?.bind(ctx, &src, &dst, bytes)?;
    let case = protocol::Case::new("copy", |enc: &mut wgpu::CommandEncoder| copy.record(enc));
    let m = protocol::measure(ctx, &mut [case], protocol, clock, &mut |_| {})?.remove(0);
    let gbps = 2.0 * bytes as f64 / m.timing.median_ns;
    Ok(CopyBench {
        bytes,
        timing: m.timing,
        gbps,
        clock: m.clock,
        clock_low: m.clock_low,
    })
}
