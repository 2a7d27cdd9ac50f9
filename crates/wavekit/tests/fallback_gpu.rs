//! The look-back fallback, forced: with fault injection every K-th tile never publishes, so
//! its successors can only finish by reducing its input themselves. One test function, since
//! the switch is process-wide (an environment variable read when kernels are built).

mod common;

use common::{gpu, on, run};
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::scan::{Scan, ScanConfig, reference};
use wavekit::select::{Keep, Select};

#[test]
fn results_are_right_when_predecessors_never_publish() {
    let Some(ctx) = gpu() else { return };
    let t = wavekit::tile_elements() as usize;
    for skip in [1u32, 2, 3] {
        // SAFETY: this binary's only test sets it before any kernel is built.
        unsafe { std::env::set_var("WAVEKIT_FAULT_LOOKBACK", skip.to_string()) };
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                monoid: Monoid::builtin(Scalar::U32, Op::Add),
                inclusive: false,
                in_place: false,
            },
        )
        .unwrap();
        let select = Select::new(ctx, Scalar::U32, &Keep::Flags, true).unwrap();
        // A non-commutative monoid: the fallback must combine a tile in element order.
        let affine = Scan::new(
            ctx,
            &ScanConfig {
                monoid: Monoid::custom(
                    "affine",
                    "vec2<u32>",
                    "vec2<u32>(1u, 0u)",
                    "vec2<u32>(b.x * a.x, b.x * a.y + b.y)",
                    false,
                )
                .unwrap(),
                inclusive: true,
                in_place: false,
            },
        )
        .unwrap();
        for n in [t + 1, 7 * t + 3, 40 * t] {
            let mut r = fastrand::Rng::with_seed(n as u64 + u64::from(skip));
            let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
            let flags: Vec<u32> = (0..n).map(|_| r.u32(..2)).collect();
            let src = ctx.storage_from("src", &x).unwrap();
            let f = ctx.storage_from("flags", &flags).unwrap();
            let dst = ctx.storage_poisoned("dst", n).unwrap();
            let b = scan.bind(ctx, &src, Some(&dst), n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let got: Vec<u32> = ctx.read_back("dst", &dst, n).unwrap();
            assert_eq!(
                got,
                reference::scan(&x, Op::Add, false),
                "{}: skip {skip} n {n}",
                on(ctx)
            );

            let b = select.bind(ctx, &src, Some(&f), &dst, n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let got: Vec<u32> = ctx.read_back("dst", &dst, n).unwrap();
            let keep: Vec<bool> = flags.iter().map(|&v| v != 0).collect();
            assert_eq!(
                got,
                reference::partition(&x, &keep).0,
                "{}: skip {skip} n {n}",
                on(ctx)
            );

            let pairs: Vec<[u32; 2]> = x
                .iter()
                .zip(&flags)
                .map(|(&a, &b)| [a | 1, b ^ a])
                .collect();
            let psrc = ctx.storage_from("pairs", &pairs).unwrap();
            let pdst = ctx.storage_poisoned("pairs out", 2 * n).unwrap();
            let b = affine.bind(ctx, &psrc, Some(&pdst), n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let got: Vec<[u32; 2]> = ctx.read_back("pairs out", &pdst, n).unwrap();
            let mut acc = [1u32, 0];
            for (i, (f, g)) in pairs.iter().zip(&got).enumerate() {
                acc = [
                    f[0].wrapping_mul(acc[0]),
                    f[0].wrapping_mul(acc[1]).wrapping_add(f[1]),
                ];
                assert_eq!(
                    *g,
                    acc,
                    "{}: affine, skip {skip} n {n} element {i}",
                    on(ctx)
                );
            }
        }
    }
    unsafe { std::env::remove_var("WAVEKIT_FAULT_LOOKBACK") };
}
