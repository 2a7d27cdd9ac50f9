//! `wavekit stream send` and `recv` over UDP on the loopback (issue 47), as two processes: the
//! frames received equal the file codec's (`wavekit encode` then `decode`) where nothing was
//! lost; with loss impaired, the lost datagrams and concealed blocks are reported frame by
//! frame, and the complete frames are still exact; garbage datagrams are counted and
//! dropped; bad arguments are refused before anything is sent.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

mod common;
use common::{ok, wavekit, y4m_stream};

/// The frames of a `.y4m` file.
fn read_y4m(path: &std::path::Path) -> Vec<wavekit_codec::YcbcrImage> {
    common::read_y4m(path).1
}

/// A receiver started on a free port, and its address (from the line it prints first); its
/// other stderr lines are collected by a thread, whose result [`finish`] takes.
fn receiver(args: &[&str]) -> (Child, String, std::thread::JoinHandle<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(["stream", "recv", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the wavekit binary runs");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let at = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("no address: {line}"))
        .to_string();
    // Keep reading its progress, so that its pipe never fills.
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    (child, at, rest)
}

/// The receiver's summary line (stdout), once it has ended well; its stderr if not.
fn finish(rx: Child, err: std::thread::JoinHandle<String>) -> String {
    let out = rx.wait_with_output().unwrap();
    let err = err.join().unwrap();
    assert!(
        out.status.success(),
        "the receiver failed: {}{err}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stats(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The file codec's frames: what a lossless network delivers.
fn reference(
    d: &std::path::Path,
    src: &std::path::Path,
    bytes: &str,
    cpu: &[&str],
) -> Vec<wavekit_codec::YcbcrImage> {
    let (coded, back) = (d.join("ref.wkvs"), d.join("ref.y4m"));
    let (src, coded_s, back_s) = (
        src.to_str().unwrap(),
        coded.to_str().unwrap(),
        back.to_str().unwrap(),
    );
    let mut a = vec!["encode", src, "-o", coded_s, "--bytes", bytes];
    a.extend(cpu);
    ok(&wavekit(&a));
    let mut a = vec!["decode", coded_s, "-o", back_s];
    a.extend(cpu);
    ok(&wavekit(&a));
    read_y4m(&back)
}

/// `full`: also the faults and `--discard` (host-side logic, the same on either decoder: the
/// GPU run takes only the exact stream, the test command's time).
fn over_loopback(cpu: &[&str], tag: &str, full: bool) {
    let temp = tempfile::Builder::new()
        .prefix(&format!("wavekit-stream-{tag}-"))
        .tempdir()
        .unwrap();
    let d = temp.path();
    let src = d.join("in.y4m");
    std::fs::write(&src, y4m_stream(64, 48, false, 5, 47)).unwrap();
    let want = reference(d, &src, "1200", cpu);
    let p = |x: &std::path::Path| x.to_str().unwrap().to_string();
    // `stream send` of the picture to `at`, 1200 bytes a frame as fast as coded, with `extra`.
    let send = |at: &str, extra: &[&str]| {
        let mut args = vec![
            "stream",
            "send",
            src.to_str().unwrap(),
            "--to",
            at,
            "--bytes",
            "1200",
            "--fps",
            "0",
        ];
        args.extend(extra);
        args.extend(cpu);
        ok(&wavekit(&args))
    };
    // 1. No faults: every frame, exactly the file codec's.
    let (out, st) = (d.join("out.y4m"), d.join("stats.jsonl"));
    let (out_s, st_s) = (p(&out), p(&st));
    let mut args = vec!["-o", &out_s, "--frames", "5", "--stats", &st_s];
    args.extend(cpu);
    let (rx, at, err) = receiver(&args);
    let sent = send(&at, &["--mtu", "300"]);
    assert!(sent.contains("sent 5 frames"), "{sent}");
    let summary = finish(rx, err);
    assert!(summary.contains("5 frames"), "{summary}");
    assert!(
        read_y4m(&out) == want,
        "the frames received are not the file codec's"
    );
    let lines = stats(&st);
    assert_eq!(lines.len(), 6, "a line a frame and the summary");
    for (f, l) in lines[..5].iter().enumerate() {
        assert_eq!(l["frame"], f as u64);
        assert_eq!(l["complete"], true);
        assert_eq!(l["datagrams_lost"], 0);
        assert!(
            l["datagrams_sent"].as_u64().unwrap() > 1,
            "a frame in several datagrams"
        );
        assert!(l["latency_us"].as_i64().unwrap() > 0);
    }
    assert_eq!(lines[5]["summary"], true);
    if !full {
        return;
    }
    // 2. A fifth of the datagrams lost on the way out, a parity datagram after every 3, and
    // garbage from a stranger: losses, rebuilt datagrams and concealed blocks reported,
    // complete frames still exact.
    let (out, st) = (d.join("lossy.y4m"), d.join("lossy.jsonl"));
    let (out_s, st_s) = (p(&out), p(&st));
    let mut args = vec![
        "-o",
        &out_s,
        "--idle-ms",
        "1500",
        "--stats",
        &st_s,
        // Long: an incomplete frame is then dropped when a later one completes, or, the last
        // one, decoded with its blocks concealed when the stream ends (the timing of the
        // test machine cannot change which).
        "--deadline-ms",
        "10000",
    ];
    args.extend(cpu);
    let (rx, at, err) = receiver(&args);
    let stranger = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut rng = fastrand::Rng::with_seed(3);
    for n in 0..50 {
        let mut junk: Vec<u8> = (0..rng.usize(..400)).map(|_| rng.u8(..)).collect();
        if n % 2 == 0 && junk.len() > 4 {
            junk[..3].copy_from_slice(b"WP\x01");
        }
        stranger.send_to(&junk, &at).unwrap();
    }
    send(
        &at,
        &["--mtu", "400", "--impair", "loss=20%,seed=5", "--fec", "3"],
    );
    let summary = finish(rx, err);
    assert!(
        summary.contains("Malformed 50"),
        "garbage counted: {summary}"
    );
    let lines = stats(&st);
    let frames: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l.get("summary").is_none())
        .collect();
    let got = read_y4m(&out);
    assert_eq!(got.len(), frames.len());
    let lost: u64 = frames
        .iter()
        .map(|l| l["datagrams_lost"].as_u64().unwrap())
        .sum();
    // A parity datagram after every 3 rebuilt some of the losses.
    let recovered: u64 = frames
        .iter()
        .map(|l| l["datagrams_recovered"].as_u64().unwrap())
        .sum();
    assert!(recovered > 0, "--fec 3 rebuilt nothing: {lines:?}");
    let summary_line = lines.last().unwrap();
    let frames_lost = summary_line["frames_lost"].as_u64().unwrap();
    assert!(lost + frames_lost > 0, "20 % loss lost nothing: {lines:?}");
    for (l, img) in frames.iter().zip(&got) {
        let f = l["frame"].as_u64().unwrap() as usize;
        if l["complete"] == true {
            assert_eq!(l["blocks_concealed"], 0);
            assert!(
                *img == want[f],
                "frame {f}: complete but not the file codec's"
            );
        } else {
            assert!(l["datagrams_lost"].as_u64().unwrap() > 0);
            assert!(
                l["blocks_concealed"].as_u64().unwrap() > 0,
                "frame {f}: a loss conceals blocks"
            );
        }
    }
    // 3. Every datagram held back behind the next on the receiver's side (an odd number in
    // all, so the last is still held when the stream ends): it is delivered before the end,
    // and every frame is complete and the file codec's.
    let (out, st) = (d.join("reordered.y4m"), d.join("reordered.jsonl"));
    let (out_s, st_s) = (p(&out), p(&st));
    let mut args = vec![
        "-o",
        &out_s,
        "--stats",
        &st_s,
        "--impair",
        "reorder=100%,seed=1",
        "--deadline-ms",
        "10000",
        "--idle-ms",
        "1000",
    ];
    args.extend(cpu);
    let (rx, at, err) = receiver(&args);
    send(&at, &["--mtu", "320"]);
    let summary = finish(rx, err);
    let lines = stats(&st);
    let frames = &lines[..lines.len() - 1];
    let sent: u64 = frames
        .iter()
        .map(|l| l["datagrams_sent"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sent % 2,
        1,
        "an odd number of datagrams, the last held: {sent}"
    );
    assert_eq!(frames.len(), 5, "{summary}");
    for l in frames {
        assert_eq!(l["complete"], true, "{l}: {summary}");
    }
    assert!(
        read_y4m(&out) == want,
        "reordered frames not the file codec's"
    );
    // 4. --discard: decoded and counted, nothing written.
    let mut args = vec!["--discard", "--frames", "2"];
    args.extend(cpu);
    let (rx, at, err) = receiver(&args);
    send(&at, &["--frames", "2"]);
    let summary = finish(rx, err);
    assert!(
        summary.contains("(frames discarded): 2 frames"),
        "{summary}"
    );
}

#[test]
fn a_stream_over_loopback_is_the_file_codecs_on_the_cpu() {
    over_loopback(&["--cpu"], "cpu", true);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_stream_over_loopback_is_the_file_codecs_on_the_gpu() {
    over_loopback(&[], "gpu", false);
}

#[test]
fn bad_stream_arguments_are_refused_before_sending() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-stream-bad-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let src = d.join("in.y4m");
    std::fs::write(&src, y4m_stream(16, 16, false, 1, 1)).unwrap();
    let s = src.to_str().unwrap();
    for (args, says) in [
        (
            vec![
                "stream",
                "send",
                s,
                "--to",
                "127.0.0.1:9",
                "--bytes",
                "500",
                "--mtu",
                "10",
                "--cpu",
            ],
            "--mtu",
        ),
        (
            vec![
                "stream", "send", s, "--to", "nowhere", "--bytes", "500", "--cpu",
            ],
            "HOST:PORT",
        ),
        (
            vec!["stream", "send", s, "--to", "127.0.0.1:9", "--cpu"],
            "--bytes",
        ),
        (
            vec![
                "stream",
                "send",
                s,
                "--to",
                "127.0.0.1:9",
                "--bytes",
                "500",
                "--pace",
                "1.5",
                "--cpu",
            ],
            "--pace 1.5",
        ),
        (
            vec![
                "stream",
                "send",
                s,
                "--to",
                "127.0.0.1:9",
                "--bytes",
                "500",
                "--impair",
                "loss=200%",
                "--cpu",
            ],
            "probability",
        ),
        (
            vec![
                "stream",
                "send",
                "/nonexistent.y4m",
                "--to",
                "127.0.0.1:9",
                "--bytes",
                "500",
                "--cpu",
            ],
            "nonexistent",
        ),
        (
            vec!["stream", "recv", "--listen", "bad", "-o", "x.y4m", "--cpu"],
            "HOST:PORT",
        ),
        (
            vec!["stream", "recv", "--listen", "127.0.0.1:0", "--cpu"],
            "--output",
        ),
        (
            vec![
                "stream",
                "send",
                s,
                "--to",
                "127.0.0.1:9",
                "--bytes",
                "500",
                "--fec",
                "100",
                "--cpu",
            ],
            "--fec 100",
        ),
        (
            vec![
                "stream",
                "recv",
                "--listen",
                "127.0.0.1:0",
                "-o",
                "x.y4m",
                "--deadline-ms=-1",
                "--cpu",
            ],
            "--deadline-ms",
        ),
    ] {
        let out = wavekit(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `ffmpeg` with `args` (the test command installs it: scripts/lib.sh), its output checked.
fn ffmpeg(args: &[&str]) -> std::process::Output {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostdin", "-y"])
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("ffmpeg cannot run ({e}): install it (apt-get install ffmpeg); the test command does")
        });
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// ffmpeg's own `psnr` filter: the average PSNR (all planes) of `got` against `want`.
fn ffmpeg_psnr(got: &std::path::Path, want: &std::path::Path) -> f64 {
    let out = ffmpeg(&[
        "-i",
        got.to_str().unwrap(),
        "-i",
        want.to_str().unwrap(),
        "-lavfi",
        "psnr",
        "-f",
        "null",
        "-",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("PSNR y:"))
        .unwrap_or_else(|| panic!("no PSNR line from ffmpeg: {err}"));
    let avg = line
        .split("average:")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    if avg == "inf" {
        f64::INFINITY
    } else {
        avg.parse().unwrap()
    }
}

/// A stream made by a program nobody here wrote (ffmpeg's `testsrc2`, 80 frames of 128 × 96,
/// 4:2:0, 1 bpp, 40 frames a second, datagrams of at most 360 bytes), sent
/// and received over the loopback at 0, 1, 5 and 20 % datagram loss, without and with a
/// parity datagram every 4, compared with the sent frames by ffmpeg's `psnr` filter: at no
/// loss the frames are `wavekit decode`'s bit for bit; with loss every frame still arrives,
/// PSNR falls with the loss, parity helps at 20 %, and the counts add up frame by frame. The
/// CPU codec (the GPU's bytes are the same: the tests above). Prints the curve.
#[test]
fn an_ffmpeg_stream_loses_quality_smoothly_with_loss() {
    let temp = tempfile::Builder::new()
        .prefix("wavekit-stream-ffmpeg-")
        .tempdir()
        .unwrap();
    let d = temp.path();
    let src = d.join("in.y4m");
    let src_s = src.to_str().unwrap().to_string();
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=128x96:rate=60",
        "-frames:v",
        "80",
        "-pix_fmt",
        "yuv420p",
        "-f",
        "yuv4mpegpipe",
        &src_s,
    ]);
    let want = reference(d, &src, "1536", &["--cpu"]);
    assert_eq!(want.len(), 80);
    let mut curve = Vec::new();
    for fec in ["0", "4"] {
        for loss in [0u32, 1, 5, 20] {
            let tag = format!("loss{loss}-fec{fec}");
            let (out, st) = (d.join(format!("{tag}.y4m")), d.join(format!("{tag}.jsonl")));
            let (out_s, st_s) = (out.to_str().unwrap(), st.to_str().unwrap());
            let (rx, at, err) = receiver(&[
                "-o",
                out_s,
                "--stats",
                st_s,
                "--cpu",
                "--deadline-ms",
                "30",
                // It stops at the 80th frame; the idle time only ends a run that lost frames
                // (long, so that a sender starved of the CPU by the tests beside it does not
                // end the stream early).
                "--frames",
                "80",
                "--idle-ms",
                "5000",
            ]);
            let impair = format!("loss={loss}%,seed=11");
            let mut send = vec![
                "stream", "send", &src_s, "--to", &at, "--bytes", "1536", "--fps", "100", "--mtu",
                "360", "--fec", fec, "--cpu",
            ];
            if loss > 0 {
                send.extend(["--impair", &impair]);
            }
            ok(&wavekit(&send));
            let summary = finish(rx, err);
            let lines = stats(&st);
            let frames: Vec<&serde_json::Value> = lines
                .iter()
                .filter(|l| l.get("summary").is_none())
                .collect();
            // Every frame arrives (at least one of its six or so datagrams does), in order.
            assert_eq!(frames.len(), 80, "{tag}: {summary}");
            let got = read_y4m(&out);
            assert_eq!(got.len(), 80, "{tag}");
            let (mut lost, mut recovered, mut concealed) = (0, 0, 0);
            for (f, l) in frames.iter().enumerate() {
                assert_eq!(l["frame"], f as u64, "{tag}: frames in order");
                let (s, r) = (
                    l["datagrams_sent"].as_u64().unwrap(),
                    l["datagrams_received"].as_u64().unwrap(),
                );
                let (lo, re) = (
                    l["datagrams_lost"].as_u64().unwrap(),
                    l["datagrams_recovered"].as_u64().unwrap(),
                );
                let c = l["blocks_concealed"].as_u64().unwrap();
                assert_eq!(s, r + lo, "{tag} frame {f}: sent = received + lost");
                assert_eq!(
                    l["complete"] == true,
                    c == 0,
                    "{tag} frame {f}: complete iff nothing concealed"
                );
                assert_eq!(
                    c,
                    l["blocks_from_previous"].as_u64().unwrap()
                        + l["blocks_damaged"].as_u64().unwrap(),
                    "{tag} frame {f}: concealed = from the previous frame + flat"
                );
                if lo == 0 {
                    assert_eq!(c, 0, "{tag} frame {f}: nothing lost, nothing concealed");
                    assert!(
                        got[f] == want[f],
                        "{tag} frame {f}: all arrived but not the file codec's"
                    );
                }
                lost += lo;
                recovered += re;
                concealed += c;
            }
            let psnr = ffmpeg_psnr(&out, &src);
            if loss == 0 {
                assert_eq!(lost, 0, "{tag}: no loss impaired, none lost");
                assert!(got == want, "{tag}: the frames are not wavekit decode's");
            } else {
                assert!(lost > 0, "{tag}: {loss} % lost nothing");
            }
            println!(
                "{tag}: PSNR {psnr:.2} dB, datagrams lost {lost}, rebuilt {recovered}, blocks concealed {concealed}"
            );
            curve.push((fec, loss, psnr, concealed));
        }
    }
    for fec in ["0", "4"] {
        let c: Vec<(u32, f64, u64)> = curve
            .iter()
            .filter(|p| p.0 == fec)
            .map(|p| (p.1, p.2, p.3))
            .collect();
        // Quality falls with the loss (a little slack: a luckier pattern at a higher rate).
        for w in c.windows(2) {
            assert!(w[1].1 <= w[0].1 + 0.2, "fec {fec}: PSNR rose from {w:?}");
            assert!(
                w[1].2 >= w[0].2,
                "fec {fec}: fewer blocks concealed at more loss: {w:?}"
            );
        }
        assert!(
            c[3].1 < c[0].1 - 0.1,
            "fec {fec}: 20 % loss cost nothing: {c:?}"
        );
    }
    let at20 = |fec: &str| curve.iter().find(|p| p.0 == fec && p.1 == 20).unwrap();
    assert!(
        at20("4").3 < at20("0").3 && at20("4").2 > at20("0").2,
        "parity every 4 did not help at 20 % loss: {curve:?}"
    );
}
