//! `wavekit demo`: probe, selftest, then every primitive on fresh random data, checked
//! against the CPU, through the same `.npy` path the CLI commands use.

use wavekit::GpuContext;
use wavekit::monoid::Op;
use wavekit::scan::reference;

use crate::error::CliError;
use crate::npy::{self, Array};

fn check(name: &str, ok: bool, failures: &mut usize) {
    println!("{}  {name}", if ok { "ok  " } else { "FAIL" });
    if !ok {
        *failures += 1;
    }
}

/// Run the demo; an error if anything differs.
pub fn demo(ctx: &GpuContext) -> Result<(), CliError> {
    println!("== wavekit probe");
    crate::probe::probe(ctx, false)?;
    println!("\n== wavekit selftest");
    crate::selftest::selftest(ctx, 1, false)?;

    println!("\n== primitives on 1,000,003 random elements, checked against the CPU");
    let n = 1_000_003;
    let mut rng = fastrand::Rng::with_seed(2026);
    let x: Vec<u32> = (0..n).map(|_| rng.u32(..1 << 20)).collect();
    let flags: Vec<u32> = (0..n).map(|_| rng.u32(..2)).collect();
    let keep: Vec<bool> = flags.iter().map(|&f| f != 0).collect();
    let dir = std::env::temp_dir().join(format!("wavekit-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| CliError::File {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let input = dir.join("x.npy");
    npy::write(&input, &Array::U32(x.clone()))?;
    let read = match npy::read(&input)? {
        Array::U32(v) => v,
        _ => unreachable!("written as uint32"),
    };
    let mut failures = 0;
    check(".npy round trip", read == x, &mut failures);
    for op in [Op::Add, Op::Min, Op::Max] {
        let got = wavekit::reduce::reduce_slice(ctx, &x, op)?;
        check(
            &format!("reduce {}", op.name()),
            got == reference::reduce(&x, op),
            &mut failures,
        );
    }
    for inclusive in [true, false] {
        let got = wavekit::scan::scan_slice(ctx, &x, Op::Add, inclusive)?;
        let kind = if inclusive { "inclusive" } else { "exclusive" };
        check(
            &format!("scan {kind} sum"),
            got == reference::scan(&x, Op::Add, inclusive),
            &mut failures,
        );
    }
    let got = wavekit::select::select_slice(ctx, &x, &flags)?;
    check(
        "select (stable)",
        got == reference::select(&x, &keep),
        &mut failures,
    );
    let got = wavekit::select::partition_slice(ctx, &x, &flags)?;
    check(
        "partition (both sides stable)",
        got == reference::partition(&x, &keep),
        &mut failures,
    );
    // Sort: keys with few distinct values, so stability shows in the permutation.
    let keys: Vec<u32> = x.iter().map(|v| v & 0xff).collect();
    let (sorted, order) = wavekit::sort::sort_pairs_slice(ctx, &keys, None, false, None)?;
    let want = wavekit::sort::reference::permutation(&keys, false, (0, 32));
    check(
        "sort u32 keys with their permutation (stable)",
        order == want
            && sorted
                .iter()
                .zip(&want)
                .all(|(&k, &i)| k == keys[i as usize]),
        &mut failures,
    );
    let fkeys: Vec<f32> = x
        .iter()
        .map(|&v| f32::from_bits(v.rotate_left(13)))
        .collect();
    let got = wavekit::sort::sort_slice(ctx, &fkeys, true, None)?;
    let want = wavekit::sort::reference::sort(&fkeys, true, (0, 32));
    check(
        "sort f32 keys, descending, total order",
        got.iter()
            .map(|f| f.to_bits())
            .eq(want.iter().map(|f| f.to_bits())),
        &mut failures,
    );
    let got = wavekit::histogram::histogram_slice(ctx, &x, 256, 0, 1 << 20)?;
    check(
        "histogram, 256 bins",
        got == wavekit::histogram::reference::histogram(&x, 256, 0, 1 << 20),
        &mut failures,
    );
    std::fs::remove_dir_all(&dir).ok();
    if failures > 0 {
        return Err(CliError::DemoFailed { failed: failures });
    }
    Ok(())
}
