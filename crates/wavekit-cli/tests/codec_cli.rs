//! `wavekit encode` on the GPU writes the same bytes as `--cpu`, and `wavekit decode` the same
//! PNG, damaged blocks included.

mod common;
use common::{ok, read_y4m, wavekit, y4m_stream};

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_decode_writes_the_cpu_decoders_png() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-codec-cli-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let png = d.join("in.png");
    image::RgbImage::from_fn(130, 66, |x, y| {
        image::Rgb([(x * 2) as u8, (y * 3) as u8, ((x ^ y) * 4) as u8])
    })
    .save(&png)
    .unwrap();
    let wkv = d.join("in.wkv");
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let out = wavekit(&["encode", &p(&png), "-o", &p(&wkv), "--bpp", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut frame = std::fs::read(&wkv).unwrap();
    let damaged = d.join("damaged.wkv");
    let n = frame.len();
    frame[n - 40] ^= 0x5a;
    std::fs::write(&damaged, &frame).unwrap();
    for input in [&wkv, &damaged] {
        let (g, c) = (d.join("gpu.png"), d.join("cpu.png"));
        for (o, extra) in [(&g, None), (&c, Some("--cpu"))] {
            let mut args = vec!["decode".to_string(), p(input), "-o".into(), p(o)];
            args.extend(extra.map(String::from));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = wavekit(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let (g, c) = (image::open(&g).unwrap(), image::open(&c).unwrap());
        assert_eq!(g.to_rgb8().dimensions(), (130, 66));
        assert!(
            g.to_rgb8() == c.to_rgb8(),
            "{}: GPU and CPU decodes differ",
            input.display()
        );
    }
}

/// `.y4m` in, a stream file, `.y4m` out, on the CPU: every frame within its budget and close to
/// its source, lossless exact, the tags kept; the user's mistakes are clear errors.
#[test]
fn y4m_streams_encode_and_decode_on_the_cpu() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-y4m-cli-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let src = d.join("in.y4m");
    std::fs::write(&src, y4m_stream(64, 48, false, 3, 1)).unwrap();
    let (src_info, src_frames) = read_y4m(&src);
    let wkv = d.join("out.wkv");
    let stdout = ok(&wavekit(&[
        "encode",
        &p(&src),
        "-o",
        &p(&wkv),
        "--bytes",
        "700",
        "--cpu",
    ]));
    assert!(
        stdout.contains("frame 2:") && stdout.contains("3 frames"),
        "{stdout}"
    );
    let back = d.join("back.y4m");
    ok(&wavekit(&["decode", &p(&wkv), "-o", &p(&back), "--cpu"]));
    let (info, frames) = read_y4m(&back);
    assert_eq!(info, src_info);
    assert_eq!(frames.len(), 3);
    let mut r =
        wavekit_codec::stream::StreamReader::new(std::fs::File::open(&wkv).unwrap()).unwrap();
    for (a, b) in src_frames.iter().zip(&frames) {
        let f = r.next_frame().unwrap().unwrap();
        assert!(f.bytes.len() <= 700);
        let psnr = wavekit_codec::cpu::psnr(&a.planes[0], &b.planes[0]);
        assert!(psnr > 28.0, "PSNR-Y {psnr}");
    }
    // Lossless: the stream comes back sample for sample.
    ok(&wavekit(&[
        "encode",
        &p(&src),
        "-o",
        &p(&wkv),
        "--lossless",
        "--cpu",
    ]));
    ok(&wavekit(&["decode", &p(&wkv), "-o", &p(&back), "--cpu"]));
    assert!(read_y4m(&back).1 == src_frames, "lossless y4m is not exact");
    // Mistakes: a stream to a PNG, a --chroma that is not the stream's, a 4:2:2 stream.
    let out = wavekit(&["decode", &p(&wkv), "-o", &p(&d.join("x.png")), "--cpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give a .y4m output"));
    let out = wavekit(&[
        "encode",
        &p(&src),
        "-o",
        &p(&wkv),
        "--bpp",
        "1",
        "--chroma",
        "444",
        "--cpu",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the stream is Yuv420"));
    let c422 = d.join("c422.y4m");
    std::fs::write(&c422, b"YUV4MPEG2 W4 H4 C422\nFRAME\n").unwrap();
    let out = wavekit(&["encode", &p(&c422), "-o", &p(&wkv), "--bpp", "1", "--cpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("C422"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A stream cut short: whole frames decoded, the cut one concealed, all reported.
    ok(&wavekit(&[
        "encode",
        &p(&src),
        "-o",
        &p(&wkv),
        "--bytes",
        "700",
        "--cpu",
    ]));
    let bytes = std::fs::read(&wkv).unwrap();
    let cut = d.join("cut.wkv");
    std::fs::write(&cut, &bytes[..bytes.len() - 300]).unwrap();
    let out = wavekit(&["decode", &p(&cut), "-o", &p(&back), "--cpu"]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("frame 2"));
    assert_eq!(read_y4m(&back).1.len(), 3);
    // A single PNG-coded frame to .y4m: full range, one frame.
    let png = d.join("one.png");
    image::RgbImage::from_fn(32, 16, |x, y| {
        image::Rgb([(x * 8) as u8, (y * 16) as u8, 90])
    })
    .save(&png)
    .unwrap();
    let one = d.join("one.wkv");
    ok(&wavekit(&[
        "encode",
        &p(&png),
        "-o",
        &p(&one),
        "--bpp",
        "4",
        "--cpu",
    ]));
    ok(&wavekit(&["decode", &p(&one), "-o", &p(&back), "--cpu"]));
    let (info, frames) = read_y4m(&back);
    assert!(!info.limited && frames.len() == 1 && info.width == 32);
}

/// The GPU writes the CPU's stream bytes and the CPU's decoded `.y4m`, damaged frames included.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_y4m_streams_equal_the_cpus() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-y4m-gpu-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    for (c444, lossless) in [(false, false), (true, true)] {
        let src = d.join("in.y4m");
        // Three frames: the GPU keeps two in flight, so the third waits for the first.
        std::fs::write(&src, y4m_stream(48, 32, c444, 3, 7)).unwrap();
        let (g, c) = (d.join("g.wkv"), d.join("c.wkv"));
        let size: &[&str] = if lossless {
            &["--lossless"]
        } else {
            &["--bytes", "500"]
        };
        for (o, cpu) in [(&g, false), (&c, true)] {
            let mut args = vec!["encode".to_string(), p(&src), "-o".into(), p(o)];
            args.extend(size.iter().map(|s| s.to_string()));
            if cpu {
                args.push("--cpu".into());
            }
            ok(&wavekit(
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
        }
        let mut bytes = std::fs::read(&g).unwrap();
        assert!(
            bytes == std::fs::read(&c).unwrap(),
            "GPU and CPU streams differ"
        );
        let n = bytes.len();
        bytes[n - 30] ^= 0x33;
        let damaged = d.join("damaged.wkv");
        std::fs::write(&damaged, &bytes).unwrap();
        for input in [&g, &damaged] {
            let (gy, cy) = (d.join("g.y4m"), d.join("c.y4m"));
            ok(&wavekit(&["decode", &p(input), "-o", &p(&gy)]));
            ok(&wavekit(&["decode", &p(input), "-o", &p(&cy), "--cpu"]));
            assert!(
                read_y4m(&gy).1 == read_y4m(&cy).1,
                "GPU and CPU .y4m differ"
            );
        }
    }
}

/// `codec bench --stream N`: N frames decoded back to back with frames in flight, each
/// decoder's last frame equal to the same frame decoded alone; a stream of none refused.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn codec_bench_stream_decodes_frames_in_flight() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-codec-stream-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let png = d.join("in.png");
    image::RgbImage::from_fn(130, 66, |x, y| {
        image::Rgb([(x * 5) as u8, (y * 3) as u8, ((x ^ y) * 4) as u8])
    })
    .save(&png)
    .unwrap();
    let png = png.to_str().unwrap();
    let out = wavekit(&[
        "codec",
        "bench",
        "--frames",
        png,
        "--bpp",
        "1",
        "--chroma",
        "420,444",
        "--stream",
        "7",
        "--in-flight",
        "3",
        "--json",
    ]);
    let text = ok(&out);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for r in &rows {
        assert_eq!(r["frames"], 7, "{r}");
        assert_eq!(r["distinct"], 7, "{r}");
        assert_eq!(r["in_flight"], 3, "{r}");
        assert_eq!(r["stream_equals_single"], true, "{r}");
        let (fps, p50, p99) = (
            r["frames_per_second"].as_f64().unwrap(),
            r["latency_median_us"].as_f64().unwrap(),
            r["latency_p99_us"].as_f64().unwrap(),
        );
        assert!(fps > 0.0 && p50 > 0.0 && p99 >= p50, "{r}");
    }
    let out = wavekit(&["codec", "bench", "--frames", png, "--stream", "0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--stream 0"), "{err}");
}

/// `codec bench --pixels ycbcr`: the coders take and give 8-bit planar YCbCr (PyroWave's
/// form); the GPU's bytes and planes equal the CPU's, every frame in its budget; a stream of
/// YCbCr refused.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn codec_bench_codes_ycbcr_pictures_in_and_out() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-codec-ycbcr-")
        .tempdir()
        .unwrap();
    let png = temp.path().join("in.png");
    image::RgbImage::from_fn(98, 70, |x, y| {
        image::Rgb([(x * 7) as u8, (y * 3 + x) as u8, ((x ^ y) * 5) as u8])
    })
    .save(&png)
    .unwrap();
    let png = png.to_str().unwrap();
    let text = ok(&wavekit(&[
        "codec",
        "bench",
        "--frames",
        png,
        "--bpp",
        "1,2",
        "--chroma",
        "420,444",
        "--pixels",
        "ycbcr",
        "--stages",
        "--runs",
        "2",
        "--rounds",
        "1",
        "--warm-up-ms",
        "1",
        "--json",
    ]));
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    for r in &rows {
        assert_eq!(r["pixels"], "ycbcr", "{r}");
        assert_eq!(r["gpu_equals_cpu"], true, "{r}");
        assert_eq!(r["gpu_bytes_equal_cpu"], true, "{r}");
        assert!(
            r["bytes"].as_u64().unwrap() <= r["budget"].as_u64().unwrap(),
            "{r}"
        );
        assert!(r["psnr_y"].as_f64().unwrap() > 20.0, "{r}");
        assert!(r["encode_median_us"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["stages_us"].as_array().unwrap().len(), 8, "{r}");
    }
    let out = wavekit(&[
        "codec", "bench", "--frames", png, "--pixels", "ycbcr", "--stream", "3",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pixels ycbcr"), "{err}");
}
