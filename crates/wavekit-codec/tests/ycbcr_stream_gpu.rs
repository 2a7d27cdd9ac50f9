//! YCbCr sources (what `.y4m` streams carry), the `.y4m` reader and writer, and the stream
//! container: the CPU codec on full- and limited-range pictures at both samplings, lossy and
//! lossless; the GPU's bytes and samples equal to the CPU's (`*_gpu`, at every lavapipe width
//! and without subgroups); and the parsers on every truncation and on random damage, never a
//! panic.

use std::io::Cursor;

use wavekit_codec::cpu::{EncodeConfig, decode, decode_ycbcr, encode_ycbcr};
use wavekit_codec::stream::{StreamReader, StreamWriter};
use wavekit_codec::y4m::{ChromaTag, Reader, StreamInfo, Writer};
use wavekit_codec::{Chroma, CodecError, Source, YcbcrImage};
use wavekit_harness::gpu;

/// A seeded picture: smooth ramps, a hard edge and noise, within the range's legal values
/// (and a few out of it, as real limited-range video has).
fn picture(w: u32, h: u32, chroma: Chroma, limited: bool, seed: u64) -> YcbcrImage {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (cw, ch) = match chroma {
        Chroma::Yuv420 => (w.div_ceil(2), h.div_ceil(2)),
        Chroma::Yuv444 => (w, h),
    };
    let plane = |pw: u32, ph: u32, base: f32, rng: &mut fastrand::Rng| -> Vec<u8> {
        let mut v = Vec::with_capacity((pw * ph) as usize);
        for y in 0..ph {
            for x in 0..pw {
                let edge = if x * 3 > pw * 2 { 50.0 } else { 0.0 };
                let s = base
                    + 60.0 * x as f32 / pw as f32
                    + 30.0 * y as f32 / ph as f32
                    + edge
                    + rng.f32() * 10.0;
                let s = if rng.u32(..100) == 0 {
                    rng.u8(..) as f32
                } else {
                    s
                };
                v.push(s.clamp(0.0, 255.0) as u8);
            }
        }
        v
    };
    let planes = [
        plane(w, h, if limited { 40.0 } else { 20.0 }, &mut rng),
        plane(cw, ch, 90.0, &mut rng),
        plane(cw, ch, 110.0, &mut rng),
    ];
    YcbcrImage {
        width: w,
        height: h,
        chroma,
        limited,
        planes,
    }
}

fn config(img: &YcbcrImage, budget: usize, lossless: bool) -> EncodeConfig {
    EncodeConfig {
        chroma: img.chroma,
        levels: 5,
        budget,
        lossless,
        source: img.source(),
    }
}

fn psnr(a: &[u8], b: &[u8]) -> f64 {
    wavekit_codec::cpu::psnr(a, b)
}

#[test]
fn ycbcr_pictures_code_lossy_and_lossless_on_the_cpu() {
    for (seed, (w, h, chroma, limited)) in (1u64..).zip([
        (64u32, 48u32, Chroma::Yuv420, true),
        (64, 48, Chroma::Yuv420, false),
        (37, 29, Chroma::Yuv444, true),
        (2, 2, Chroma::Yuv420, false),
        (1, 1, Chroma::Yuv444, true),
    ]) {
        let img = picture(w, h, chroma, limited, seed);
        let case = format!("{w}x{h} {chroma:?} limited {limited}");
        // Lossless: every sample back, at either sampling.
        let (frame, _) = encode_ycbcr(&img, &config(&img, 1 << 20, true)).unwrap();
        let (header, back, report) = decode_ycbcr(&frame).unwrap();
        assert!(report.damaged.is_empty());
        assert_eq!(header.source, img.source(), "{case}");
        assert!(back == img, "{case}: lossless is not exact");
        // Lossy, plenty of bytes: within rounding of every sample.
        let (frame, stats) = encode_ycbcr(&img, &config(&img, 1 << 20, false)).unwrap();
        assert!(stats.all_planes);
        let (_, back, _) = decode_ycbcr(&frame).unwrap();
        for (k, (a, b)) in img.planes.iter().zip(&back.planes).enumerate() {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            assert!(worst <= 1, "{case}: plane {k} off by {worst}");
        }
        // Lossy at 1 bpp: within the budget, and a fair picture.
        let layout = wavekit_codec::format::Layout::of(&header);
        let budget = ((w * h) as usize / 8).max(layout.overhead() + 2 * layout.blocks.len() + 64);
        let (frame, _) = encode_ycbcr(&img, &config(&img, budget, false)).unwrap();
        assert!(frame.len() <= budget, "{case}");
        let (_, back, _) = decode_ycbcr(&frame).unwrap();
        if w >= 32 {
            let p = psnr(&img.planes[0], &back.planes[0]);
            assert!(p > 24.0, "{case}: PSNR-Y {p:.1} at 1 bpp");
        }
        // The same frame decodes to RGB too (BT.709 from the planes).
        let (_, rgb, _) = decode(&frame).unwrap();
        assert_eq!(rgb.len(), 3 * (w * h) as usize);
    }
}

