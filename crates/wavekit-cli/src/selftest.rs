//! `wavekit selftest`.

use wavekit::GpuContext;

use crate::error::CliError;

/// Run the self-test and print one line per family; an error if any family failed.
pub fn selftest(ctx: &GpuContext, seed: u64, json: bool) -> Result<(), CliError> {
    let report = wavekit_selftest::run(ctx, seed)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("adapter: {}", report.adapter.label());
        println!(
            "subgroup width range: {}..{}",
            report.subgroup_size_range.0, report.subgroup_size_range.1
        );
        for s in &report.shapes {
            let shape = format!("{}x{}x{}", s.shape[0], s.shape[1], s.shape[2]);
            match &s.skipped {
                None => println!(
                    "workgroup {shape:>10}: ran, widths seen {:?}",
                    s.widths_seen
                ),
                Some(why) => println!("workgroup {shape:>10}: skipped: {why}"),
            }
        }
        for f in &report.families {
            if f.ok() {
                println!(
                    "ok    {:<17} {:>8} checks  {}",
                    f.family, f.checks, f.description
                );
            } else {
                println!(
                    "FAIL  {:<17} {:>8} of {} differ: {}",
                    f.family,
                    f.failures,
                    f.checks,
                    f.first_failure.as_deref().unwrap_or("no checks were made")
                );
            }
        }
    }
    let failed = report.families.iter().filter(|f| !f.ok()).count();
    if failed > 0 {
        return Err(CliError::SelftestFailed {
            failed,
            total: report.families.len(),
        });
    }
    Ok(())
}
