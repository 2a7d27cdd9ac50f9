//! `wavekit-lampshade-peer`: lampshade 0.13's primitives on the inputs of `wavekit bench
//! primitives`, on the same wgpu device, each checked against a host reference and timed with
//! GPU timestamps around its record calls. Prints one JSON line per case in wavekit's
//! `PrimitiveResult` format (for `wavekit bench primitives --peer FILE`); notes, skips and
//! failures go to stderr. Exits 1 if any check or lampshade call failed.

mod cases;
mod reference;
mod timing;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use wavekit::{ContextOptions, GpuContext, GpuTimer};

use cases::{Bench, CASES, Input, Lampshade};

/// The name the JSON lines give the peer.
const PEER: &str = "lampshade 0.13";

/// Lampshade's primitives on wavekit's benchmark inputs, checked and timed. The adapter is
/// chosen by WAVEKIT_ADAPTER (an index or part of a name), as for the wavekit CLI.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Sizes as powers of two.
    #[arg(long, value_delimiter = ',', default_values_t = [16u32, 20, 24, 27])]
    log2: Vec<u32>,
    /// Measured runs per case.
    #[arg(long, default_value_t = 50)]
    runs: u32,
    /// Milliseconds of the case's own work, back to back, right before measuring it.
    #[arg(long, default_value_t = 200)]
    warm_ms: u64,
    /// Only these cases (default: all).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(CASES))]
    only: Vec<String>,
}

/// Why a case gave no result.
#[derive(Debug)]
pub enum Failure {
    /// A lampshade call returned an error.
    Call(lampshade::Error),
    /// wavekit (the device, a buffer, the timer) reported an error.
    Gpu(wavekit::Error),
    /// The output differs from the host reference.
    Check(String),
    /// Lampshade does not take this size on this device (not a failure).
    Skip(String),
}

impl From<lampshade::Error> for Failure {
    fn from(e: lampshade::Error) -> Self {
        match e {
            lampshade::Error::RadixElementCountLimitExceeded { count, limit } => Failure::Skip(
                format!("lampshade sorts at most {limit} keys on this device, not {count}"),
            ),
            lampshade::Error::BufferLimitExceeded { requested, limit } => Failure::Skip(format!(
                "lampshade binds at most {limit} bytes on this device, not {requested}"
            )),
            e => Failure::Call(e),
        }
    }
}

impl From<wavekit::Error> for Failure {
    fn from(e: wavekit::Error) -> Self {
        Failure::Gpu(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Call(e) => write!(f, "lampshade call failed: {e}"),
            Failure::Gpu(e) => write!(f, "GPU error: {e}"),
            Failure::Check(m) => write!(f, "CHECK FAILED: {m}"),
            Failure::Skip(m) => write!(f, "skipped: {m}"),
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let which: Vec<String> = if args.only.is_empty() {
        CASES.iter().map(|s| s.to_string()).collect()
    } else {
        args.only.clone()
    };
    if let Some(lg) = args.log2.iter().find(|&&lg| lg > 31) {
        eprintln!("--log2 {lg}: at most 31 (lampshade counts items in u32)");
        return ExitCode::from(2);
    }
    let options = ContextOptions {
        adapter: std::env::var("WAVEKIT_ADAPTER").ok(),
        ..Default::default()
    };
    let ctx = match GpuContext::new(&options) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("no device: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "adapter: {} (subgroups {}, timestamps {:?})",
        ctx.summary.label(),
        ctx.caps.subgroups.supported,
        ctx.caps.timestamps
    );
    let mut ls = match Lampshade::new(&ctx) {
        Ok(ls) => ls,
        Err(e) => {
            eprintln!("building lampshade's primitives: {e}");
            return ExitCode::from(1);
        }
    };
    let timer = GpuTimer::new(&ctx, args.runs);
    eprintln!("timing: {:?}", timer.method());
    let bench = Bench {
        ctx: &ctx,
        timer: &timer,
        runs: args.runs,
        warm: Duration::from_millis(args.warm_ms),
    };
    let mut failures = Vec::new();
    let steps = args.log2.len() * which.len();
    let mut step = 0;
    for &lg in &args.log2 {
        let data = wavekit::bench::primitives::input(1usize << lg);
        let src = match ctx.storage_from("bench input", &data) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("2^{lg}: uploading the input: {e}");
                failures.push(format!("2^{lg}: {e}"));
                continue;
            }
        };
        let input = Input::new(&data, &src);
        for name in &which {
            step += 1;
            eprintln!("[{step}/{steps}] {name} 2^{lg} ...");
            match cases::run(name, &mut ls, &bench, &input) {
                Ok(m) => {
                    let mut line = serde_json::json!({
                        "primitive": name,
                        "n": 1u64 << lg,
                        "median_ns": m.timing.median_ns,
                        "p10_ns": m.timing.p10_ns,
                        "p90_ns": m.timing.p90_ns,
                        "elements_per_s": f64::from(input.n) / m.timing.median_ns * 1e9,
                        "peer": PEER,
                        "runs": m.timing.samples_ns.len(),
                        "warm_up_runs": m.warm_runs,
                    });
                    if let Some(note) = &m.note {
                        line["note"] = note.clone().into();
                    }
                    println!("{line}");
                    eprintln!(
                        "    median {:.1} us (p10 {:.1}, p90 {:.1}) after {} warm-up runs",
                        m.timing.median_ns / 1e3,
                        m.timing.p10_ns / 1e3,
                        m.timing.p90_ns / 1e3,
                        m.warm_runs
                    );
                }
                Err(Failure::Skip(why)) => eprintln!("    {name} 2^{lg} skipped: {why}"),
                Err(e) => {
                    eprintln!("    {name} 2^{lg}: {e}");
                    failures.push(format!("{name} 2^{lg}: {e}"));
                }
            }
        }
    }
    if failures.is_empty() {
        eprintln!("every case that ran passed its check");
        ExitCode::SUCCESS
    } else {
        eprintln!("{} case(s) failed:", failures.len());
        for f in &failures {
            eprintln!("  {f}");
        }
        ExitCode::from(1)
    }
}
