//! Conformance vectors (`tests/vectors/`, listed in `docs/codec-bitstream.md`): small coded
//! frames and one stream, each with the SHA-256 of its decode, for a second implementation to
//! check itself against. The test command decodes every vector on the CPU reference and on the
//! GPU and fails if a hash or a damage report changes; it also codes every vector again from
//! its source (made here from integers only, so it is the same everywhere) and fails if the
//! encoder now writes other bytes: a bitstream change must regenerate the vectors in the same
//! commit (`WAVEKIT_BLESS=1 cargo test -p wavekit-codec --test vectors` rewrites them and
//! their manifest, `tests/vectors/vectors.tsv`).
//!
//! What is hashed: a frame coded from RGB decodes to 8-bit RGB, three bytes a pixel, rows top
//! to bottom; a frame coded from YCbCr decodes to its Y, Cb and Cr planes, each row-major, one
//! after another; a stream's hash covers its frames' decodes in order.

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use wavekit_codec::cpu::{EncodeConfig, decode, decode_ycbcr, encode, encode_ycbcr};
use wavekit_codec::stream::{StreamReader, StreamWriter};
use wavekit_codec::y4m::{ChromaTag, StreamInfo};
use wavekit_codec::{Chroma, Header, YcbcrImage};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

/// splitmix64: the sources' noise, the same on every platform and crate version.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// An RGB picture in integers: shading, a disc with hard edges, stripes, noise.
fn picture(w: u32, h: u32, seed: u64) -> Vec<u8> {
    let mut rng = Mix(seed);
    let mut out = Vec::with_capacity((3 * w * h) as usize);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let (cx, cy) = (x * 100 / w as i64 - 60, y * 100 / h as i64 - 40);
            let disc = cx * cx + cy * cy < 500;
            let stripes = if x * 5 > w as i64 * 4 && (x / 3 + y / 5) % 2 == 1 {
                40
            } else {
                0
            };
            let n = (rng.next() % 13) as i64;
            let r = 60 + 150 * x / w as i64 + stripes + n + if disc { 60 } else { 0 };
            let g = 40 + 120 * y / h as i64 + n;
            let b = 200 - 100 * x * y / (w as i64 * h as i64) + stripes - if disc { 90 } else { 0 };
            out.extend([r, g, b].map(|v| v.clamp(0, 255) as u8));
        }
    }
    out
}

/// A 4:2:0 limited-range YCbCr frame of the stream vector: the picture's luma, moving.
fn ycbcr_frame(w: u32, h: u32, k: u32) -> YcbcrImage {
    let rgb = picture(w + 8, h, 7);
    let luma = (0..h)
        .flat_map(|y| (0..w).map(move |x| (y, x)))
        .map(|(y, x)| {
            let i = 3 * (y * (w + 8) + x + k) as usize;
            (16 + (u32::from(rgb[i]) * 2 + u32::from(rgb[i + 1]) * 5 + u32::from(rgb[i + 2])) * 219
                / 2040) as u8
        })
        .collect();
    let (cw, ch) = (w / 2, h / 2);
    let cb = (0..cw * ch)
        .map(|i| (64 + (i * 7 + k * 11) % 128) as u8)
        .collect();
    let cr = (0..cw * ch)
        .map(|i| (200 - (i * 3 + k * 5) % 100) as u8)
        .collect();
    YcbcrImage {
        width: w,
        height: h,
        chroma: Chroma::Yuv420,
        limited: true,
        planes: [luma, cb, cr],
    }
}

fn lossy(chroma: Chroma, w: u32, h: u32, bpp: f64) -> EncodeConfig {
    EncodeConfig {
        chroma,
        ..EncodeConfig::bpp(w, h, bpp)
    }
}

/// The stream vector: six frames of 64 × 48, 4:2:0, limited range, 2 bpp.
fn stream() -> Vec<u8> {
    let (w, h) = (64, 48);
    let info = StreamInfo {
        width: w,
        height: h,
        tag: ChromaTag::C420jpeg,
        limited: true,
        rate: (30, 1),
        aspect: (1, 1),
        interlaced: false,
    };
    let mut out = StreamWriter::new(Vec::new(), &info).unwrap();
    for k in 0..6 {
        let config = EncodeConfig {
            source: wavekit_codec::Source::YcbcrLimited,
            ..lossy(Chroma::Yuv420, w, h, 2.0)
        };
        let (frame, _) = encode_ycbcr(&ycbcr_frame(w, h, k), &config).unwrap();
        out.write_frame(&frame).unwrap();
    }
    out.finish().unwrap()
}

