//! What a dependent dispatch costs (`wavekit bench chain`): the GPU time of 0, 1, 2 … N
//! dispatches of a trivial kernel in one compute pass, each reading what the one before wrote
//! (`bench/chain.wgsl`), so that wgpu separates them with a barrier. The step from one count to
//! the next is the price of one more dependent dispatch of that many workgroups: the floor
//! under any algorithm made of passes, such as the wavelet transform's dispatch a level
//! (ADR-0041). Measurement only.

use serde::Serialize;

use crate::protocol::{Case, ClockReader, ClockWindow, Protocol, measure};
use wavekit::context::GpuContext;
use wavekit::error::{Error, Result};
use wavekit::kernel::Kernel;
use wavekit::shader::{Composed, ConstValue, WgslSource, compose};

/// The WGSL file of this kernel.
pub static SOURCES: &[WgslSource] = &[wavekit::wgsl_source!("bench/chain", "chain.wgsl")];

/// Invocations per workgroup of the chain's kernel.
pub const WORKGROUP: u32 = 256;

/// Most dispatches in one chain.
pub const MAX_DISPATCHES: u32 = 64;

/// What the probe measured for one chain.
#[derive(Clone, Debug, Serialize)]
pub struct ChainResult {
    /// Workgroups per dispatch.
    pub workgroups: u32,
    /// Dependent dispatches in the pass.
    pub dispatches: u32,
    /// Median GPU time of the pass, as [`wavekit::timer::GpuTimer`] brackets a run (timestamps between passes
    /// where the device can write them, ADR-0041).
    pub median_ns: f64,
    /// The SM clock during the timed runs, where it can be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
}

/// The chain kernel's WGSL.
pub fn composed() -> Result<Composed> {
    compose(
        "bench/chain",
        &[("WG_SIZE", ConstValue::U32(WORKGROUP))],
        SOURCES,
        &[],
    )
}

/// The kernel's step, x -> MUL x + ADD (mod 2^32), on the host.
const MUL: u32 = 1664525;
const ADD: u32 = 1013904223;

fn step(x: u32) -> u32 {
    x.wrapping_mul(MUL).wrapping_add(ADD)
}

/// Time chains of 0 to `max_dispatches` dependent dispatches of each size in `workgroups`
/// under `protocol`, and check afterwards that every dispatch ran on every word.
/// `progress(i, n, workgroups, dispatches)` is called before chain i of n.
pub fn chain(
    ctx: &GpuContext,
    workgroups: &[u32],
    max_dispatches: u32,
    protocol: &Protocol,
    clock: &dyn ClockReader,
    mut progress: impl FnMut(usize, usize, u32, u32),
) -> Result<Vec<ChainResult>> {
    if max_dispatches > MAX_DISPATCHES {
        return Err(Error::InvalidArgument(format!(
            "chain: {max_dispatches} dispatches: give at most {MAX_DISPATCHES}"
        )));
    }
    if let Some(&w) = workgroups.iter().find(|&&w| w == 0 || w > (1 << 20)) {
        return Err(Error::InvalidArgument(format!(
            "chain: {w} workgroups a dispatch: give 1 to {}",
            1u32 << 20
        )));
    }
    let kernel = Kernel::new(ctx, &composed()?)?;
    let total = workgroups.len() * (max_dispatches as usize + 1);
    let mut results = Vec::new();
    for &w in workgroups {
        let words = w * WORKGROUP;
        let init: Vec<u32> = (0..words).collect();
        let data = ctx.storage_from("chain data", &init)?;
        let bind = kernel.bind(ctx, &[(0, &data)])?;
        let mut steps = 0u32;
        for n in 0..=max_dispatches {
            progress(results.len(), total, w, n);
            let case = Case::new(
                format!("chain {w} x {n}"),
                |enc: &mut wgpu::CommandEncoder| {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wavekit.chain"),
                        timestamp_writes: None,
                    });
                    for _ in 0..n {
                        kernel.dispatch(&mut pass, &bind, w);
                    }
                    steps += n;
                },
            );
            let m = measure(ctx, &mut [case], protocol, clock, &mut |_| {})?.remove(0);
            results.push(ChainResult {
                workgroups: w,
                dispatches: n,
                median_ns: m.timing.median_ns,
                clock: m.clock,
                clock_low: m.clock_low,
            });
        }
        // Every word must have taken exactly one step a dispatch recorded. The steps compose
        // to one affine map x -> a x + c (mod 2^32), applied to each word's start (its index).
        let got: Vec<u32> = ctx.read_back("chain data", &data, words as usize)?;
        let (a, c) = (0..steps).fold((1u32, 0u32), |(a, c), _| (a.wrapping_mul(MUL), step(c)));
        for (i, &g) in got.iter().enumerate() {
            let want = a.wrapping_mul(i as u32).wrapping_add(c);
            if g != want {
                return Err(Error::Gpu {
                    operation: "the dispatch-chain probe".into(),
                    message: format!(
                        "word {i} of {words}: {g:#x} after {steps} dispatches, expected {want:#x}"
                    ),
                });
            }
        }
    }
    Ok(results)
}
