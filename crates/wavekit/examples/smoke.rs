use wavekit::monoid::Op;
fn main() -> Result<(), wavekit::Error> {
    let ctx = wavekit::GpuContext::from_env()?;
    for n in [0usize, 1, 5, 4095, 4096, 4097, 100_003, 1 << 20] {
        let data: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) >> 20)
            .collect();
        let got = wavekit::scan::scan_slice(&ctx, &data, Op::Add, true)?;
        let want = wavekit::scan::reference::scan(&data, Op::Add, true);
        let bad = got.iter().zip(&want).position(|(a, b)| a != b);
        let sum = wavekit::reduce::reduce_slice(&ctx, &data, Op::Add)?;
        let flags: Vec<u32> = data.iter().map(|x| x & 1).collect();
        let sel = wavekit::select::select_slice(&ctx, &data, &flags)?;
        let keep: Vec<bool> = flags.iter().map(|&f| f != 0).collect();
        let (part, kept) = wavekit::select::partition_slice(&ctx, &data, &flags)?;
        println!(
            "n={n} scan first bad {bad:?}  reduce {} vs {}  select ok {}  partition ok {}",
            sum,
            wavekit::scan::reference::reduce(&data, Op::Add),
            sel == wavekit::scan::reference::select(&data, &keep),
            (part, kept) == wavekit::scan::reference::partition(&data, &keep)
        );
    }
    Ok(())
}
