//! Occupancy, measured (`wavekit bench occupancy`): how many workgroups of a given size, with a
//! given amount of workgroup memory and values held live per invocation, a device keeps
//! resident at once. Each workgroup counts itself in and out of a global counter and raises a
//! peak (`bench/occupancy.wgsl`); with work long enough that the first wave is all launched
//! before any of it ends, the peak is what the device holds. Vulkan reports no such number,
//! and the sort's and the wavelet's speeds turn on it (ADR-0040). Measurement only.

use serde::Serialize;

use wavekit::context::GpuContext;
use wavekit::error::{Error, Result};
use wavekit::kernel::Kernel;
use wavekit::shader::{Composed, ConstValue, WgslSource, compose};

/// The WGSL file of this kernel.
pub static SOURCES: &[WgslSource] = &[wavekit::wgsl_source!("bench/occupancy", "occupancy.wgsl")];

/// Most values held live per invocation (`STREAMS`): enough to pass any register cliff.
pub const MAX_STREAMS: u32 = 256;

/// One configuration of the probe.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct OccupancyCase {
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Bytes of workgroup memory (a multiple of 4, at least 4).
    pub shared_bytes: u32,
    /// Values each invocation keeps live through the work loop (1 to [`MAX_STREAMS`]): the
    /// registers, roughly; `kernel-stats` on the dumped WGSL says exactly.
    pub streams: u32,
}

/// What the probe measured for one case.
#[derive(Clone, Debug, Serialize)]
pub struct OccupancyResult {
    /// The configuration.
    pub case: OccupancyCase,
    /// Workgroups dispatched.
    pub workgroups: u32,
    /// The most workgroups resident together, over all runs.
    pub peak: u32,
    /// The peak in invocations.
    pub peak_invocations: u64,
    /// The SM clock while the case ran, where it can be read (occupancy does not depend on it;
    /// it is reported as every benchmark's is).
    pub clock: Option<crate::protocol::ClockWindow>,
}

/// The probe kernel's WGSL for `case`.
pub fn composed(case: OccupancyCase) -> Result<Composed> {
    compose(
        "bench/occupancy",
        &[
            ("WG_SIZE", ConstValue::U32(case.workgroup)),
            ("SHARED_WORDS", ConstValue::U32(case.shared_bytes / 4)),
            ("STREAMS", ConstValue::U32(case.streams)),
        ],
        SOURCES,
        &[],
    )
}

/// How much the probe does.
#[derive(Clone, Copy, Debug)]
pub struct OccupancyConfig {
    /// Workgroups per dispatch: more than the device can hold at once.
    pub workgroups: u32,
    /// Dependent steps of work per invocation: long enough to outlast the first wave's launch.
    pub spin: u32,
    /// Dispatches per case; the peak is the highest of them.
    pub runs: u32,
}

/// Checks a case before anything is built: sizes a user may get wrong are errors that say what
/// to change (the device's own limits are checked by [`occupancy`] before any case runs).
pub fn check(case: OccupancyCase) -> Result<()> {
    if case.workgroup == 0 {
        return Err(Error::InvalidArgument(
            "occupancy: a workgroup needs at least one invocation".into(),
        ));
    }
    if case.shared_bytes < 4 || !case.shared_bytes.is_multiple_of(4) {
        return Err(Error::InvalidArgument(format!(
            "occupancy: workgroup memory of {} bytes: give a multiple of 4, at least 4",
            case.shared_bytes
        )));
    }
    if !(1..=MAX_STREAMS).contains(&case.streams) {
        return Err(Error::InvalidArgument(format!(
            "occupancy: {} live values per invocation: give 1 to {MAX_STREAMS}",
            case.streams
        )));
    }
    Ok(())
}

/// Run every case as `config` says; `progress(i, n, case)` is called before case i of n. Every
/// case is checked before the first runs, against the device's limits too.
pub fn occupancy(
    ctx: &GpuContext,
    cases: &[OccupancyCase],
    config: &OccupancyConfig,
    clock: &dyn crate::protocol::ClockReader,
    mut progress: impl FnMut(usize, usize, &OccupancyCase),
) -> Result<Vec<OccupancyResult>> {
    // Every case's kernel is built before any runs: building checks the device's workgroup
    // memory limit (`GpuContext::shader_module_validated`), and the shape is checked first.
    let mut kernels = Vec::with_capacity(cases.len());
    for &case in cases {
        check(case)?;
        ctx.check_workgroup([case.workgroup, 1, 1])?;
        kernels.push(Kernel::new(ctx, &composed(case)?)?);
    }
    let workgroups = config.workgroups.max(1);
    let params = ctx.uniform_from("occupancy params", &[config.spin, 0x5eed_u32, 0, 0])?;
    let mut results = Vec::new();
    for (i, (&case, kernel)) in cases.iter().zip(&kernels).enumerate() {
        progress(i, cases.len(), &case);
        let from = std::time::Instant::now();
        let mut peak = 0;
        for _ in 0..config.runs.max(1) {
            let state = ctx.storage_from("occupancy state", &[0u32; 4])?;
            let bind = kernel.bind(ctx, &[(0, &params), (1, &state)])?;
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("wavekit.occupancy"),
                    timestamp_writes: None,
                });
                kernel.dispatch(&mut pass, &bind, workgroups);
            }
            ctx.queue.submit([enc.finish()]);
            let got: Vec<u32> = ctx.read_back("occupancy state", &state, 2)?;
            // Every workgroup counted in was counted out, and none beyond the dispatch was
            // resident: otherwise the kernel did not run as written.
            if got[0] != 0 || got[1] == 0 || got[1] > workgroups {
                return Err(Error::Gpu {
                    operation: "the occupancy probe".into(),
                    message: format!(
                        "counters read {} still resident, peak {} of {workgroups} dispatched",
                        got[0], got[1]
                    ),
                });
            }
            peak = peak.max(got[1]);
        }
        results.push(OccupancyResult {
            case,
            workgroups,
            peak,
            peak_invocations: u64::from(peak) * u64::from(case.workgroup),
            clock: clock.window(from, std::time::Instant::now()),
        });
    }
    Ok(results)
}
