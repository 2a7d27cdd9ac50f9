//! `wavekit bench primitives`, `wavekit bench probe`, `wavekit bench occupancy` and
//! `wavekit bench chain`.

use std::path::PathBuf;

use wavekit::GpuContext;
use wavekit_bench::primitives::{self, PRIMITIVES, PrimitiveResult};
use wavekit_bench::protocol::{ClockReader, NoClock, Protocol};

use crate::error::CliError;
use crate::output::file_err;

/// How every benchmark measures (the protocol: warm-up by time, interleaved rounds).
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct ProtocolArgs {
    /// Timed runs per case and round.
    #[arg(long, default_value_t = 30)]
    pub runs: u32,
    /// Rounds; the cases are interleaved round by round and the spread of their medians shown.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Milliseconds of each case's own load right before it is timed (the GPU's clock falls
    /// when it idles).
    #[arg(long, default_value_t = 200)]
    pub warm_up_ms: u64,
}

impl ProtocolArgs {
    /// The library's protocol (`WAVEKIT_TIMER=markers` brackets runs with marker passes).
    pub fn protocol(&self) -> Result<Protocol, CliError> {
        Ok(Protocol {
            runs: self.runs,
            rounds: self.rounds,
            warm_up: std::time::Duration::from_millis(self.warm_up_ms),
            marker_passes: wavekit_harness::timer_markers(&wavekit_harness::Env)?,
        })
    }
}

/// The GPU's clock where it can be read (NVIDIA through NVML), else none; says which on stderr.
pub fn clock_reader(ctx: &GpuContext) -> Box<dyn ClockReader> {
    match wavekit_bench::clock::NvmlClock::start(&ctx.summary.name) {
        Some(c) => {
            eprintln!("clock: reading the SM clock through NVML during every timed case");
            Box::new(c)
        }
        None => {
            eprintln!(
                "clock: not readable on this device (no NVML); numbers are not clock-checked"
            );
            Box::new(NoClock)
        }
    }
}

pub struct PrimitivesArgs {
    pub log2: Vec<u32>,
    pub protocol: ProtocolArgs,
    pub only: Vec<String>,
    pub peer: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub save: Option<PathBuf>,
    pub json: bool,
}

/// Read a peer's JSON lines, one record each (lines not starting with `{` are skipped; an
/// error names the file's line).
pub fn read_peer<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
) -> Result<Vec<T>, CliError> {
    Ok(wavekit_bench::peer::read_lines(path)?)
}

