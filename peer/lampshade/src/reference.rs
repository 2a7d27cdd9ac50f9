//! Plain Rust references for every case, and the exact comparison of a GPU output with one.

/// The benchmark's select predicate (wavekit's `ODD`): keep odd values.
pub fn keep_odd(x: u32) -> bool {
    x & 1 == 1
}

/// The predicate of the `select_mask` case, the nearest one lampshade's mask generator has:
/// keep values at or above 2^31 (about half of the hashed inputs, as odd values are).
pub const HIGH_HALF: u32 = 1 << 31;

/// Wrapping u32 sum.
pub fn sum(xs: &[u32]) -> u32 {
    xs.iter().fold(0u32, |acc, &x| acc.wrapping_add(x))
}

/// Inclusive wrapping prefix sums: `out[i] = x[0] + … + x[i]`.
pub fn scan_inclusive(xs: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    xs.iter()
        .map(|&x| {
            acc = acc.wrapping_add(x);
            acc
        })
        .collect()
}

/// Exclusive wrapping prefix sums: `out[0] = 0`, `out[i] = x[0] + … + x[i-1]`.
pub fn scan_exclusive(xs: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    xs.iter()
        .map(|&x| {
            let before = acc;
            acc = acc.wrapping_add(x);
            before
        })
        .collect()
}

/// The kept values in input order.
pub fn select(xs: &[u32], keep: impl Fn(u32) -> bool) -> Vec<u32> {
    xs.iter().copied().filter(|&x| keep(x)).collect()
}

/// The stable sort of `(key, index)` pairs by key: the keys ascending, and beside each the
/// index it came from (equal keys keep their input order).
pub fn stable_argsort(xs: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<u64> = xs
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(k) << 32) | i as u64)
        .collect();
    // Sorting key·2^32 + index sorts by key, then by index: the stable order.
    pairs.sort_unstable();
    pairs
        .into_iter()
        .map(|p| ((p >> 32) as u32, p as u32))
        .unzip()
}

/// wavekit's `histogram256` bin of `x` (256 even bins over `[0, u32::MAX)`) for every `x`
/// below `u32::MAX`: `x · 256 / (2^32 − 1)`, which is `x >> 24` there. The input that the
/// `histogram256_prebinned` case hands lampshade.
pub fn bin256(x: u32) -> u32 {
    x >> 24
}

/// Lampshade's histogram: `counts[v] += 1` for each value `v` below `bins`, others ignored.
pub fn histogram_direct(xs: &[u32], bins: u32) -> Vec<u32> {
    let mut counts = vec![0u32; bins as usize];
    for &v in xs {
        if v < bins {
            counts[v as usize] += 1;
        }
    }
    counts
}

/// `Ok` when `got` equals `want` element for element; otherwise how many differ and the first.
pub fn compare(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    let mut wrong = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w);
    match wrong.next() {
        None => Ok(()),
        Some((i, (g, w))) => Err(format!(
            "{what}: {} of {} elements wrong; first at [{i}]: got {g:#010x}, expected {w:#010x}",
            1 + wrong.count(),
            want.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_and_sum() {
        let x = [3, 1, 4, 1, u32::MAX];
        assert_eq!(scan_inclusive(&x), [3, 4, 8, 9, 8]);
        assert_eq!(scan_exclusive(&x), [0, 3, 4, 8, 9]);
        assert_eq!(sum(&x), 8);
        assert!(scan_exclusive(&[]).is_empty());
    }

    #[test]
    fn argsort_is_stable() {
        let (k, v) = stable_argsort(&[5, 2, 5, 1, 2]);
        assert_eq!(k, [1, 2, 2, 5, 5]);
        assert_eq!(v, [3, 1, 4, 0, 2]);
    }

    #[test]
    fn bins_match_wavekits_histogram256() {
        // wavekit's formula for 256 bins over [0, u32::MAX): x · 256 / (2^32 − 1).
        let wavekit = |x: u32| (u64::from(x) * 256 / u64::from(u32::MAX)) as u32;
        let edges = (0..256u32).flat_map(|b| {
            let e = b << 24;
            [e.saturating_sub(1), e, e + 1]
        });
        for x in edges.chain([u32::MAX - 1, 12_345_678]) {
            assert_eq!(bin256(x), wavekit(x), "x = {x:#x}");
        }
        let xs = [0, 1, 255, 256, 7, 7];
        assert_eq!(histogram_direct(&xs, 8)[7], 2);
        assert_eq!(histogram_direct(&xs, 256).iter().sum::<u32>(), 5);
    }

    #[test]
    fn compare_finds_the_first_difference() {
        assert!(compare("x", &[1, 2], &[1, 2]).is_ok());
        let e = compare("x", &[1, 9, 9], &[1, 2, 3]).unwrap_err();
        assert!(e.contains("2 of 3") && e.contains("[1]"), "{e}");
        assert!(compare("x", &[1], &[1, 2]).is_err());
    }
}
