//! Shared set-up of the GPU tests: one context per test binary, named in the output.
//!
//! `WAVEKIT_REQUIRE_GPU=1` (set by scripts/test.sh) turns a missing adapter into a failure;
//! without it the GPU tests say they were skipped. `WAVEKIT_EXPECT_SUBGROUP=N` fails the run
//! unless the adapter's subgroup width is exactly N (so a lavapipe width that did not take
//! effect is caught, not silently tested twice).

#![allow(dead_code)]

use std::sync::OnceLock;

use wavekit::monoid::Scalar;
use wavekit::scan::reference;
use wavekit::select::{Keep, Select};
use wavekit::{GpuContext, POISON};

static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();

/// The shared context, or `None` (with a note) when no adapter exists and none is required.
pub fn gpu() -> Option<&'static GpuContext> {
    CTX.get_or_init(|| {
        let required = std::env::var("WAVEKIT_REQUIRE_GPU").is_ok_and(|v| v == "1");
        match GpuContext::from_env() {
            Ok(ctx) => {
                let sg = ctx.caps.subgroups;
                eprintln!(
                    "[wavekit tests] adapter: {}; subgroup width {}..{}",
                    ctx.summary.label(),
                    sg.min_size,
                    sg.max_size
                );
                if let Some(want) = std::env::var("WAVEKIT_EXPECT_SUBGROUP")
                    .ok()
                    .and_then(|v| v.parse::<u32>().ok())
                {
                    assert_eq!(
                        (sg.min_size, sg.max_size),
                        (want, want),
                        "expected subgroup width {want} on {}",
                        ctx.summary.label()
                    );
                }
                Some(ctx)
            }
            Err(e) if !required => {
                eprintln!("[wavekit tests] GPU tests skipped: {e}");
                None
            }
            Err(e) => panic!("WAVEKIT_REQUIRE_GPU=1 but: {e}"),
        }
    })
    .as_ref()
}

/// Record with `record` into a fresh encoder and submit.
pub fn run(ctx: &GpuContext, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
    ctx.submit(record);
}

/// The adapter and width, for assertion messages.
pub fn on(ctx: &GpuContext) -> String {
    format!(
        "{} (subgroup width {})",
        ctx.summary.name, ctx.caps.subgroups.max_size
    )
}

/// Select (or partition) `n` random u32 with `keep_mode` (flags set with `density` percent,
/// or the predicate `x % 3 == 0`) into a poisoned output, and check the survivors, their
/// order, the count, and that nothing was written past them (select) or past the end.
pub fn check_select(ctx: &GpuContext, keep_mode: &Keep, partition: bool, n: usize, density: u32) {
    let s = Select::new(ctx, Scalar::U32, keep_mode, partition).unwrap();
    let mut r = fastrand::Rng::with_seed((11 + u64::from(density)) ^ (n as u64) << 8);
    let data: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
    let flags: Vec<u32> = (0..n).map(|_| u32::from(r.u32(..100) < density)).collect();
    let keep: Vec<bool> = match keep_mode {
        Keep::Flags => flags.iter().map(|&f| f != 0).collect(),
        Keep::Predicate(_) => data.iter().map(|&x| x % 3 == 0).collect(),
    };
    let src = ctx.storage_from("src", &data).unwrap();
    let f = ctx.storage_from("flags", &flags).unwrap();
    let dst = ctx.storage_poisoned("dst", n + 1).unwrap();
    let fl = matches!(keep_mode, Keep::Flags).then_some(&f);
    let b = s.bind(ctx, &src, fl, &dst, n as u64).unwrap();
    run(ctx, |e| b.record(e));
    let count = ctx.read_back::<u32>("count", b.count(), 1).unwrap()[0] as usize;
    let got: Vec<u32> = ctx.read_back("dst", &dst, n + 1).unwrap();
    let what = format!("{keep_mode:?} partition={partition} n={n} density={density}%");
    if partition {
        let (want, kept) = reference::partition(&data, &keep);
        assert_eq!(count, kept, "{}: {what}: count", on(ctx));
        assert_eq!(&got[..n], &want[..], "{}: {what}", on(ctx));
    } else {
        let want = reference::select(&data, &keep);
        assert_eq!(count, want.len(), "{}: {what}: count", on(ctx));
        assert_eq!(&got[..count], &want[..], "{}: {what}", on(ctx));
        assert!(
            got[count..n].iter().all(|&x| x == POISON),
            "{}: {what}: wrote past the count",
            on(ctx)
        );
    }
    assert_eq!(got[n], POISON, "{}: {what}: wrote past the end", on(ctx));
}
