//! `wavekit demo`: probe, selftest, then every primitive on fresh random data, checked
//! against the CPU, through the same `.npy` path the CLI commands use.

use wavekit::GpuContext;
use wavekit::monoid::Op;
use wavekit::scan::reference;

use crate::error::CliError;
use crate::npy::{self, Array};

fn check(name: &str, ok: bool, failures: &mut usize) {
    println!("{}  {name}", if ok { "ok  " } else { "FAIL" });
    if !ok {
        *failures += 1;
    }
}

/// Run the demo; an error if anything differs.
pub fn demo(ctx: &GpuContext) -> Result<(), CliError> {
    println!("== wavekit probe");
    crate::probe::probe(ctx, false)?;
    println!("\n== wavekit selftest");
    crate::selftest::selftest(ctx, 1, false)?;

    println!("\n== primitives on 1,000,003 random elements, checked against the CPU");
    let n = 1_000_003;
    let mut rng = fastrand::Rng::with_seed(2026);
    let x: Vec<u32> = (0..n).map(|_| rng.u32(..1 << 20)).collect();
    let flags: Vec<u32> = (0..n).map(|_| rng.u32(..2)).collect();
    let keep: Vec<bool> = flags.iter().map(|&f| f != 0).collect();
    let dir = std::env::temp_dir().join(format!("wavekit-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| CliError::File {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let input = dir.join("x.npy");
    npy::write(&input, &Array::U32(x.clone()))?;
    let read = match npy::read(&input)? {
        Array::U32(v) => v,
        _ => unreachable!("written as uint32"),
    };
    let mut failures = 0;
    check(".npy round trip", read == x, &mut failures);
    for op in [Op::Add, Op::Min, Op::Max] {
        let got = wavekit::reduce::reduce_slice(ctx, &x, op)?;
        check(
            &format!("reduce {}", op.name()),
            got == reference::reduce(&x, op),
            &mut failures,
        );
    }
    for inclusive in [true, false] {
        let got = wavekit::scan::scan_slice(ctx, &x, Op::Add, inclusive)?;
        let kind = if inclusive { "inclusive" } else { "exclusive" };
        check(
            &format!("scan {kind} sum"),
            got == reference::scan(&x, Op::Add, inclusive),
            &mut failures,
        );
    }
    let got = wavekit::select::select_slice(ctx, &x, &flags)?;
    check(
        "select (stable)",
        got == reference::select(&x, &keep),
        &mut failures,
    );
    let got = wavekit::select::partition_slice(ctx, &x, &flags)?;
    check(
        "partition (both sides stable)",
        got == reference::partition(&x, &keep),
        &mut failures,
    );
    // Sort: keys with few distinct values, so stability shows in the permutation.
    let keys: Vec<u32> = x.iter().map(|v| v & 0xff).collect();
    let (sorted, order) = wavekit::sort::sort_pairs_slice(ctx, &keys, None, false, None)?;
    let want = wavekit::sort::reference::permutation(&keys, false, (0, 32));
    check(
        "sort u32 keys with their permutation (stable)",
        order == want
            && sorted
                .iter()
                .zip(&want)
                .all(|(&k, &i)| k == keys[i as usize]),
        &mut failures,
    );
    let fkeys: Vec<f32> = x
        .iter()
        .map(|&v| f32::from_bits(v.rotate_left(13)))
        .collect();
    let got = wavekit::sort::sort_slice(ctx, &fkeys, true, None)?;
    let want = wavekit::sort::reference::sort(&fkeys, true, (0, 32));
    check(
        "sort f32 keys, descending, total order",
        got.iter()
            .map(|f| f.to_bits())
            .eq(want.iter().map(|f| f.to_bits())),
        &mut failures,
    );
    let got = wavekit::histogram::histogram_slice(ctx, &x, 256, 0, 1 << 20)?;
    check(
        "histogram, 256 bins",
        got == wavekit::histogram::reference::histogram(&x, 256, 0, 1 << 20),
        &mut failures,
    );
    // The wavelet transform: a generated 3-plane image of odd size, 4 levels.
    let (w, h) = (257u32, 131u32);
    let image: Vec<i32> = (0..3 * w * h)
        .map(|i| {
            let (x, y) = ((i % w) as i32, (i / w % h) as i32);
            ((x * 3 + y * 5 + (i / (w * h)) as i32 * 40) % 256) - 128 + rng.i32(-4..=4)
        })
        .collect();
    let dwt = |wavelet| wavekit_dwt::Dwt::new(ctx, wavelet, w, h, 4, 3);
    let d53 = dwt(wavekit_dwt::Wavelet::Reversible53)?;
    let coeffs = d53.forward_i32(ctx, &image)?;
    let mut want = image.clone();
    for p in want.chunks_mut((w * h) as usize) {
        wavekit_dwt::reference::forward_2d_53(p, w as usize, h as usize, 4);
    }
    check(
        "dwt 5/3, 257 x 131 x 3, 4 levels: coefficients equal the reference",
        coeffs == want,
        &mut failures,
    );
    check(
        "dwt 5/3 round trip exact",
        d53.inverse_i32(ctx, &coeffs)? == image,
        &mut failures,
    );
    let d97 = dwt(wavekit_dwt::Wavelet::Irreversible97)?;
    let f: Vec<f32> = image.iter().map(|&v| v as f32).collect();
    let back = d97.inverse_f32(ctx, &d97.forward_f32(ctx, &f)?)?;
    let worst = f
        .iter()
        .zip(&back)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    check(
        &format!("dwt 9/7 round trip within 0.01 (largest difference {worst:.2e})"),
        worst <= 0.01,
        &mut failures,
    );
    std::fs::remove_dir_all(&dir).ok();
    println!("\n== ray tracing (wavekit-trace): a grid of instances, three kernels");
    let (checks, png) = crate::trace::demo_render(ctx, &std::env::temp_dir())?;
    for (name, ok) in checks {
        check(&name, ok, &mut failures);
    }
    println!(
        "wrote the render (shadow rays, compacted kernel) to {}",
        png.display()
    );
    println!(
        "\n== point queries (wavekit-spatial): k-NN and radius search, checked against brute force"
    );
    match crate::spatial::demo(ctx) {
        Ok(checks) => {
            for (name, ok) in checks {
                check(&name, ok, &mut failures);
            }
        }
        Err(e) => check(&format!("point queries: {e}"), false, &mut failures),
    }
    println!("\n== the UI compositor: the demo panel, checked against the CPU reference");
    let png = std::env::temp_dir().join("wavekit-ui-demo.png");
    let ok = match crate::ui::demo_png(ctx, &png, 0.62) {
        Ok(()) => true,
        Err(e) => {
            println!("{e}");
            false
        }
    };
    check(
        &format!("ui demo panel written to {}", png.display()),
        ok,
        &mut failures,
    );
    println!("\n== the frame codec: a photograph at 1 bpp, on the GPU, checked against the CPU");
    match crate::codec::demo(ctx, &std::env::temp_dir()) {
        Ok(checks) => {
            for (name, ok) in checks {
                check(&name, ok, &mut failures);
            }
        }
        Err(e) => check(&format!("codec: {e}"), false, &mut failures),
    }
    let tmp = std::env::temp_dir();
    println!("\n== files written (every other file the demo made was removed)");
    for name in [
        "wavekit-trace-demo.png",
        "wavekit-ui-demo.png",
        "wavekit-codec-demo.png",
    ] {
        let path = tmp.join(name);
        if path.is_file() {
            println!("{}", path.display());
        }
    }
    if failures > 0 {
        return Err(CliError::DemoFailed { failed: failures });
    }
    Ok(())
}
