//! `wavekit knn` and `wavekit radius` from `.npy` files against brute force, and the user's
//! mistakes (wrong shape or dtype, NaN points, k = 0, a negative radius, an output over an
//! input) as clear exit-2 errors with nothing written.
//!
//! Run once (lavapipe's first width in the test command): the CLI's host code around the
//! kernels that `wavekit-spatial`'s own `*_gpu` tests run at every width (ADR-0101).

use std::path::Path;
use std::process::{Command, Output};

use npyz::WriterBuilder;
use wavekit_spatial::reference::{knn_brute, radius_brute};

fn wavekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .output()
        .expect("the wavekit binary runs")
}

fn write_f32(path: &Path, data: &[f32], shape: &[u64]) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(f)
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
}

fn read<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, Vec<T>) {
    let npy = npyz::NpyFile::new(std::fs::File::open(path).unwrap()).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec().unwrap())
}

fn cloud(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut rng = fastrand::Rng::with_seed(seed);
    // On a grid of 1/8: exact ties in distance, so the tie rule decides.
    (0..n)
        .map(|_| {
            [
                rng.u8(..16) as f32 / 8.0,
                rng.u8(..16) as f32 / 8.0,
                rng.u8(..4) as f32 / 8.0,
            ]
        })
        .collect()
}

fn flat(v: &[[f32; 3]]) -> Vec<f32> {
    v.iter().flatten().copied().collect()
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_knn_and_radius_commands_equal_brute_force() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-spatial-cli-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (points, queries) = (cloud(3000, 1), cloud(400, 2));
    let (pp, qp) = (d.join("p.npy"), d.join("q.npy"));
    write_f32(&pp, &flat(&points), &[3000, 3]);
    write_f32(&qp, &flat(&queries), &[400, 3]);
    let (ip, dp) = (d.join("i.npy"), d.join("d.npy"));
    let (op, xp) = (d.join("o.npy"), d.join("x.npy"));
    for tree in ["bvh", "kd", "octree"] {
        let out = wavekit(&[
            "knn",
            &s(&pp),
            &s(&qp),
            "-k",
            "12",
            "-o",
            &s(&ip),
            "--distances",
            &s(&dp),
            "--tree",
            tree,
        ]);
        assert!(
            out.status.success(),
            "{tree}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (shape, idx) = read::<u32>(&ip);
        assert_eq!(shape, vec![400, 12]);
        let (_, d2) = read::<f32>(&dp);
        // Grid coordinates: every distance is exact in f32 on both sides, so the answers are
        // equal, ties by index included.
        let (wi, wd) = knn_brute(&points, &queries, 12, f32::INFINITY);
        assert_eq!(idx, wi, "{tree}");
        assert_eq!(d2, wd, "{tree}");
        let out = wavekit(&[
            "radius",
            &s(&pp),
            &s(&qp),
            "-r",
            "0.25",
            "--offsets",
            &s(&op),
            "--indices",
            &s(&xp),
            "--tree",
            tree,
        ]);
        assert!(
            out.status.success(),
            "{tree}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (wo, wx) = radius_brute(&points, &queries, 0.0625);
        assert_eq!(read::<u32>(&op).1, wo, "{tree}");
        assert_eq!(read::<u32>(&xp).1, wx, "{tree}");
    }
    // Fewer points than k: empty slots say so.
    let small = d.join("small.npy");
    write_f32(&small, &flat(&points[..5]), &[5, 3]);
    let out = wavekit(&["knn", &s(&small), &s(&qp), "-k", "8", "-o", &s(&ip)]);
    assert!(out.status.success());
    let (_, idx) = read::<u32>(&ip);
    assert!(idx.chunks(8).all(|r| r[5..].iter().all(|&i| i == u32::MAX)));
    // Mistakes.
    let bad2d = d.join("bad.npy");
    write_f32(&bad2d, &[0.0; 8], &[4, 2]);
    let nan = d.join("nan.npy");
    write_f32(&nan, &[0.0, f32::NAN, 1.0], &[1, 3]);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "knn".into(),
                s(&bad2d),
                s(&qp),
                "-k".into(),
                "4".into(),
                "-o".into(),
                s(&d.join("z.npy")),
            ],
            "expected points of shape [N, 3]",
        ),
        (
            vec![
                "knn".into(),
                s(&nan),
                s(&qp),
                "-k".into(),
                "4".into(),
                "-o".into(),
                s(&d.join("z.npy")),
            ],
            "must be finite",
        ),
        (
            vec![
                "knn".into(),
                s(&pp),
                s(&qp),
                "-k".into(),
                "0".into(),
                "-o".into(),
                s(&d.join("z.npy")),
            ],
            "give 1 to 64",
        ),
        (
            vec![
                "knn".into(),
                s(&pp),
                s(&qp),
                "-k".into(),
                "4".into(),
                "-o".into(),
                s(&pp),
            ],
            "is the input file",
        ),
        (
            vec![
                "radius".into(),
                s(&pp),
                s(&qp),
                "-r".into(),
                "-1".into(),
                "--offsets".into(),
                s(&op),
                "--indices".into(),
                s(&xp),
            ],
            "non-negative",
        ),
    ];
    for (args, want) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = wavekit(&a);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(want), "{args:?}: {e}");
    }
    assert!(!d.join("z.npy").exists());
    assert_eq!(read::<f32>(&pp).1, flat(&points), "an input was changed");
}