pub fn primitives(ctx: &GpuContext, a: &PrimitivesArgs) -> Result<(), CliError> {
    let which: Vec<String> = if a.only.is_empty() {
        PRIMITIVES.iter().map(|s| s.to_string()).collect()
    } else {
        a.only.clone()
    };
    let peer = a
        .peer
        .as_deref()
        .map(read_peer::<PrimitiveResult>)
        .transpose()?;
    let policies = wavekit_harness::policies(&wavekit_harness::Env)?;
    let protocol = a.protocol.protocol()?;
    let clock = clock_reader(ctx);
    let (results, floor) = primitives::run(
        ctx,
        &a.log2,
        &which,
        &policies,
        &protocol,
        clock.as_ref(),
        &mut |line| eprintln!("{line}"),
    )?;
    let peer_of = |r: &PrimitiveResult| {
        peer.as_ref()
            .and_then(|p| p.iter().find(|q| q.primitive == r.primitive && q.n == r.n))
    };
    let ratio = |r: &PrimitiveResult| peer_of(r).map(|q| q.median_ns / r.median_ns);
    // The peer's output against wavekit's (checked equal to the CPU reference): "=" the same
    // fingerprint, "≠" another, nothing where either has none.
    let same = |r: &PrimitiveResult| match (peer_of(r).and_then(|q| q.check.as_ref()), &r.check) {
        (Some(a), Some(b)) => Some(a == b),
        _ => None,
    };
    #[derive(serde::Serialize)]
    struct Row<'a> {
        #[serde(flatten)]
        result: &'a PrimitiveResult,
        peer_over_wavekit: Option<f64>,
    }
    let rows: Vec<Row> = results
        .iter()
        .map(|r| Row {
            result: r,
            peer_over_wavekit: ratio(r),
        })
        .collect();
    let json = serde_json::to_string_pretty(&serde_json::json!({
        "adapter": &ctx.summary,
        "floor": floor,
        "results": rows,
    }))?;
    if let Some(path) = &a.save {
        std::fs::write(path, &json).map_err(|e| file_err(path, e))?;
    }
    if a.json {
        println!("{json}");
    } else {
        println!("adapter: {}", ctx.summary.label());
        println!(
            "floor, this run: a timed run of nothing {:.1} us, one dispatch {:.1} us, each \
             further dependent dispatch {:.1} us, each clear or copy {:.1} us; bytes at the copy \
             kernel's rate",
            floor.empty_ns / 1e3,
            floor.first() / 1e3,
            floor.dependent() / 1e3,
            floor.command() / 1e3
        );
        println!(
            "{:<15} {:>11} {:>11} {:>9} {:>9} {:>7} {:>10} {:>9} {:>6} {:>10} {:>10}  look-back waits/fallbacks",
            "primitive",
            "n",
            "median us",
            "floor us",
            "d/c/cp",
            "spread",
            "G elem/s",
            "GB/s",
            "copy%",
            "peer/ours",
            "clock MHz"
        );
        for r in &results {
            let c = r.recorded;
            println!(
                "{:<15} {:>11} {:>11.1} {:>9.1} {:>9} {:>6.1}% {:>10.2} {:>9.1} {:>5.1}% {:>10} {:>10}  {}",
                r.primitive,
                r.n,
                r.median_ns / 1e3,
                r.floor_ns / 1e3,
                format!("{}/{}/{}", c.dispatches, c.clears, c.copies),
                100.0 * r.spread,
                r.elements_per_s / 1e9,
                r.gbps,
                100.0 * r.copy_fraction,
                ratio(r).map_or("-".into(), |x| format!(
                    "{x:.2}x{}",
                    match same(r) {
                        Some(true) => "=",
                        Some(false) => "≠",
                        None => "",
                    }
                )),
                clock_text(r.clock, r.clock_low),
                r.lookback.map_or("-".into(), |s| format!(
                    "{}/{} ({} windows)",
                    s.waited_windows, s.fallbacks, s.windows
                ))
            );
        }
        let checked = results.iter().filter(|r| r.check.is_some()).count();
        println!(
            "outputs: {checked} of {} equal to the CPU reference (read back after the timed \
             runs; the chain is not checked)",
            results.len()
        );
        if peer.is_some() {
            let equal = results.iter().filter(|r| same(r) == Some(true)).count();
            let differ: Vec<String> = results
                .iter()
                .filter(|r| same(r) == Some(false))
                .map(|r| format!("{} {}", r.primitive, r.n))
                .collect();
            println!(
                "peer's outputs (\"=\" beside the ratio): {equal} the same as wavekit's, {} \
                 different{}, the rest without a fingerprint",
                differ.len(),
                if differ.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", differ.join(", "))
                }
            );
        }
    }
    if let Some(path) = &a.plot {
        let svg = wavekit_bench::plot::throughput_svg(&results, peer.as_deref());
        std::fs::write(path, svg).map_err(|e| file_err(path, e))?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(())
}

pub use wavekit_bench::protocol::clock_text;

/// `wavekit bench probe`: the look-back's basic step, case by case.
pub fn probe(
    ctx: &GpuContext,
    config: &wavekit_bench::probe::ProbeConfig,
    json: bool,
) -> Result<(), CliError> {
    let clock = clock_reader(ctx);
    let results = wavekit_bench::probe::probe(ctx, config, &*clock, |i, n, c| {
        let [kind, lines, gpu] = c.labels();
        eprintln!(
            "[{}/{n}] probe: {} {kind} loads per lane, {lines} lines, GPU {gpu} ...",
            i + 1,
            c.loads
        )
    })?;
    if json {
        return print_results_json(ctx, &results);
    }
    println!("adapter: {}", ctx.summary.label());
    println!(
        "{:>5} {:>6} {:>7} {:>10} {:>12} {:>12} {:>14} {:>9}",
        "loads",
        "kind",
        "lines",
        "background",
        "median us",
        "ns/round",
        "background GB/s",
        "clock MHz"
    );
    for r in &results {
        let [kind, lines, gpu] = r.case.labels();
        println!(
            "{:>5} {:>6} {:>7} {:>10} {:>12.1} {:>12.1} {:>14.0} {:>9}",
            r.case.loads,
            kind,
            lines,
            gpu,
            r.median_ns / 1e3,
            r.ns_per_round,
            r.background_gbps,
            clock_text(r.clock, r.clock_low)
        );
    }
    Ok(())
}

