//! The GPU encoder against the CPU's: the same bytes, for frames of many sizes, both chroma
//! samplings, every level count of small frames and budgets from the smallest that holds the
//! block table to more than every plane needs. Named `*_gpu`: the block encoder's scans and
//! reductions use subgroup operations, so it runs at every lavapipe width and without
//! subgroups.

use wavekit_codec::Chroma;
use wavekit_codec::cpu::{EncodeConfig, encode};
use wavekit_codec::format::Layout;
use wavekit_codec::gpu::Encoder;
use wavekit_harness::gpu;

fn picture(w: u32, h: u32, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Vec::with_capacity((3 * w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let disc = ((fx - 0.6).powi(2) + (fy - 0.4).powi(2)) < 0.05;
            let stripes = ((x / 3 + y / 5) % 2) as f32 * 40.0 * f32::from(fx > 0.8);
            let n = rng.f32() * 12.0;
            let r = 60.0 + 150.0 * fx + stripes + n + if disc { 60.0 } else { 0.0 };
            let g = 40.0 + 120.0 * fy + n;
            let b = 200.0 - 100.0 * fx * fy + stripes - if disc { 90.0 } else { 0.0 };
            out.extend([r, g, b].map(|v| v.clamp(0.0, 255.0) as u8));
        }
    }
    out
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_encoder_writes_the_cpu_encoders_bytes() {
    let ctx = gpu();
    for (seed, (w, h, chroma, levels)) in (1u64..).zip([
        (2u32, 2u32, Chroma::Yuv420, 0u8),
        (1, 1, Chroma::Yuv444, 0),
        (33, 7, Chroma::Yuv444, 2),
        (64, 48, Chroma::Yuv420, 5),
        (130, 66, Chroma::Yuv420, 5),
        (45, 37, Chroma::Yuv444, 4),
    ]) {
        let mut rgb = picture(w, h, seed);
        if seed == 4 {
            // Noise: many planes, long codes.
            let mut rng = fastrand::Rng::with_seed(seed);
            rgb.iter_mut().for_each(|v| *v = rng.u8(..));
        }
        let hd = wavekit_codec::Header {
            width: w,
            height: h,
            chroma,
            levels: levels.min(8),
            step: 0.25,
        };
        let least = Layout::of(&wavekit_codec::Header {
            levels: levels.min(hd.max_levels()),
            ..hd
        });
        let least = least.overhead() + 2 * least.blocks.len();
        let px = (w * h) as usize;
        // One encoder, its budget changed from frame to frame.
        let mut enc: Option<Encoder> = None;
        for budget in [16 * px + 4096, least, least + px / 16, least + px / 2] {
            let config = EncodeConfig {
                chroma,
                levels,
                budget,
            };
            let (want, _) = encode(&rgb, w, h, &config).unwrap();
            let enc = match &mut enc {
                Some(e) => {
                    e.set_budget(ctx, budget).unwrap();
                    e
                }
                None => enc.insert(Encoder::new(ctx, w, h, &config).unwrap()),
            };
            let got = enc.encode(ctx, &rgb).unwrap();
            let case = format!("{w}x{h} {chroma:?} levels {levels} budget {budget}");
            if got != want {
                let first = got.iter().zip(&want).position(|(a, b)| a != b);
                panic!(
                    "{case}: {} bytes against the CPU's {}, first difference at {first:?}",
                    got.len(),
                    want.len()
                );
            }
            assert!(got.len() <= budget, "{case}");
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_encoder_refuses_budgets_below_its_table_and_wrong_input() {
    let ctx = gpu();
    let config = EncodeConfig {
        chroma: Chroma::Yuv420,
        levels: 3,
        budget: 10,
    };
    let e = Encoder::new(ctx, 64, 64, &config)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("too small"), "{e}");
    let config = EncodeConfig {
        budget: 4000,
        ..config
    };
    assert!(Encoder::new(ctx, 63, 64, &config).is_err());
    let mut enc = Encoder::new(ctx, 64, 64, &config).unwrap();
    let e = enc.encode(ctx, &[0u8; 5]).unwrap_err().to_string();
    assert!(e.contains("expected 12288"), "{e}");
    assert!(enc.set_budget(ctx, 10).is_err());
    assert_eq!(enc.budget(), 4000);
}
