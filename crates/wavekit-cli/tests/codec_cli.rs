//! `wavekit encode` on the GPU writes the same bytes as `--cpu`, and `wavekit decode` the same
//! PNG, damaged blocks included.

use std::process::{Command, Output};

fn wavekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .output()
        .expect("the wavekit binary runs")
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_decode_writes_the_cpu_decoders_png() {
    let d = std::env::temp_dir().join(format!("wavekit-codec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
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
    let _ = std::fs::remove_dir_all(&d);
}
