//! The CPU codec end to end: budgets met, quality rising with the budget, every size and
//! chroma sampling, and any corruption or truncation of real frames decoded without a panic.

use wavekit_codec::cpu::test_picture as picture;
use wavekit_codec::cpu::{EncodeConfig, color, decode, encode, psnr};
use wavekit_codec::format::{HEADER_BYTES, Layout, OFFSET_BYTES};
use wavekit_codec::{Chroma, CodecError};

/// What 4:2:0 alone leaves of a picture (no coding): the reference a 4:2:0 frame is held to.
fn subsampled(rgb: &[u8], w: u32, h: u32, chroma: Chroma) -> Vec<u8> {
    let (w, h) = (w as usize, h as usize);
    color::to_rgb(&color::to_ycbcr(rgb, w, h, chroma), w, h, chroma)
}

#[test]
fn every_frame_fits_its_budget_and_uses_it() {
    let (w, h) = (192u32, 128u32);
    let rgb = picture(w, h, 1);
    let mut last = [0.0f64; 2];
    for bpp in [0.25f64, 0.5, 1.0, 2.0, 4.0] {
        for chroma in [Chroma::Yuv420, Chroma::Yuv444] {
            let budget = (bpp * f64::from(w * h) / 8.0) as usize;
            let config = EncodeConfig {
                lossless: false,
                source: wavekit_codec::format::Source::Rgb,
                chroma,
                levels: 5,
                budget,
            };
            let (frame, stats) = encode(&rgb, w, h, &config).unwrap();
            assert!(
                frame.len() <= budget,
                "{bpp} bpp: {} > {budget}",
                frame.len()
            );
            if !stats.all_planes {
                assert!(
                    frame.len() * 100 >= budget * 97,
                    "{bpp} bpp {chroma:?}: {} of {budget} bytes",
                    frame.len()
                );
            }
            let (header, back, report) = decode(&frame).unwrap();
            assert_eq!((header.width, header.height, header.chroma), (w, h, chroma));
            assert!(report.damaged.is_empty());
            // Quality against what the chroma sampling leaves: the coding's own loss.
            let q = psnr(&subsampled(&rgb, w, h, chroma), &back);
            eprintln!(
                "{bpp} bpp {chroma:?}: {} of {budget} bytes, {q:.2} dB against the subsampled \
                 picture, {:.2} dB against the original",
                frame.len(),
                psnr(&rgb, &back)
            );
            let k = usize::from(chroma == Chroma::Yuv444);
            assert!(
                q >= last[k] - 0.05,
                "{bpp} bpp {chroma:?}: {q:.2} dB after {:.2}",
                last[k]
            );
            last[k] = q;
        }
    }
    // 4 bits a pixel of a picture with 12 levels of noise: past 35 dB either way.
    assert!(last[0] > 35.0 && last[1] > 35.0, "{last:?}");
}

