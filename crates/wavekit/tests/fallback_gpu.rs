//! The look-back fallback, forced: with fault injection (the policies' `fault_skip`) every
//! K-th tile never publishes, so its successors can only finish by reducing its input
//! themselves.

mod common;

use common::{gpu, on, run};
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::scan::{Scan, ScanConfig, ScanPolicy, reference};
use wavekit::select::{Keep, Select, SelectConfig, SelectPolicy};
use wavekit::sort::{KeyType, RadixSort, SortConfig, SortPolicy, Values};
use wavekit::tiling::LookbackPolicy;

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn results_are_right_when_predecessors_never_publish() {
    let ctx = gpu();
    let t = ScanPolicy::default().tile_elements(1, false) as usize;
    // The short part of the sweep (ADR-0084) skips every other predecessor only, the rest (the
    // first width's, ADR-0101) every one and every third.
    let sweep = wavekit_harness::sweep();
    for skip in [1u32, 2, 3] {
        if !sweep.takes(skip == 2, false) {
            continue;
        }
        let lookback = LookbackPolicy {
            fault_skip: skip,
            ..Default::default()
        };
        // The policy's tiles at every size (no small tiles, ADR-0082): with every tile silent
        // (skip 1), tile k reduces its k predecessors' inputs itself, and with the small
        // tiles' hundreds of tiles that walk passes llvmpipe's 65535 loop iterations without
        // subgroups (ADR-0052).
        let scan_policy = Some(ScanPolicy {
            lookback,
            small: None,
            ..Default::default()
        });
        let select_policy = SelectPolicy {
            lookback,
            small: None,
            ..Default::default()
        };
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                policy: scan_policy,
                ..ScanConfig::exclusive(Monoid::builtin(Scalar::U32, Op::Add))
            },
        )
        .unwrap();
        let select = Select::new(
            ctx,
            &SelectConfig {
                scalar: Scalar::U32,
                keep: Keep::Flags,
                partition: true,
                policy: Some(select_policy),
            },
        )
        .unwrap();
        // Select without partition keeps its tile in registers through the look-back: the
        // fallback must count a predecessor without touching them.
        let select_only = Select::new(
            ctx,
            &SelectConfig {
                scalar: Scalar::U32,
                keep: Keep::Flags,
                partition: false,
                policy: Some(select_policy),
            },
        )
        .unwrap();
        // A non-commutative monoid: the fallback must combine a tile in element order.
        let affine = Scan::new(
            ctx,
            &ScanConfig {
                policy: scan_policy,
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
        // The single-pass sort's look-back per digit, with values so order shows.
        let sort_config = SortConfig {
            values: Values::Indices,
            policy: Some(SortPolicy {
                fault_skip: skip,
                small_up_to: 0,
                ..SortPolicy::single_pass()
            }),
            ..SortConfig::keys(KeyType::U32)
        };
        let sort = RadixSort::new(ctx, &sort_config).unwrap();
        let st = sort.tile_keys() as usize;
        for n in [st + 1, 5 * st + 3] {
            let mut r = fastrand::Rng::with_seed(n as u64 * 3 + u64::from(skip));
            let keys: Vec<u32> = (0..n).map(|_| r.u32(..1 << 12)).collect();
            let kb = ctx.storage_from("keys", &keys).unwrap();
            let vb = ctx.storage_poisoned("order", n).unwrap();
            let b = sort.bind(ctx, &kb, Some(&vb), n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let want = wavekit::sort::reference::permutation(&keys, false, (0, 32));
            let got: Vec<u32> = ctx.read_back("order", &vb, n).unwrap();
            assert_eq!(got, want, "{}: sort, skip {skip} n {n}", on(ctx));
            // With six tiles some tile follows a silent one (with two, only for skip 1).
            if n > st + 1 || skip == 1 {
                assert!(
                    b.fallbacks(ctx).unwrap() > 0,
                    "{}: the sort's last pass took no fallback with skip {skip} n {n}",
                    on(ctx)
                );
            }
            // (`fallbacks` reads the look-back statistics that `wavekit bench` shows.)
            assert!(b.lookback_stats(ctx).unwrap().is_some(), "{}", on(ctx));
        }
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

            let b = select_only
                .bind(ctx, &src, Some(&f), &dst, n as u64)
                .unwrap();
            run(ctx, |e| b.record(e));
            let want = reference::select(&x, &keep);
            let got: Vec<u32> = ctx.read_back("dst", &dst, want.len()).unwrap();
            assert_eq!(got, want, "{}: select, skip {skip} n {n}", on(ctx));

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
}