#[test]
fn ycbcr_config_mismatches_are_errors() {
    let img = picture(16, 16, Chroma::Yuv420, true, 3);
    for bad in [
        EncodeConfig {
            chroma: Chroma::Yuv444,
            ..config(&img, 4096, false)
        },
        EncodeConfig {
            source: Source::YcbcrFull,
            ..config(&img, 4096, false)
        },
        EncodeConfig {
            source: Source::Rgb,
            ..config(&img, 4096, false)
        },
    ] {
        let e = encode_ycbcr(&img, &bad).unwrap_err().to_string();
        assert!(e.contains("give the picture's"), "{e}");
    }
    let mut short = img.clone();
    short.planes[2].pop();
    let e = encode_ycbcr(&short, &config(&img, 4096, false))
        .unwrap_err()
        .to_string();
    assert!(e.contains("Cr plane"), "{e}");
    // RGB frames still refuse lossless 4:2:0; YCbCr frames take it.
    let rgb = vec![0u8; 3 * 16 * 16];
    let e = wavekit_codec::cpu::encode(
        &rgb,
        16,
        16,
        &EncodeConfig {
            lossless: true,
            source: Source::Rgb,
            ..config(&img, 1 << 16, true)
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("use 4:4:4"), "{e}");
}

fn info(w: u32, h: u32, tag: ChromaTag, limited: bool) -> StreamInfo {
    StreamInfo {
        width: w,
        height: h,
        tag,
        limited,
        rate: (30000, 1001),
        aspect: (1, 1),
        interlaced: false,
    }
}

fn y4m_bytes(info: &StreamInfo, frames: &[YcbcrImage]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = Writer::new(&mut out, info).unwrap();
        for f in frames {
            w.write_frame(f).unwrap();
        }
    }
    out
}

#[test]
fn y4m_streams_round_trip_with_their_tags() {
    for (tag, limited, (w, h)) in [
        (ChromaTag::C420jpeg, true, (16u32, 8u32)),
        (ChromaTag::C420mpeg2, false, (7, 5)),
        (ChromaTag::C444, false, (3, 4)),
        (ChromaTag::C420paldv, true, (2, 2)),
    ] {
        let i = info(w, h, tag, limited);
        let frames: Vec<YcbcrImage> = (0..3)
            .map(|s| picture(w, h, tag.chroma(), limited, s))
            .collect();
        let bytes = y4m_bytes(&i, &frames);
        let mut r = Reader::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(*r.info(), i);
        for f in &frames {
            assert_eq!(r.next_frame().unwrap().as_ref(), Some(f));
        }
        assert!(r.next_frame().unwrap().is_none());
        // Every truncation: whole frames read, then a clear error or the end; never a panic.
        for cut in 0..bytes.len() {
            let Ok(mut r) = Reader::new(Cursor::new(&bytes[..cut])) else {
                continue;
            };
            let mut whole = 0;
            loop {
                match r.next_frame() {
                    Ok(Some(f)) => {
                        assert_eq!(f, frames[whole]);
                        whole += 1;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        assert!(e.to_string().contains("cut short"), "{e}");
                        break;
                    }
                }
            }
        }
    }
}

#[test]
fn y4m_headers_the_codec_cannot_take_get_clear_errors() {
    let cases: &[(&[u8], &str)] = &[
        (b"", "does not start"),
        (b"P6\n3 3\n255\n", "does not start"),
        (b"YUV4MPEG2 W4 H4 C422\n", "C422 is not one the codec takes"),
        (b"YUV4MPEG2 W4 H4 C420p10\n", "C420p10"),
        (b"YUV4MPEG2 W4 H4 Cmono\n", "Cmono"),
        (b"YUV4MPEG2 W0 H4\n", "must be 1 to 16384"),
        (b"YUV4MPEG2 W4\n", "must be 1 to 16384"),
        (b"YUV4MPEG2 W99999 H4\n", "must be 1 to 16384"),
        (b"YUV4MPEG2 W18446744073709551617 H4\n", "not a number"),
        (b"YUV4MPEG2 W4 H4 Fx:1\n", "frame rate"),
        (b"YUV4MPEG2 W4 H4", "ends inside its header"),
        (b"YUV4MPEG2 W\xc3\xa94 H4\n", "not a number"),
    ];
    for (bytes, want) in cases {
        let e = match Reader::new(Cursor::new(*bytes)) {
            Ok(_) => panic!("{:?} was taken", String::from_utf8_lossy(bytes)),
            Err(e) => e,
        };
        assert!(matches!(e, CodecError::Y4m(_)), "{e:?}");
        assert!(
            e.to_string().contains(want),
            "{:?}: {e}",
            String::from_utf8_lossy(bytes)
        );
    }
    let long = [b"YUV4MPEG2 W4 H4 X".as_slice(), &[b'a'; 2000], b"\n"].concat();
    let e = Reader::new(Cursor::new(long))
        .err()
        .expect("a 2 KB header line is refused");
    assert!(e.to_string().contains("longer"), "{e}");
    // A frame marker that is not FRAME.
    let mut bytes = y4m_bytes(
        &info(4, 4, ChromaTag::C444, true),
        &[picture(4, 4, Chroma::Yuv444, true, 1)],
    );
    bytes[y4m_bytes(&info(4, 4, ChromaTag::C444, true), &[]).len()] = b'G';
    let e = Reader::new(Cursor::new(bytes))
        .unwrap()
        .next_frame()
        .unwrap_err();
    assert!(e.to_string().contains("frame 0"), "{e}");
    // Interlaced and range tags are read.
    let r = Reader::new(Cursor::new(
        b"YUV4MPEG2 W4 H4 It XCOLORRANGE=FULL C444\n".as_slice(),
    ))
    .unwrap();
    assert!(r.info().interlaced && !r.info().limited);
}

