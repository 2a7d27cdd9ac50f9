//! The transform on the GPU against the reference: 5/3 bit for bit and round trips exact, 9/7
//! within a stated tolerance of the f64 reference, every level count, odd and degenerate sizes,
//! several planes in one dispatch, the fused colour transforms.
//!
//! Named `dwt.rs`, not `*_gpu.rs`: the level kernel uses no subgroup operation (workgroup memory
//! and registers only, ADR-0019), so its code is the same at every subgroup width and without
//! subgroups (its unit test validates every variant without the subgroup capability, so that
//! stays true), and CI runs it once, at the first lavapipe width (ADR-0066).

use wavekit::GpuContext;
use wavekit_dwt::{Dwt, DwtError, TileShape, Wavelet, max_levels, reference};
use wavekit_harness::gpu;

/// Sizes 1 to 140 in each axis, sampled: the small ones all, then primes and powers of two
/// around the workgroup.
/// The reference's 5/3 forward of every `w × h` plane of `x` (planes one after another).
fn reference_53(x: &[i32], (w, h, levels): (u32, u32, u32)) -> Vec<i32> {
    let mut want = x.to_vec();
    for p in want.chunks_mut((w * h) as usize) {
        reference::forward_2d_53(p, w as usize, h as usize, levels);
    }
    want
}

/// The reference's 9/7 forward (f64) of every `w × h` plane of `x`.
fn reference_97<T: Copy + Into<f64>>(x: &[T], (w, h, levels): (u32, u32, u32)) -> Vec<f64> {
    let mut want: Vec<f64> = x.iter().map(|&v| v.into()).collect();
    for p in want.chunks_mut((w * h) as usize) {
        reference::forward_2d_97(p, w as usize, h as usize, levels);
    }
    want
}

fn sizes() -> Vec<u32> {
    let mut s: Vec<u32> = (1..=9).collect();
    s.extend([16, 17, 31, 32, 33, 64, 127, 128, 129, 140]);
    s
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn five_three_matches_the_reference_bit_for_bit_and_round_trips() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(53);
    let all = sizes();
    // One plan compiled, resized for every case.
    let base = Dwt::new(ctx, Wavelet::Reversible53, 1, 1, 0, 1).unwrap();
    for (i, &w) in all.iter().enumerate() {
        // Every width against a few heights (and every height against a few widths).
        for &h in [
            all[(i * 7 + 3) % all.len()],
            all[(i * 3 + 1) % all.len()],
            1,
            140,
        ]
        .iter()
        {
            let most = max_levels(w as usize, h as usize);
            // No level, one, and the most (every count between: levels_in_two_tile_shapes and
            // the fixed-point 9/7 test; CI time).
            let mut counts = vec![0, 1.min(most), most];
            counts.dedup();
            for levels in counts {
                let planes = if (w + h) % 3 == 0 { 3 } else { 1 };
                // 8- and 16-bit samples, level-shifted as JPEG 2000 does.
                let bits = if rng.bool() { 8 } else { 16 };
                let n = (w * h * planes) as usize;
                let x: Vec<i32> = (0..n)
                    .map(|_| rng.i32(0..1 << bits) - (1 << (bits - 1)))
                    .collect();
                let dwt = base.resized(ctx, w, h, levels, planes).unwrap();
                let got = dwt.forward_i32(ctx, &x).unwrap();
                let want = reference_53(&x, (w, h, levels));
                assert_eq!(got, want, "{w}x{h} levels {levels} planes {planes}");
                assert_eq!(
                    dwt.inverse_i32(ctx, &got).unwrap(),
                    x,
                    "round trip {w}x{h} levels {levels}"
                );
            }
        }
    }
}

/// 9/7 coefficients within 1e-5 of the f64 reference relative to its largest coefficient (NaN,
/// the poison, fails too).
fn check_97_coefficients(got: &[f32], want: &[f64], case: &str) {
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (g, r)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(*g) - r).abs() <= 1e-5 * scale,
            "{case}: coefficient {i}: {g} against {r}"
        );
    }
}

