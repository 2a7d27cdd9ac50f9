//! The `wavekit` binary end to end: output formats, exit codes and error messages.

use std::process::{Command, Output};

mod common;

fn wavekit(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wavekit"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the wavekit binary runs")
}

/// `wavekit dwt DIRECTION IN [-o OUT] --wavelet W --levels L [EXTRA…]`.
fn dwt(
    direction: &str,
    input: &std::path::Path,
    out: Option<&std::path::Path>,
    wavelet: &str,
    levels: &str,
    extra: &[&str],
) -> Output {
    let mut args = vec!["dwt", direction, input.to_str().unwrap()];
    if let Some(o) = out {
        args.extend(["-o", o.to_str().unwrap()]);
    }
    args.extend(["--wavelet", wavelet, "--levels", levels]);
    args.extend(extra);
    wavekit(&args, &[])
}

/// A usage error (exit code 2) whose message contains `needle`.
fn assert_usage_error(out: &Output, needle: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn probe_json_reports_subgroups_and_limits() {
    let out = wavekit(&["probe", "--json"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sg = &v["capabilities"]["subgroups"];
    let (min, max) = (
        sg["min_size"].as_u64().unwrap(),
        sg["max_size"].as_u64().unwrap(),
    );
    assert!((1..=128).contains(&min) && min <= max && max <= 128, "{sg}");
    let limits = &v["capabilities"]["limits"];
    assert!(limits["max_storage_buffer_binding_size"].as_u64().unwrap() >= 128 << 20);
    assert!(
        limits["max_compute_workgroup_storage_size"]
            .as_u64()
            .unwrap()
            >= 16384
    );
    assert!(v["adapter"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(v["adapter"]["software"].is_boolean());
    if let Some(want) = wavekit_harness::expect_subgroup() {
        assert_eq!(max, u64::from(want));
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn selftest_prints_one_line_per_family_and_exits_zero() {
    let out = wavekit(&["selftest"], &[]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    for family in [
        "layout",
        "reduce",
        "scan",
        "ballot",
        "broadcast_first",
        "broadcast ",
        "shuffle ",
        "shuffle_relative",
        "vote",
        "divergence",
    ] {
        let line = format!("ok    {family}");
        assert!(stdout.contains(&line), "missing '{line}' in:\n{stdout}");
    }
    // Subgroup operations after divergent loops (ADR-0092): the subgroup-uniform forms must
    // be right on every adapter; the divergent ones are observations, printed either way.
    for variant in [
        "uniform_loop_break",
        "uniform_if_while",
        "uniform_call_while",
    ] {
        let line = format!("ok    {variant}");
        assert!(stdout.contains(&line), "missing '{line}' in:\n{stdout}");
    }
    for variant in ["loop_break", "if_while", "call_while"] {
        assert!(
            stdout.contains(&format!("ok    {variant} "))
                || stdout.contains(&format!("wrong {variant} ")),
            "no line for {variant} in:\n{stdout}"
        );
    }
    assert!(stdout.contains("note: this adapter"), "{stdout}");
    let out = wavekit(&["selftest", "--json", "--seed", "9"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["families"].as_array().unwrap().len(), 10);
    let variants = v["reconvergence"]["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 6, "{variants:?}");
    let range = &v["subgroup_size_range"];
    let widths = range[0].as_u64().unwrap()..=range[1].as_u64().unwrap();
    for r in variants {
        let (subgroups, wrong) = (
            r["subgroups"].as_u64().unwrap(),
            r["wrong_subgroups"].as_u64().unwrap(),
        );
        assert!(subgroups > 0, "{r}");
        assert!(!r["lanes_seen"].as_array().unwrap().is_empty(), "{r}");
        assert!(!r["ballot_seen"].as_array().unwrap().is_empty(), "{r}");
        if r["remedy"].as_bool().unwrap() {
            // Every subgroup right, every lane of it counted (256 invocations a workgroup:
            // whole subgroups at every width).
            assert_eq!(wrong, 0, "{r}");
            assert!(r["first_wrong"].is_null(), "{r}");
            for n in r["lanes_seen"].as_array().unwrap() {
                assert!(widths.contains(&n.as_u64().unwrap()), "{r}");
            }
        } else {
            assert!(wrong <= subgroups, "{r}");
            assert_eq!(wrong == 0, r["first_wrong"].is_null(), "{r}");
        }
    }
    let observed_wrong = variants
        .iter()
        .any(|r| !r["remedy"].as_bool().unwrap() && r["wrong_subgroups"].as_u64().unwrap() > 0);
    assert_eq!(
        v["reconvergence"]["note"].is_string(),
        observed_wrong,
        "{}",
        v["reconvergence"]
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bad_use_gets_a_clear_error_and_exit_code_2() {
    let out = wavekit(&["--adapter", "no-such-gpu-42", "probe"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no adapter matches 'no-such-gpu-42'"), "{err}");
    assert!(
        err.contains("0: "),
        "the available adapters are listed: {err}"
    );

    let out = wavekit(&["selftest"], &[("WAVEKIT_NO_SUBGROUPS", "1")]);
    assert_usage_error(&out, "subgroup operations");

    let out = wavekit(&["bench", "copy", "--bytes", "99999999999999"], &[]);
    assert_usage_error(&out, "over this device's max_buffer_size");
}

#[test]
fn codec_bench_refuses_coefficient_bits_it_has_not() {
    // Refused before any GPU work: no Vulkan driver needed.
    let none = [
        ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
        ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
    ];
    for bits in ["24", "16,8", "0"] {
        let out = wavekit(&["codec", "bench", "--coefficient-bits", bits], &none);
        assert_usage_error(&out, "give 16, 32 or both");
        assert!(!text(&out.stderr).contains("panicked"));
    }
    let out = wavekit(&["codec", "bench", "--coefficient-bits", "sixteen"], &none);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn no_vulkan_driver_says_how_to_install_one() {
    // Point the Vulkan loader at a driver list that does not exist: no adapter at all.
    let out = wavekit(
        &["probe"],
        &[
            ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no GPU adapter found"), "{err}");
    assert!(err.contains("mesa-vulkan-drivers"), "{err}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_copy_json_has_timings() {
    let out = wavekit(
        &[
            "bench",
            "copy",
            "--bytes",
            "65536",
            "--runs",
            "3",
            "--rounds",
            "1",
            "--warm-up-ms",
            "0",
            "--json",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["copy"][0];
    assert_eq!(r["bytes"].as_u64(), Some(65536));
    assert_eq!(r["timing"]["samples_ns"].as_array().unwrap().len(), 3);
    assert!(text(&out.stderr).contains("[1/1] copy 65536 bytes"));
}

fn read_i32(path: &std::path::Path) -> Vec<i32> {
    npyz::NpyFile::new(std::fs::File::open(path).unwrap())
        .unwrap()
        .into_vec()
        .unwrap()
}

/// A folder of the test's own, removed when the test ends, pass or fail: each test holds one
/// and names its files in it with `let tmp = |name: &str| temp.path().join(name);`.
fn tmp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wavekit-cli-")
        .tempdir()
        .unwrap()
}

/// A PGM or PPM whose maxval is not 255 or 65535 is refused with its maxval named, before
/// any work (the decoder would rescale it without a word); 255 and 65535 are read.
#[test]
fn pnm_files_of_other_maxvals_are_refused() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let pgm = |name: &str, maxval: u32, wide: bool| {
        let p = tmp(name);
        let mut bytes = format!("P5\n# made by a test\n4 2\n{maxval}\n").into_bytes();
        for i in 0..8u32 {
            let v = i * maxval / 7;
            if wide {
                bytes.extend((v as u16).to_be_bytes());
            } else {
                bytes.push(v as u8);
            }
        }
        std::fs::write(&p, bytes).unwrap();
        p
    };
    for (name, maxval, wide) in [
        ("m1000.pgm", 1000, true),
        ("m15.pgm", 15, false),
        ("m255.pgm", 255, false),
        ("m65535.pgm", 65535, true),
    ] {
        let input = pgm(name, maxval, wide);
        let o = tmp(&format!("{name}.wkv"));
        let out = wavekit(
            &[
                "encode",
                input.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
                "--cpu",
            ],
            &[],
        );
        if maxval == 255 || maxval == 65535 {
            let stderr = text(&out.stderr);
            assert!(!stderr.contains("maxval"), "{name}: {stderr}");
        } else {
            assert_usage_error(&out, &format!("maxval {maxval}"));
            assert_usage_error(&out, name);
            assert!(!o.exists(), "{name}: an output was written");
        }
    }
}

/// A bad WAVEKIT_STREAM_CHUNK_BYTES is an error naming it, before any work (it was ignored).
#[test]
fn a_bad_stream_chunk_is_an_error() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let x = tmp("chunk.npy");
    npyz::to_file_1d(&x, [1u32, 2, 3]).unwrap();
    for bad in ["0", "300", "abc", "2147483648"] {
        let out = wavekit(
            &["reduce", x.to_str().unwrap()],
            &[
                ("WAVEKIT_STREAM_CHUNK_BYTES", bad),
                ("VK_DRIVER_FILES", "/nonexistent.json"),
            ],
        );
        assert_usage_error(&out, "WAVEKIT_STREAM_CHUNK_BYTES");
        assert_usage_error(&out, bad);
    }
}

/// `--range LO HI` takes negative numbers but not the next option: `--range 0 -o h.npy` is an
/// error (it used to take `-o` as HI and then ask for -o).
#[test]
fn histogram_range_does_not_swallow_the_next_option() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let x = tmp("range.npy");
    npyz::to_file_1d(&x, [1f32, 2.0, 3.0]).unwrap();
    let h = tmp("range-out.npy");
    let no_gpu = [("VK_DRIVER_FILES", "/nonexistent.json")];
    let args = |range: &[&'static str]| {
        let mut a = vec!["histogram", x.to_str().unwrap(), "--bins", "4", "--range"];
        a.extend(range);
        a.extend(["-o", h.to_str().unwrap()]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let a = args(&["0"]);
    let out = wavekit(&a.iter().map(String::as_str).collect::<Vec<_>>(), &no_gpu);
    assert_usage_error(&out, "--range");
    assert!(!h.exists());
    // Negative levels still parse and are checked against the dtype (float32 here) before a
    // device is asked for (absent here).
    for range in [&["-3", "-1"][..], &["-3e38", "3e38"][..]] {
        let a = args(range);
        let out = wavekit(&a.iter().map(String::as_str).collect::<Vec<_>>(), &no_gpu);
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("--range"), "{range:?}: {stderr}");
        assert!(
            stderr.contains("no GPU adapter found"),
            "{range:?}: {stderr}"
        );
    }
    // A level the samples' dtype cannot hold is refused before a device is asked for.
    npyz::to_file_1d(&x, [1i32, 2, 3]).unwrap();
    let a = args(&["-3e38", "3e38"]);
    let out = wavekit(&a.iter().map(String::as_str).collect::<Vec<_>>(), &no_gpu);
    assert_usage_error(&out, "--range value '-3e38' is not a valid int32 level");
}

/// The minimum or maximum of an empty array is an error naming the file, found before any
/// device is opened (numpy raises too), for every dtype the reduce takes.
#[test]
fn an_empty_array_has_no_minimum_or_maximum() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let e = tmp("empty.npy");
    for dtype in ["i4", "u4", "f4"] {
        match dtype {
            "i4" => npyz::to_file_1d(&e, Vec::<i32>::new()).unwrap(),
            "u4" => npyz::to_file_1d(&e, Vec::<u32>::new()).unwrap(),
            _ => npyz::to_file_1d(&e, Vec::<f32>::new()).unwrap(),
        }
        for (op, name) in [("min", "minimum"), ("max", "maximum")] {
            // No Vulkan driver: the error must come before the device.
            let out = wavekit(
                &["reduce", e.to_str().unwrap(), "--op", op],
                &[("VK_DRIVER_FILES", "/nonexistent.json")],
            );
            assert_usage_error(&out, &format!("the array is empty: it has no {name}"));
            assert_usage_error(&out, "empty.npy");
            assert!(out.stdout.is_empty(), "{dtype} {op}: {}", text(&out.stdout));
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn reduce_scan_and_select_on_npy_files() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let x = tmp("x.npy");
    npyz::to_file_1d(&x, [3i32, -1, 4, -1, 5]).unwrap();
    let out = wavekit(&["reduce", x.to_str().unwrap(), "--op", "min"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "-1");

    let y = tmp("y.npy");
    let out = wavekit(
        &[
            "scan",
            x.to_str().unwrap(),
            "-o",
            y.to_str().unwrap(),
            "--exclusive",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = read_i32(&y);
    assert_eq!(got, [0, 3, 2, 6, 5]);

    let f = tmp("f.npy");
    npyz::to_file_1d(&f, [true, false, true, false, true]).unwrap();
    let out = wavekit(
        &[
            "select",
            x.to_str().unwrap(),
            "--flags",
            f.to_str().unwrap(),
            "-o",
            y.to_str().unwrap(),
            "--partition",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "3");
    let got = read_i32(&y);
    assert_eq!(got, [3, 4, 5, -1, -1]);

    // An empty array sums to 0, as in numpy.
    let e = tmp("empty-sum.npy");
    npyz::to_file_1d(&e, Vec::<u32>::new()).unwrap();
    let out = wavekit(&["reduce", e.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "0");

    // Bad input: a dtype wavekit does not take, and flags of the wrong length.
    let d = tmp("d.npy");
    npyz::to_file_1d(&d, [1.0f64]).unwrap();
    let out = wavekit(&["reduce", d.to_str().unwrap()], &[]);
    assert_usage_error(&out, "dtype '<f8' is not supported");
    npyz::to_file_1d(&f, [true]).unwrap();
    let out = wavekit(
        &[
            "select",
            x.to_str().unwrap(),
            "--flags",
            f.to_str().unwrap(),
            "-o",
            y.to_str().unwrap(),
        ],
        &[],
    );
    assert_usage_error(&out, "1 flags for 5 elements");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn an_unsupported_sort_key_dtype_is_named_in_one_clean_line() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let o = tmp("keys-bad-out.npy");
    let u8_keys = tmp("keys-u8.npy");
    npyz::to_file_1d(&u8_keys, [3u8, 1, 2]).unwrap();
    let f64_keys = tmp("keys-f64.npy");
    npyz::to_file_1d(&f64_keys, [2.5f64, 1.0]).unwrap();
    for (keys, needle) in [
        (&u8_keys, "use uint32, int32, float32 or uint64"),
        (&f64_keys, "is not supported"),
    ] {
        let out = wavekit(
            &["sort", keys.to_str().unwrap(), "-o", o.to_str().unwrap()],
            &[],
        );
        assert_usage_error(&out, needle);
        let stderr = text(&out.stderr);
        // No line continuation lost in the message: no run of spaces inside it.
        assert!(!stderr.trim_end().contains("  "), "{stderr:?}");
        assert!(!o.exists(), "a failed sort left its output behind");
    }
}

#[test]
fn encode_and_decode_a_png_at_a_budget_without_a_gpu() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let png = tmp("frame.png");
    let img = image::RgbImage::from_fn(96, 64, |x, y| {
        image::Rgb([(x * 2) as u8, (y * 3) as u8, ((x ^ y) * 4) as u8])
    });
    img.save(&png).unwrap();
    let wkv = tmp("frame.wkv");
    let out = wavekit(
        &[
            "encode",
            png.to_str().unwrap(),
            "-o",
            wkv.to_str().unwrap(),
            "--bytes",
            "1500",
            "--cpu",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("PSNR-Y") && stdout.contains("PSNR-RGB"),
        "{stdout}"
    );
    let len = std::fs::metadata(&wkv).unwrap().len();
    assert!(len <= 1500 && len * 100 >= 1500 * 97, "{len}");
    let back = tmp("frame-back.png");
    let out = wavekit(
        &[
            "decode",
            wkv.to_str().unwrap(),
            "-o",
            back.to_str().unwrap(),
            "--cpu",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(image::open(&back).unwrap().to_rgb8().dimensions(), (96, 64));
    // Bad input: no budget, a budget below the header, the input as the output, not a frame,
    // an odd size at 4:2:0; each exit 2, the input untouched, no output left.
    let before = std::fs::read(&png).unwrap();
    let x = tmp("never.wkv");
    for (args, needle) in [
        (
            vec![
                "encode",
                png.to_str().unwrap(),
                "-o",
                x.to_str().unwrap(),
                "--cpu",
            ],
            "--bytes N or --bpp X",
        ),
        (
            vec![
                "encode",
                png.to_str().unwrap(),
                "-o",
                x.to_str().unwrap(),
                "--bytes",
                "9",
                "--cpu",
            ],
            "too small",
        ),
        (
            vec![
                "encode",
                png.to_str().unwrap(),
                "-o",
                png.to_str().unwrap(),
                "--bpp",
                "1",
                "--cpu",
            ],
            "is the input file",
        ),
        (
            vec![
                "decode",
                png.to_str().unwrap(),
                "-o",
                x.to_str().unwrap(),
                "--cpu",
            ],
            "not a decodable wavekit frame",
        ),
    ] {
        let out = wavekit(&args, &[]);
        assert_usage_error(&out, needle);
        assert!(!x.exists(), "{args:?} left {}", x.display());
    }
    assert_eq!(std::fs::read(&png).unwrap(), before);
    let odd = tmp("odd.png");
    image::RgbImage::new(15, 8).save(&odd).unwrap();
    let out = wavekit(
        &[
            "encode",
            odd.to_str().unwrap(),
            "-o",
            x.to_str().unwrap(),
            "--bpp",
            "2",
            "--cpu",
        ],
        &[],
    );
    assert_usage_error(&out, "4:2:0 needs even sides");
    // Lossless: no budget needed, the decode is the input exactly; 4:2:0 is refused.
    let lossless = tmp("lossless.wkv");
    let out = wavekit(
        &[
            "encode",
            png.to_str().unwrap(),
            "-o",
            lossless.to_str().unwrap(),
            "--lossless",
            "--cpu",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("bit for bit"),
        "{}",
        text(&out.stdout)
    );
    let exact = tmp("lossless.png");
    let out = wavekit(
        &[
            "decode",
            lossless.to_str().unwrap(),
            "-o",
            exact.to_str().unwrap(),
            "--cpu",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(image::open(&exact).unwrap().to_rgb8() == image::open(&png).unwrap().to_rgb8());
    let out = wavekit(
        &[
            "encode",
            png.to_str().unwrap(),
            "-o",
            x.to_str().unwrap(),
            "--lossless",
            "--chroma",
            "420",
            "--cpu",
        ],
        &[],
    );
    assert_usage_error(&out, "use 4:4:4");
    assert!(!x.exists());
    let out = wavekit(
        &[
            "encode",
            odd.to_str().unwrap(),
            "-o",
            x.to_str().unwrap(),
            "--bytes",
            "400",
            "--chroma",
            "444",
            "--cpu",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

fn read_u32(path: &std::path::Path) -> Vec<u32> {
    npyz::NpyFile::new(std::fs::File::open(path).unwrap())
        .unwrap()
        .into_vec()
        .unwrap()
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sort_and_histogram_on_npy_files() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let k = tmp("keys.npy");
    npyz::to_file_1d(&k, [2.5f32, -1.0, 2.5, -0.0, 0.0]).unwrap();
    let (o, vo) = (tmp("sorted.npy"), tmp("order.npy"));
    let out = wavekit(
        &[
            "sort",
            k.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--values-out",
            vo.to_str().unwrap(),
            "--descending",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got: Vec<f32> = npyz::NpyFile::new(std::fs::File::open(&o).unwrap())
        .unwrap()
        .into_vec()
        .unwrap();
    assert_eq!(got, [2.5, 2.5, 0.0, -0.0, -1.0]);
    assert_eq!(read_u32(&vo), [0, 2, 4, 3, 1]);

    // Values travel with u64 keys; only the low 8 bits count.
    let k64 = tmp("keys64.npy");
    npyz::to_file_1d(&k64, [0x1_0000_0003u64, 0x2, 0x5_0000_0001]).unwrap();
    let v = tmp("values.npy");
    npyz::to_file_1d(&v, [10i32, 20, 30]).unwrap();
    let out = wavekit(
        &[
            "sort",
            k64.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--values",
            v.to_str().unwrap(),
            "--values-out",
            vo.to_str().unwrap(),
            "--bits",
            "0..8",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read_i32(&vo), [30, 20, 10]);

    let x = tmp("samples.npy");
    npyz::to_file_1d(&x, [-5i32, 0, 1, 2, 9, 10, 11]).unwrap();
    let h = tmp("hist.npy");
    let out = wavekit(
        &[
            "histogram",
            x.to_str().unwrap(),
            "--bins",
            "5",
            "--range",
            "0",
            "10",
            "-o",
            h.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read_u32(&h), [2, 1, 0, 0, 1]);
    assert_eq!(text(&out.stdout).trim(), "below 1 above 2 nan 0");

    // Clear errors: a bad bit range, values without a destination, a level of the wrong type,
    // too many bins, values of a dtype the sort does not carry (named with the file).
    let v8 = tmp("values-u8.npy");
    npyz::to_file_1d(&v8, [1u8, 2, 3]).unwrap();
    let v8_out = tmp("values-out.npy");
    for (args, says) in [
        (
            vec![
                "sort",
                k.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
                "--values",
                v8.to_str().unwrap(),
                "--values-out",
                v8_out.to_str().unwrap(),
            ],
            "values-u8.npy: dtype uint8 values",
        ),
        (
            vec![
                "sort",
                k.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
                "--bits",
                "0..40",
            ],
            "sort bits 0..40",
        ),
        (
            vec![
                "sort",
                k.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
                "--bits",
                "8-16",
            ],
            "LO..HI",
        ),
        (
            vec![
                "sort",
                k.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
                "--values",
                v.to_str().unwrap(),
            ],
            "--values needs --values-out",
        ),
        (
            vec![
                "histogram",
                x.to_str().unwrap(),
                "--bins",
                "4",
                "--range",
                "0",
                "1.5",
                "-o",
                h.to_str().unwrap(),
            ],
            "not a valid int32 level",
        ),
        (
            vec![
                "histogram",
                x.to_str().unwrap(),
                "--bins",
                "5000",
                "--range",
                "0",
                "10",
                "-o",
                h.to_str().unwrap(),
            ],
            "1 to 4096",
        ),
    ] {
        let out = wavekit(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn dwt_forward_inverse_and_round_trip() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    // An RGB 8-bit PNG of odd size, a 16-bit gray PNG, a 2-D .npy.
    let rgb = tmp("rgb.png");
    let img = image::RgbImage::from_fn(37, 21, |x, y| {
        image::Rgb([(x * 7) as u8, (y * 11) as u8, ((x ^ y) * 5) as u8])
    });
    img.save(&rgb).unwrap();
    let gray16 = tmp("gray16.png");
    let g = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(19, 30, |x, y| {
        image::Luma([(x * 3001 + y * 977) as u16])
    });
    g.save(&gray16).unwrap();
    let coeffs = tmp("coeffs.npy");
    let back = tmp("back.png");
    for (input, levels) in [(&rgb, "3"), (&gray16, "5")] {
        let out = dwt("forward", input, Some(&coeffs), "5/3", levels, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let bits = if input == &rgb { "8" } else { "16" };
        let out = dwt(
            "inverse",
            &coeffs,
            Some(&back),
            "5/3",
            levels,
            &["--bits", bits],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let a = image::open(input).unwrap();
        let b = image::open(&back).unwrap();
        assert_eq!(
            a.as_bytes(),
            b.as_bytes(),
            "5/3 is exact through files: {}",
            input.display()
        );
        for wavelet in ["5/3", "9/7"] {
            let out = dwt("roundtrip", input, None, wavelet, levels, &[]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert!(text(&out.stdout).contains("largest difference"));
        }
    }
    // The coefficients' shape and type: (planes, H, W) int32.
    let out = dwt("forward", &rgb, Some(&coeffs), "5/3", "1", &[]);
    assert!(out.status.success());
    let npy = npyz::NpyFile::new(std::fs::File::open(&coeffs).unwrap()).unwrap();
    assert_eq!(npy.shape(), &[3, 21, 37]);
    // Clear errors: too many levels, a wrong coefficient type, float samples for 5/3.
    let out = dwt("forward", &rgb, Some(&coeffs), "5/3", "9", &[]);
    assert_usage_error(&out, "at most 6");
    // int32 (5/3) coefficients given to the 9/7 inverse: the note `forward` leaves after the
    // data says so; without it (a file from numpy), the dtype does.
    let out = dwt("inverse", &coeffs, Some(&back), "9/7", "1", &[]);
    assert_usage_error(&out, "made with --wavelet 5/3 --levels 1 --color none");
    let bare = tmp("coeffs-bare.npy");
    let bytes = std::fs::read(&coeffs).unwrap();
    assert_eq!(
        &bytes[bytes.len() - 16..bytes.len() - 4],
        b"wavekit-dwt\x01"
    );
    std::fs::write(&bare, &bytes[..bytes.len() - 16]).unwrap();
    let out = dwt("inverse", &bare, Some(&back), "9/7", "1", &[]);
    assert_usage_error(&out, "take i32 samples, 9/7 f32");
    // Another level count or colour transform than the coefficients were made with (issue
    // 32: 2 levels undoing 3 wrote garbage with exit 0), refused before any output.
    let out = dwt(
        "forward",
        &rgb,
        Some(&coeffs),
        "5/3",
        "3",
        &["--color", "rct"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (levels, extra) in [("2", &["--color", "rct"][..]), ("3", &[][..])] {
        let _ = std::fs::remove_file(&back);
        let out = dwt("inverse", &coeffs, Some(&back), "5/3", levels, extra);
        assert_usage_error(
            &out,
            "made with --wavelet 5/3 --levels 3 --color rct, but --wavelet 5/3",
        );
        assert!(!back.exists(), "a refused inverse left its output");
    }
    let out = dwt(
        "inverse",
        &coeffs,
        Some(&back),
        "5/3",
        "3",
        &["--color", "rct"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (a, b) = (image::open(&rgb).unwrap(), image::open(&back).unwrap());
    assert_eq!(a.as_bytes(), b.as_bytes(), "5/3 with RCT is exact");
    let f = tmp("float.npy");
    npyz::to_file_1d(&f, [1.0f32]).unwrap();
    let out = dwt("forward", &f, Some(&coeffs), "5/3", "1", &[]);
    assert_usage_error(&out, "expected (H, W)");

    // Outputs checked before the work, and no file left behind (issue 32): an unknown image
    // type, a depth the type cannot hold, a depth no image has, coefficients written as an
    // image, the input as the output; non-finite 9/7 coefficients into an image.
    let out = dwt("forward", &rgb, Some(&coeffs), "9/7", "1", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let nan = tmp("nan-coeffs.npy");
    let mut bytes = std::fs::read(&coeffs).unwrap();
    let at = bytes.len() - 4 * 100;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&nan, bytes).unwrap();
    for (direction, input, name, extra, needle) in [
        (
            "inverse",
            &coeffs,
            "out.xyz",
            &[][..],
            "not an output this command writes",
        ),
        (
            "inverse",
            &coeffs,
            "out.jpg",
            &["--bits", "16"][..],
            "cannot hold 16-bit",
        ),
        (
            "inverse",
            &coeffs,
            "out.png",
            &["--bits", "12"][..],
            "--bits 12",
        ),
        ("forward", &rgb, "out.png", &[][..], "name a .npy file"),
        (
            "inverse",
            &nan,
            "out.png",
            &[][..],
            "is NaN: an image needs finite samples",
        ),
    ] {
        let o = tmp(name);
        let _ = std::fs::remove_file(&o);
        let out = dwt(direction, input, Some(&o), "9/7", "1", extra);
        assert_usage_error(&out, needle);
        assert!(!o.exists(), "{direction} {name}: a file was left behind");
    }
    let out = dwt("inverse", &coeffs, Some(&coeffs), "9/7", "1", &[]);
    assert_usage_error(&out, "is the input file");
    // The same NaN written as .npy: numpy's answer, NaN where it spreads, not an error.
    let o = tmp("nan-back.npy");
    let out = dwt("inverse", &nan, Some(&o), "9/7", "1", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `bench primitives` reads every output back after the timed runs and checks it against the
/// CPU reference, and marks a peer's record whose fingerprint is wavekit's ("=") or not ("≠").
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_primitives_checks_outputs_and_the_peers() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    use wavekit_bench::primitives::{fingerprint, input, reference_words};
    let n = 1024;
    let data = input(n);
    let right = fingerprint(reference_words("reduce", &data).unwrap());
    let line = |p: &str, check: &str| {
        format!(
            r#"{{"primitive": "{p}", "n": {n}, "median_ns": 1000.0, "p10_ns": 1000.0, "p90_ns": 1000.0{check}}}"#
        )
    };
    let peer = tmp("peer-primitives.jsonl");
    std::fs::write(
        &peer,
        [
            line("reduce", &format!(r#", "check": "{right:016x}""#)),
            line("select", r#", "check": "0000000000000000""#),
            line("scan_inclusive", ""),
        ]
        .join("\n"),
    )
    .unwrap();
    let only = "reduce,select,scan_inclusive,partition,sort_pairs,histogram256";
    let quick = "--runs 2 --rounds 1 --warm-up-ms 1";
    let mut args = vec!["bench", "primitives", "--log2", "10", "--only", only];
    args.extend(quick.split(' '));
    args.extend(["--peer", peer.to_str().unwrap()]);
    let o = wavekit(&args, &[]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}{out}", text(&o.stderr));
    assert!(
        out.contains("outputs: 6 of 6 equal to the CPU reference"),
        "{out}"
    );
    let row = |p: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{p} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(row("reduce").contains("x= "), "{out}");
    assert!(row("select").contains("x≠ "), "{out}");
    assert!(
        row("scan_inclusive").contains("x ") && !row("scan_inclusive").contains("x= "),
        "{out}"
    );
    assert!(
        out.contains("1 the same as wavekit's, 1 different (select 1024)"),
        "{out}"
    );
    // Keys alone: the check restores the keys only (the values' buffer is not allocated).
    let mut args = vec!["bench", "primitives", "--log2", "10", "--only", "sort_keys"];
    args.extend(quick.split(' '));
    let o = wavekit(&args, &[]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}{out}", text(&o.stderr));
    assert!(
        out.contains("outputs: 1 of 1 equal to the CPU reference"),
        "{out}"
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_dwt_json_has_every_case() {
    let out = wavekit(
        &[
            "bench",
            "dwt",
            "--sizes",
            "360p",
            "--planes",
            "1",
            "--levels",
            "2",
            "--runs",
            "2",
            "--rounds",
            "1",
            "--warm-up-ms",
            "0",
            "--json",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        18,
        "three wavelets (5/3, 9/7, fixed-point 9/7), two directions, three bindings"
    );
    for binding in ["separate", "in place", "8-bit"] {
        let n = rows.iter().filter(|r| r["binding"] == binding).count();
        assert_eq!(n, 6, "{binding}");
    }
    for r in rows {
        assert!(r["tile"][0].as_u64().unwrap() >= 2, "{r}");
        assert!(r["median_ns"].as_f64().unwrap() > 0.0);
        assert!(r["bound_fraction"].as_f64().unwrap() > 0.0);
        // Two levels of 640 x 360 x 1: (640·360 + 320·180) samples, read and written (4
        // bytes a sample; the 8-bit image's side of the first level 1 byte).
        let image_side = if r["binding"] == "8-bit" { 1 } else { 4 };
        assert_eq!(
            r["bound_bytes"].as_u64().unwrap(),
            8 * (640 * 360 + 320 * 180) - (4 - image_side) * 640 * 360,
            "{r}"
        );
        // The copy floor measured in the same run, and the protocol's fields.
        assert!(r["copy_ratio"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["round_medians_ns"].as_array().unwrap().len(), 1, "{r}");
    }
    let err = text(&out.stderr);
    assert!(
        err.contains("[round 1/1] 9/7 360p x1 inverse 8-bit"),
        "progress lines: {err}"
    );
    let out = wavekit(&["bench", "dwt", "--sizes", "720p"], &[]);
    assert_usage_error(&out, "unknown size '720p'");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_probe_json_has_every_case() {
    let out = wavekit(
        &[
            "bench",
            "probe",
            "--reads",
            "4",
            "--workgroups",
            "2",
            "--background-bytes",
            "65536",
            "--runs",
            "1",
            "--rounds",
            "1",
            "--warm-up-ms",
            "0",
            "--json",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"].as_array().unwrap();
    assert_eq!(rows.len(), wavekit_bench::probe::cases().len());
    for r in rows {
        // Not a speed assertion: a missing timestamp reads as 0 or garbage.
        let ns = r["ns_per_round"].as_f64().unwrap();
        assert!(ns.is_finite() && ns > 0.0, "{r}");
    }
    let n = rows.len();
    assert!(
        text(&out.stderr).contains(&format!("[{n}/{n}]")),
        "progress lines"
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_occupancy_prints_a_peak_per_case_and_refuses_bad_sizes() {
    let out = wavekit(
        &[
            "bench",
            "occupancy",
            "--workgroups",
            "8",
            "--spin",
            "50",
            "--runs",
            "1",
            "--shared-bytes",
            "4,1024",
            "--workgroup",
            "32,64",
            "--json",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "every combination of the lists");
    for r in results {
        let peak = r["peak"].as_u64().unwrap();
        assert!((1..=8).contains(&peak), "{r}");
    }
    let out = wavekit(&["bench", "occupancy", "--shared-bytes", "6"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("multiple of 4"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bench_chain_prints_every_length_with_its_step() {
    let out = wavekit(
        &[
            "bench",
            "chain",
            "--workgroups",
            "1,3",
            "--dispatches",
            "2",
            "--runs",
            "2",
            "--rounds",
            "1",
            "--warm-up-ms",
            "0",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let rows: Vec<&str> = stdout.lines().skip(2).collect();
    assert_eq!(rows.len(), 6, "0 to 2 dispatches for each size:\n{stdout}");
    // The first row of each size has no step; the others have one. The clock column ends
    // each row.
    for (i, row) in rows.iter().enumerate() {
        let step = row.split_whitespace().nth(3).unwrap();
        assert_eq!(step == "-", i % 3 == 0, "{row}");
    }
    let out = wavekit(&["bench", "chain", "--dispatches", "65"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("at most 64"),
        "{}",
        text(&out.stderr)
    );
}

/// A big-endian `<u4` file written by hand (numpy's `>u4`).
fn write_big_endian_u32(path: &std::path::Path, v: &[u32]) {
    let dict = format!(
        "{{'descr': '>u4', 'fortran_order': False, 'shape': ({},), }}",
        v.len()
    );
    let mut header = dict;
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for x in v {
        bytes.extend(x.to_be_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

/// The commands stream files through staging chunks: with chunks of 1 KiB, 10 007 elements take
/// many chunks and a partial last one; every output is checked against a plain reference, and
/// a big-endian file and one-byte flags are converted on the way in.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn files_stream_through_many_chunks() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let env = [("WAVEKIT_STREAM_CHUNK_BYTES", "1024")];
    let n = 10_007usize;
    let mut r = fastrand::Rng::with_seed(77);
    let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
    let xs = tmp("stream-x.npy");
    npyz::to_file_1d(&xs, x.iter().copied()).unwrap();
    let out = tmp("stream-out.npy");
    let run = |args: &[&str]| {
        let o = wavekit(args, &env);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        o
    };
    // Reduce (wrapping sum) and the inclusive scan.
    let o = run(&["reduce", xs.to_str().unwrap(), "--timings"]);
    let sum = x.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(text(&o.stdout).trim(), sum.to_string());
    let err = text(&o.stderr);
    for phase in [
        "device",
        "read + upload",
        "reduce + read back",
        "total (from process start)",
    ] {
        assert!(err.contains(&format!("timings: {phase}")), "{err}");
    }
    run(&["scan", xs.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let mut acc = 0u32;
    let want: Vec<u32> = x
        .iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect();
    assert_eq!(read_u32(&out), want);
    // A big-endian file: the same scan.
    let be = tmp("stream-be.npy");
    write_big_endian_u32(&be, &x);
    run(&["scan", be.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(read_u32(&out), want, "big-endian input");
    // Select and partition with one-byte flags.
    let flags: Vec<u8> = (0..n).map(|_| r.u8(..) & 3).collect();
    let fs = tmp("stream-flags.npy");
    npyz::to_file_1d(&fs, flags.iter().copied()).unwrap();
    let kept: Vec<u32> = x
        .iter()
        .zip(&flags)
        .filter(|(_, f)| **f != 0)
        .map(|(&v, _)| v)
        .collect();
    let o = run(&[
        "select",
        xs.to_str().unwrap(),
        "--flags",
        fs.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(text(&o.stdout).trim(), kept.len().to_string());
    assert_eq!(read_u32(&out), kept);
    run(&[
        "select",
        xs.to_str().unwrap(),
        "--flags",
        fs.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--partition",
    ]);
    let rest = x
        .iter()
        .zip(&flags)
        .filter(|(_, f)| **f == 0)
        .map(|(&v, _)| v);
    let want: Vec<u32> = kept.iter().copied().chain(rest).collect();
    assert_eq!(read_u32(&out), want);
    // Sort pairs: few distinct keys, so stability shows in the values.
    let keys: Vec<u32> = (0..n).map(|_| r.u32(..64)).collect();
    let ks = tmp("stream-keys.npy");
    npyz::to_file_1d(&ks, keys.iter().copied()).unwrap();
    let perm = tmp("stream-perm.npy");
    run(&[
        "sort",
        ks.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--values-out",
        perm.to_str().unwrap(),
    ]);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| keys[i as usize]);
    assert_eq!(read_u32(&perm), order);
    let sorted: Vec<u32> = order.iter().map(|&i| keys[i as usize]).collect();
    assert_eq!(read_u32(&out), sorted);
    // The histogram of the same keys in 16 bins over [0, 64).
    let h = tmp("stream-hist.npy");
    let o = run(&[
        "histogram",
        ks.to_str().unwrap(),
        "--bins",
        "16",
        "--range",
        "0",
        "64",
        "-o",
        h.to_str().unwrap(),
    ]);
    let mut want = vec![0u32; 16];
    for &k in &keys {
        want[(k / 4) as usize] += 1;
    }
    assert_eq!(read_u32(&h), want);
    assert_eq!(text(&o.stdout).trim(), "below 0 above 0 nan 0");
    // A truncated file is a clear error, not a crash.
    let bytes = std::fs::read(&xs).unwrap();
    std::fs::write(&be, &bytes[..bytes.len() - 5]).unwrap();
    let o = wavekit(&["reduce", be.to_str().unwrap()], &env);
    assert_usage_error(&o, "truncated: the header says 10007 elements");
}

/// `--color rct|ict` on an RGB image: the round trip checks pass (exact for RCT with 5/3), the
/// forward and inverse through files give the image back, and a wrong pairing or a gray image
/// is a usage error.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn dwt_colour_transforms_on_an_rgb_image() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let mut r = fastrand::Rng::with_seed(9);
    let (w, h) = (37u32, 29u32);
    let img = image::RgbImage::from_fn(w, h, |_, _| image::Rgb([r.u8(..), r.u8(..), r.u8(..)]));
    let png = tmp("rgb-colour.png");
    img.save(&png).unwrap();
    for (wavelet, color) in [("5/3", "rct"), ("9/7", "ict")] {
        let out = dwt("roundtrip", &png, None, wavelet, "3", &["--color", color]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let c = tmp("rgb-coeffs.npy");
    let back = tmp("rgb-back.png");
    let out = dwt("forward", &png, Some(&c), "5/3", "3", &["--color", "rct"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = dwt("inverse", &c, Some(&back), "5/3", "3", &["--color", "rct"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        image::open(&back).unwrap().to_rgb8(),
        img,
        "RCT round trip through files"
    );
    let out = dwt("forward", &png, Some(&c), "9/7", "3", &["--color", "rct"]);
    assert_usage_error(&out, "pairs RCT with the 5/3");
    let gray = tmp("gray.png");
    image::GrayImage::from_pixel(8, 8, image::Luma([7]))
        .save(&gray)
        .unwrap();
    let out = dwt("forward", &gray, Some(&c), "5/3", "2", &["--color", "rct"]);
    assert_usage_error(&out, "three planes");
}

/// `wavekit ui render` on the issue's example scene (font and image by path), `--size`,
/// `--cpu`, a bad scene, and `wavekit ui demo`.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn ui_render_demo_and_scene_errors() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let dir = tmp("ui");
    std::fs::create_dir_all(&dir).unwrap();
    let system = std::path::Path::new("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    let font = if system.exists() {
        std::fs::copy(system, dir.join("DejaVuSans.ttf")).unwrap();
        "DejaVuSans.ttf"
    } else {
        eprintln!("fonts-dejavu-core is not installed: the scene uses the embedded font");
        "embedded:dejavu-sans"
    };
    image::RgbaImage::from_fn(16, 16, |x, y| {
        image::Rgba([(x * 16) as u8, (y * 16) as u8, 90, 255])
    })
    .save(dir.join("icon.png"))
    .unwrap();
    let scene = format!(
        r#"{{"width": 320, "height": 200, "background": [255, 255, 255, 255],
         "items": [
           {{"rect": {{"x": 10, "y": 10, "w": 120, "h": 40, "radius": [8, 8, 8, 8], "fill": [40, 90, 200, 255],
                     "border": {{"width": 2, "color": [0, 0, 0, 255]}}}}}},
           {{"circle": {{"cx": 200, "cy": 60, "r": 20, "fill": [220, 40, 40, 255]}}}},
           {{"text": {{"x": 20, "y": 36, "size": 14, "color": [255, 255, 255, 255], "font": "{font}", "text": "OK"}}}},
           {{"image": {{"x": 150, "y": 100, "w": 64, "h": 64, "path": "icon.png", "filter": "bilinear"}}}},
           {{"push_clip": {{"x": 0, "y": 90, "w": 140, "h": 100, "radius": 6}}}},
           {{"rect": {{"x": 5, "y": 95, "w": 300, "h": 20, "fill": [0, 160, 0, 128]}}}},
           {{"pop_clip": {{}}}},
           {{"paragraph": {{"x": 220, "y": 110, "width": 95, "size": 13, "font": "embedded:noto-samples",
                          "text": "Hello مرحبا 你好 👍🏽", "align": "center"}}}},
           {{"paragraph": {{"x": 220, "y": 170, "size": 12, "font": "{font}", "text": "カ"}}}}
         ]}}"#
    );
    let path = dir.join("scene.json");
    std::fs::write(&path, scene).unwrap();
    let p = path.to_str().unwrap();
    let out = dir.join("out.png");
    let o = wavekit(&["ui", "render", p, "-o", out.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The katakana no font of the scene covers: drawn as a box, reported once.
    let err = text(&o.stderr);
    assert_eq!(
        err.matches("no font of the scene covers").count(),
        1,
        "{err}"
    );
    assert!(err.contains("U+30AB"), "{err}");
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (320, 200));
    // The paragraph drew ink, the emoji in colour (a pixel far from grey).
    let colourful = (220..315)
        .flat_map(|x| (110..165).map(move |y| (x, y)))
        .any(|(x, y)| {
            let [r, g, b, _] = img.get_pixel(x, y).0;
            r.max(g).max(b) - r.min(g).min(b) > 60
        });
    assert!(colourful, "no colour glyph in the paragraph");
    assert_eq!(img.get_pixel(100, 20).0, [40, 90, 200, 255], "the button");
    assert_eq!(img.get_pixel(200, 60).0, [220, 40, 40, 255], "the circle");
    assert_eq!(
        img.get_pixel(100, 105).0,
        [127, 207, 127, 255],
        "the clipped green rect"
    );
    assert_eq!(img.get_pixel(250, 105).0, [255; 4], "clipped away");
    let cpu = dir.join("cpu.png");
    let o = wavekit(
        &["ui", "render", p, "-o", cpu.to_str().unwrap(), "--cpu"],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let c = image::open(&cpu).unwrap().to_rgba8();
    let worst = img
        .as_raw()
        .iter()
        .zip(c.as_raw())
        .map(|(a, b)| a.abs_diff(*b))
        .max();
    assert!(worst <= Some(1), "GPU and CPU differ by {worst:?}");
    let small = dir.join("small.png");
    let render_at = |size: &str| {
        wavekit(
            &[
                "ui",
                "render",
                p,
                "-o",
                small.to_str().unwrap(),
                "--size",
                size,
            ],
            &[],
        )
    };
    let o = render_at("64x48");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        image::open(&small).unwrap().to_rgba8().dimensions(),
        (64, 48)
    );
    // A frame larger than the adapter binds (lavapipe: 128 MiB): the largest it takes, not
    // wgpu's validation text (issue 32).
    let probe = wavekit(&["probe", "--json"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let binds = v["capabilities"]["limits"]["max_storage_buffer_binding_size"]
        .as_u64()
        .unwrap();
    let o = render_at("16384x16384");
    let e = text(&o.stderr);
    if binds < 1 << 30 {
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            e.contains("a 16384 x 16384 frame needs a 1024 MiB pixel buffer")
                && e.contains("render a smaller size")
                && !e.contains("Validation"),
            "{e}"
        );
    } else {
        assert!(o.status.success(), "{e}");
    }
    std::fs::write(dir.join("bad.json"), r#"{"width": 9, "height": 9, "items": [{"rect": {"x": 0, "y": 0, "w": 1, "h": 1}}, {"blob": {}}]}"#).unwrap();
    let o = wavekit(
        &[
            "ui",
            "render",
            dir.join("bad.json").to_str().unwrap(),
            "-o",
            small.to_str().unwrap(),
        ],
        &[],
    );
    assert_usage_error(&o, "item 1 (blob): unknown item kind");
    let demo = dir.join("demo.png");
    let o = wavekit(&["ui", "demo", "-o", demo.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains(demo.to_str().unwrap()));
    assert_eq!(
        image::open(&demo).unwrap().to_rgba8().dimensions(),
        (560, 360)
    );
}

/// A Fortran-ordered array (numpy's `np.asfortranarray`) is read in numpy's element order: its
/// coefficients equal those of the same array in C order (issue 32).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_fortran_ordered_array_reads_as_numpy_means_it() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let (p, h, w) = (2usize, 5usize, 7usize);
    let value = |plane: usize, r: usize, c: usize| (plane * 1000 + r * 37 + c * 11) as i32 % 97;
    let npy = |fortran: bool, shape: &[usize], data: Vec<i32>| {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let dict = format!(
            "{{'descr': '<i4', 'fortran_order': {}, 'shape': ({}), }}",
            if fortran { "True" } else { "False" },
            dims.join(", ")
        );
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        common::npy_v1(&dict, &bytes)
    };
    // 3-D (planes, H, W) and 2-D (H, W).
    for planes in [p, 1] {
        let shape: Vec<usize> = if planes == 1 {
            vec![h, w]
        } else {
            vec![p, h, w]
        };
        let mut c_data = Vec::new();
        for plane in 0..planes {
            for r in 0..h {
                for c in 0..w {
                    c_data.push(value(plane, r, c));
                }
            }
        }
        // Fortran order: the first index fastest.
        let mut f_data = Vec::new();
        for c in 0..w {
            for r in 0..h {
                for plane in 0..planes {
                    f_data.push(value(plane, r, c));
                }
            }
        }
        let (cf, ff) = (tmp("c-order.npy"), tmp("f-order.npy"));
        std::fs::write(&cf, npy(false, &shape, c_data)).unwrap();
        std::fs::write(&ff, npy(true, &shape, f_data)).unwrap();
        let (co, fo) = (tmp("c-coeffs.npy"), tmp("f-coeffs.npy"));
        for (i, o) in [(&cf, &co), (&ff, &fo)] {
            let out = dwt("forward", i, Some(o), "5/3", "2", &[]);
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        assert_eq!(read_i32(&co), read_i32(&fo), "{planes} planes");
    }
}

/// Two outputs naming one file, an output naming the other input, or an output in a missing
/// folder: an error before any work, and no file written (issue 32: the sorted keys were
/// lost under the values).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sort_outputs_are_checked_before_the_work() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let (k, v) = (tmp("out-keys.npy"), tmp("out-vals.npy"));
    npyz::to_file_1d(&k, [3u32, 1, 2]).unwrap();
    npyz::to_file_1d(&v, [30u32, 10, 20]).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let same = tmp("out-same.npy");
    let _ = std::fs::remove_file(&same);
    let out = wavekit(
        &[
            "sort",
            &s(&k),
            "-o",
            &s(&same),
            "--values",
            &s(&v),
            "--values-out",
            &s(&same),
        ],
        &[],
    );
    assert_usage_error(&out, "named for both");
    assert!(!same.exists(), "a file was written");
    let lone = tmp("out-lone.npy");
    let _ = std::fs::remove_file(&lone);
    let out = wavekit(
        &[
            "sort",
            &s(&k),
            "-o",
            &s(&lone),
            "--values-out",
            "/nonexistent-wavekit/v.npy",
        ],
        &[],
    );
    assert_usage_error(&out, "no such folder");
    assert!(!lone.exists(), "the keys were written before the error");
    // The keys' output naming the values input.
    let out = wavekit(
        &[
            "sort",
            &s(&k),
            "-o",
            &s(&v),
            "--values",
            &s(&v),
            "--values-out",
            &s(&lone),
        ],
        &[],
    );
    assert_usage_error(&out, "is the input file");
    assert_eq!(read_u32(&v), vec![30, 10, 20]);
    // In place, each output over its own input, still works.
    let out = wavekit(
        &[
            "sort",
            &s(&k),
            "-o",
            &s(&k),
            "--values",
            &s(&v),
            "--values-out",
            &s(&v),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        (read_u32(&k), read_u32(&v)),
        (vec![1, 2, 3], vec![10, 20, 30])
    );
}

/// `ui demo --cpu` needs no GPU: it renders the panel the web page's screenshot is compared
/// with (scripts/web-test.sh), and the knob moves it.
#[test]
fn ui_demo_on_the_cpu_needs_no_gpu_and_follows_the_knob() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let no_gpu = [
        ("VK_DRIVER_FILES", "/nonexistent.json"),
        ("VK_ICD_FILENAMES", "/nonexistent.json"),
    ];
    let render = |knob: &str, name: &str| {
        let path = tmp(name);
        let o = wavekit(
            &[
                "ui",
                "demo",
                "--cpu",
                "--knob",
                knob,
                "-o",
                path.to_str().unwrap(),
            ],
            &no_gpu,
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stdout).contains("composited on the CPU"));
        image::open(&path).unwrap().to_rgba8()
    };
    let a = render("0.62", "demo-cpu-a.png");
    let b = render("0.25", "demo-cpu-b.png");
    assert_eq!(a.dimensions(), (560, 360));
    assert_eq!(
        a,
        wavekit_ui::cpu::render(&wavekit_ui::demo::panel(0.62, 1.5).unwrap()),
        "the file is the CPU reference"
    );
    let changed = a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count();
    assert!(changed > 500, "the knob moved {changed} pixels");
    let bad = tmp("demo-cpu-bad.png");
    let o = wavekit(
        &[
            "ui",
            "demo",
            "--cpu",
            "--knob",
            "2",
            "-o",
            bad.to_str().unwrap(),
        ],
        &no_gpu,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--knob 2"), "{}", text(&o.stderr));
    assert!(!bad.exists(), "a refused command wrote its output");
    // RGBA into a file type without alpha (a .pgm used to become a P7 PAM), or one wavekit
    // does not write: refused before the work, no file; the same for `ui render`.
    let scene = tmp("demo-scene.json");
    std::fs::write(
        &scene,
        r#"{"width": 32, "height": 32, "items": [{"rect": {"x": 2, "y": 2, "w": 20, "h": 20, "fill": [255, 0, 0, 255]}}]}"#,
    )
    .unwrap();
    for (name, needle) in [
        ("panel.pgm", "holds no alpha channel"),
        ("panel.jpg", "holds no alpha channel"),
        ("panel.xyz", "not an image type wavekit writes"),
    ] {
        let out = tmp(name);
        let demo = ["ui", "demo", "--cpu", "-o", out.to_str().unwrap()];
        let render = [
            "ui",
            "render",
            scene.to_str().unwrap(),
            "--cpu",
            "-o",
            out.to_str().unwrap(),
        ];
        for args in [&demo[..], &render[..]] {
            let o = wavekit(args, &no_gpu);
            assert_usage_error(&o, needle);
            assert_usage_error(&o, name);
            assert!(!out.exists(), "{args:?}: a file was left behind");
        }
    }
    let o = wavekit(
        &[
            "ui",
            "render",
            scene.to_str().unwrap(),
            "--cpu",
            "-o",
            scene.to_str().unwrap(),
        ],
        &no_gpu,
    );
    assert_usage_error(&o, "is the input file");
    // A scene naming an image outside its folder: refused unless --allow-any-path.
    let folder = tmp("confined");
    std::fs::create_dir_all(&folder).unwrap();
    image::RgbaImage::from_pixel(2, 2, image::Rgba([9, 9, 9, 255]))
        .save(tmp("outside.png"))
        .unwrap();
    let scene = folder.join("s.json");
    std::fs::write(
        &scene,
        r#"{"width": 8, "height": 8, "items": [{"image": {"x": 0, "y": 0, "w": 2, "h": 2, "path": "../outside.png"}}]}"#,
    )
    .unwrap();
    let out = folder.join("s.png");
    let args = |extra: &'static [&'static str]| {
        let mut a = vec![
            "ui".to_string(),
            "render".into(),
            scene.display().to_string(),
            "--cpu".into(),
            "-o".into(),
            out.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let refused = args(&[]);
    let refused: Vec<&str> = refused.iter().map(String::as_str).collect();
    let o = wavekit(&refused, &no_gpu);
    assert_usage_error(&o, "outside the scene's folder");
    assert!(!out.exists());
    let allowed = args(&["--allow-any-path"]);
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    let o = wavekit(&allowed, &no_gpu);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.exists());
}

/// Fuzzing (issue 32) through the binary, no GPU needed: `.npy` inputs of `reduce` (which reads
/// its header and body before it opens a device) and PNG/PGM/PPM inputs of the CPU encoder,
/// from the corpus (`fuzz/corpus/{npy,png,pnm}`: the headers that once panicked or asked for
/// exabytes, structured dtypes, double-quoted keys, Fortran order, maxval 1000, huge sizes, files
/// cut short) and mutations of it. Each run must end with exit 0, 1 or 2 (never a panic's 101 or
/// a signal), without "panicked" in its output, and a failed run leaves no output file.
#[test]
fn fuzz_npy_and_image_inputs_through_the_binary() {
    let temp = tmp_dir();
    let tmp = |name: &str| temp.path().join(name);
    let no_gpu = [
        ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
        ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
    ];
    for (target, ext, runs) in [
        ("npy", "npy", 250),
        ("png", "png", 120),
        ("pnm", "pgm", 120),
    ] {
        let input = tmp(&format!("fuzz-in.{ext}"));
        let output = tmp(&format!("fuzz-out-{target}.wkv"));
        wavekit_harness::fuzz::fuzz(target, runs, |b| {
            std::fs::write(&input, b).unwrap();
            std::fs::remove_file(&output).ok();
            let i = input.to_str().unwrap();
            let o = output.to_str().unwrap();
            let args: Vec<&str> = if target == "npy" {
                vec!["reduce", i]
            } else {
                vec!["encode", i, "-o", o, "--bytes", "400", "--cpu"]
            };
            let out = wavekit(&args, &no_gpu);
            let stderr = text(&out.stderr);
            let code = out.status.code();
            assert!(
                matches!(code, Some(0..=2)) && !stderr.contains("panicked"),
                "{target}: exit {code:?}: {stderr}"
            );
            if code != Some(0) {
                assert!(!output.exists(), "{target}: a failed run left {o}");
            }
            code == Some(0) || stderr.contains("no GPU adapter")
        });
    }
}
