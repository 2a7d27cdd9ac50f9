//! Histogram on the GPU against the reference (`histogram::reference`), exactly: every sample
//! type, bin counts from 1 to 4096, samples out of range and NaN, several sizes.

mod common;

use common::{gpu, on, run};
use wavekit::histogram::{Histogram, HistogramConfig, Sample, histogram_slice, reference};

fn sizes() -> Vec<usize> {
    vec![0, 1, 2, 255, 256, 257, 4097, 100_003]
}

fn check<T: Sample>(draw: impl Fn(&mut fastrand::Rng) -> T, ranges: &[(T, T)]) {
    let ctx = gpu();
    // Built for each range at one bin; every other bin count re-ranges the first one (the
    // same pipelines, new levels), so both ways of making one are checked.
    let (l0, u0) = ranges[0];
    let base = Histogram::new(ctx, &HistogramConfig::new(1, l0, u0)).unwrap();
    for &bins in &[1u32, 2, 7, 256, 1000, 4096] {
        for &(lower, upper) in ranges {
            let h = if bins == 1 {
                Histogram::new(ctx, &HistogramConfig::new(bins, lower, upper)).unwrap()
            } else {
                base.with_range(bins, lower, upper).unwrap()
            };
            for n in sizes() {
                let mut r = fastrand::Rng::with_seed(u64::from(bins) * 1000 + n as u64);
                let xs: Vec<T> = (0..n).map(|_| draw(&mut r)).collect();
                let buf = ctx.storage_from("samples", &xs).unwrap();
                let b = h.bind(ctx, &buf, n as u64).unwrap();
                run(ctx, |e| b.record(e));
                let got = b.read(ctx).unwrap();
                let want = reference::histogram(&xs, bins, lower, upper);
                assert_eq!(
                    got,
                    want,
                    "{}: {bins} bins over [{lower:?}, {upper:?}), n={n}",
                    on(ctx)
                );
                let total: u64 = got.bins.iter().map(|&c| u64::from(c)).sum::<u64>()
                    + u64::from(got.below + got.above + got.nan);
                assert_eq!(total, n as u64, "every sample counted once");
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn u32_samples() {
    check(
        |r| if r.bool() { r.u32(..1000) } else { r.u32(..) },
        &[(0, 1000), (100, 900), (0, u32::MAX), (7, 8)],
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn i32_samples() {
    check(
        |r| {
            if r.bool() {
                r.i32(-600..600)
            } else {
                r.i32(..)
            }
        },
        &[(-500, 500), (i32::MIN, i32::MAX), (0, 3)],
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn f32_samples_with_nan_and_infinities() {
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        1.0,
        -1.0,
    ];
    check(
        move |r| match r.u32(..8) {
            0 => specials[r.usize(..specials.len())],
            1 => f32::from_bits(r.u32(..)),
            _ => r.f32() * 3.0 - 1.0,
        },
        &[(0.0, 1.0), (-1.0, 2.0), (-1e-3, 1e-3)],
    );
    // Ranges whose width overflows f32 (issue 32: x − lower overflowed to infinity), with
    // samples across them.
    check(
        |r| (r.f32() * 2.0 - 1.0) * 3.4e38,
        &[(-3e38, 3e38), (-f32::MAX, f32::MAX)],
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bad_levels_and_bins_are_errors() {
    let ctx = gpu();
    for bins in [0, 4097] {
        let e = Histogram::new(ctx, &HistogramConfig::new(bins, 0u32, 10)).unwrap_err();
        assert!(e.to_string().contains("1 to 4096"), "{e}");
    }
    assert!(Histogram::new(ctx, &HistogramConfig::new(4, 5u32, 5)).is_err());
    assert!(Histogram::new(ctx, &HistogramConfig::new(4, 3i32, -3)).is_err());
    assert!(Histogram::new(ctx, &HistogramConfig::new(4, 0.0f32, f32::NAN)).is_err());
    assert!(Histogram::new(ctx, &HistogramConfig::new(4, f32::NEG_INFINITY, 0.0)).is_err());
    let h = Histogram::new(ctx, &HistogramConfig::new(4, 0u32, 10)).unwrap();
    let e = h.with_range(4, 0.0f32, 1.0).unwrap_err();
    assert!(e.to_string().contains("built for U32"), "{e}");
    assert!(h.with_range(0, 0u32, 10).is_err());
    assert!(h.with_range(4, 10u32, 10).is_err());
    let c = histogram_slice(ctx, &[1u32, 2, 3], 3, 1, 4).unwrap();
    assert_eq!(c.bins, [1, 1, 1]);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn integer_samples_at_every_bin_edge() {
    // The first sample of every bin and the last of the one before: where an estimate of the
    // quotient is most likely off by one.
    let ctx = gpu();
    for (bins, lower, upper) in [
        (4096u32, 0u32, u32::MAX),
        (7, 3, 1_000_003),
        (1000, 5, 4_000_000_007),
    ] {
        let range = u64::from(upper - lower);
        let mut xs = Vec::new();
        for k in 1..u64::from(bins) {
            let edge = u64::from(lower) + (k * range).div_ceil(u64::from(bins));
            xs.push(edge as u32);
            xs.push(edge as u32 - 1);
        }
        let h = Histogram::new(ctx, &HistogramConfig::new(bins, lower, upper)).unwrap();
        let buf = ctx.storage_from("samples", &xs).unwrap();
        let b = h.bind(ctx, &buf, xs.len() as u64).unwrap();
        run(ctx, |e| b.record(e));
        let got = b.read(ctx).unwrap();
        let want = reference::histogram(&xs, bins, lower, upper);
        assert_eq!(
            got,
            want,
            "{}: {bins} bins over [{lower}, {upper})",
            on(ctx)
        );
        assert!(
            want.bins.iter().all(|&c| c >= 1),
            "every bin has an edge sample"
        );
    }
}