/// Random damage to a real stream's bytes: the reader gives frames or errors, never a panic.
#[test]
fn y4m_reader_survives_random_damage() {
    let i = info(6, 4, ChromaTag::C420jpeg, true);
    let frames: Vec<YcbcrImage> = (0..2)
        .map(|s| picture(6, 4, Chroma::Yuv420, true, s))
        .collect();
    let clean = y4m_bytes(&i, &frames);
    let mut rng = fastrand::Rng::with_seed(77);
    for _ in 0..3000 {
        let mut b = clean.clone();
        for _ in 0..rng.usize(1..6) {
            let at = rng.usize(..b.len());
            match rng.u8(..3) {
                0 => b[at] = rng.u8(..),
                1 => b[at] = *b"0123456789 WHFCX:\n".get(rng.usize(..18)).unwrap(),
                _ => {
                    b.insert(at, rng.u8(..));
                }
            }
        }
        if let Ok(mut r) = Reader::new(Cursor::new(&b)) {
            for _ in 0..8 {
                match r.next_frame() {
                    Ok(Some(f)) => f.check().unwrap(),
                    _ => break,
                }
            }
        }
    }
}

#[test]
fn streams_hold_frames_and_survive_truncation_and_damage() {
    let i = info(32, 16, ChromaTag::C420jpeg, true);
    let pics: Vec<YcbcrImage> = (0..3)
        .map(|s| picture(32, 16, Chroma::Yuv420, true, s))
        .collect();
    let frames: Vec<Vec<u8>> = pics
        .iter()
        .map(|p| encode_ycbcr(p, &config(p, 600, false)).unwrap().0)
        .collect();
    let mut w = StreamWriter::new(Vec::new(), &i).unwrap();
    for f in &frames {
        w.write_frame(f).unwrap();
    }
    assert_eq!(w.frames(), 3);
    let bytes = w.finish().unwrap();
    let mut r = StreamReader::new(Cursor::new(&bytes)).unwrap();
    assert_eq!(*r.info(), i);
    for f in &frames {
        let got = r.next_frame().unwrap().unwrap();
        assert!(!got.truncated);
        assert_eq!(&got.bytes, f);
    }
    assert!(r.next_frame().unwrap().is_none());
    // Every cut: whole frames, then at most one cut short that still decodes safely.
    for cut in 0..bytes.len() {
        let Ok(mut r) = StreamReader::new(Cursor::new(&bytes[..cut])) else {
            assert!(cut < 32);
            continue;
        };
        let mut n = 0;
        while let Some(f) = r.next_frame().unwrap() {
            if f.truncated {
                if cut % 17 == 0 {
                    let _ = decode_ycbcr(&f.bytes);
                }
            } else {
                assert_eq!(f.bytes, frames[n]);
            }
            n += 1;
        }
    }
    // Random damage anywhere: errors or frames, never a panic.
    let mut rng = fastrand::Rng::with_seed(5);
    for _ in 0..150 {
        let mut b = bytes.clone();
        for _ in 0..rng.usize(1..4) {
            let at = rng.usize(..b.len());
            b[at] = rng.u8(..);
        }
        if let Ok(mut r) = StreamReader::new(Cursor::new(&b)) {
            while let Ok(Some(f)) = r.next_frame() {
                if let Ok((_, img, _)) = decode_ycbcr(&f.bytes) {
                    img.check().unwrap();
                }
            }
        }
    }
    // A frame length past the limit is an error.
    let mut b = bytes[..32].to_vec();
    b.extend(u32::MAX.to_le_bytes());
    let e = StreamReader::new(Cursor::new(b))
        .unwrap()
        .next_frame()
        .unwrap_err();
    assert!(e.to_string().contains("corrupted"), "{e}");
}

