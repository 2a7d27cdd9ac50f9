//! The GPU encoder against the CPU's: the same bytes, for frames of many sizes, both chroma
//! samplings, every level count of small frames and budgets from the smallest that holds the
//! block table to more than every plane needs. Named `*_gpu`: the block encoder's scans and
//! reductions use subgroup operations, so it runs at every lavapipe width and without
//! subgroups.

use wavekit_codec::Chroma;
use wavekit_codec::cpu::test_picture as picture;
use wavekit_codec::cpu::{EncodeConfig, encode};
use wavekit_codec::format::Layout;
use wavekit_codec::gpu::Encoder;
use wavekit_harness::gpu;

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_encoder_writes_the_cpu_encoders_bytes() {
    let ctx = gpu();
    for (seed, (w, h, chroma, levels)) in (1u64..).zip([
        (2u32, 2u32, Chroma::Yuv420, 0u8),
        (33, 7, Chroma::Yuv444, 2),
        (1, 1, Chroma::Yuv444, 0),
        (64, 48, Chroma::Yuv420, 5),
        (130, 66, Chroma::Yuv420, 5),
        // Widths that halve evenly at every level: 16-bit coefficients.
        (128, 40, Chroma::Yuv420, 5),
        (45, 37, Chroma::Yuv444, 4),
        // Several tiles of the rate control's kernels (64 blocks each): 165 blocks.
        (250, 190, Chroma::Yuv444, 4),
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
            lossless: false,
            source: wavekit_codec::format::Source::Rgb,
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
                lossless: false,
                source: wavekit_codec::format::Source::Rgb,
                chroma,
                levels,
                budget,
            };
            let (want, want_stats) = encode(&rgb, w, h, &config).unwrap();
            let enc = match &mut enc {
                Some(e) => {
                    e.set_budget(ctx, budget).unwrap();
                    e
                }
                // 16-bit coefficients where the frame allows them (not the default: ADR-0108).
                None => {
                    let policy = wavekit_codec::gpu::CoderPolicy {
                        coefficients_16_bit: true,
                        ..wavekit_codec::gpu::CoderPolicy::for_device(ctx)
                    };
                    enc.insert(Encoder::with_policy(ctx, w, h, &config, &policy).unwrap())
                }
            };
            // The frame buffer poisoned first: every byte of the frame must be written.
            let poison = vec![0xA5u8; enc.output().size() as usize];
            ctx.queue.write_buffer(enc.output(), 0, &poison);
            let (got, stats) = enc.encode_with_stats(ctx, &rgb).unwrap();
            let case = format!("{w}x{h} {chroma:?} levels {levels} budget {budget}");
            assert_eq!(stats, want_stats, "{case}: the statistics");
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

/// Lossless frames: the GPU's bytes are the CPU's, both decoders give the input back bit for
/// bit, and a budget too small for every plane is an error, not a lossy frame.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_lossless_frames_equal_the_cpus_and_decode_exactly() {
    let ctx = gpu();
    for (seed, (w, h, levels)) in (10u64..).zip([(1u32, 1u32, 0u8), (33, 7, 2), (70, 45, 5)]) {
        let mut rgb = picture(w, h, seed);
        let mut rng = fastrand::Rng::with_seed(seed);
        // Some pure noise and the extremes too.
        for (i, v) in rgb.iter_mut().enumerate() {
            match i % 7 {
                0 => *v = rng.u8(..),
                1 => *v = 255,
                2 if i % 3 == 0 => *v = 0,
                _ => {}
            }
        }
        let config = EncodeConfig {
            chroma: Chroma::Yuv444,
            levels,
            budget: 16 * (w * h) as usize + 4096,
            lossless: true,
            source: wavekit_codec::format::Source::Rgb,
        };
        let (want, _) = encode(&rgb, w, h, &config).unwrap();
        let enc = Encoder::new(ctx, w, h, &config).unwrap();
        let got = enc.encode(ctx, &rgb).unwrap();
        assert!(
            got == want,
            "{w}x{h}: the GPU's lossless bytes differ from the CPU's"
        );
        let (_, back, report) = wavekit_codec::cpu::decode(&want).unwrap();
        assert!(report.damaged.is_empty());
        assert!(
            back == rgb,
            "{w}x{h}: the CPU's lossless decode is not exact"
        );
        let header = wavekit_codec::Header::parse(&want).unwrap();
        let dec = wavekit_codec::gpu::Decoder::new(ctx, &header, want.len()).unwrap();
        let (gpu_back, _) = dec.decode(ctx, &want).unwrap();
        assert!(
            gpu_back == rgb,
            "{w}x{h}: the GPU's lossless decode is not exact"
        );
        let small = EncodeConfig {
            budget: want.len() - 1,
            ..config
        };
        assert!(encode(&rgb, w, h, &small).is_err());
        let e = Encoder::new(ctx, w, h, &small).unwrap().encode(ctx, &rgb);
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("lossless frame needs more")
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_encoder_refuses_budgets_below_its_table_and_wrong_input() {
    let ctx = gpu();
    let config = EncodeConfig {
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
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

/// The base step follows the budget (3 and 6 bits a pixel are its edges): an encoder whose
/// budget changes across an edge rewrites its header and the bands' steps, and writes the
/// CPU's bytes at each budget, there and back.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_budget_change_across_a_step_edge_writes_the_cpus_bytes() {
    let ctx = gpu();
    let (w, h) = (96u32, 64u32);
    let rgb = picture(w, h, 11);
    let bytes = |bpp: f64| (f64::from(w * h) * bpp / 8.0) as usize;
    let first = EncodeConfig::bytes(bytes(1.0));
    let mut enc = Encoder::new(ctx, w, h, &first).unwrap();
    let mut steps = Vec::new();
    for bpp in [1.0, 3.0, 3.5, 6.0, 7.0, 2.0] {
        let config = EncodeConfig::bytes(bytes(bpp));
        enc.set_budget(ctx, config.budget).unwrap();
        let (want, _) = encode(&rgb, w, h, &config).unwrap();
        let got = enc.encode(ctx, &rgb).unwrap();
        assert!(got == want, "{bpp} bpp: the bytes differ from the CPU's");
        let header = wavekit_codec::Header::parse(&got).unwrap();
        assert_eq!(header.step, enc.header().step, "{bpp} bpp");
        steps.push(header.step);
    }
    assert_eq!(steps, [1.0, 1.0, 0.5, 0.5, 0.25, 1.0]);
}

/// Every block-coder policy writes the same bytes and decodes to the same pixels: the workgroup
/// kernels at 64 invocations (16 samples an invocation) and the subgroup kernels, against the
/// CPU, on noise (many planes, long codes) and a picture, with damage in the decoder's case.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn every_policy_writes_the_same_bytes_and_pixels() {
    use wavekit_codec::gpu::{BlockKernel, CoderPolicy, Decoder, Output};
    let ctx = gpu();
    let (w, h) = (96u32, 70u32);
    let mut noise = picture(w, h, 9);
    let mut rng = fastrand::Rng::with_seed(9);
    noise[..(w * h * 3 / 2) as usize]
        .iter_mut()
        .for_each(|v| *v = rng.u8(..));
    for (rgb, chroma) in [(noise, Chroma::Yuv444), (picture(w, h, 10), Chroma::Yuv420)] {
        let config = EncodeConfig {
            lossless: false,
            source: wavekit_codec::format::Source::Rgb,
            chroma,
            levels: 4,
            budget: (w * h) as usize,
        };
        let (want, _) = encode(&rgb, w, h, &config).unwrap();
        let header = wavekit_codec::Header::parse(&want).unwrap();
        let mut damaged = want.clone();
        for _ in 0..6 {
            let i = rng.usize(Layout::of(&header).overhead()..damaged.len());
            damaged[i] ^= 1 << rng.u8(..8);
        }
        // The workgroup kernels at 64 (16 samples an invocation; the defaults, 256 and 512,
        // run without subgroups) and the subgroup kernels where the device has them.
        for (encode_workgroup, decode_workgroup, encoder) in [
            (64, 64, BlockKernel::Workgroup),
            (128, 512, BlockKernel::Subgroup),
        ] {
            let block_workgroup = (encode_workgroup, decode_workgroup, encoder);
            // The wavelet's buffers at run time with one, compiled in with the other; 16-bit
            // coefficients (the 4:4:4 frame allows them) with the subgroup kernels.
            let policy = CoderPolicy {
                encode_workgroup,
                decode_workgroup,
                encoder,
                decoder: encoder,
                wavelet_buffers_at_run_time: Some(encode_workgroup == 64),
                coefficients_16_bit: encode_workgroup != 64,
            };
            let enc = Encoder::with_policy(ctx, w, h, &config, &policy).unwrap();
            let got = enc.encode(ctx, &rgb).unwrap();
            assert!(got == want, "{block_workgroup:?}: the bytes differ");
            let dec = Decoder::with_policy(ctx, &header, want.len(), Output::Rgb, &policy).unwrap();
            for frame in [&want, &damaged] {
                let (_, back, report) = wavekit_codec::cpu::decode(frame).unwrap();
                let (gpu_back, gpu_report) = dec.decode(ctx, frame).unwrap();
                assert_eq!(gpu_report, report, "{block_workgroup:?}: damage");
                assert!(gpu_back == back, "{block_workgroup:?}: the pixels differ");
            }
        }
    }
    let odd = CoderPolicy {
        encode_workgroup: 48,
        decode_workgroup: 256,
        ..Default::default()
    };
    assert!(odd.check().is_err());
    // The device's default fits it; the encoder and decoder built without a policy take it.
    let fitted = CoderPolicy::for_device(ctx);
    fitted.check_for(ctx).unwrap();
    let most = ctx.device.limits().max_compute_invocations_per_workgroup;
    assert!(fitted.decode_workgroup <= most && fitted.encode_workgroup <= most);
    if most < 512 {
        assert!(CoderPolicy::default().check_for(ctx).is_err());
    }
}

/// Frames in flight: five different frames through a queue of two, submitted ahead and
/// finished in order, each equal to the CPU's bytes; a full queue, an empty one, a wrong-size
/// picture and a budget change with frames in flight are refused without losing a frame.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn frames_in_flight_come_back_in_order_with_the_cpus_bytes() {
    use wavekit_codec::gpu::EncodeQueue;
    let ctx = gpu();
    let (w, h) = (80u32, 48u32);
    let config = EncodeConfig {
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
        chroma: Chroma::Yuv420,
        levels: 3,
        budget: (w * h / 4) as usize,
    };
    let pictures: Vec<Vec<u8>> = (0..5).map(|s| picture(w, h, 40 + s)).collect();
    let want: Vec<Vec<u8>> = pictures
        .iter()
        .map(|p| encode(p, w, h, &config).unwrap().0)
        .collect();
    assert!(EncodeQueue::new(ctx, Encoder::new(ctx, w, h, &config).unwrap(), 0).is_err());
    let mut queue = EncodeQueue::new(ctx, Encoder::new(ctx, w, h, &config).unwrap(), 2).unwrap();
    let mut out = vec![0xAAu8; 7];
    assert!(!queue.finish(ctx, &mut out).unwrap());
    assert_eq!(
        out,
        vec![0xAA; 7],
        "finish with nothing in flight leaves the output"
    );
    let mut got = Vec::new();
    let mut next = 0;
    while got.len() < pictures.len() {
        while next < pictures.len() && queue.room() > 0 {
            queue.submit_rgb(ctx, &pictures[next]).unwrap();
            next += 1;
        }
        if next < pictures.len() {
            // Full: another submit is refused, a bad picture too, and neither takes a slot.
            assert!(queue.submit_rgb(ctx, &pictures[next]).is_err());
            assert!(queue.set_budget(ctx, config.budget / 2).is_err());
            assert_eq!(queue.in_flight(), 2);
        }
        assert!(queue.finish(ctx, &mut out).unwrap());
        got.push(out.clone());
    }
    assert!(queue.submit_rgb(ctx, &pictures[0][1..]).is_err());
    assert_eq!(queue.in_flight(), 0);
    for (i, (g, wnt)) in got.iter().zip(&want).enumerate() {
        assert!(g == wnt, "frame {i}: the bytes differ from the CPU's");
    }
    // Frames differ from each other, so an out-of-order finish would have been caught.
    assert!(want.windows(2).all(|p| p[0] != p[1]));
    // A new budget once nothing is in flight.
    queue.set_budget(ctx, config.budget / 2).unwrap();
    queue.submit_rgb(ctx, &pictures[1]).unwrap();
    assert!(queue.finish(ctx, &mut out).unwrap());
    let half = EncodeConfig {
        budget: config.budget / 2,
        ..config
    };
    assert!(out == encode(&pictures[1], w, h, &half).unwrap().0);
}
