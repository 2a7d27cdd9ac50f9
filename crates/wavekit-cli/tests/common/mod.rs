//! Test support shared by the CLI's test binaries.

#![allow(dead_code)]

/// A version 1.0 `.npy` file: the header dict `dict` (padded with spaces to a multiple of 64
/// bytes, as numpy writes it) followed by `data` as it is. The dict is not checked, so tests
/// can write hostile headers too.
pub fn npy_v1(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut d = dict.as_bytes().to_vec();
    while !(10 + d.len() + 1).is_multiple_of(64) {
        d.push(b' ');
    }
    d.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((d.len() as u16).to_le_bytes());
    out.extend(d);
    out.extend(data);
    out
}

/// A seeded `.y4m` stream: `frames` frames of smooth ramps and noise.
pub fn y4m_stream(w: u32, h: u32, c444: bool, frames: u32, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let tag = if c444 { "C444" } else { "C420jpeg" };
    let mut out = format!("YUV4MPEG2 W{w} H{h} F30000:1001 Ip A1:1 {tag}\n").into_bytes();
    let (cw, ch) = if c444 {
        (w, h)
    } else {
        (w.div_ceil(2), h.div_ceil(2))
    };
    for f in 0..frames {
        out.extend_from_slice(b"FRAME\n");
        for (pw, ph) in [(w, h), (cw, ch), (cw, ch)] {
            for y in 0..ph {
                for x in 0..pw {
                    let v = 40 + (x * 150 / pw) + (y * 30 / ph) + f * 3 + rng.u32(..8);
                    out.push(v.min(235) as u8);
                }
            }
        }
    }
    out
}

pub fn read_y4m(
    path: &std::path::Path,
) -> (
    wavekit_codec::y4m::StreamInfo,
    Vec<wavekit_codec::YcbcrImage>,
) {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut r = wavekit_codec::y4m::Reader::new(f).unwrap();
    let mut v = Vec::new();
    while let Some(img) = r.next_frame().unwrap() {
        v.push(img);
    }
    (*r.info(), v)
}

/// The CLI with `args`, run to its end.
pub fn wavekit(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wavekit"))
        .args(args)
        .output()
        .expect("the wavekit binary runs")
}

/// The stdout of a run that succeeded (its stdout and stderr in the failure if not).
pub fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