/// The GPU encoder and decoder on YCbCr pictures: the CPU's bytes and samples.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_ycbcr_frames_equal_the_cpus() {
    use wavekit_codec::gpu::{CoderPolicy, Decoder, Encoder, Output};
    let ctx = gpu();
    // 16-bit coefficients where the frame allows them (64 × 20 4:4:4, full range, lossy; not
    // the default: ADR-0108), 32 bits elsewhere.
    let policy = CoderPolicy {
        coefficients_16_bit: true,
        ..CoderPolicy::for_device(ctx)
    };
    // The short sweep (ADR-0084) keeps the first five: the other cases are the host's
    // padding of the planes and the smallest frames' buffers, not the subgroup width.
    let cases = if wavekit_harness::short_sweep() { 5 } else { 9 };
    for (seed, (w, h, chroma, limited, lossless)) in (20u64..).zip(
        [
            (64u32, 48u32, Chroma::Yuv420, true, false),
            (64, 48, Chroma::Yuv420, false, true),
            (33, 17, Chroma::Yuv444, true, true),
            (46, 30, Chroma::Yuv444, false, false),
            (64, 20, Chroma::Yuv444, false, false),
            // Planes whose bytes are not whole words (the input pads each to a word).
            (38, 22, Chroma::Yuv420, false, false),
            (34, 18, Chroma::Yuv420, true, true),
            // The smallest frames: the planar output holds more words than pixels.
            (1, 1, Chroma::Yuv444, false, false),
            (2, 2, Chroma::Yuv420, true, true),
        ]
        .into_iter()
        .take(cases),
    ) {
        let img = picture(w, h, chroma, limited, seed);
        let case = format!("{w}x{h} {chroma:?} limited {limited} lossless {lossless}");
        let budget = if lossless {
            1 << 18
        } else {
            (w * h) as usize / 4 + 400
        };
        let cfg = config(&img, budget, lossless);
        let (want, _) = encode_ycbcr(&img, &cfg).unwrap();
        let enc = Encoder::with_policy(ctx, w, h, &cfg, &policy).unwrap();
        let got = enc.encode_ycbcr(ctx, &img).unwrap();
        assert!(got == want, "{case}: the GPU's bytes differ from the CPU's");
        let e = enc
            .encode(ctx, &vec![0u8; 3 * (w * h) as usize])
            .unwrap_err();
        assert!(e.to_string().contains("encode_ycbcr"), "{e}");
        let header = wavekit_codec::Header::parse(&want).unwrap();
        let (_, cpu_img, _) = decode_ycbcr(&want).unwrap();
        if lossless {
            assert!(cpu_img == img, "{case}");
        }
        assert_eq!(
            policy.coefficients_16_bit_for(&header),
            (w, chroma, limited, lossless) == (64, Chroma::Yuv444, false, false),
            "{case}: 16-bit coefficients"
        );
        let dec = Decoder::with_policy(ctx, &header, want.len(), Output::Ycbcr, &policy).unwrap();
        let (gpu_img, report) = dec.decode_ycbcr(ctx, &want).unwrap();
        assert!(report.damaged.is_empty());
        assert!(
            gpu_img == cpu_img,
            "{case}: the GPU's samples differ from the CPU's"
        );
        let (_, cpu_rgb, _) = decode(&want).unwrap();
        let dec = Decoder::with_policy(ctx, &header, want.len(), Output::Rgb, &policy).unwrap();
        let (gpu_rgb, _) = dec.decode(ctx, &want).unwrap();
        assert!(
            gpu_rgb == cpu_rgb,
            "{case}: the GPU's RGB differs from the CPU's"
        );
    }
    // An RGB frame decoded to YCbCr on the GPU equals the CPU's, lossy and lossless.
    for lossless in [false, true] {
        let rgb = wavekit_codec::cpu::test_picture(40, 24, 9);
        let cfg = EncodeConfig {
            chroma: Chroma::Yuv444,
            levels: 3,
            budget: 1 << 16,
            lossless,
            source: Source::Rgb,
        };
        let (frame, _) = wavekit_codec::cpu::encode(&rgb, 40, 24, &cfg).unwrap();
        let header = wavekit_codec::Header::parse(&frame).unwrap();
        let (_, want, _) = decode_ycbcr(&frame).unwrap();
        assert!(!want.limited);
        let dec = Decoder::with_output(ctx, &header, frame.len(), Output::Ycbcr).unwrap();
        let (got, _) = dec.decode_ycbcr(ctx, &frame).unwrap();
        assert!(got == want, "RGB lossless {lossless}: YCbCr out differs");
    }
}
