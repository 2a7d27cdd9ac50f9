//! A micro-benchmark of the look-back's basic step (`wavekit bench probe`): how long one
//! window read takes when every lane of a subgroup makes 1, 2, 4 or 8 loads, atomic or plain,
//! of lines every workgroup reads or of its own, with the GPU idle or streaming memory in the
//! same workgroups. Measurement only: it decides between look-back designs (ADR-0021).

use serde::Serialize;

use crate::protocol::{Case, ClockReader, ClockWindow, Protocol, measure};
use wavekit::context::GpuContext;
use wavekit::error::Result;
use wavekit::kernel::Kernel;
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::prelude::subgroup_api;
use wavekit::shader::{Composed, ConstValue, WgslSource, compose};

/// The WGSL file of this kernel.
pub static SOURCES: &[WgslSource] = &[wavekit::wgsl_source!("bench/probe", "probe.wgsl")];

/// Invocations per workgroup: subgroup 0 probes, the rest stream in the background.
const WORKGROUP: u32 = 256;

/// One configuration of the probe.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct ProbeCase {
    /// Loads per lane and round.
    pub loads: u32,
    /// Plain loads through a non-atomic binding instead of 32-bit atomic loads.
    pub plain: bool,
    /// Every workgroup reads the same region (hot lines, as the look-back's).
    pub shared: bool,
    /// The other subgroups stream-copy memory meanwhile.
    pub background: bool,
}

impl ProbeCase {
    /// The case in words: load kind (`atomic`/`plain`), lines (`shared`/`own`), GPU
    /// (`copying`/`idle`).
    pub fn labels(&self) -> [&'static str; 3] {
        [
            if self.plain { "plain" } else { "atomic" },
            if self.shared { "shared" } else { "own" },
            if self.background { "copying" } else { "idle" },
        ]
    }
}

/// Every case the probe runs.
pub fn cases() -> Vec<ProbeCase> {
    let mut v = Vec::new();
    for background in [false, true] {
        for shared in [true, false] {
            for loads in [1, 2, 4, 8] {
                v.push(ProbeCase {
                    loads,
                    plain: false,
                    shared,
                    background,
                });
            }
        }
        for loads in [1, 4] {
            v.push(ProbeCase {
                loads,
                plain: true,
                shared: true,
                background,
            });
        }
    }
    v
}

/// What the probe measured for one case.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeResult {
    /// The configuration.
    pub case: ProbeCase,
    /// Dependent rounds per workgroup.
    pub rounds: u32,
    /// Workgroups in the dispatch.
    pub workgroups: u32,
    /// Median GPU time of the dispatch.
    pub median_ns: f64,
    /// The median divided by the rounds: one window read, end to end.
    pub ns_per_round: f64,
    /// Bytes the background copy moved per second (read + write) in the last run, in GB/s.
    pub background_gbps: f64,
    /// The SM clock during the timed runs, where it can be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
}

/// The probe kernel's WGSL for `case`.
pub fn composed(case: ProbeCase, rounds: u32, subgroups: bool) -> Result<Composed> {
    compose(
        "bench/probe",
        &[
            ("WG_SIZE", ConstValue::U32(WORKGROUP)),
            ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
            ("LOADS", ConstValue::U32(case.loads)),
            ("PLAIN", ConstValue::Bool(case.plain)),
            ("BACKGROUND", ConstValue::Bool(case.background)),
            ("SHARED", ConstValue::Bool(case.shared)),
            ("ROUNDS", ConstValue::U32(rounds)),
        ],
        SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            (
                "monoid",
                &Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups),
            ),
        ],
    )
}

/// How much the probe does.
#[derive(Clone, Copy, Debug)]
pub struct ProbeConfig {
    /// Dependent rounds per workgroup.
    pub rounds: u32,
    /// Workgroups in the dispatch.
    pub workgroups: u32,
    /// Bytes of each background-copy buffer at most (the largest power of two of 16-byte
    /// quads that fits is used).
    pub background_bytes: u64,
    /// How each case is measured.
    pub protocol: Protocol,
}

/// Run every case of [`cases`] as `config` says; `progress(i, n, case)` is called before case
/// i of n.
pub fn probe(
    ctx: &GpuContext,
    config: &ProbeConfig,
    clock: &dyn ClockReader,
    mut progress: impl FnMut(usize, usize, &ProbeCase),
) -> Result<Vec<ProbeResult>> {
    let ProbeConfig {
        rounds,
        workgroups,
        background_bytes,
        protocol,
    } = *config;
    let sg = ctx.caps.subgroups.supported;
    let rounds = rounds.max(1);
    let workgroups = workgroups.max(1);
    // Room for every workgroup's widest window (128 lanes × 8 loads × 8 words).
    let words = (workgroups * 128 * 8 * 8).next_power_of_two();
    let region = ctx.storage_from("probe region", &vec![0u32; words as usize])?;
    // A power of two at most background_bytes / 16 (at least one quad).
    let bg_quads = 1u64 << (63 - (background_bytes / 16).max(1).leading_zeros());
    let bg_src = ctx.storage_uninit("probe background source", bg_quads * 16)?;
    let bg_dst = ctx.storage_uninit("probe background destination", bg_quads * 16)?;
    let out = ctx.storage_from("probe out", &[0u32; 4])?;
    // Enough background rounds to outlast any chain worth measuring (it stops when the
    // chain is done), few enough that a device without concurrency finishes.
    let bg_iters = rounds.saturating_mul(64);
    let params = ctx.uniform_from("probe params", &[words, bg_quads as u32, bg_iters, 0])?;
    let all = cases();
    let mut results = Vec::new();
    for (i, case) in all.iter().enumerate() {
        progress(i, all.len(), case);
        let kernel = Kernel::new(ctx, &composed(*case, rounds, sg)?)?;
        let bind = kernel.bind(
            ctx,
            &[
                (0, &params),
                (1, &region),
                (2, &region),
                (3, &bg_src),
                (4, &bg_dst),
                (5, &out),
            ],
        )?;
        let timed = Case::new(format!("probe {i}"), |enc: &mut wgpu::CommandEncoder| {
            enc.clear_buffer(&out, 0, None);
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.probe"),
                timestamp_writes: None,
            });
            kernel.dispatch(&mut pass, &bind, workgroups);
        });
        let m = measure(ctx, &mut [timed], &protocol, clock, &mut |_| {})?.remove(0);
        let t = &m.timing;
        let copied: Vec<u32> = ctx.read_back("probe out", &out, 2)?;
        results.push(ProbeResult {
            case: *case,
            rounds,
            workgroups,
            median_ns: t.median_ns,
            ns_per_round: t.median_ns / f64::from(rounds),
            background_gbps: 32.0 * f64::from(copied[1]) / t.median_ns,
            clock: m.clock,
            clock_low: m.clock_low,
        });
    }
    Ok(results)
}
