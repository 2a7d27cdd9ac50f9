//! The GPU decoder against the CPU's: the same pixels and the same damage report, for frames of
//! many sizes, both chroma samplings, every level count of small frames, several budgets, and
//! frames corrupted or cut short at random. Named `*_gpu`: the block decoder's scans use
//! subgroup operations, so it runs at every lavapipe width and without subgroups.

use wavekit_codec::cpu::test_picture as picture;
use wavekit_codec::cpu::{EncodeConfig, decode, encode};
use wavekit_codec::gpu::{CoderPolicy, Decoder, Output};
use wavekit_codec::{Chroma, Header};
use wavekit_harness::gpu;

/// A decoder with 16-bit coefficients where the frame allows them (not the default: ADR-0108),
/// 32 bits elsewhere; the frames below take both.
fn decoder(header: &Header, capacity: usize) -> Decoder {
    let ctx = gpu();
    let policy = CoderPolicy {
        coefficients_16_bit: true,
        ..CoderPolicy::for_device(ctx)
    };
    Decoder::with_policy(ctx, header, capacity, Output::Rgb, &policy).unwrap()
}

fn check(decoder: &Decoder, frame: &[u8], case: &str) {
    let ctx = gpu();
    // The output poisoned first: every pixel must be written.
    let poison = vec![0xA5u8; decoder.output().size() as usize];
    ctx.queue.write_buffer(decoder.output(), 0, &poison);
    let (_, want, want_report) = decode(frame).unwrap();
    let (got, report) = decoder.decode(ctx, frame).unwrap();
    assert_eq!(report, want_report, "{case}: damage report");
    if got != want {
        let bad = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "{case}: {bad} of {} bytes differ, first at {first}: {} against {}",
            want.len(),
            got[first],
            want[first]
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_decoder_equals_the_cpu_decoder() {
    for (seed, (w, h, chroma, levels)) in (1u64..).zip([
        (2u32, 2u32, Chroma::Yuv420, 0u8),
        (1, 1, Chroma::Yuv444, 0),
        (33, 7, Chroma::Yuv444, 2),
        (64, 48, Chroma::Yuv420, 5),
        (130, 66, Chroma::Yuv420, 5),
        (97, 211, Chroma::Yuv444, 5),
        (128, 96, Chroma::Yuv420, 3),
    ]) {
        let rgb = picture(w, h, seed);
        let mut dec: Option<Decoder> = None;
        for bpp in [0.5f64, 2.0, 12.0] {
            let px = f64::from(w * h);
            let config = EncodeConfig {
                lossless: false,
                source: wavekit_codec::format::Source::Rgb,
                chroma,
                levels,
                budget: ((bpp * px / 8.0) as usize).max(2_000),
            };
            let (frame, _) = encode(&rgb, w, h, &config).unwrap();
            let header = Header::parse(&frame).unwrap();
            let d = dec.get_or_insert_with(|| decoder(&header, 4 * config.budget.max(1 << 16)));
            let case = format!("{w}x{h} {chroma:?} levels {levels} {bpp} bpp");
            check(d, &frame, &case);
        }
    }
}

/// Bit flips, bytes set at random, offsets pointing anywhere and frames cut short: the GPU
/// decodes what the CPU decodes and reports the same blocks damaged.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_decoder_equals_the_cpu_decoder_on_damaged_frames() {
    let mut rng = fastrand::Rng::with_seed(77);
    let (w, h) = (96u32, 64u32);
    let rgb = picture(w, h, 5);
    for chroma in [Chroma::Yuv420, Chroma::Yuv444] {
        let config = EncodeConfig {
            lossless: false,
            source: wavekit_codec::format::Source::Rgb,
            chroma,
            levels: 4,
            budget: 3_000,
        };
        let (frame, _) = encode(&rgb, w, h, &config).unwrap();
        let header = Header::parse(&frame).unwrap();
        let decoder = decoder(&header, frame.len());
        let overhead = wavekit_codec::format::Layout::of(&header).overhead();
        let mut damaged_seen = 0;
        let blocks = (overhead - 24) / 4;
        for trial in 0..40 {
            let mut f = frame.clone();
            match trial % 5 {
                // A bit of a plane's count, parameter or first codes: the count past the
                // candidates, zeros missing, runs past the block (bitstream version 3).
                4 => {
                    for _ in 0..1 + trial / 10 {
                        let b = rng.usize(..blocks);
                        let at = 24 + 4 * b;
                        let offset = u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
                        let i = (offset as usize + 2 + rng.usize(..6)).min(f.len() - 1);
                        f[i] ^= 1 << rng.u8(..8);
                    }
                }
                0 => {
                    for _ in 0..1 + trial / 4 {
                        let i = rng.usize(overhead..f.len());
                        f[i] ^= 1 << rng.u8(..8);
                    }
                }
                1 => {
                    let i = rng.usize(24..overhead);
                    f[i] = rng.u8(..);
                }
                2 => f.truncate(rng.usize(overhead..f.len())),
                _ => {
                    for b in &mut f[overhead..] {
                        if rng.u8(..16) == 0 {
                            *b = rng.u8(..);
                        }
                    }
                }
            }
            let (_, _, report) = decode(&f).unwrap();
            damaged_seen += report.damaged.len();
            check(&decoder, &f, &format!("{chroma:?} trial {trial}"));
        }
        // The corruption did damage blocks (the check compared real damage reports).
        assert!(damaged_seen > 0, "{chroma:?}: no trial damaged a block");
    }
}

/// Frames the decoder was not built for are refused with a message, nothing decoded.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_decoder_refuses_other_formats_and_short_frames() {
    let ctx = gpu();
    let rgb = picture(64, 64, 9);
    let config = EncodeConfig {
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
        chroma: Chroma::Yuv420,
        levels: 3,
        budget: 2_000,
    };
    let (frame, _) = encode(&rgb, 64, 64, &config).unwrap();
    let header = Header::parse(&frame).unwrap();
    let other = Header {
        width: 32,
        ..header
    };
    let d = Decoder::new(ctx, &other, 1 << 16).unwrap();
    let e = d.decode(ctx, &frame).unwrap_err().to_string();
    assert!(e.contains("64 x 64") && e.contains("32 x 64"), "{e}");
    let d = Decoder::new(ctx, &header, 100).unwrap();
    assert!(
        d.decode(ctx, &frame)
            .unwrap_err()
            .to_string()
            .contains("at most 100")
    );
    let d = Decoder::new(ctx, &header, 1 << 16).unwrap();
    assert!(d.decode(ctx, &frame[..30]).is_err());
    assert!(d.decode(ctx, b"not a frame at all, no").is_err());
}