/// `wavekit bench occupancy`: the most workgroups resident at once, case by case.
pub fn occupancy(
    ctx: &GpuContext,
    cases: &[wavekit_bench::occupancy::OccupancyCase],
    config: &wavekit_bench::occupancy::OccupancyConfig,
    json: bool,
) -> Result<(), CliError> {
    let clock = clock_reader(ctx);
    let results = wavekit_bench::occupancy::occupancy(ctx, cases, config, &*clock, |i, n, c| {
        eprintln!(
            "[{}/{n}] occupancy: workgroups of {}, {} bytes of workgroup memory, {} live values ...",
            i + 1,
            c.workgroup,
            c.shared_bytes,
            c.streams
        )
    })?;
    if json {
        return print_results_json(ctx, &results);
    }
    println!("adapter: {}", ctx.summary.label());
    println!(
        "{:>9} {:>12} {:>7} {:>10} {:>10} {:>16} {:>9}",
        "workgroup", "shared bytes", "values", "dispatched", "resident", "invocations", "clock MHz"
    );
    for r in &results {
        println!(
            "{:>9} {:>12} {:>7} {:>10} {:>10} {:>16} {:>9}",
            r.case.workgroup,
            r.case.shared_bytes,
            r.case.streams,
            r.workgroups,
            r.peak,
            r.peak_invocations,
            clock_text(r.clock, r.clock.is_some_and(|w| w.below_max()))
        );
    }
    Ok(())
}

/// `wavekit bench chain`: the time of 0 to N dependent dispatches, and each one's step.
pub fn chain(
    ctx: &GpuContext,
    workgroups: &[u32],
    dispatches: u32,
    protocol: &Protocol,
    json: bool,
) -> Result<(), CliError> {
    let clock = clock_reader(ctx);
    let results = wavekit_bench::chain::chain(
        ctx,
        workgroups,
        dispatches,
        protocol,
        &*clock,
        |i, n, w, d| {
            eprintln!(
                "[{}/{n}] chain: {d} dispatches of {w} workgroups ...",
                i + 1
            )
        },
    )?;
    if json {
        return print_results_json(ctx, &results);
    }
    println!("adapter: {}", ctx.summary.label());
    println!(
        "{:>10} {:>10} {:>12} {:>16} {:>9}",
        "workgroups", "dispatches", "median us", "step us", "clock MHz"
    );
    for (i, r) in results.iter().enumerate() {
        // The step from the chain one dispatch shorter, of the same size.
        let step = match i.checked_sub(1).map(|j| &results[j]) {
            Some(p) if p.workgroups == r.workgroups => {
                format!("{:.2}", (r.median_ns - p.median_ns) / 1e3)
            }
            _ => "-".into(),
        };
        println!(
            "{:>10} {:>10} {:>12.2} {:>16} {:>9}",
            r.workgroups,
            r.dispatches,
            r.median_ns / 1e3,
            step,
            clock_text(r.clock, r.clock_low)
        );
    }
    Ok(())
}

/// The measurement benchmarks' JSON: `{"adapter": …, "results": [...]}` on stdout.
fn print_results_json<T: serde::Serialize>(
    ctx: &GpuContext,
    results: &[T],
) -> Result<(), CliError> {
    #[derive(serde::Serialize)]
    struct Out<'a, T> {
        adapter: &'a wavekit::AdapterSummary,
        results: &'a [T],
    }
    let out = Out {
        adapter: &ctx.summary,
        results,
    };
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
