//! A table of bad `.npy` inputs given to the commands that read them (issue 32): each run
//! must exit with 2, never panic (101) or abort, name the file in its message, and leave no
//! output behind.

use std::path::Path;
use std::process::Command;

mod common;
use common::npy_v1 as npy;

/// A folder of the test's own, removed when the test ends, pass or fail.
fn dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wavekit-bad-inputs-")
        .tempdir()
        .unwrap()
}

/// Run the CLI with no Vulkan driver visible and check it refused cleanly: exit 2, no panic,
/// and `needle` (the file or item, and the mistake) in the message.
fn refused(args: &[String], needle: &str, what: &str) {
    let o = Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{what}: wanted '{needle}' in: {stderr}"
    );
}

fn dict(descr: &str, shape: &str) -> String {
    format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}")
}

/// The bad files: (file name, bytes, or None for a folder of that name).
fn bad_files() -> Vec<(&'static str, Option<Vec<u8>>)> {
    vec![
        ("empty-descr.npy", Some(npy(&dict("''", "(3,)"), &[0; 12]))),
        (
            "non-ascii-descr.npy",
            Some(npy(&dict("'\u{e9}4'", "(3,)"), &[0; 12])),
        ),
        (
            "overflowing-shape.npy",
            Some(npy(&dict("'<u4'", "(4611686018427387904,)"), &[0; 64])),
        ),
        (
            "truncated.npy",
            Some(npy(&dict("'<u4'", "(100,)"), &[0; 8])),
        ),
        (
            "huge-2d.npy",
            Some(npy(&dict("'<f4'", "(2147483648, 2147483648)"), &[0; 64])),
        ),
        (
            "huge-rays.npy",
            Some(npy(&dict("'<f4'", "(1152921504606846976, 8)"), &[0; 64])),
        ),
        ("float64.npy", Some(npy(&dict("'<f8'", "(3,)"), &[0; 24]))),
        (
            "structured.npy",
            Some(npy(&dict("[('a', '<u4')]", "(3,)"), &[0; 12])),
        ),
        (
            "no-descr.npy",
            Some(npy("{'fortran_order': False, 'shape': (3,), }", &[0; 12])),
        ),
        (
            "bad-shape.npy",
            Some(npy(&dict("'<u4'", "(3, x)"), &[0; 12])),
        ),
        (
            "not-numpy.npy",
            Some(b"hello, this is not an array\n".to_vec()),
        ),
        ("empty-file.npy", Some(Vec::new())),
        (
            "version-9.npy",
            Some(b"\x93NUMPY\x09\x00\x10\x00{}".to_vec()),
        ),
        ("a-folder.npy", None),
    ]
}