/// 9/7: coefficients within 1e-5 of the f64 reference relative to its largest coefficient
/// (f32 lifting over several levels; NaN, the poison, fails too), and the round trip within
/// 1e-4 of the input's range (±128).
fn check_97(got: &[f32], want: &[f64], back: &[f32], x: &[f32], case: &str) {
    check_97_coefficients(got, want, case);
    for (i, (b, a)) in back.iter().zip(x).enumerate() {
        assert!(
            (b - a).abs() <= 1e-4 * 128.0,
            "{case}: round trip sample {i}: {b} against {a}"
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn nine_seven_within_tolerance_of_the_f64_reference() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(97);
    let base = Dwt::new(ctx, Wavelet::Irreversible97, 1, 1, 0, 1).unwrap();
    for (w, h) in [
        (1, 1),
        (1, 17),
        (17, 1),
        (2, 3),
        (7, 5),
        (33, 31),
        (64, 64),
        (129, 40),
        (140, 140),
    ] {
        let most = max_levels(w as usize, h as usize);
        for levels in [1.min(most), most] {
            let x: Vec<f32> = (0..w * h).map(|_| rng.f32() * 255.0 - 128.0).collect();
            let dwt = base.resized(ctx, w, h, levels, 1).unwrap();
            let got = dwt.forward_f32(ctx, &x).unwrap();
            let mut want: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            reference::forward_2d_97(&mut want, w as usize, h as usize, levels);
            let back = dwt.inverse_f32(ctx, &got).unwrap();
            check_97(&got, &want, &back, &x, &format!("{w}x{h} levels {levels}"));
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bad_plans_are_errors() {
    let ctx = gpu();
    let e = Dwt::new(ctx, Wavelet::Reversible53, 0, 4, 1, 1).unwrap_err();
    assert!(matches!(e, DwtError::InvalidArgument(_)), "{e}");
    let e = Dwt::new(ctx, Wavelet::Reversible53, 4, 4, 3, 1).unwrap_err();
    assert!(e.to_string().contains("at most 2"), "{e}");
    let dwt = Dwt::new(ctx, Wavelet::Reversible53, 4, 4, 2, 1).unwrap();
    assert!(dwt.forward_i32(ctx, &[1, 2, 3]).is_err());
    assert!(dwt.forward_f32(ctx, &[0.0; 16]).is_err());
    assert!(
        dwt.transform_with(ctx, &[0.0f32; 16], false, |_| ())
            .is_err()
    );
}

/// `transform_with` hands over, in place, what the one-call forms return: both wavelets, both
/// directions, several planes of an odd size.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn transform_with_hands_over_what_the_one_call_forms_return() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(4707);
    let (w, h, levels, planes) = (37, 23, 3, 2);
    let n = (w * h * planes) as usize;
    let d53 = Dwt::new(ctx, Wavelet::Reversible53, w, h, levels, planes).unwrap();
    let x: Vec<i32> = (0..n).map(|_| rng.i32(-255..=255)).collect();
    for inverse in [false, true] {
        let want = if inverse {
            d53.inverse_i32(ctx, &x).unwrap()
        } else {
            d53.forward_i32(ctx, &x).unwrap()
        };
        let got = d53
            .transform_with(ctx, &x, inverse, <[i32]>::to_vec)
            .unwrap();
        assert_eq!(got, want, "5/3 inverse {inverse}");
    }
    let d97 = Dwt::new(ctx, Wavelet::Irreversible97, w, h, levels, planes).unwrap();
    let y: Vec<f32> = (0..n).map(|_| rng.f32() * 255.0).collect();
    for inverse in [false, true] {
        let want = if inverse {
            d97.inverse_f32(ctx, &y).unwrap()
        } else {
            d97.forward_f32(ctx, &y).unwrap()
        };
        let got = d97
            .transform_with(ctx, &y, inverse, <[f32]>::to_vec)
            .unwrap();
        assert!(got == want, "9/7 inverse {inverse}: the same bits");
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_last_inverse_pass_writes_8_bit_samples() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(8);
    let base53 = Dwt::new(ctx, Wavelet::Reversible53, 1, 1, 0, 1).unwrap();
    let base97 = Dwt::new(ctx, Wavelet::Irreversible97, 1, 1, 0, 1).unwrap();
    for (w, h, planes) in [(1, 1, 1), (5, 1, 1), (1, 6, 3), (37, 21, 3), (64, 33, 1)] {
        for levels in 0..=max_levels(w as usize, h as usize).min(3) {
            let bytes: Vec<u8> = (0..w * h * planes).map(|_| rng.u8(..)).collect();
            let x: Vec<i32> = bytes.iter().map(|&b| i32::from(b) - 128).collect();
            let d = base53.resized(ctx, w, h, levels, planes).unwrap();
            let c = d.forward_i32(ctx, &x).unwrap();
            assert_eq!(
                d.inverse_i32_to_u8(ctx, &c).unwrap(),
                bytes,
                "5/3 {w}x{h}x{planes} levels {levels}"
            );
            let f: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let d = base97.resized(ctx, w, h, levels, planes).unwrap();
            let c = d.forward_f32(ctx, &f).unwrap();
            let got = d.inverse_f32_to_u8(ctx, &c).unwrap();
            for (i, (g, b)) in got.iter().zip(&bytes).enumerate() {
                // f32 round trip error is far below one half: rounding gives the sample back.
                assert_eq!(g, b, "9/7 {w}x{h}x{planes} levels {levels} sample {i}");
            }
        }
    }
    // Clamping: coefficients that decode outside 0..=255 are clamped, not wrapped.
    let d = Dwt::new(ctx, Wavelet::Reversible53, 4, 1, 0, 1).unwrap();
    assert_eq!(
        d.inverse_i32_to_u8(ctx, &[-500, -128, 127, 900]).unwrap(),
        [0, 0, 255, 255]
    );
}

fn shape(columns: u32, rows: u32, segments: u32) -> TileShape {
    TileShape {
        columns,
        rows,
        segments,
    }
}

/// Runs forward then inverse through `bind_separate` with the given tile, outputs poisoned
/// before each run; checks that the sources are left as they were. Returns the coefficients
/// and the rebuilt image.
fn separate<T: bytemuck::Pod + PartialEq + std::fmt::Debug>(
    ctx: &GpuContext,
    dwt: &Dwt,
    x: &[T],
    poison: T,
) -> (Vec<T>, Vec<T>) {
    let image = ctx.storage_from("test image", x).unwrap();
    let coeffs = ctx
        .storage_from("test coeffs", &vec![poison; x.len()])
        .unwrap();
    let bound = dwt.bind_separate(ctx, &image, &coeffs).unwrap();
    ctx.submit(|e| bound.record_forward(e));
    let c: Vec<T> = ctx.read_back("coeffs", &coeffs, x.len()).unwrap();
    let kept: Vec<T> = ctx.read_back("image", &image, x.len()).unwrap();
    assert_eq!(kept, x, "the forward changed its source");
    ctx.queue
        .write_buffer(&image, 0, bytemuck::cast_slice(&vec![poison; x.len()]));
    ctx.submit(|e| bound.record_inverse(e));
    let back: Vec<T> = ctx.read_back("image", &image, x.len()).unwrap();
    let kept: Vec<T> = ctx.read_back("coeffs", &coeffs, x.len()).unwrap();
    assert_eq!(kept, c, "the inverse changed its source");
    (c, back)
}

/// Forward and inverse of random planes through `separate`: 5/3 (samples ±32768) equal to the
/// reference and back exactly, 9/7 (±128) within `check_97`'s tolerances.
fn both_against_the_reference(
    ctx: &GpuContext,
    (d53, d97): (&Dwt, &Dwt),
    (w, h, planes, levels): (u32, u32, u32, u32),
    rng: &mut fastrand::Rng,
    case: &str,
) {
    let n = (w * h * planes) as usize;
    let x: Vec<i32> = (0..n).map(|_| rng.i32(-32768..32768)).collect();
    let (c, back) = separate(ctx, d53, &x, i32::MIN + 7);
    assert_eq!(c, reference_53(&x, (w, h, levels)), "5/3 {case}");
    assert_eq!(back, x, "5/3 {case} round trip");

    let x: Vec<f32> = (0..n).map(|_| rng.f32() * 255.0 - 128.0).collect();
    let (c, back) = separate(ctx, d97, &x, f32::NAN);
    let want = reference_97(&x, (w, h, levels));
    check_97(&c, &want, &back, &x, &format!("9/7 {case}"));
}

/// Tile shapes from the smallest (9/7: tiles two samples wide and high, an apron wider than the
/// tile, so every tile reads several neighbours) to the planned one, on sizes around them, both
/// wavelets, several planes; image and coefficients in separate buffers, poisoned outputs. Two
/// tests (the smallest tiles with the degenerate sizes and every level count, then the larger
/// ones), so that the test threads share the work (the one test took 137 s of lavapipe's first
/// width, beside 150 s of the others).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_smallest_tiles_give_the_reference_coefficients_through_separate_buffers() {
    any_tile_gives_the_reference_coefficients(&[shape(10, 2, 1), shape(10, 4, 3)], true, 19);
}

/// See [`the_smallest_tiles_give_the_reference_coefficients_through_separate_buffers`].
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn larger_tiles_give_the_reference_coefficients_through_separate_buffers() {
    any_tile_gives_the_reference_coefficients(
        &[shape(12, 2, 2), shape(16, 6, 2), shape(32, 8, 4)],
        false,
        23,
    );
}

/// Each of `tiles` against the reference (`first`: the degenerate sizes on them, and every
/// level count on the first).
fn any_tile_gives_the_reference_coefficients(tiles: &[TileShape], first: bool, seed: u64) {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(seed);
    for (t, &tile) in tiles.iter().enumerate() {
        // As if numbered from the first of all the shapes.
        let t = if first { t } else { t + 2 };
        let (tw, th) = tile.tile(Wavelet::Reversible53);
        let base53 = Dwt::with_shape(ctx, Wavelet::Reversible53, 1, 1, 0, 1, tile).unwrap();
        let base97 = Dwt::with_shape(ctx, Wavelet::Irreversible97, 1, 1, 0, 1, tile).unwrap();
        let sizes = [
            (1, 1),
            (1, 9),
            (9, 1),
            (2, 2),
            (3, 5),
            (17, 13),
            (tw + 1, th - 1),
        ];
        // The degenerate sizes on the first two tiles only (CI time).
        for &(w, h) in &sizes[if t < 2 { 0 } else { 4 }..] {
            let planes = rng.u32(1..=3);
            let most = max_levels(w as usize, h as usize);
            // Every level count on the first tile; the most levels on the others (CI time).
            let mut counts = if t == 0 {
                vec![0, 1.min(most), most]
            } else {
                vec![most]
            };
            // (Small images have few levels: each count once.)
            counts.dedup();
            for levels in counts {
                let d53 = base53.resized(ctx, w, h, levels, planes).unwrap();
                let d97 = base97.resized(ctx, w, h, levels, planes).unwrap();
                let case = format!("tile {tile:?} {w}x{h}x{planes} levels {levels}");
                both_against_the_reference(
                    ctx,
                    (&d53, &d97),
                    (w, h, planes, levels),
                    &mut rng,
                    &case,
                );
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn separate_buffers_must_differ_and_tiles_must_be_even() {
    let ctx = gpu();
    let d = Dwt::new(ctx, Wavelet::Reversible53, 8, 8, 1, 1).unwrap();
    let b = ctx.storage_from("b", &[0i32; 64]).unwrap();
    let e = d.bind_separate(ctx, &b, &b).unwrap_err();
    assert!(e.to_string().contains("two different buffers"), "{e}");
    let small = ctx.storage_from("small", &[0i32; 63]).unwrap();
    let e = d.bind_separate(ctx, &b, &small).unwrap_err();
    assert!(e.to_string().contains("needs 256"), "{e}");
    for bad in [
        shape(11, 4, 1),
        shape(8, 4, 1),
        shape(12, 3, 1),
        shape(12, 4, 0),
    ] {
        let e = Dwt::with_shape(ctx, Wavelet::Irreversible97, 8, 8, 1, 1, bad).unwrap_err();
        assert!(e.to_string().contains("must be even"), "{bad:?}: {e}");
    }
    let e = Dwt::with_shape(ctx, Wavelet::Reversible53, 8, 8, 1, 1, shape(64, 16, 64)).unwrap_err();
    assert!(e.to_string().contains("invocations"), "{e}");
    let e = Dwt::with_shape(ctx, Wavelet::Reversible53, 8, 8, 1, 1, shape(64, 512, 1)).unwrap_err();
    assert!(e.to_string().contains("workgroup memory"), "{e}");
}

/// Lines far longer than workgroup memory holds (the first version refused them): wide and
/// tall strips, several levels, against the reference.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn lines_longer_than_workgroup_memory() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(20001);
    let base = Dwt::new(ctx, Wavelet::Reversible53, 1, 1, 0, 1).unwrap();
    for (w, h) in [(20001, 3), (3, 20001)] {
        let x: Vec<i32> = (0..w * h).map(|_| rng.i32(-128..128)).collect();
        let d = base.resized(ctx, w, h, 4, 1).unwrap();
        let (c, back) = separate(ctx, &d, &x, i32::MIN + 7);
        let mut want = x.clone();
        reference::forward_2d_53(&mut want, w as usize, h as usize, 4);
        assert_eq!(c, want, "{w}x{h}");
        assert_eq!(back, x, "{w}x{h} round trip");
    }
}

/// 8-bit samples in and out through `bind_u8`: the forward reads the bytes level-shifted
/// (5/3 equal to the reference bit for bit, 9/7 within the tolerance above) and leaves them as
/// they were; the inverse writes them back exactly into a poisoned buffer, every byte of it
/// (sizes not a multiple of four included); several tile shapes, planes and level counts, no
/// levels too (a conversion each way).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn eight_bit_samples_in_and_out_through_separate_buffers() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(88);
    for (t, tile) in [shape(10, 2, 1), shape(128, 8, 2)].into_iter().enumerate() {
        let base53 = Dwt::with_shape(ctx, Wavelet::Reversible53, 1, 1, 0, 1, tile).unwrap();
        let base97 = Dwt::with_shape(ctx, Wavelet::Irreversible97, 1, 1, 0, 1, tile).unwrap();
        for (w, h, planes) in [(1, 1, 1), (3, 1, 2), (1, 7, 1), (13, 11, 3), (67, 29, 1)] {
            let most = max_levels(w as usize, h as usize);
            // Every level count on the first tile, the most on the second (CI time); each
            // count once (small images have few levels).
            let mut counts = if t == 0 {
                vec![0, 1.min(most), most]
            } else {
                vec![most]
            };
            counts.dedup();
            for levels in counts {
                let n = (w * h * planes) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| rng.u8(..)).collect();
                let case = format!("tile {tile:?} {w}x{h}x{planes} levels {levels}");
                for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
                    let base = if wavelet == Wavelet::Reversible53 {
                        &base53
                    } else {
                        &base97
                    };
                    let d = base.resized(ctx, w, h, levels, planes).unwrap();
                    check_u8(ctx, &d, wavelet, &bytes, (w, h, planes, levels), &case);
                }
            }
        }
    }
    let d = Dwt::new(ctx, Wavelet::Reversible53, 9, 9, 1, 1).unwrap();
    let small = ctx.storage_from("small", &[0u8; 80]).unwrap();
    let coeffs = ctx.storage_from("coeffs", &[0i32; 81]).unwrap();
    let e = d.bind_u8(ctx, &small, &coeffs).unwrap_err();
    assert!(e.to_string().contains("needs 84"), "{e}");
    let e = d.bind_u8(ctx, &coeffs, &coeffs).unwrap_err();
    assert!(e.to_string().contains("two different buffers"), "{e}");
    let bytes: Vec<u8> = (0..81).map(|_| rng.u8(..)).collect();
    let mut want: Vec<i32> = bytes.iter().map(|&b| i32::from(b) - 128).collect();
    reference::forward_2d_53(&mut want, 9, 9, 1);
    assert_eq!(d.forward_u8_to_i32(ctx, &bytes).unwrap(), want);
    assert!(d.forward_u8_to_f32(ctx, &bytes).is_err());
}

/// Forward from the 8-bit image `bytes` (level-shifted) through `bind_u8`, coefficients
/// against the reference, then the inverse back to bytes: every sample's byte written, the
/// padding bytes of the last word left alone, the source untouched by the forward.
fn check_u8(
    ctx: &GpuContext,
    d: &Dwt,
    wavelet: Wavelet,
    bytes: &[u8],
    size: (u32, u32, u32, u32),
    case: &str,
) {
    let (w, h, planes, levels) = size;
    let n = bytes.len();
    assert_eq!(n, (w * h * planes) as usize, "{case}: bytes for the image");
    let x: Vec<i32> = bytes.iter().map(|&b| i32::from(b) - 128).collect();
    let mut words = bytes.to_vec();
    words.resize(n.next_multiple_of(4), 0xa5);
    let image = ctx.storage_from("test 8-bit image", &words).unwrap();
    let coeffs = ctx.storage_poisoned("test coeffs", n).unwrap();
    let bound = d.bind_u8(ctx, &image, &coeffs).unwrap();
    ctx.submit(|e| bound.record_forward(e));
    let kept: Vec<u32> = ctx.read_back("image", &image, n.div_ceil(4)).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u32, u8>(&kept),
        &words[..],
        "{case}: the forward changed its source"
    );
    if wavelet == Wavelet::Reversible53 {
        let c: Vec<i32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
        assert_eq!(c, reference_53(&x, (w, h, levels)), "5/3 {case}");
    } else {
        let c: Vec<f32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
        let want = reference_97(&x, (w, h, levels));
        check_97_coefficients(&c, &want, &format!("9/7 {case}"));
    }
    // Poison the bytes the inverse writes (it writes them all, and no others).
    ctx.queue
        .write_buffer(&image, 0, &vec![0x5a; n.next_multiple_of(4)]);
    ctx.submit(|e| bound.record_inverse(e));
    let back: Vec<u32> = ctx.read_back("image", &image, n.div_ceil(4)).unwrap();
    let back: &[u8] = bytemuck::cast_slice(&back);
    let wrong = back[..n].iter().zip(bytes).position(|(g, b)| g != b);
    assert!(
        wrong.is_none(),
        "{wavelet:?} {case}: byte {wrong:?} wrong after the round trip"
    );
    // Bytes past the samples (the last word's) are left as they were.
    assert!(
        back[n..].iter().all(|&b| b == 0x5a),
        "{wavelet:?} {case}: padding changed"
    );
}

/// 8-bit images of many tiles in both axes, 5 levels and 8, with the plans
/// `Dwt::new` makes (at these sizes every level is small: the smaller tile shape) and with
/// the first two levels in the default shape.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn eight_bit_images_of_several_tiles_with_the_default_plan() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(89);
    // One plan a wavelet, resized for each case: its kernels compile once (CI time).
    let bases = [Wavelet::Reversible53, Wavelet::Irreversible97]
        .map(|wavelet| Dwt::new(ctx, wavelet, 1, 1, 0, 1).unwrap());
    for (w, h, planes, levels) in [(389u32, 261u32, 1u32, 5u32), (300, 259, 1, 8)] {
        assert!(levels <= max_levels(w as usize, h as usize));
        let bytes: Vec<u8> = (0..w * h * planes).map(|_| rng.u8(..)).collect();
        for (wavelet, base) in [Wavelet::Reversible53, Wavelet::Irreversible97]
            .into_iter()
            .zip(&bases)
        {
            let d = base.resized(ctx, w, h, levels, planes).unwrap();
            let mut plans = vec![(d, "default plan")];
            if let Some((small, _)) = plans[0].0.small_levels() {
                // Level 3's region and smaller in the small shape, levels 1 and 2 not.
                let level3 = u64::from(w.div_ceil(4) * h.div_ceil(4) * planes);
                let mixed = base
                    .resized(ctx, w, h, levels, planes)
                    .unwrap()
                    .with_small_levels(ctx, small, level3)
                    .unwrap();
                plans.push((mixed, "two levels large"));
            }
            for (plan, name) in &plans {
                let case = format!("{name} {w}x{h}x{planes} levels {levels}");
                check_u8(ctx, plan, wavelet, &bytes, (w, h, planes, levels), &case);
            }
        }
    }
}

/// Plans whose small levels use another tile shape (as `Dwt::new` makes them, ADR-0032): the
/// first levels in one shape, the rest in another, at every switch point, both wavelets,
/// several planes, through separate buffers with poisoned outputs.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn levels_in_two_tile_shapes_give_the_reference() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(32);
    let (w, h, planes, levels) = (61u32, 47u32, 2u32, 4u32);
    let (large, small) = (shape(16, 4, 2), shape(10, 2, 1));
    // One plan a wavelet, resized for each switch point: its kernels compile once (CI time).
    let b53 = Dwt::with_shape(ctx, Wavelet::Reversible53, w, h, levels, planes, large).unwrap();
    let b97 = Dwt::with_shape(ctx, Wavelet::Irreversible97, w, h, levels, planes, large).unwrap();
    // Regions of all planes: 5734, 1488, 384, 96 samples; switch before each level.
    for most in [0u64, 96, 384, 1488, 5734] {
        let plan = |wavelet| {
            let base = if wavelet == Wavelet::Reversible53 {
                &b53
            } else {
                &b97
            };
            base.resized(ctx, w, h, levels, planes)
                .unwrap()
                .with_small_levels(ctx, small, most)
                .unwrap()
        };
        let (d53, d97) = (plan(Wavelet::Reversible53), plan(Wavelet::Irreversible97));
        let case = format!("{large:?} then {small:?} up to {most} samples");
        both_against_the_reference(ctx, (&d53, &d97), (w, h, planes, levels), &mut rng, &case);
    }
    let bad = shape(11, 2, 1);
    let d = Dwt::new(ctx, Wavelet::Reversible53, w, h, 1, 1).unwrap();
    assert!(d.with_small_levels(ctx, bad, 100).is_err());
}

/// JPEG 2000's colour transforms fused into the first level, through separate buffers
/// (poisoned outputs, sources kept) and in place, on sizes around the tile, every level count
/// of a small plane and a few of larger ones, in the default plan and in the smallest tiles:
/// RCT with 5/3 equal to the reference (RCT, then each plane's 5/3) bit for bit and back to the
/// RGB planes exactly; ICT with 9/7 within 1e-5 of the f64 reference (ICT, then 9/7) relative to
/// its largest coefficient, and back within the ICT's own round-trip precision.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn colour_transforms_fused_into_the_first_level() {
    use wavekit_dwt::Color;
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(3);
    let r53 = Dwt::new(ctx, Wavelet::Reversible53, 16, 16, 1, 3).unwrap();
    let r97 = Dwt::new(ctx, Wavelet::Irreversible97, 16, 16, 1, 3).unwrap();
    let small53 =
        Dwt::with_shape(ctx, Wavelet::Reversible53, 16, 16, 1, 3, shape(8, 2, 2)).unwrap();
    // (A colour transform takes at least one level: a 1 × 1 plane has none.)
    for (w, h) in [(2, 1), (2, 3), (7, 5), (33, 17), (129, 40), (140, 141)] {
        let most = max_levels(w as usize, h as usize).max(1);
        for levels in [1, most] {
            let n = (w * h) as usize;
            for (i, base) in [&r53, &small53].into_iter().enumerate() {
                let dwt = base
                    .resized(ctx, w, h, levels, 3)
                    .unwrap()
                    .with_color(Color::Rct)
                    .unwrap();
                let x: Vec<i32> = (0..3 * n).map(|_| rng.i32(-128..128)).collect();
                let mut want = x.clone();
                reference::rct_forward(&mut want, n);
                let want = reference_53(&want, (w, h, levels));
                let (c, back) = separate(ctx, &dwt, &x, i32::MIN + 7);
                let case = format!("RCT {w}x{h} levels {levels} plan {i}");
                assert_eq!(c, want, "{case}");
                assert_eq!(back, x, "{case}: round trip");
                // In place: the same coefficients, and back.
                let buf = ctx.storage_from("in place", &x).unwrap();
                let b = dwt.bind(ctx, &buf).unwrap();
                ctx.submit(|e| b.record_forward(e));
                assert_eq!(
                    ctx.read_back::<i32>("c", &buf, 3 * n).unwrap(),
                    want,
                    "{case} in place"
                );
                ctx.submit(|e| b.record_inverse(e));
                assert_eq!(
                    ctx.read_back::<i32>("x", &buf, 3 * n).unwrap(),
                    x,
                    "{case} in place back"
                );
            }
            let dwt = r97
                .resized(ctx, w, h, levels, 3)
                .unwrap()
                .with_color(Color::Ict)
                .unwrap();
            let x: Vec<f32> = (0..3 * n).map(|_| rng.f32() * 255.0 - 128.0).collect();
            let mut want: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            reference::ict_forward(&mut want, n);
            let want = reference_97(&want, (w, h, levels));
            let (c, back) = separate(ctx, &dwt, &x, f32::NAN);
            let case = format!("ICT {w}x{h} levels {levels}");
            check_97_coefficients(&c, &want, &case);
            // The reference's own round trip through T.800's inverse ICT.
            let mut rt: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            reference::ict_forward(&mut rt, n);
            reference::ict_inverse(&mut rt, n);
            for (i, ((g, r), a)) in back.iter().zip(&rt).zip(&x).enumerate() {
                assert!(
                    (f64::from(*g) - r).abs() <= 1e-4 * 128.0,
                    "{case}: sample {i}: {g} against the reference's {r} (input {a})"
                );
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn colour_transforms_are_refused_where_they_cannot_apply() {
    use wavekit_dwt::Color;
    let ctx = gpu();
    let d53 = Dwt::new(ctx, Wavelet::Reversible53, 16, 16, 2, 3).unwrap();
    let e = d53
        .resized(ctx, 16, 16, 2, 3)
        .unwrap()
        .with_color(Color::Ict)
        .unwrap_err();
    assert!(e.to_string().contains("pairs RCT with the 5/3"), "{e}");
    let e = d53
        .resized(ctx, 16, 16, 2, 1)
        .unwrap()
        .with_color(Color::Rct)
        .unwrap_err();
    assert!(e.to_string().contains("three planes"), "{e}");
    let e = d53
        .resized(ctx, 16, 16, 0, 3)
        .unwrap()
        .with_color(Color::Rct)
        .unwrap_err();
    assert!(e.to_string().contains("at least one level"), "{e}");
    let rct = d53.with_color(Color::Rct).unwrap();
    assert_eq!(rct.color(), Color::Rct);
    // Resizing keeps the colour transform only where it still applies.
    assert!(rct.resized(ctx, 8, 8, 1, 1).is_err());
    let image = ctx.storage_uninit("image8", 16 * 16 * 3).unwrap();
    let coeffs = ctx.storage_uninit("coeffs", 16 * 16 * 3 * 4).unwrap();
    let e = rct.bind_u8(ctx, &image, &coeffs).unwrap_err();
    assert!(
        e.to_string()
            .contains("8-bit bindings take no colour transform"),
        "{e}"
    );
}

/// The fixed-point 9/7 on the GPU equals its CPU port (`sim`) bit for bit, forward and inverse,
/// on sizes around the tile, every level count of small planes and 5 of larger ones, several
/// planes in one dispatch, in the default plan and in plans that mix two tile shapes: what the
/// codec needs for its GPU and CPU bitstreams to be equal.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn fixed_nine_seven_equals_the_cpu_port_bit_for_bit() {
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(97);
    let port = |x: &[i32], (w, h, levels): (u32, u32, u32), inverse: bool| {
        let mut out = x.to_vec();
        for p in out.chunks_mut((w * h) as usize) {
            let f = if inverse {
                wavekit_dwt::sim::inverse_2d
            } else {
                wavekit_dwt::sim::forward_2d
            };
            f(
                Wavelet::Fixed97,
                wavekit_dwt::SHAPES[0],
                p,
                w as usize,
                h as usize,
                levels,
            );
        }
        out
    };
    let cases = [
        (1u32, 1u32, 1u32),
        (2, 3, 1),
        (9, 16, 3),
        (33, 17, 2),
        (140, 127, 3),
    ];
    // One plan of each kind, resized for every case: its kernels compile once (CI time).
    let base = Dwt::new(ctx, Wavelet::Fixed97, 1, 1, 0, 1).unwrap();
    let base_two = Dwt::with_shape(ctx, Wavelet::Fixed97, 1, 1, 0, 1, shape(16, 4, 2)).unwrap();
    for (w, h, planes) in cases {
        let most = max_levels(w as usize, h as usize);
        // No levels, one, and the most (two and up take the same lifting steps; CI time).
        let mut levels: Vec<u32> = if w * h < 4096 {
            vec![0, 1.min(most), most]
        } else {
            vec![most.min(5)]
        };
        levels.dedup();
        for levels in levels {
            // Pixels with 5 fractional bits, as the codec feeds them, and a few extremes.
            let mut x: Vec<i32> = (0..w * h * planes).map(|_| rng.i32(-4096..4096)).collect();
            if x.len() > 4 {
                x[0] = 65535;
                x[3] = -65536;
            }
            let mut plans = vec![base.resized(ctx, w, h, levels, planes).unwrap()];
            if levels > 1 {
                plans.push(
                    base_two
                        .resized(ctx, w, h, levels, planes)
                        .unwrap()
                        .with_small_levels(ctx, shape(10, 2, 1), u64::from(w * h * planes / 8))
                        .unwrap(),
                );
            }
            let want = port(&x, (w, h, levels), false);
            let back_want = port(&want, (w, h, levels), true);
            for (k, d) in plans.iter().enumerate() {
                let case = format!("{w}x{h}x{planes} levels {levels} plan {k}");
                let got = d.forward_i32(ctx, &x).unwrap();
                assert_eq!(got, want, "{case}: forward");
                let back = d.inverse_i32(ctx, &got).unwrap();
                assert_eq!(back, back_want, "{case}: inverse");
                let worst = back.iter().zip(&x).map(|(a, b)| (a - b).abs()).max();
                assert!(
                    worst.unwrap_or(0) <= 64,
                    "{case}: round trip off by {worst:?}"
                );
            }
        }
    }
}

/// A joint transform on 8-bit images (`bind_bytes`): each image's planes at odd bytes with
/// gaps between them; the forward reads `(byte − 128) << fraction bits` and gives the
/// coefficients the plans give on those samples; the inverse writes each sample rounded at its
/// fraction bits, plus 128, clamped, and leaves every other byte as it was. Bad layouts refused.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn joint_transforms_of_bytes_equal_the_plans_on_samples() {
    use wavekit_dwt::{BytePlanes, JointDwt, MAX_FRACTION_BITS};
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(107);
    const POISON: i32 = i32::MIN + 13;
    const KEEP: u8 = 0xa5;
    // (first w, h, planes; second; levels; the 5/3 (else the fixed-point 9/7); fraction bits)
    let cases = [
        (
            (33u32, 30u32, 1u32),
            (17u32, 15u32, 2u32),
            3u32,
            false,
            5u32,
        ),
        ((37, 21, 1), (37, 21, 2), 2, false, 5),
        ((64, 64, 1), (32, 32, 2), 5, false, 3),
        ((41, 23, 1), (21, 12, 2), 3, true, 0),
        ((29, 18, 2), (15, 9, 1), 1, false, 0),
    ];
    // A short sweep (the later lavapipe widths, ADR-0101): the first case with its buffers in
    // the pipelines and the 5/3's with them at run time.
    let short = wavekit_harness::short_sweep();
    for (i, ((w, h, pa), (cw, ch, pb), levels, is_53, frac)) in cases.into_iter().enumerate() {
        if short && i != 0 && i != 3 {
            continue;
        }
        let wavelet = if is_53 {
            Wavelet::Reversible53
        } else {
            Wavelet::Fixed97
        };
        let plan = |w, h, planes| {
            Dwt::new(ctx, wavelet, w, h, levels, planes)
                .unwrap()
                .with_fraction_bits(frac)
                .unwrap()
        };
        let (a, b) = (plan(w, h, pa), plan(cw, ch, pb));
        let b_offset = w * h * pa + 7;
        // The bytes: the first image from byte 3, its planes 5 bytes apart; the second 2 bytes
        // after it, its planes 1 byte apart.
        let la = BytePlanes {
            first: 3,
            stride: w * h + 5,
        };
        let lb = BytePlanes {
            first: la.first + la.stride * pa + 2,
            stride: cw * ch + 1,
        };
        let total = (lb.first + lb.stride * pb) as usize + 3;
        let samples = |l: BytePlanes, (w, h, planes): (u32, u32, u32)| -> Vec<usize> {
            (0..planes)
                .flat_map(|p| (0..w * h).map(move |i| (l.first + p * l.stride + i) as usize))
                .collect()
        };
        let (at_a, at_b) = (samples(la, (w, h, pa)), samples(lb, (cw, ch, pb)));
        for sels in [false, true] {
            if short && sels != (i == 3) {
                continue;
            }
            let case = format!(
                "{w}x{h}x{pa} and {cw}x{ch}x{pb}, {levels} levels, 5/3 {is_53}, {frac} fraction \
                 bits, buffers at run time {sels}"
            );
            let joint = JointDwt::new(&a, &b, ctx, b_offset)
                .unwrap()
                .with_buffers_at_run_time(sels);
            let n = joint.len();
            let mut bytes: Vec<u8> = (0..total.next_multiple_of(4)).map(|_| rng.u8(..)).collect();
            let image = ctx.storage_from("joint bytes", &bytes).unwrap();
            let coeffs = ctx.storage_from("joint coeffs", &vec![POISON; n]).unwrap();
            let bound = joint.bind_bytes(ctx, &image, &coeffs, [la, lb]).unwrap();
            ctx.submit(|e| bound.record_forward(e));
            let c: Vec<i32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
            let kept: Vec<u8> = ctx.read_back("bytes", &image, bytes.len()).unwrap();
            assert_eq!(kept, bytes, "{case}: the forward changed its source");
            let fixed = |at: &[usize]| -> Vec<i32> {
                at.iter()
                    .map(|&i| (i32::from(bytes[i]) - 128) << frac)
                    .collect()
            };
            let want_a = a.forward_i32(ctx, &fixed(&at_a)).unwrap();
            let want_b = b.forward_i32(ctx, &fixed(&at_b)).unwrap();
            let a_len = want_a.len();
            assert_eq!(
                &c[..a_len],
                &want_a[..],
                "{case}: the first image's coefficients"
            );
            assert!(
                c[a_len..b_offset as usize].iter().all(|&v| v == POISON),
                "{case}: the gap was written"
            );
            assert_eq!(&c[b_offset as usize..], &want_b[..], "{case}: the second's");
            // The inverse, into bytes all KEEP: the images' samples written, the rest kept.
            bytes.fill(KEEP);
            ctx.queue.write_buffer(&image, 0, &bytes);
            ctx.submit(|e| bound.record_inverse(e));
            let back: Vec<u8> = ctx.read_back("bytes", &image, bytes.len()).unwrap();
            let to_byte = |x: i32| {
                let y = if frac > 0 {
                    (x + (1 << (frac - 1))) >> frac
                } else {
                    x
                };
                (y + 128).clamp(0, 255) as u8
            };
            let mut want = bytes.clone();
            for (at, plan, c) in [(&at_a, &a, &want_a), (&at_b, &b, &want_b)] {
                for (&i, x) in at.iter().zip(plan.inverse_i32(ctx, c).unwrap()) {
                    want[i] = to_byte(x);
                }
            }
            assert_eq!(back, want, "{case}: the bytes back");
            // A plan alone takes its fraction bits through its own 8-bit bindings too.
            let plane_bytes: Vec<u8> = at_a.iter().map(|&i| kept[i]).collect();
            assert_eq!(
                a.forward_u8_to_i32(ctx, &plane_bytes).unwrap(),
                want_a,
                "{case}: the first plan's forward from bytes"
            );
            let alone: Vec<u8> = a.inverse_i32_to_u8(ctx, &want_a).unwrap();
            let alone_want: Vec<u8> = at_a.iter().map(|&i| want[i]).collect();
            assert_eq!(
                alone, alone_want,
                "{case}: the first plan's inverse to bytes"
            );
        }
    }
    // Refused: fraction bits past the most, or with the float 9/7; plans of other fraction
    // bits joined; layouts that overlap, planes closer than their samples, bytes past the
    // buffer; no levels.
    let p = |wavelet, levels| Dwt::new(ctx, wavelet, 16, 16, levels, 1).unwrap();
    assert!(
        p(Wavelet::Fixed97, 2)
            .with_fraction_bits(MAX_FRACTION_BITS + 1)
            .is_err()
    );
    assert!(p(Wavelet::Irreversible97, 2).with_fraction_bits(1).is_err());
    let a = p(Wavelet::Fixed97, 2).with_fraction_bits(5).unwrap();
    let b = Dwt::new(ctx, Wavelet::Fixed97, 8, 8, 2, 2).unwrap();
    assert!(
        JointDwt::new(&a, &b, ctx, 256).is_err(),
        "other fraction bits"
    );
    let b = b.with_fraction_bits(5).unwrap();
    let joint = JointDwt::new(&a, &b, ctx, 256).unwrap();
    let bytes = ctx.storage_from("bytes", &[0u8; 512]).unwrap();
    let coeffs = ctx.storage_from("coeffs", &[0i32; 512]).unwrap();
    let at = |first, stride| BytePlanes { first, stride };
    for (layouts, why) in [
        ([at(0, 256), at(200, 64)], "overlapping images"),
        (
            [at(0, 256), at(256, 63)],
            "planes closer than their samples",
        ),
        ([at(0, 256), at(400, 64)], "past the buffer"),
    ] {
        assert!(
            matches!(
                joint.bind_bytes(ctx, &bytes, &coeffs, layouts),
                Err(DwtError::InvalidArgument(_))
            ),
            "{why}"
        );
    }
    assert!(
        joint
            .bind_bytes(ctx, &bytes, &coeffs, [at(0, 256), at(256, 64)])
            .is_ok()
    );
    let none = JointDwt::new(
        &p(Wavelet::Fixed97, 0).with_fraction_bits(5).unwrap(),
        &Dwt::new(ctx, Wavelet::Fixed97, 8, 8, 0, 2)
            .unwrap()
            .with_fraction_bits(5)
            .unwrap(),
        ctx,
        256,
    )
    .unwrap();
    assert!(
        none.bind_bytes(ctx, &bytes, &coeffs, [at(0, 256), at(256, 64)])
            .is_err()
    );
}

/// Two images in one joint transform (4:2:0's luma and chroma, delay 1; three planes of one
/// size, delay 0) against each plan run alone: the coefficients and the rebuilt images equal,
/// bit for bit (the same kernels' arithmetic), the gap between the images neither read nor
/// written, the sources left as they were; plans that cannot be joined are errors.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn joint_transforms_equal_the_plans_run_apart() {
    use wavekit_dwt::JointDwt;
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(105);
    const POISON: i32 = i32::MIN + 11;
    let a0 = Dwt::new(ctx, Wavelet::Fixed97, 1, 1, 0, 1).unwrap();
    let b0 = Dwt::new(ctx, Wavelet::Fixed97, 1, 1, 0, 2).unwrap();
    let five_three = Dwt::new(ctx, Wavelet::Reversible53, 1, 1, 0, 1).unwrap();
    // (first w, h, planes; second w, h, planes; levels, expected delay, the 5/3): odd sizes,
    // one level, the most, planes of one size, two planes first and one second, the 5/3.
    let cases = [
        ((17u32, 9u32, 1u32), (9u32, 5u32, 2u32), 1u32, 1u32, false),
        ((17, 9, 1), (4, 4, 2), 2, 2, false),
        ((33, 30, 1), (17, 15, 2), 3, 1, false),
        ((140, 127, 1), (70, 64, 2), 5, 1, false),
        ((64, 64, 1), (32, 32, 2), 5, 1, false),
        ((37, 21, 1), (37, 21, 2), 3, 0, false),
        ((5, 3, 1), (3, 2, 2), 2, 1, false),
        ((29, 18, 2), (15, 9, 1), 3, 1, false),
        ((41, 23, 1), (21, 12, 2), 3, 1, true),
    ];
    for ((w, h, pa), (cw, ch, pb), levels, delay, is_53) in cases {
        let (base_a, base_b) = if is_53 {
            (&five_three, &five_three)
        } else {
            (&a0, &b0)
        };
        let a = base_a.resized(ctx, w, h, levels, pa).unwrap();
        let b = base_b.resized(ctx, cw, ch, levels, pb).unwrap();
        // A gap of 7 samples between the images.
        let a_len = w * h * pa;
        let b_offset = a_len + 7;
        for sels in [false, true] {
            let joint = JointDwt::new(&a, &b, ctx, b_offset)
                .unwrap()
                .with_buffers_at_run_time(sels);
            let case = format!(
                "{w}x{h}x{pa} and {cw}x{ch}x{pb}, {levels} levels, 5/3 {is_53}, buffers at run time {sels}"
            );
            assert_eq!(joint.delay(), delay, "{case}");
            assert_eq!(joint.dispatches(), levels + delay, "{case}");
            let n = joint.len();
            let mut x: Vec<i32> = (0..n).map(|_| rng.i32(-4096..4096)).collect();
            x[a_len as usize..b_offset as usize].fill(POISON);
            let image = ctx.storage_from("joint image", &x).unwrap();
            let coeffs = ctx.storage_from("joint coeffs", &vec![POISON; n]).unwrap();
            let bound = joint.bind_separate(ctx, &image, &coeffs).unwrap();
            ctx.submit(|e| bound.record_forward(e));
            let c: Vec<i32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
            let kept: Vec<i32> = ctx.read_back("image", &image, n).unwrap();
            assert_eq!(kept, x, "{case}: the forward changed its source");
            // The joint buffer's two images against the plans' own results, the gap unwritten.
            let parts = |got: &[i32], want_a: &[i32], want_b: &[i32], what: &str| {
                assert_eq!(&got[..a_len as usize], want_a, "{case}: the first {what}");
                assert!(
                    got[a_len as usize..b_offset as usize]
                        .iter()
                        .all(|&v| v == POISON),
                    "{case}: the gap was written ({what})"
                );
                assert_eq!(
                    &got[b_offset as usize..],
                    want_b,
                    "{case}: the second {what}"
                );
            };
            let (xa, xb) = (&x[..a_len as usize], &x[b_offset as usize..]);
            let want_a = a.forward_i32(ctx, xa).unwrap();
            let want_b = b.forward_i32(ctx, xb).unwrap();
            parts(&c, &want_a, &want_b, "image's coefficients");
            // The inverse, into a poisoned image.
            ctx.queue
                .write_buffer(&image, 0, bytemuck::cast_slice(&vec![POISON; n]));
            ctx.submit(|e| bound.record_inverse(e));
            let back: Vec<i32> = ctx.read_back("image", &image, n).unwrap();
            let kept: Vec<i32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
            assert_eq!(kept, c, "{case}: the inverse changed its source");
            let back_a = a.inverse_i32(ctx, &want_a).unwrap();
            let back_b = b.inverse_i32(ctx, &want_b).unwrap();
            parts(&back, &back_a, &back_b, "image back");
        }
    }
    // What cannot be joined.
    let a = a0.resized(ctx, 16, 16, 2, 1).unwrap();
    let other = |w, h, levels| b0.resized(ctx, w, h, levels, 2).unwrap();
    // Regions that never meet: each step one image, as apart.
    let apart = JointDwt::new(&a, &other(5, 5, 2), ctx, 256).unwrap();
    assert_eq!((apart.delay(), apart.dispatches()), (2, 4));
    for (b, b_offset, why) in [
        (other(8, 8, 3), 256, "other level counts"),
        (other(8, 8, 2), 255, "overlapping images"),
    ] {
        assert!(
            matches!(
                JointDwt::new(&a, &b, ctx, b_offset),
                Err(DwtError::InvalidArgument(_))
            ),
            "{why}"
        );
    }
    // No levels: a copy each way.
    let no_levels = a0.resized(ctx, 16, 16, 0, 1).unwrap();
    let b = b0.resized(ctx, 8, 8, 0, 2).unwrap();
    let joint = JointDwt::new(&no_levels, &b, ctx, 256).unwrap();
    let x: Vec<i32> = (0..joint.len()).map(|_| rng.i32(-4096..4096)).collect();
    let image = ctx.storage_from("joint image", &x).unwrap();
    let coeffs = ctx
        .storage_from("joint coeffs", &vec![POISON; x.len()])
        .unwrap();
    let bound = joint.bind_separate(ctx, &image, &coeffs).unwrap();
    ctx.submit(|e| bound.record_forward(e));
    assert_eq!(
        ctx.read_back::<i32>("c", &coeffs, x.len()).unwrap(),
        x,
        "no levels forward"
    );
    ctx.queue
        .write_buffer(&image, 0, bytemuck::cast_slice(&vec![POISON; x.len()]));
    ctx.submit(|e| bound.record_inverse(e));
    assert_eq!(
        ctx.read_back::<i32>("i", &image, x.len()).unwrap(),
        x,
        "no levels inverse"
    );
    let a53 = Dwt::new(ctx, Wavelet::Reversible53, 16, 16, 2, 1).unwrap();
    assert!(
        JointDwt::new(&a53, &other(8, 8, 2), ctx, 256).is_err(),
        "two wavelets"
    );
}

/// Element `i` of 16-bit coefficients read back as words (the low half for even `i`).
fn half(words: &[u32], i: usize) -> i32 {
    let w = words[i / 2];
    i32::from(
        (if i.is_multiple_of(2) {
            w & 0xffff
        } else {
            w >> 16
        }) as u16 as i16,
    )
}

/// 16-bit coefficients (`JointDwt::with_16_bit_coefficients`) against the same transform's
/// 32-bit ones: every stored coefficient equals the 32-bit one saturated, the gap between the
/// images unwritten; the inverse of the 16-bit words equals the 32-bit inverse of the same
/// values; what cannot take 16 bits is refused with its reason.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn joint_transforms_with_16_bit_coefficients_equal_the_32_bit_ones() {
    use wavekit_dwt::JointDwt;
    let ctx = gpu();
    let mut rng = fastrand::Rng::with_seed(108);
    const POISON: u32 = 0x8badf00d;
    let fixed = Dwt::new(ctx, Wavelet::Fixed97, 1, 1, 0, 1).unwrap();
    let five_three = Dwt::new(ctx, Wavelet::Reversible53, 1, 1, 0, 1).unwrap();
    // (first w, h, planes; second w, h, planes; levels, the 5/3, sample range): widths that
    // halve evenly at every level, odd heights, one tile and several (a tile is 120 columns),
    // 4:2:0-like pairs and planes of one size; samples as the codec's (8-bit, 5 fraction bits)
    // and, for the 5/3, as a lossless frame's; the last case's samples are too large for 16
    // bits, so the stored coefficients are the 32-bit ones saturated.
    let cases = [
        (
            (128u32, 41u32, 1u32),
            (64u32, 21u32, 2u32),
            5u32,
            false,
            4096i32,
        ),
        ((256, 17, 1), (128, 9, 2), 5, false, 4096),
        ((384, 20, 1), (384, 20, 2), 4, false, 4096),
        ((24, 7, 1), (12, 4, 2), 1, false, 4096),
        ((48, 17, 1), (48, 17, 2), 3, true, 256),
        ((128, 33, 1), (64, 17, 2), 5, false, 1 << 16),
    ];
    for ((w, h, pa), (cw, ch, pb), levels, is_53, range) in cases {
        let base = if is_53 { &five_three } else { &fixed };
        let a = base.resized(ctx, w, h, levels, pa).unwrap();
        let b = base.resized(ctx, cw, ch, levels, pb).unwrap();
        let a_len = (w * h * pa) as usize;
        // A gap of 6 samples (three words) between the images.
        let b_offset = a_len as u32 + 6;
        for sels in [false, true] {
            let case = format!(
                "{w}x{h}x{pa} and {cw}x{ch}x{pb}, {levels} levels, 5/3 {is_53}, range {range}, \
                 buffers at run time {sels}"
            );
            let wide = JointDwt::new(&a, &b, ctx, b_offset)
                .unwrap()
                .with_buffers_at_run_time(sels);
            let narrow = JointDwt::new(&a, &b, ctx, b_offset)
                .unwrap()
                .with_buffers_at_run_time(sels)
                .with_16_bit_coefficients(true)
                .unwrap();
            assert!(narrow.has_16_bit_coefficients() && !wide.has_16_bit_coefficients());
            let n = wide.len();
            assert_eq!(
                narrow.coefficient_bytes(),
                (n as u64 * 2).next_multiple_of(4)
            );
            let x: Vec<i32> = (0..n).map(|_| rng.i32(-range..range)).collect();
            let image = ctx.storage_from("image", &x).unwrap();
            let c32 = ctx.storage_from("c32", &vec![0i32; n]).unwrap();
            let words = narrow.coefficient_bytes() as usize / 4;
            let c16 = ctx.storage_from("c16", &vec![POISON; words]).unwrap();
            let bw = wide.bind_separate(ctx, &image, &c32).unwrap();
            let bn = narrow.bind_separate(ctx, &image, &c16).unwrap();
            ctx.submit(|e| {
                bw.record_forward(e);
                bn.record_forward(e);
            });
            let want: Vec<i32> = ctx.read_back("c32", &c32, n).unwrap();
            let got: Vec<u32> = ctx.read_back("c16", &c16, words).unwrap();
            let mut saturated = 0;
            for i in (0..a_len).chain(b_offset as usize..n) {
                let w = want[i].clamp(-32768, 32767);
                saturated += usize::from(w != want[i]);
                assert_eq!(half(&got, i), w, "{case}: coefficient {i}");
            }
            assert_eq!(
                saturated > 0,
                range > 4096,
                "{case}: {saturated} coefficients saturated"
            );
            for (i, &word) in got
                .iter()
                .enumerate()
                .take(b_offset as usize / 2)
                .skip(a_len / 2)
            {
                assert_eq!(word, POISON, "{case}: the gap's word {i} was written");
            }
            // The inverse of the 16-bit coefficients equals the 32-bit inverse of the same
            // (saturated) values.
            let fits: Vec<i32> = want.iter().map(|v| (*v).clamp(-32768, 32767)).collect();
            ctx.queue.write_buffer(&c32, 0, bytemuck::cast_slice(&fits));
            let poison = vec![i32::MIN + 5; n];
            ctx.queue
                .write_buffer(&image, 0, bytemuck::cast_slice(&poison));
            ctx.submit(|e| bw.record_inverse(e));
            let back_wide: Vec<i32> = ctx.read_back("image", &image, n).unwrap();
            ctx.queue
                .write_buffer(&image, 0, bytemuck::cast_slice(&poison));
            ctx.submit(|e| bn.record_inverse(e));
            let back: Vec<i32> = ctx.read_back("image", &image, n).unwrap();
            assert_eq!(
                &back[..a_len],
                &back_wide[..a_len],
                "{case}: first image back"
            );
            assert_eq!(
                &back[b_offset as usize..],
                &back_wide[b_offset as usize..],
                "{case}: second image back"
            );
            let kept: Vec<u32> = ctx.read_back("c16", &c16, words).unwrap();
            assert_eq!(kept, got, "{case}: the inverse changed its coefficients");
        }
    }
    // What 16-bit coefficients refuse, each with its reason.
    let a = fixed.resized(ctx, 128, 16, 5, 1).unwrap();
    let b = fixed.resized(ctx, 64, 8, 5, 2).unwrap();
    let float = Dwt::new(ctx, Wavelet::Irreversible97, 128, 16, 5, 1).unwrap();
    let float_b = float.resized(ctx, 64, 8, 5, 2).unwrap();
    let refused = |j: Result<JointDwt, DwtError>, why: &str, says: &str| match j {
        Err(DwtError::InvalidArgument(m)) => assert!(m.contains(says), "{why}: {m}"),
        other => panic!("{why}: {other:?}"),
    };
    let c16 = |a: &Dwt, b: &Dwt, at: u32| {
        JointDwt::new(a, b, ctx, at)
            .unwrap()
            .with_16_bit_coefficients(true)
    };
    refused(
        c16(&float, &float_b, 4096),
        "a float wavelet",
        "integer wavelet",
    );
    refused(
        c16(&a, &fixed.resized(ctx, 96, 8, 5, 2).unwrap(), 4096),
        "a width not a multiple of 64",
        "multiples of 64",
    );
    refused(c16(&a, &b, 4097), "an odd second offset", "even element");
    refused(
        c16(
            &fixed.resized(ctx, 128, 16, 0, 1).unwrap(),
            &fixed.resized(ctx, 64, 8, 0, 2).unwrap(),
            4096,
        ),
        "no levels",
        "at least one level",
    );
    assert!(c16(&a, &b, 4096).is_ok());
}
