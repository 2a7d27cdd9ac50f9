//! The core on 100 003 seeded integers: an inclusive scan, a compaction of the odd ones, a
//! stable sort of keys with their indices, and a 16-bin histogram, each checked against the
//! plain Rust answer.

use wavekit::GpuContext;
use wavekit::histogram::{histogram_slice, reference};
use wavekit::monoid::Op;
use wavekit::scan::scan_slice;
use wavekit::select::select_slice;
use wavekit::sort::sort_pairs_slice;

use crate::{Result, check};

/// Elements of the example (a prime: no tile divides it).
pub const N: usize = 100_003;

/// Run it; returns a line saying what was checked.
pub fn run(ctx: &GpuContext, seed: u64) -> Result<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let data: Vec<u32> = (0..N).map(|_| rng.u32(..1000)).collect();

    let scanned = scan_slice(ctx, &data, Op::Add, true)?;
    let mut run = 0u32;
    let want: Vec<u32> = data
        .iter()
        .map(|&x| {
            run = run.wrapping_add(x);
            run
        })
        .collect();
    check(scanned == want, "primitives", || "inclusive scan".into())?;

    let flags: Vec<u32> = data.iter().map(|&x| x & 1).collect();
    let odd = select_slice(ctx, &data, &flags)?;
    let want: Vec<u32> = data.iter().copied().filter(|x| x & 1 == 1).collect();
    check(odd == want, "primitives", || "select".into())?;

    let (keys, order) = sort_pairs_slice(ctx, &data, None, false, None)?;
    let mut want: Vec<u32> = (0..N as u32).collect();
    want.sort_by_key(|&i| data[i as usize]); // stable, as the GPU's
    check(order == want, "primitives", || "sort permutation".into())?;
    check(keys.windows(2).all(|w| w[0] <= w[1]), "primitives", || {
        "sorted keys".into()
    })?;

    let h = histogram_slice(ctx, &data, 16, 0u32, 1000)?;
    let want = reference::histogram(&data, 16, 0u32, 1000);
    check(h == want, "primitives", || {
        format!("histogram {h:?} vs {want:?}")
    })?;
    Ok(format!(
        "scan, select ({} odd), sort and a 16-bin histogram of {N} elements match the CPU",
        odd.len()
    ))
}