/// Run with no Vulkan driver at all: every file is refused before a device is asked for.
#[test]
fn every_command_refuses_every_bad_npy_cleanly() {
    let temp = dir();
    let d = temp.path();
    let good = d.join("good-u32.npy");
    let mut bytes = Vec::new();
    for v in [1u32, 0, 1] {
        bytes.extend(v.to_le_bytes());
    }
    std::fs::write(&good, npy(&dict("'<u4'", "(3,)"), &bytes)).unwrap();
    let out = d.join("out.npy");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let mut tried = 0;
    for (name, content) in bad_files() {
        let bad = d.join(name);
        match &content {
            Some(b) => std::fs::write(&bad, b).unwrap(),
            None => std::fs::create_dir_all(&bad).unwrap(),
        }
        let commands: Vec<Vec<String>> = vec![
            vec!["reduce".into(), s(&bad)],
            vec!["scan".into(), s(&bad), "-o".into(), s(&out)],
            vec![
                "select".into(),
                s(&bad),
                "--flags".into(),
                s(&good),
                "-o".into(),
                s(&out),
            ],
            vec![
                "select".into(),
                s(&good),
                "--flags".into(),
                s(&bad),
                "-o".into(),
                s(&out),
            ],
            vec!["sort".into(), s(&bad), "-o".into(), s(&out)],
            vec![
                "sort".into(),
                s(&good),
                "-o".into(),
                s(&out),
                "--values".into(),
                s(&bad),
                "--values-out".into(),
                s(&d.join("out-values.npy")),
            ],
            vec![
                "histogram".into(),
                s(&bad),
                "--bins".into(),
                "4".into(),
                "--range".into(),
                "0".into(),
                "4".into(),
                "-o".into(),
                s(&out),
            ],
            vec![
                "dwt".into(),
                "forward".into(),
                s(&bad),
                "-o".into(),
                s(&out),
                "--wavelet".into(),
                "5/3".into(),
                "--levels".into(),
                "1".into(),
            ],
            vec![
                "trace".into(),
                "proc:plane:2".into(),
                "--rays-in".into(),
                s(&bad),
                "--hits-out".into(),
                s(&out),
            ],
        ];
        // Every command on the files that once panicked or could abort; on the others, one
        // command per parser (the .npy streamer, the 2-D reader, the rays' reader), for CI
        // time.
        let every = matches!(
            name,
            "empty-descr.npy"
                | "non-ascii-descr.npy"
                | "overflowing-shape.npy"
                | "huge-2d.npy"
                | "a-folder.npy"
        );
        let commands: Vec<Vec<String>> = if every {
            commands
        } else {
            [0, 7, 8].iter().map(|&i| commands[i].clone()).collect()
        };
        for args in commands {
            let _ = std::fs::remove_file(&out);
            let what = format!("{name}: wavekit {}", args.join(" "));
            refused(&args, name, &what);
            assert!(!out.exists(), "{what}: an output was left behind");
            tried += 1;
        }
    }
    eprintln!("{tried} bad inputs tried, each refused with exit 2 and the file named");
    assert_eq!(tried, 5 * 9 + (bad_files().len() - 5) * 3);
}

