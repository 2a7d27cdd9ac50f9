//! An application kernel on the kernel prelude: `tests/kernels/compact_flags.wgsl` (the
//! prelude's documented example) compacts each workgroup's flagged local indices in order with
//! `wg_compact`. Run at every subgroup width the test command sets and without subgroups,
//! in every workgroup size the prelude allows here, at densities 0 %, 3 %, 50 %, 97 % and
//! 100 %, against a plain Rust reference; the output is poisoned, and nothing past the
//! survivors may be written.

mod common;

use common::{compact_builder, gpu, on, run};
use wavekit::POISON;

/// The reference: per workgroup of `wg`, the local indices whose flag is set.
fn reference(flags: &[u32], wg: usize) -> Vec<Vec<u32>> {
    flags
        .chunks(wg)
        .map(|c| (0..wg as u32).filter(|&i| c[i as usize] != 0).collect())
        .collect()
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_example_kernel_compacts_in_order_at_every_workgroup_size() {
    let ctx = gpu();
    for wg in [32usize, 64, 128, 256, 1024] {
        if wg as u32 > ctx.caps.limits.max_compute_invocations_per_workgroup {
            continue;
        }
        let builder = compact_builder(wg as u32);
        builder.check().unwrap();
        let kernel = builder.build(ctx).unwrap();
        let groups = 25usize;
        let mut r = fastrand::Rng::with_seed(31 + wg as u64);
        let flags: Vec<u32> = (0..groups * wg)
            .map(|i| {
                let density = [0, 3, 50, 97, 100][(i / wg) % 5];
                u32::from(r.u32(..100) < density)
            })
            .collect();
        let f = ctx.storage_from("flags", &flags).unwrap();
        let out = ctx.storage_poisoned("out", groups * wg).unwrap();
        let totals = ctx.storage_poisoned("totals", groups).unwrap();
        let bind = kernel
            .bind(ctx, &[(0, &f), (1, &out), (2, &totals)])
            .unwrap();
        run(ctx, |e| {
            let mut pass = e.begin_compute_pass(&Default::default());
            kernel.dispatch(&mut pass, &bind, groups as u32);
        });
        let got: Vec<u32> = ctx.read_back("out", &out, groups * wg).unwrap();
        let got_totals: Vec<u32> = ctx.read_back("totals", &totals, groups).unwrap();
        for (g, want) in reference(&flags, wg).iter().enumerate() {
            let what = format!("{}: workgroup {g} of {wg}", on(ctx));
            assert_eq!(got_totals[g] as usize, want.len(), "{what}: total");
            assert_eq!(&got[g * wg..g * wg + want.len()], &want[..], "{what}");
            assert!(
                got[g * wg + want.len()..(g + 1) * wg]
                    .iter()
                    .all(|&x| x == POISON),
                "{what}: wrote past its survivors"
            );
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_kernel_error_names_the_application_file() {
    let ctx = gpu();
    let bad = wavekit::prelude::WgslSource::inline(
        "t/app",
        "#import subgroup/api\n@compute @workgroup_size(WG_SIZE)\nfn main(inv: Invocation) {\n    let x: u32 = 1.5;\n}\n",
    );
    let e = wavekit::prelude::KernelBuilder::new("t/app", &[bad])
        .build(ctx)
        .unwrap_err()
        .to_string();
    assert!(e.contains("t/app.wgsl:4"), "{e}");
    let e = compact_builder(4096).build(ctx).unwrap_err();
    assert!(
        matches!(
            e,
            wavekit::Error::InvalidArgument(_) | wavekit::Error::WorkgroupTooLarge { .. }
        ),
        "{e}"
    );
}
