//! A table of bad `.npy` inputs given to the commands that read them (issue 32): each run
//! must exit with 2, never panic (101) or abort, name the file in its message, and leave no
//! output behind.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::npy_v1 as npy;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("wavekit-bad-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
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

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn every_command_refuses_every_bad_npy_cleanly() {
    let d = dir();
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
            let o = Command::new(env!("CARGO_BIN_EXE_wavekit"))
                .args(&args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            let what = format!("{name}: wavekit {}", args.join(" "));
            assert_eq!(o.status.code(), Some(2), "{what}: {stderr}");
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
            assert!(
                stderr.contains(name),
                "{what}: the message does not name the file: {stderr}"
            );
            assert!(!out.exists(), "{what}: an output was left behind");
            tried += 1;
        }
    }
    eprintln!("{tried} bad inputs tried, each refused with exit 2 and the file named");
    assert_eq!(tried, 5 * 9 + (bad_files().len() - 5) * 3);
}
