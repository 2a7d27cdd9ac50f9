//! `wavekit trace` end to end: a render is a PNG of the asked size with the mesh in it, rays from
//! a .npy come back as structured hits (and bools with --any-hit) equal to the library's, the
//! benchmark writes the peer's files, and wrong input is a usage error naming what to fix.
//!
//! Run once (lavapipe's first width in the test command): the CLI's host code around the
//! kernels that `wavekit-trace`'s own `*_gpu` tests run at every width (ADR-0101).

use std::path::Path;
use std::process::{Command, Output};

use wavekit_trace::reference::brute_force;
use wavekit_trace::{Hit, Mesh, Ray};

mod common;

fn wavekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .output()
        .expect("the wavekit binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A folder of the test's own, removed when the test ends, pass or fail.
fn dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wavekit-trace-cli-")
        .tempdir()
        .unwrap()
}

/// A float32 [N, 8] .npy of `rays`.
fn write_rays(path: &Path, rays: &[Ray]) {
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, 8), }}",
        rays.len()
    );
    std::fs::write(path, common::npy_v1(&dict, bytemuck::cast_slice(rays))).unwrap();
}

/// The header and the data of a .npy file.
fn read_npy(path: &Path) -> (String, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    assert_eq!((10 + len) % 64, 0, "header not padded to 64");
    (text(&b[10..10 + len]), b[10 + len..].to_vec())
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn rays_in_hits_out_equal_the_reference() {
    let temp = dir();
    let d = temp.path();
    let mesh = Mesh::load("proc:soup:500:4").unwrap();
    let mut r = fastrand::Rng::with_seed(2);
    let rays: Vec<Ray> = (0..301)
        .map(|i| Ray {
            origin: [r.f32(), r.f32(), -1.0],
            tmin: 0.0,
            dir: [r.f32() - 0.5, r.f32() - 0.5, 1.0],
            tmax: if i % 4 == 0 { 1.1 } else { f32::INFINITY },
        })
        .collect();
    let rin = d.join("rays.npy");
    write_rays(&rin, &rays);
    let want = brute_force(&mesh, &rays);
    for kernel in ["baseline", "persistent", "compacted"] {
        let hout = d.join(format!("hits-{kernel}.npy"));
        let args = [
            "trace",
            "proc:soup:500:4",
            "--rays-in",
            rin.to_str().unwrap(),
            "--hits-out",
            hout.to_str().unwrap(),
            "--kernel",
            kernel,
        ];
        let out = wavekit(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (header, data) = read_npy(&hout);
        assert!(
            header.contains("'descr': [('t', '<f4'), ('prim', '<u4'), ('u', '<f4'), ('v', '<f4')]")
                && header.contains("'shape': (301,)"),
            "{header}"
        );
        let got: &[Hit] = bytemuck::cast_slice(&data);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                wavekit_bench::trace::same_hit(g, w),
                "{kernel} ray {i}: {g:?} {w:?}"
            );
        }
        let oout = d.join(format!("occ-{kernel}.npy"));
        let mut any = args.to_vec();
        any[5] = oout.to_str().unwrap();
        any.push("--any-hit");
        let out = wavekit(&any);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (header, data) = read_npy(&oout);
        assert!(header.contains("'descr': '|b1'"), "{header}");
        let flags: Vec<bool> = data.iter().map(|&b| b != 0).collect();
        let want_any: Vec<bool> = want.iter().map(Hit::is_hit).collect();
        assert_eq!(flags, want_any, "{kernel} any hit");
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn renders_are_pngs_of_the_mesh() {
    let temp = dir();
    let d = temp.path();
    for (rays, builder) in [("primary", "sah"), ("shadow", "lbvh"), ("diffuse", "sah")] {
        let png = d.join(format!("{rays}.png"));
        let out = wavekit(&[
            "trace",
            "proc:grid:4",
            "-o",
            png.to_str().unwrap(),
            "--rays",
            rays,
            "--builder",
            builder,
            "--size",
            "96x64",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("wrote"), "{}", text(&out.stdout));
        let img = image::open(&png).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (96, 64));
        // The background is blue-grey; the mesh is lit warm (red above blue): both appear.
        let lit = img.pixels().filter(|p| p[0] > p[2]).count();
        assert!(lit > 200 && lit < 96 * 64, "{rays}: {lit} lit pixels");
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_writes_the_peers_files() {
    let temp = dir();
    let d = temp.path().join("bench");
    let out = wavekit(&[
        "trace",
        "bench",
        "--meshes",
        "proc:grid:3",
        "--size",
        "24x16",
        "--random",
        "500",
        "--runs",
        "2",
        "--rounds",
        "1",
        "--warm-up-ms",
        "1",
        "--json",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let traces = lines.iter().filter(|l| l["record"] == "trace").count();
    assert_eq!(traces, 4 * 3, "four ray kinds, three kernels");
    assert!(
        lines
            .iter()
            .all(|l| l["mismatches"].as_u64().unwrap_or(0) == 0)
    );
    for f in [
        "vertices",
        "faces",
        "primary-rays",
        "shadow-hits",
        "random-hits",
    ] {
        assert!(d.join(format!("proc-grid-3-{f}.npy")).exists(), "{f}");
    }
    assert!(d.join("results.json").exists());
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn wrong_input_is_a_usage_error() {
    let temp = dir();
    let d = temp.path();
    let bad = d.join("bad.npy");
    std::fs::write(&bad, b"not an npy").unwrap();
    let points = d.join("points.obj");
    std::fs::write(&points, "v 0 0 0\nv 1 0 0\nv 0 1 0\n").unwrap();
    let png = d.join("never.png");
    for (args, needle) in [
        // --any-hit only applies to --rays-in; with -o it was silently ignored.
        (
            vec![
                "trace",
                "proc:plane:2",
                "-o",
                png.to_str().unwrap(),
                "--any-hit",
            ],
            "--rays-in",
        ),
        // A mesh file without triangles: an error, not a blank picture.
        (
            vec![
                "trace",
                points.to_str().unwrap(),
                "-o",
                png.to_str().unwrap(),
            ],
            "no faces",
        ),
        (vec!["trace"], "give a mesh"),
        (vec!["trace", "proc:plane:2"], "say what to do"),
        (
            vec!["trace", "proc:cube:2", "-o", "x.png"],
            "proc:KIND:SIZE",
        ),
        (vec!["trace", "nothing.stl", "-o", "x.png"], ".obj or .ply"),
        (
            vec![
                "trace",
                "proc:plane:2",
                "--rays-in",
                bad.to_str().unwrap(),
                "--hits-out",
                "h.npy",
            ],
            "bad.npy",
        ),
    ] {
        let out = wavekit(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!png.exists(), "{args:?}: an output was left behind");
    }
    // Rays that could only miss (or give NaN) are errors naming the first such ray: a zero,
    // NaN or infinite direction, a NaN or infinite origin, tmin > tmax or a NaN bound.
    let good = Ray {
        origin: [0.5, 0.5, -1.0],
        tmin: 0.0,
        dir: [0.0, 0.0, 1.0],
        tmax: f32::INFINITY,
    };
    let hits = d.join("never-hits.npy");
    for (what, bad_ray) in [
        (
            "zero direction",
            Ray {
                dir: [0.0; 3],
                ..good
            },
        ),
        (
            "NaN direction",
            Ray {
                dir: [f32::NAN, 0.0, 1.0],
                ..good
            },
        ),
        (
            "infinite direction",
            Ray {
                dir: [0.0, f32::INFINITY, 1.0],
                ..good
            },
        ),
        (
            "NaN origin",
            Ray {
                origin: [f32::NAN, 0.0, 0.0],
                ..good
            },
        ),
        (
            "infinite origin",
            Ray {
                origin: [0.0, 0.0, f32::NEG_INFINITY],
                ..good
            },
        ),
        (
            "tmin > tmax",
            Ray {
                tmin: 2.0,
                tmax: 1.0,
                ..good
            },
        ),
        (
            "NaN tmin",
            Ray {
                tmin: f32::NAN,
                ..good
            },
        ),
        (
            "NaN tmax",
            Ray {
                tmax: f32::NAN,
                ..good
            },
        ),
    ] {
        let mut rays = vec![good; 5];
        rays[3] = bad_ray;
        let rin = d.join("bad-rays.npy");
        write_rays(&rin, &rays);
        let out = wavekit(&[
            "trace",
            "proc:plane:2",
            "--rays-in",
            rin.to_str().unwrap(),
            "--hits-out",
            hits.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains("bad-rays.npy") && stderr.contains("ray 3 (row 3)"),
            "{what}: {stderr}"
        );
        assert!(!hits.exists(), "{what}: hits written");
    }
    // Outputs checked before the work: an image type wavekit does not write, a gray PNM for
    // an RGB render, the hits over the rays.
    for (name, needle) in [
        ("never.xyz", "not an image type"),
        ("never.pgm", "name a .ppm"),
    ] {
        let o = d.join(name);
        let out = wavekit(&["trace", "proc:plane:2", "-o", o.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(needle),
            "{name}: {}",
            text(&out.stderr)
        );
        assert!(!o.exists(), "{name}: a file was left behind");
    }
    let rin = d.join("rays-kept.npy");
    write_rays(&rin, &[good; 3]);
    let before = std::fs::read(&rin).unwrap();
    let out = wavekit(&[
        "trace",
        "proc:plane:2",
        "--rays-in",
        rin.to_str().unwrap(),
        "--hits-out",
        rin.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is the input file"));
    assert_eq!(
        std::fs::read(&rin).unwrap(),
        before,
        "the rays were overwritten"
    );
    let out = wavekit(&["trace", "proc:plane:2", "-o", "x.png", "--size", "0x5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("WIDTHxHEIGHT"));
}

/// `wavekit trace MESH --spp N --bounces B -o OUT.png` path traces a PNG of the asked size,
/// the same for every kernel; bad settings are usage errors and leave no file.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn path_traced_renders_are_pngs_and_agree_across_kernels() {
    let temp = dir();
    let d = temp.path();
    let mut first: Option<Vec<u8>> = None;
    for kernel in ["baseline", "persistent", "compacted"] {
        let out = d.join(format!("paths-{kernel}.png"));
        let o = wavekit(&[
            "trace",
            "proc:grid:3",
            "--spp",
            "2",
            "--bounces",
            "5",
            "--size",
            "40x30",
            "--kernel",
            kernel,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{kernel}: {}", text(&o.stderr));
        let img = image::open(&out).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (40, 30));
        // Not all sky: the mesh and the ground are in it.
        let distinct: std::collections::HashSet<_> = img.pixels().map(|p| p.0).collect();
        assert!(distinct.len() > 20, "{kernel}: {} colours", distinct.len());
        match &first {
            None => first = Some(img.into_raw()),
            Some(f) => assert!(*f == img.into_raw(), "{kernel} differs from the baseline"),
        }
    }
    let bad = d.join("bad-paths.png");
    for args in [["--spp", "0"], ["--bounces", "0"]] {
        let mut a = vec![
            "trace",
            "proc:grid:2",
            "--size",
            "8x8",
            "-o",
            bad.to_str().unwrap(),
        ];
        if args[0] == "--bounces" {
            a.extend(["--spp", "1"]);
        }
        a.extend(args);
        let o = wavekit(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(!bad.exists(), "{args:?} left a file");
    }
}
