//! Inputs past the device's real storage-binding limit (2 GiB on the H200): a scan, a reduce,
//! a select, a partition and a sort with indices of 2^29 + 5 u32. Only with
//! WAVEKIT_LARGE_TESTS=1 (they need over 8 GiB of device memory and are far too slow for
//! lavapipe).

mod common;

use common::{gpu, on, run};
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig, reference};
use wavekit::select::{Keep, Select, SelectConfig};

/// The context. These tests need over 8 GiB of device memory: they are ignored, named
/// `large_*` (the test command skips them with `--skip large_`), and run with
/// `WAVEKIT_LARGE_TESTS=1 cargo test --test large_gpu -- --ignored`; without the variable a
/// run of them fails rather than passing unchecked.
fn large() -> &'static wavekit::GpuContext {
    assert!(
        wavekit_harness::large_tests(),
        "a large test ran without WAVEKIT_LARGE_TESTS=1 (it needs over 8 GiB of device memory)"
    );
    gpu()
}

#[test]
#[ignore = "large GPU test (over 8 GiB of device memory): WAVEKIT_LARGE_TESTS=1 cargo test --test large_gpu -- --ignored"]
fn large_scan_and_reduce_past_the_binding_limit() {
    let ctx = large();
    let n = (1usize << 29) + 5;
    let bytes = 4 * n as u64;
    assert!(
        bytes > ctx.caps.limits.max_storage_buffer_binding_size,
        "{}: the input must exceed one binding",
        on(ctx)
    );
    let mut r = fastrand::Rng::with_seed(29);
    let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
    let src = ctx.storage_from("src", &x).unwrap();
    let dst = ctx.storage_uninit("dst", bytes).unwrap();
    let scan = Scan::new(
        ctx,
        &ScanConfig::exclusive(Monoid::builtin(Scalar::U32, Op::Add)),
    )
    .unwrap();
    let b = scan.bind(ctx, &src, Some(&dst), n as u64).unwrap();
    assert!(b.chunks() >= 2);
    let red = Reduce::new(
        ctx,
        &ReduceConfig::new(Monoid::builtin(Scalar::U32, Op::Max)),
    )
    .unwrap();
    let rb = red.bind(ctx, &src, n as u64).unwrap();
    run(ctx, |e| {
        b.record(e);
        rb.record(e);
    });
    let got: Vec<u32> = ctx.read_back("dst", &dst, n).unwrap();
    assert!(
        got == reference::scan(&x, Op::Add, false),
        "{}: chunked scan differs",
        on(ctx)
    );
    let m: Vec<u32> = ctx.read_back("max", rb.result(), 1).unwrap();
    assert_eq!(m[0], reference::reduce(&x, Op::Max), "{}", on(ctx));
}

#[test]
#[ignore = "large GPU test (over 8 GiB of device memory): WAVEKIT_LARGE_TESTS=1 cargo test --test large_gpu -- --ignored"]
fn large_select_and_partition_past_the_binding_limit() {
    let ctx = large();
    let n = (1usize << 29) + 5;
    let bytes = 4 * n as u64;
    let mut r = fastrand::Rng::with_seed(31);
    let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
    let f: Vec<u32> = (0..n).map(|_| u32::from(r.bool())).collect();
    let src = ctx.storage_from("src", &x).unwrap();
    let flags = ctx.storage_from("flags", &f).unwrap();
    let dst = ctx.storage_uninit("dst", bytes).unwrap();
    for partition in [false, true] {
        let s = Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, partition)).unwrap();
        let b = s.bind(ctx, &src, Some(&flags), &dst, n as u64).unwrap();
        run(ctx, |e| b.record(e));
        let mut want: Vec<u32> = (0..n).filter(|&i| f[i] != 0).map(|i| x[i]).collect();
        let kept = want.len();
        if partition {
            want.extend((0..n).filter(|&i| f[i] == 0).map(|i| x[i]));
        }
        let count = ctx.read_back::<u32>("count", b.count(), 1).unwrap()[0] as usize;
        assert_eq!(count, kept, "{}: partition={partition}", on(ctx));
        let got: Vec<u32> = ctx.read_back("dst", &dst, want.len()).unwrap();
        assert!(got == want, "{}: partition={partition} differs", on(ctx));
    }
}

#[test]
#[ignore = "large GPU test (over 8 GiB of device memory): WAVEKIT_LARGE_TESTS=1 cargo test --test large_gpu -- --ignored"]
fn large_sort_past_the_binding_limit() {
    let ctx = large();
    let n = (1usize << 29) + 5;
    let mut r = fastrand::Rng::with_seed(37);
    // Few distinct keys: long runs of equal keys, so stability is visible.
    let x: Vec<u32> = (0..n).map(|_| r.u32(..1 << 20)).collect();
    // With their indices: sorted keys, each the key at its index, indices increasing within a
    // key (stable), and every index once. O(n) checks in place of a reference sort.
    let (keys, idx) = wavekit::sort::sort_pairs_slice(ctx, &x, None, false, None).unwrap();
    let mut seen = vec![false; n];
    for i in 0..n {
        let j = idx[i] as usize;
        assert!(!seen[j], "{}: index {j} twice", on(ctx));
        seen[j] = true;
        assert_eq!(keys[i], x[j], "{}: key {i} is not its index's key", on(ctx));
        if i > 0 {
            assert!(keys[i - 1] <= keys[i], "{}: not sorted at {i}", on(ctx));
            if keys[i - 1] == keys[i] {
                assert!(idx[i - 1] < idx[i], "{}: not stable at {i}", on(ctx));
            }
        }
    }
}
