//! `wavekit selftest`.

use wavekit::GpuContext;
use wavekit_selftest::ReconvergenceReport;

use crate::error::CliError;

/// Run the self-test and print one line per family, then one per reconvergence variant
/// (ADR-0092); an error if any family or any subgroup-uniform (remedy) variant failed. A
/// divergent variant that came out wrong is an observation about the adapter, printed, not a
/// failure.
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
        print_reconvergence(&report.reconvergence);
    }
    let failed = report.families.iter().filter(|f| !f.ok()).count();
    if failed > 0 {
        return Err(CliError::SelftestFailed {
            failed,
            total: report.families.len(),
        });
    }
    if !report.reconvergence.remedy_ok() {
        return Err(CliError::CheckFailed(
            "selftest: subgroup operations after subgroup-uniform loops differ from the host \
             reference (reconvergence, ADR-0092)"
                .into(),
        ));
    }
    Ok(())
}

fn print_reconvergence(r: &ReconvergenceReport) {
    println!(
        "reconvergence (ADR-0092): subgroup operations right after loops whose trip count \
         differs by lane; {} workgroups of {}",
        r.workgroups, r.workgroup
    );
    for v in &r.variants {
        let kind = if v.remedy {
            "remedy, must hold"
        } else {
            "observation"
        };
        let status = match (v.ok(), v.remedy) {
            (true, _) => "ok",
            (false, true) => "FAIL",
            (false, false) => "wrong",
        };
        let seen = format!("lanes seen {:?}, ballot {:?}", v.lanes_seen, v.ballot_seen);
        if v.ok() {
            println!(
                "{status:<5} {:<18} {:>8} subgroups  {seen}  {kind}: {}",
                v.variant, v.subgroups, v.description
            );
        } else {
            println!(
                "{status:<5} {:<18} {:>8} of {} subgroups wrong, {seen} ({kind}): {}",
                v.variant,
                v.wrong_subgroups,
                v.subgroups,
                v.first_wrong
                    .as_deref()
                    .unwrap_or("no subgroups were checked")
            );
        }
    }
    match &r.note {
        Some(note) => println!("note: {note}"),
        None => println!(
            "note: this adapter reconverged after every divergent loop here; wavekit does not \
             rely on it"
        ),
    }
}