/// The damaged vector: the 4:2:0 1 bpp frame with two offsets set to 0 (missing), one past the
/// frame's end, and its last 64 bytes cut off.
fn damaged() -> Vec<u8> {
    let mut f = encode(
        &picture(160, 120, 1),
        160,
        120,
        &lossy(Chroma::Yuv420, 160, 120, 1.0),
    )
    .unwrap()
    .0;
    let entry = |b: usize| 24 + 4 * b;
    for b in [2usize, 5] {
        f[entry(b)..entry(b) + 4].copy_from_slice(&0u32.to_le_bytes());
    }
    f[entry(9)..entry(9) + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    f.truncate(f.len() - 64);
    f
}

/// Every vector: its file, what it is, and how it is made.
fn vectors() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let rgb = |w, h, seed, c: EncodeConfig| encode(&picture(w, h, seed), w, h, &c).unwrap().0;
    vec![
        (
            "lossy-420-1bpp.wkv",
            "160 x 120 RGB, 4:2:0, 1 bpp",
            rgb(160, 120, 1, lossy(Chroma::Yuv420, 160, 120, 1.0)),
        ),
        (
            "lossy-420-3bpp.wkv",
            "160 x 120 RGB, 4:2:0, 3 bpp",
            rgb(160, 120, 1, lossy(Chroma::Yuv420, 160, 120, 3.0)),
        ),
        (
            "lossy-444-1bpp.wkv",
            "160 x 120 RGB, 4:4:4, 1 bpp",
            rgb(160, 120, 2, lossy(Chroma::Yuv444, 160, 120, 1.0)),
        ),
        (
            "lossy-444-3bpp.wkv",
            "160 x 120 RGB, 4:4:4, 3 bpp",
            rgb(160, 120, 2, lossy(Chroma::Yuv444, 160, 120, 3.0)),
        ),
        (
            "odd-97x61-444-2bpp.wkv",
            "97 x 61 RGB, 4:4:4, 2 bpp, 3 levels",
            rgb(
                97,
                61,
                3,
                EncodeConfig {
                    levels: 3,
                    ..lossy(Chroma::Yuv444, 97, 61, 2.0)
                },
            ),
        ),
        (
            "lossless-64x48.wkv",
            "64 x 48 RGB, lossless (5/3, RCT)",
            rgb(64, 48, 4, EncodeConfig::lossless(64, 48)),
        ),
        (
            "lossless-odd-33x17.wkv",
            "33 x 17 RGB, lossless",
            rgb(33, 17, 5, EncodeConfig::lossless(33, 17)),
        ),
        (
            "stream-420-64x48x6.wkvs",
            "a stream of 6 frames, 64 x 48 YCbCr 4:2:0, limited range, 2 bpp",
            stream(),
        ),
        (
            "damaged-420-1bpp.wkv",
            "lossy-420-1bpp with blocks 2 and 5 missing (offset 0), block 9 past the end, the last 64 bytes cut",
            damaged(),
        ),
    ]
}

/// One decode's output, as hashed.
struct Decoded {
    bytes: Vec<u8>,
    damaged: Vec<usize>,
}

fn decode_frame_cpu(frame: &[u8]) -> Decoded {
    let header = Header::parse(frame).unwrap();
    if header.source.is_ycbcr() {
        let (_, img, report) = decode_ycbcr(frame).unwrap();
        Decoded {
            bytes: img.planes.concat(),
            damaged: report.damaged,
        }
    } else {
        let (_, rgb, report) = decode(frame).unwrap();
        Decoded {
            bytes: rgb,
            damaged: report.damaged,
        }
    }
}

/// The frames of a vector: the file itself, or a stream's frames.
fn frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    if !bytes.starts_with(b"WKVS") {
        return vec![bytes.to_vec()];
    }
    let mut r = StreamReader::new(bytes).unwrap();
    let mut out = Vec::new();
    while let Some(f) = r.next_frame().unwrap() {
        out.push(f.bytes);
    }
    out
}

fn hash(parts: &[Decoded]) -> (String, String) {
    let mut h = Sha256::new();
    for p in parts {
        h.update(&p.bytes);
    }
    let hex = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let damaged = parts
        .iter()
        .map(|p| {
            if p.damaged.is_empty() {
                "-".to_string()
            } else {
                p.damaged
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            }
        })
        .collect::<Vec<_>>()
        .join(";");
    (hex, damaged)
}

/// The CPU reference's decode of a vector (every frame of a stream), hashed.
fn cpu_hash(bytes: &[u8]) -> (String, String) {
    let parts: Vec<Decoded> = frames(bytes).iter().map(|f| decode_frame_cpu(f)).collect();
    hash(&parts)
}