/// A bad file of the second table: its name and bytes.
type File = (&'static str, Vec<u8>);

/// The second table: every other kind of bad input the CLI reads (scenes, meshes, rays,
/// images, streams, coefficients, outputs that clash or cannot be written). Each row: the
/// files it needs, the arguments (`{d}` is the folder, `{out}` the row's output), and what the
/// message must say (the file or item, and the mistake). Each must exit 2 without a panic
/// and leave no output. They run with no Vulkan driver at all: each is refused before any
/// device is asked for, so before any work.
fn table() -> Vec<(Vec<File>, &'static str, &'static str)> {
    let scene =
        |items: &str| format!(r#"{{"width": 32, "height": 32, "items": [{items}]}}"#).into_bytes();
    let rect = |extra: &str| {
        scene(&format!(
            r#"{{"rect": {{"x": 1, "y": 1, "w": 8, "h": 8, {extra}}}}}"#
        ))
    };
    let mut rays = Vec::new();
    for v in [1e20f32, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, f32::INFINITY] {
        rays.extend(v.to_le_bytes());
    }
    let mut png = Vec::new();
    image::RgbImage::from_pixel(16, 16, image::Rgb([9, 9, 9]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png.truncate(png.len() / 2);
    let mut keys = Vec::new();
    for v in [3u32, 1, 2] {
        keys.extend(v.to_le_bytes());
    }
    let keys = npy(&dict("'<u4'", "(3,)"), &keys);
    vec![
        (
            vec![("colour-300.json", rect(r#""fill": [300, 0, 0, 255]"#))],
            "ui render {d}/colour-300.json -o {out}.png",
            "item 0 (rect): fill [300,0,0,255]",
        ),
        (
            vec![("radius-3.json", rect(r#""radius": [1, 2, 3]"#))],
            "ui render {d}/radius-3.json -o {out}.png --cpu",
            "item 0 (rect): radius [1,2,3]",
        ),
        (
            vec![(
                "unbalanced.json",
                scene(r#"{"push_clip": {"x": 0, "y": 0, "w": 5, "h": 5}}"#),
            )],
            "ui render {d}/unbalanced.json -o {out}.png",
            "push_clip without their pop_clip",
        ),
        (
            vec![(
                "outside.json",
                scene(r#"{"image": {"x": 0, "y": 0, "w": 5, "h": 5, "path": "../outside.png"}}"#),
            )],
            "ui render {d}/outside.json -o {out}.png",
            "../outside.png",
        ),
        (
            vec![("ok.json", rect(r#""fill": [1, 2, 3, 255]"#))],
            "ui render {d}/ok.json -o {d}/no-such-folder/out.png",
            "no-such-folder",
        ),
        (
            vec![(
                "bad-vertex.obj",
                b"v 0 0 0\nv 1 0 0\nv 0 1 x\nf 1 2 3\n".to_vec(),
            )],
            "trace {d}/bad-vertex.obj -o {out}.png",
            "bad-vertex.obj: line 3: 'v 0 1 x'",
        ),
        (
            vec![(
                "huge.obj",
                b"v 0 0 0\nv 1e18 0 0\nv 0 1e18 0\nf 1 2 3\n".to_vec(),
            )],
            "trace {d}/huge.obj -o {out}.png",
            "huge.obj: vertex 1",
        ),
        (
            vec![("text.obj", b"hello, world\n".to_vec())],
            "trace {d}/text.obj -o {out}.png",
            "text.obj: no faces",
        ),
        (
            vec![],
            "trace proc:soup:4294967295 -o {out}.png",
            "proc:soup:4294967295",
        ),
        (
            vec![("far-rays.npy", npy(&dict("'<f4'", "(1, 8)"), &rays))],
            "trace proc:plane:2 --rays-in {d}/far-rays.npy --hits-out {out}.npy",
            "far-rays.npy: ray 0 (row 0) has origin [1e20, 0.0, 0.0], beyond ±2^40",
        ),
        (
            vec![("maxval-1000.pgm", b"P2\n2 1\n1000\n5 999\n".to_vec())],
            "dwt forward {d}/maxval-1000.pgm -o {out}.npy --wavelet 5/3 --levels 1",
            "maxval-1000.pgm",
        ),
        (
            vec![("cut.png", png)],
            "encode {d}/cut.png -o {out}.wkf --bytes 500 --cpu",
            "cut.png",
        ),
        (
            vec![("garbage.wkf", b"this is not a coded frame at all".to_vec())],
            "decode {d}/garbage.wkf -o {out}.png --cpu",
            "garbage.wkf",
        ),
        (
            vec![("bad.y4m", b"YUV4MPEG2 W0 H-3 F30:1\nFRAME\n".to_vec())],
            "encode {d}/bad.y4m -o {out}.wkv --bytes 500 --cpu",
            "bad.y4m",
        ),
        (
            vec![("keys.npy", keys.clone()), ("values.npy", keys)],
            "sort {d}/keys.npy -o {out}.npy --values {d}/values.npy --values-out {out}.npy",
            "out.npy",
        ),
        (
            vec![],
            "histogram {d}/keys.npy --bins 4 --range 0 -o {out}.npy",
            "--range",
        ),
    ]
}

#[test]
fn every_kind_of_bad_input_is_refused_cleanly() {
    let temp = dir();
    let d = temp.path().join("table");
    std::fs::create_dir_all(&d).unwrap();
    let folder = d.to_str().unwrap().to_string();
    let mut tried = 0;
    for (i, (files, args, needle)) in table().into_iter().enumerate() {
        for (name, bytes) in &files {
            std::fs::write(d.join(name), bytes).unwrap();
        }
        let out = format!("{folder}/row{i}-out");
        let args: Vec<String> = args
            .split(' ')
            .map(|a| a.replace("{d}", &folder).replace("{out}", &out))
            .collect();
        let what = format!("row {i}: wavekit {}", args.join(" "));
        refused(&args, needle, &what);
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!("row{i}-")))
            .collect();
        assert!(left.is_empty(), "{what}: left behind {left:?}");
        tried += 1;
    }
    eprintln!("{tried} bad inputs of other kinds, each refused with exit 2 and named");
    assert_eq!(tried, table().len());
}
