//! Inputs larger than one storage binding: scan and reduce split them into chunks (the carry
//! passed along on the GPU), the histogram counts chunk after chunk, select and partition
//! take their input in chunks and write across two output bindings, the sort binds its
//! buffers as two windows, the copy kernel binds one chunk at a time. The binding
//! limit is lowered to 64 KiB (`ContextOptions::max_binding_bytes`, a context of its own) so
//! that small inputs take these paths.

mod common;

use common::{gpu, on, run};
use wavekit::POISON;
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig, ScanPolicy, reference};
use wavekit::select::{Keep, Select, SelectConfig, SelectPolicy};
use wavekit::tiling::SmallInputs;

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn inputs_larger_than_one_binding() {
    let shared = gpu();
    // 64 KiB bindings: as many whole tiles of u32 as fit in 16384 elements per chunk.
    let chunked = wavekit::GpuContext::new(&wavekit::ContextOptions {
        max_binding_bytes: Some(65536),
        ..shared.options().clone()
    })
    .unwrap();
    let ctx = &chunked;
    // The policy's tiles at every size, and the small inputs' tiles at every size (ADR-0082).
    let rules = [
        None,
        Some(SmallInputs {
            up_to: u64::MAX,
            steps: 2,
        }),
    ];
    // The short part of the sweep (ADR-0084): each direction, in place and not, and the small
    // inputs' rule, in three scans instead of five (each configuration's kernels are compiled
    // again at each width); the rest (the first width's, ADR-0101) the other two and the first.
    let sweep = wavekit_harness::sweep();
    let scans = [
        (true, false, rules[0]),
        (false, false, rules[0]),
        (true, true, rules[0]),
        (false, true, rules[0]),
        (true, false, rules[1]),
    ];
    let scans: Vec<_> = scans
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| sweep.takes(matches!(i, 0 | 3 | 4), i == 0))
        .map(|(_, s)| s)
        .collect();
    for (inclusive, in_place, small) in scans {
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                in_place,
                inclusive,
                policy: Some(ScanPolicy {
                    small,
                    ..Default::default()
                }),
                ..ScanConfig::inclusive(Monoid::builtin(Scalar::U32, Op::Add))
            },
        )
        .unwrap();
        // Every size takes the same tiles under these rules.
        let tile = scan.tile_elements_for(ctx, 1).unwrap() as usize;
        let per_chunk = 16_384 / tile * tile;
        for n in [per_chunk - 1, per_chunk, per_chunk + 1, 5 * per_chunk + 777] {
            let mut r = fastrand::Rng::with_seed(n as u64);
            let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
            let src = ctx.storage_from("src", &x).unwrap();
            let dst = ctx.storage_poisoned("dst", n + 1).unwrap();
            let b = if in_place {
                scan.bind(ctx, &src, None, n as u64).unwrap()
            } else {
                scan.bind(ctx, &src, Some(&dst), n as u64).unwrap()
            };
            assert_eq!(b.chunks(), n.div_ceil(per_chunk), "chunks for n = {n}");
            run(ctx, |e| b.record(e));
            let out = if in_place { &src } else { &dst };
            let got: Vec<u32> = ctx.read_back("out", out, n).unwrap();
            let what = format!("inclusive={inclusive} in_place={in_place} n={n}");
            assert_eq!(
                got,
                reference::scan(&x, Op::Add, inclusive),
                "{}: {what}",
                on(ctx)
            );
            if !in_place {
                let tail: Vec<u32> = ctx.read_back("dst", &dst, n + 1).unwrap();
                assert_eq!(tail[n], POISON);
            }
        }
    }
    // A non-commutative monoid across chunks: the carry is combined in order.
    let affine = Monoid::custom(
        "affine",
        "vec2<u32>",
        "vec2<u32>(1u, 0u)",
        "vec2<u32>(b.x * a.x, b.x * a.y + b.y)",
        false,
    )
    .unwrap();
    let n = 3 * 8192 + 5; // vec2 elements: 8192 per 64 KiB chunk
    let mut r = fastrand::Rng::with_seed(9);
    let x: Vec<[u32; 2]> = (0..n).map(|_| [r.u32(..) | 1, r.u32(..)]).collect();
    let src = ctx.storage_from("src", &x).unwrap();
    let red = Reduce::new(ctx, &ReduceConfig::new(affine.clone())).unwrap();
    let b = red.bind(ctx, &src, n as u64).unwrap();
    run(ctx, |e| b.record(e));
    let got: Vec<[u32; 2]> = ctx.read_back("result", b.result(), 1).unwrap();
    let want = x.iter().fold([1u32, 0], |a, f| {
        [
            f[0].wrapping_mul(a[0]),
            f[0].wrapping_mul(a[1]).wrapping_add(f[1]),
        ]
    });
    assert_eq!(got[0], want, "{}: chunked affine reduce", on(ctx));
    // Min in the short part, add and max in the rest.
    for op in [Op::Add, Op::Min, Op::Max] {
        if !sweep.takes(op == Op::Min, false) {
            continue;
        }
        let red = Reduce::new(ctx, &ReduceConfig::new(Monoid::builtin(Scalar::I32, op))).unwrap();
        let n = 7 * 14_336 + 3; // six or seven 64 KiB chunks
        let mut r = fastrand::Rng::with_seed(10);
        let x: Vec<i32> = (0..n).map(|_| r.i32(..)).collect();
        let src = ctx.storage_from("src", &x).unwrap();
        let b = red.bind(ctx, &src, n as u64).unwrap();
        run(ctx, |e| b.record(e));
        let got: Vec<i32> = ctx.read_back("result", b.result(), 1).unwrap();
        assert_eq!(
            got[0],
            reference::reduce(&x, op),
            "{}: chunked reduce {op:?}",
            on(ctx)
        );
    }
    // Select and partition: the input in chunks, the output across two windows, the carry
    // of survivors passed from chunk to chunk on the GPU; predicates see global indices.
    let by_index = Keep::Predicate(
        "fn keep(x: u32, i: u32) -> bool { return (i % 3u) == 0u || (x & 1u) == 1u; }".into(),
    );
    let selects = [
        (Keep::Flags, false, rules[0]),
        (Keep::Flags, true, rules[0]),
        (by_index.clone(), false, rules[0]),
        (by_index.clone(), true, rules[0]),
        (Keep::Flags, true, rules[1]),
    ];
    // The short part: flags and a predicate, select and partition, and the small inputs'
    // rule; the rest the other two and the first.
    let selects: Vec<_> = selects
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| sweep.takes(matches!(i, 0 | 3 | 4), i == 0))
        .map(|(_, c)| c)
        .collect();
    for (keep, partition, small) in selects {
        let s = Select::new(
            ctx,
            &SelectConfig {
                policy: Some(SelectPolicy {
                    small,
                    ..Default::default()
                }),
                ..SelectConfig::new(Scalar::U32, keep.clone(), partition)
            },
        )
        .unwrap();
        // Input chunks of whole tiles in one 64 KiB binding; output windows of whole bindings
        // (16384 elements), so the largest n is two of them whatever the tile.
        let tile = s.tile_elements_for(ctx, 1).unwrap() as usize;
        let sel_chunk = 16_384 / tile * tile;
        for n in [
            sel_chunk - 1,
            sel_chunk,
            sel_chunk + 1,
            sel_chunk + 4097,
            2 * sel_chunk,
            2 * 16_384,
        ] {
            let mut r = fastrand::Rng::with_seed(n as u64 + 3);
            let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
            let f: Vec<u32> = (0..n).map(|_| u32::from(r.u8(..) < 100)).collect();
            let kept = |i: usize| match keep {
                Keep::Flags => f[i] != 0,
                Keep::Predicate(_) => i.is_multiple_of(3) || x[i] & 1 == 1,
            };
            let mut want: Vec<u32> = (0..n).filter(|&i| kept(i)).map(|i| x[i]).collect();
            let survivors = want.len();
            if partition {
                want.extend((0..n).filter(|&i| !kept(i)).map(|i| x[i]));
            }
            let src = ctx.storage_from("src", &x).unwrap();
            let flags = ctx.storage_from("flags", &f).unwrap();
            let dst = ctx.storage_poisoned("dst", n + 1).unwrap();
            let flag_buf = matches!(keep, Keep::Flags).then_some(&flags);
            let b = s.bind(ctx, &src, flag_buf, &dst, n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let what = format!("{}: {keep:?} partition={partition} n={n}", on(ctx));
            let count = ctx.read_back::<u32>("count", b.count(), 1).unwrap()[0] as usize;
            assert_eq!(count, survivors, "{what}");
            let got: Vec<u32> = ctx.read_back("dst", &dst, n + 1).unwrap();
            assert_eq!(&got[..want.len()], &want[..], "{what}");
            assert_eq!(got[n], POISON, "{what}: wrote past the end");
            if !partition {
                assert!(got[survivors..n].iter().all(|&v| v == POISON), "{what}");
            }
        }
    }
    // The sort binds key and value buffers past one binding as two windows (u32 keys: 16384
    // per 64 KiB window; u64: 8192), scratch too.
    for n in [16_384 - 1, 16_384 + 1, 2 * 16_384] {
        let mut r = fastrand::Rng::with_seed(n as u64 + 5);
        let keys: Vec<u32> = (0..n).map(|_| r.u32(..1000)).collect();
        let mut want = keys.clone();
        want.sort();
        let got = wavekit::sort::sort_slice(ctx, &keys, false, None).unwrap();
        assert!(got == want, "{}: chunked sort of {n} u32 keys", on(ctx));
        let (k, v) = wavekit::sort::sort_pairs_slice(ctx, &keys, None, false, None).unwrap();
        let mut idx: Vec<u32> = (0..n as u32).collect();
        idx.sort_by_key(|&i| keys[i as usize]);
        assert!(
            k == want && v == idx,
            "{}: chunked stable pairs, n = {n}",
            on(ctx)
        );
        let wide: Vec<u64> = (0..n).map(|_| r.u64(..)).collect();
        if n <= 2 * 8192 {
            let mut want = wide.clone();
            want.sort();
            let got = wavekit::sort::sort_slice(ctx, &wide, true, None).unwrap();
            want.reverse();
            assert!(got == want, "{}: chunked sort of {n} u64 keys", on(ctx));
        } else {
            let e = wavekit::sort::sort_slice(ctx, &wide, false, None).unwrap_err();
            assert!(
                e.to_string().contains("more than two storage bindings"),
                "{e}"
            );
        }
    }
    // Past two output windows: a clear error.
    let s = Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, false)).unwrap();
    let n = 2 * 16_384 + 1;
    let big = ctx.storage_uninit("big", 4 * n as u64).unwrap();
    let flags = ctx.storage_uninit("flags", 4 * n as u64).unwrap();
    let out = ctx.storage_uninit("out", 4 * n as u64).unwrap();
    let e = s.bind(ctx, &big, Some(&flags), &out, n as u64).unwrap_err();
    assert!(
        e.to_string().contains("more than two storage bindings"),
        "{e}"
    );
    // The histogram counts every chunk into the same counts.
    for n in [16_384 - 1, 16_384, 5 * 16_384 + 7] {
        let mut r = fastrand::Rng::with_seed(n as u64 + 11);
        let x: Vec<u32> = (0..n).map(|_| r.u32(..1100)).collect();
        let h = wavekit::histogram::Histogram::new(
            ctx,
            &wavekit::histogram::HistogramConfig::new(100, 0u32, 1000),
        )
        .unwrap();
        let buf = ctx.storage_from("samples", &x).unwrap();
        let b = h.bind(ctx, &buf, n as u64).unwrap();
        run(ctx, |e| b.record(e));
        assert_eq!(
            b.read(ctx).unwrap(),
            wavekit::histogram::reference::histogram(&x, 100, 0, 1000),
            "{}: histogram of {n} samples in chunks",
            on(ctx)
        );
    }
    // The copy kernel binds one chunk of whole 16-byte words at a time, the remainder after.
    let kernel = wavekit::copy::CopyKernel::new(ctx).unwrap();
    for bytes in [65_536u64, 65_536 + 16, 3 * 65_536 + 12, 5 * 65_536 + 260] {
        let words = (bytes / 4) as usize;
        let mut r = fastrand::Rng::with_seed(bytes);
        let data: Vec<u32> = (0..words).map(|_| r.u32(..)).collect();
        let src = ctx.storage_from("src", &data).unwrap();
        let dst = ctx.storage_poisoned("dst", words + 4).unwrap();
        let b = kernel.bind(ctx, &src, &dst, bytes).unwrap();
        assert_eq!(b.chunks() as u64, (bytes / 16 * 16).div_ceil(65_536));
        run(ctx, |e| b.record(e));
        let got: Vec<u32> = ctx.read_back("dst", &dst, words + 4).unwrap();
        assert!(
            got[..words] == data[..],
            "{}: copy of {bytes} bytes in chunks",
            on(ctx)
        );
        assert_eq!(&got[words..], &[POISON; 4], "{}: past the end", on(ctx));
    }
}