#[test]
fn sizes_around_the_block_and_odd_ones_round_trip() {
    for (w, h, chroma) in [
        (1u32, 1u32, Chroma::Yuv444),
        (2, 2, Chroma::Yuv420),
        (31, 33, Chroma::Yuv444),
        (32, 32, Chroma::Yuv420),
        (66, 34, Chroma::Yuv420),
        (97, 13, Chroma::Yuv444),
    ] {
        let rgb = picture(w, h, u64::from(w * h));
        // A generous budget: every plane fits, and the frame is within a few steps.
        let config = EncodeConfig {
            lossless: false,
            source: wavekit_codec::format::Source::Rgb,
            chroma,
            levels: 5,
            budget: 64 * 1024,
        };
        let (frame, stats) = encode(&rgb, w, h, &config).unwrap();
        assert!(stats.all_planes, "{w}x{h}");
        let (_, back, report) = decode(&frame).unwrap();
        assert!(report.damaged.is_empty());
        let want = subsampled(&rgb, w, h, chroma);
        let worst = want
            .iter()
            .zip(&back)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(worst <= 3, "{w}x{h} {chroma:?}: {worst}");
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let rgb = picture(16, 16, 2);
    let config = EncodeConfig {
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
        chroma: Chroma::Yuv420,
        levels: 5,
        budget: 10,
    };
    let e = encode(&rgb, 16, 16, &config).unwrap_err().to_string();
    assert!(
        e.contains("too small") && e.contains("give at least"),
        "{e}"
    );
    let odd = EncodeConfig {
        budget: 10_000,
        ..config
    };
    let e = encode(&picture(15, 16, 2), 15, 16, &odd)
        .unwrap_err()
        .to_string();
    assert!(e.contains("4:2:0 needs even sides"), "{e}");
    let e = encode(&rgb[..10], 16, 16, &odd).unwrap_err().to_string();
    assert!(e.contains("bytes of RGB"), "{e}");
    assert!(matches!(
        decode(b"not a frame at all, no"),
        Err(CodecError::Bitstream(_))
    ));
    assert!(matches!(decode(&[]), Err(CodecError::Bitstream(_))));
}

#[test]
fn corrupted_and_truncated_frames_decode_without_panicking() {
    let (w, h) = (64u32, 48u32);
    let rgb = picture(w, h, 5);
    let config = EncodeConfig {
        lossless: false,
        source: wavekit_codec::format::Source::Rgb,
        chroma: Chroma::Yuv420,
        levels: 5,
        budget: 1200,
    };
    let (frame, _) = encode(&rgb, w, h, &config).unwrap();
    let (_, clean, _) = decode(&frame).unwrap();
    let mut rng = fastrand::Rng::with_seed(77);
    let mut damaged_some = false;
    for trial in 0..300 {
        let mut f = frame.clone();
        match trial % 3 {
            0 => {
                for _ in 0..1 + rng.usize(..8) {
                    let i = rng.usize(..f.len());
                    f[i] ^= 1 << rng.u8(..8);
                }
            }
            1 => f.truncate(rng.usize(..f.len())),
            _ => {
                let i = rng.usize(..f.len());
                let n = rng.usize(..64).min(f.len() - i);
                rng.fill(&mut f[i..i + n]);
            }
        }
        match decode(&f) {
            Ok((header, back, report)) => {
                assert_eq!(back.len(), 3 * (header.width * header.height) as usize);
                if header.width == w && header.height == h && !report.damaged.is_empty() {
                    damaged_some = true;
                }
            }
            Err(CodecError::Bitstream(m)) => assert!(!m.is_empty()),
            Err(e) => panic!("trial {trial}: {e}"),
        }
    }
    assert!(
        damaged_some,
        "some corruption must be reported as damaged blocks"
    );
    // One block's payload damaged: only that block is reported, and the picture is exactly the
    // one whose frame sends no plane of that block (its samples 0), every other block intact.
    let (header, _, _) = decode(&frame).unwrap();
    let blocks = Layout::of(&header).blocks.len();
    for victim in [blocks - 1, blocks / 2, 0] {
        let at = HEADER_BYTES + victim * OFFSET_BYTES;
        let offset = u32::from_le_bytes(frame[at..at + 4].try_into().unwrap()) as usize;
        let mut none_sent = frame.clone();
        none_sent[offset + 1] = 0; // n = 0: the block's samples decode as 0
        let (_, want, report) = decode(&none_sent).unwrap();
        assert!(report.damaged.is_empty());
        let mut broken = frame.clone();
        broken[offset] = 99; // more planes than a block can have
        let (_, got, report) = decode(&broken).unwrap();
        assert_eq!(report.damaged, [victim]);
        assert_eq!(got, want, "block {victim}");
        if victim == 0 {
            assert_ne!(got, clean, "the LL block matters");
        }
    }
}

/// Lossless frames decode to the input bit for bit, at every level count, on photographs and
/// noise; 4:2:0 is refused; a budget below the frame's need is an error.
#[test]
fn lossless_frames_decode_bit_for_bit() {
    let mut rng = fastrand::Rng::with_seed(31);
    for (w, h) in [(1u32, 1u32), (2, 3), (31, 33), (64, 48), (97, 13)] {
        for noise in [false, true] {
            let rgb: Vec<u8> = if noise {
                (0..3 * w * h).map(|_| rng.u8(..)).collect()
            } else {
                picture(w, h, u64::from(w + h))
            };
            for levels in [0u8, 1, 5] {
                let config = EncodeConfig {
                    chroma: Chroma::Yuv444,
                    levels,
                    budget: 16 * (w * h) as usize + 4096,
                    lossless: true,
                    source: wavekit_codec::format::Source::Rgb,
                };
                let (frame, _) = encode(&rgb, w, h, &config).unwrap();
                let (header, back, report) = decode(&frame).unwrap();
                assert!(header.lossless && report.damaged.is_empty());
                assert!(back == rgb, "{w}x{h} noise {noise} levels {levels}");
                let small = EncodeConfig {
                    budget: frame.len() - 1,
                    ..config
                };
                let e = encode(&rgb, w, h, &small).unwrap_err().to_string();
                assert!(e.contains("lossless frame needs"), "{e}");
            }
        }
    }
    let config = EncodeConfig {
        chroma: Chroma::Yuv420,
        levels: 3,
        budget: 100_000,
        lossless: true,
        source: wavekit_codec::format::Source::Rgb,
    };
    let e = encode(&picture(16, 16, 1), 16, 16, &config).unwrap_err();
    assert!(e.to_string().contains("use 4:4:4"), "{e}");
}

/// Fuzzing (issue 32): the CPU decoder and the stream header never panic on any bytes: the
/// corpus (`fuzz/corpus/codec_frame`: bad magic, a stream header) and frames encoded here at
/// 4:2:0 and 4:4:4, lossy and lossless, then mutated (cut, sizes and lengths set to edge
/// values, spliced).
#[test]
fn fuzz_the_bitstream_decoder() {
    let mut seeds = Vec::new();
    for (i, (chroma, lossless)) in [
        (Chroma::Yuv420, false),
        (Chroma::Yuv444, true),
        (Chroma::Yuv444, false),
    ]
    .into_iter()
    .enumerate()
    {
        let (w, h) = (24 + 8 * i as u32, 18);
        let config = EncodeConfig {
            lossless,
            source: wavekit_codec::format::Source::Rgb,
            chroma,
            levels: 3,
            budget: if lossless { 1 << 16 } else { 300 },
        };
        let (frame, _) = encode(&picture(w, h, i as u64), w, h, &config).unwrap();
        seeds.push((format!("encoded-{i}"), frame));
    }
    wavekit_harness::fuzz::fuzz_with("codec_frame", seeds, 1500, |b| {
        let frame = decode(b).is_ok();
        let header = wavekit_codec::stream::parse_header(b).is_ok();
        frame || header
    });
}

/// Fuzzing (issue 32): the `.y4m` reader never panics: headers of every sampling and range,
/// frames cut short, sizes huge or zero, parameters repeated or unknown.
#[test]
fn fuzz_the_y4m_reader() {
    wavekit_harness::fuzz::fuzz("y4m", 20_000, |b| {
        let Ok(mut r) = wavekit_codec::y4m::Reader::new(std::io::Cursor::new(b.to_vec())) else {
            return false;
        };
        for _ in 0..4 {
            match r.next_frame() {
                Ok(Some(_)) => {}
                Ok(None) => return true,
                Err(_) => return false,
            }
        }
        true
    });
}