/// The manifest: file, SHA-256 of the decode, damaged blocks (`-` none; `;` between frames),
/// description.
fn manifest() -> Vec<[String; 4]> {
    let text = std::fs::read_to_string(dir().join("vectors.tsv"))
        .expect("tests/vectors/vectors.tsv (WAVEKIT_BLESS=1 makes it)");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "a manifest line of 4 tab-separated fields: {l}");
            [f[0], f[1], f[2], f[3]].map(String::from)
        })
        .collect()
}

#[test]
fn the_encoder_still_writes_every_vector() {
    let made = vectors();
    if std::env::var_os("WAVEKIT_BLESS").is_some() {
        std::fs::create_dir_all(dir()).unwrap();
        let mut tsv = String::from(
            "# file\tSHA-256 of the decode\tdamaged blocks (- none; ; between frames)\twhat it is\n",
        );
        for (file, what, bytes) in &made {
            std::fs::write(dir().join(file), bytes).unwrap();
            let (hex, damaged) = cpu_hash(bytes);
            tsv += &format!("{file}\t{hex}\t{damaged}\t{what}\n");
        }
        std::fs::write(dir().join("vectors.tsv"), tsv).unwrap();
    }
    let listed = manifest();
    assert_eq!(listed.len(), made.len(), "the manifest lists every vector");
    for ((file, what, bytes), [l_file, _, _, l_what]) in made.iter().zip(&listed) {
        assert_eq!(
            (*file, *what),
            (l_file.as_str(), l_what.as_str()),
            "the manifest's order and words"
        );
        let on_disk = std::fs::read(dir().join(file)).unwrap();
        assert!(
            on_disk == *bytes,
            "{file}: the encoder now writes other bytes ({} against {} on disk). A bitstream \
             change regenerates the vectors in the same commit: WAVEKIT_BLESS=1 cargo test -p \
             wavekit-codec --test vectors, then update docs/codec-bitstream.md's table",
            bytes.len(),
            on_disk.len()
        );
    }
}

#[test]
fn every_vector_decodes_to_its_hash_on_the_cpu() {
    for [file, want, want_damaged, _] in manifest() {
        let bytes = std::fs::read(dir().join(&file)).unwrap();
        let (hex, damaged) = cpu_hash(&bytes);
        assert_eq!(hex, want, "{file}: the CPU decode's SHA-256");
        assert_eq!(damaged, want_damaged, "{file}: damaged blocks");
    }
    // The damaged vector reports at least the blocks it was made to lose, the others none.
    let m = manifest();
    let d = m.iter().find(|l| l[0].starts_with("damaged")).unwrap();
    let blocks: Vec<usize> = d[2].split(',').map(|b| b.parse().unwrap()).collect();
    assert!([2, 5, 9].iter().all(|b| blocks.contains(b)), "{blocks:?}");
    assert!(
        m.iter()
            .filter(|l| !l[0].starts_with("damaged"))
            .all(|l| l[2].chars().all(|c| c == '-' || c == ';'))
    );
}

#[test]
fn docs_list_every_vector_and_hash() {
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/codec-bitstream.md"),
    )
    .unwrap();
    for [file, hex, _, _] in manifest() {
        let row = doc.lines().find(|l| l.contains(&format!("`{file}`")));
        let row =
            row.unwrap_or_else(|| panic!("docs/codec-bitstream.md's vector table lacks {file}"));
        assert!(
            row.contains(&hex),
            "docs/codec-bitstream.md gives {file} another hash: {row}"
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn every_vector_decodes_to_its_hash_on_the_gpu() {
    use wavekit_codec::gpu::{Decoder, Output};
    let ctx = wavekit_harness::gpu();
    for [file, want, want_damaged, _] in manifest() {
        let bytes = std::fs::read(dir().join(&file)).unwrap();
        let mut parts = Vec::new();
        for f in frames(&bytes) {
            let header = Header::parse(&f).unwrap();
            let ycbcr = header.source.is_ycbcr();
            let out = if ycbcr { Output::Ycbcr } else { Output::Rgb };
            let dec = Decoder::with_output(ctx, &header, f.len().max(1), out).unwrap();
            parts.push(if ycbcr {
                let (img, report) = dec.decode_ycbcr(ctx, &f).unwrap();
                Decoded {
                    bytes: img.planes.concat(),
                    damaged: report.damaged,
                }
            } else {
                let (rgb, report) = dec.decode(ctx, &f).unwrap();
                Decoded {
                    bytes: rgb,
                    damaged: report.damaged,
                }
            });
        }
        let (hex, damaged) = hash(&parts);
        assert_eq!(
            hex,
            want,
            "{file}: the GPU decode's SHA-256 on {}",
            ctx.summary.label()
        );
        assert_eq!(damaged, want_damaged, "{file}: damaged blocks on the GPU");
    }
}
