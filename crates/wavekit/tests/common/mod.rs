//! Shared set-up of the GPU tests: one context per test binary (made by the harness from the
//! environment: `WAVEKIT_ADAPTER`, `WAVEKIT_NO_SUBGROUPS`, `WAVEKIT_EXPECT_SUBGROUP`), named in
//! the output. The GPU tests are `#[ignore = "GPU test: …"]`: run them with `--include-ignored`.

#![allow(dead_code)]

use wavekit::scan::reference;
use wavekit::select::{Keep, Select};
use wavekit::{GpuContext, POISON};

pub use wavekit_harness::gpu;

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

/// Select (or partition, as `s` was built) `n` random u32 with `keep_mode` (flags set with
/// `density` percent, or the predicate `x % 3 == 0`) into a poisoned output, and check the
/// survivors, their order, the count, and that nothing was written past them (select) or past
/// the end.
pub fn check_select(
    ctx: &GpuContext,
    s: &Select,
    keep_mode: &Keep,
    partition: bool,
    n: usize,
    density: u32,
) {
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

/// The prelude's example application kernel (`tests/kernels/compact_flags.wgsl`, on
/// `wg_compact`), in workgroups of `workgroup`.
pub fn compact_kernel(ctx: &GpuContext, workgroup: u32) -> wavekit::kernel::Kernel {
    compact_builder(workgroup).build(ctx).unwrap()
}

/// Its builder.
pub fn compact_builder(workgroup: u32) -> wavekit::prelude::KernelBuilder {
    const SOURCES: &[wavekit::prelude::WgslSource] = &[wavekit::wgsl_source!(
        "example/compact_flags",
        "../../../wavekit-gpu/tests/kernels/compact_flags.wgsl"
    )];
    wavekit::prelude::KernelBuilder::new("example/compact_flags", SOURCES).workgroup_size(workgroup)
}
