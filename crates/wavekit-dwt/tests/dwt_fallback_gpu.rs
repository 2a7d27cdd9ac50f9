//! The fused schedule's fallback, forced: with fault injection the workgroup that owns every
//! K-th tile never flags it done, so the tiles that read it can only go on by computing it
//! themselves. One test function, since the switch is process-wide (an environment variable
//! read when kernels are compiled).

use wavekit::GpuContext;
use wavekit_dwt::{Dwt, TileShape, Wavelet, reference};

#[test]
fn results_are_right_when_tiles_never_flag_themselves_done() {
    let ctx = match GpuContext::from_env() {
        Ok(ctx) => ctx,
        Err(e) => {
            assert!(
                std::env::var("WAVEKIT_REQUIRE_GPU").map_or(true, |v| v != "1"),
                "WAVEKIT_REQUIRE_GPU=1 but {e}"
            );
            eprintln!("GPU tests skipped: {e}");
            return;
        }
    };
    let mut rng = fastrand::Rng::with_seed(404);
    // Small tiles, so that each level has many and each tile reads several.
    let tile = TileShape {
        columns: 12,
        rows: 2,
        segments: 2,
    };
    for fault in [1u32, 2, 7] {
        // SAFETY: this binary's only test sets it before each plan's kernels are compiled.
        unsafe { std::env::set_var(wavekit_dwt::FAULT_ENV, fault.to_string()) };
        for (w, h, planes, levels) in [(37, 29, 2, 3), (64, 17, 1, 4), (23, 61, 3, 5)] {
            let n = (w * h * planes) as usize;
            for wavelet in [Wavelet::Reversible53, Wavelet::Irreversible97] {
                let dwt = Dwt::with_shape(&ctx, wavelet, w, h, levels, planes, tile)
                    .unwrap()
                    .with_fused(true);
                let x: Vec<i32> = (0..n).map(|_| rng.i32(-512..512)).collect();
                let image = match wavelet {
                    Wavelet::Reversible53 => ctx.storage_from("image", &x).unwrap(),
                    Wavelet::Irreversible97 => {
                        let f: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                        ctx.storage_from("image", &f).unwrap()
                    }
                };
                let coeffs = ctx.storage_poisoned("coeffs", n).unwrap();
                let bound = dwt.bind_separate(&ctx, &image, &coeffs).unwrap();
                let case = format!("fault {fault} {wavelet:?} {w}x{h}x{planes} levels {levels}");
                ctx.submit(|e| bound.record_forward(e));
                let forward_takeovers = bound.takeovers(&ctx).unwrap();
                ctx.queue
                    .write_buffer(&image, 0, bytemuck::cast_slice(&vec![u32::MAX; n]));
                ctx.submit(|e| bound.record_inverse(e));
                let inverse_takeovers = bound.takeovers(&ctx).unwrap() - forward_takeovers;
                if fault == 1 {
                    // No owner flags its tile: every tile past the first level waits in vain.
                    assert!(forward_takeovers > 0, "{case}: no takeover forward");
                    assert!(inverse_takeovers > 0, "{case}: no takeover inverse");
                }
                match wavelet {
                    Wavelet::Reversible53 => {
                        let c: Vec<i32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
                        let mut want = x.clone();
                        for p in want.chunks_mut((w * h) as usize) {
                            reference::forward_2d_53(p, w as usize, h as usize, levels);
                        }
                        assert_eq!(c, want, "{case}");
                        let back: Vec<i32> = ctx.read_back("image", &image, n).unwrap();
                        assert_eq!(back, x, "{case}: round trip");
                    }
                    Wavelet::Irreversible97 => {
                        let c: Vec<f32> = ctx.read_back("coeffs", &coeffs, n).unwrap();
                        let mut want: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
                        for p in want.chunks_mut((w * h) as usize) {
                            reference::forward_2d_97(p, w as usize, h as usize, levels);
                        }
                        let top = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                        for (i, (g, r)) in c.iter().zip(&want).enumerate() {
                            assert!(
                                (f64::from(*g) - r).abs() <= 1e-5 * top,
                                "{case}: coefficient {i}: {g} against {r}"
                            );
                        }
                        let back: Vec<f32> = ctx.read_back("image", &image, n).unwrap();
                        for (i, (b, a)) in back.iter().zip(&x).enumerate() {
                            assert!(
                                (f64::from(*b) - f64::from(*a)).abs() <= 1e-4 * 512.0,
                                "{case}: sample {i}: {b} against {a}"
                            );
                        }
                    }
                }
            }
        }
    }
}
