//! A real C program on the C API (`tests/client.c`), compiled by the system's C compiler
//! (`cc`, or `$CC`) against `include/wavekit.h` and linked with this crate's shared library:
//! its checks pass, and the frame it encodes is the Rust CPU encoder's, byte for byte. On the
//! CPU reference here; on the GPU as a GPU test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding this crate's shared library as this build made it (`deps/`, beside
/// the tests; `target/debug` holds a copy only some builds refresh).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libwavekit_capi.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libwavekit_capi.so not found beside {}", exe.display());
}

fn build_client(out: &Path) -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let bin = out.join("client");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/client.c"))
        .arg("-L")
        .arg(&lib)
        .args(["-lwavekit_capi", "-lm"])
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&bin)
        .status()
        .unwrap_or_else(|e| panic!("the C compiler {cc} did not run: {e}"));
    assert!(
        status.success(),
        "client.c did not compile against include/wavekit.h"
    );
    bin
}

fn run(mode: &str) {
    let temp = tempfile::Builder::new()
        .prefix(&format!("wavekit-capi-{mode}-"))
        .tempdir()
        .unwrap();
    let out = temp.path();
    let bin = build_client(out);
    let frame = out.join("frame.wkv");
    // Only the rpath finds the library: cargo's LD_LIBRARY_PATH for tests would put an older
    // copy (target/debug, uplifted by an earlier build) before the fresh one.
    let r = Command::new(&bin)
        .env_remove("LD_LIBRARY_PATH")
        .arg(mode)
        .arg(&frame)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "the C client failed:\n{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    // The same picture through the Rust CPU encoder: the same bytes.
    let (w, h) = (64u32, 48u32);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    for y in 0..h {
        for x in 0..w {
            let p = &mut rgb[((y * w + x) * 3) as usize..][..3];
            p[0] = (x * 4) as u8;
            p[1] = (y * 5) as u8;
            p[2] = ((x + y) * 2 + (x * 7 + y * 13) % 11) as u8;
        }
    }
    let config = wavekit_codec::EncodeConfig {
        levels: 3,
        ..wavekit_codec::EncodeConfig::bytes(1500)
    };
    let (want, _) = wavekit_codec::cpu::encode(&rgb, w, h, &config).unwrap();
    assert_eq!(
        std::fs::read(&frame).unwrap(),
        want,
        "the C client's frame is not the Rust encoder's"
    );
}

#[test]
fn a_c_program_codes_and_carries_frames_on_the_cpu() {
    run("cpu");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_c_program_codes_and_carries_frames_on_the_gpu() {
    run("gpu");
}
