//! `shaders/workgroup/` on the CPU: the carry across subgroups (`workgroup/scan.wgsl`'s
//! `wg_exclusive_of_subgroups`) and the ordered compaction built on it
//! (`workgroup/compact.wgsl`'s `wg_compact`).

use super::subgroup::{SimMonoid, ballot, ballot_count, ballot_count_below, exclusive};

/// `wg_exclusive_of_subgroups`: subgroup totals in, each subgroup's exclusive prefix and the
/// workgroup total out — the first subgroup scans the totals in chunks of its own width.
pub fn wg_exclusive_of_subgroups<T: SimMonoid>(totals: &[T], width: usize) -> (Vec<T>, T) {
    let count = totals.len();
    let mut sh = totals.to_vec();
    let mut carry = T::identity();
    let mut c = 0;
    while c < count {
        // One pass of subgroup 0: lanes c .. c + width.
        let lanes: Vec<T> = (0..width)
            .map(|lane| {
                if c + lane < count {
                    sh[c + lane]
                } else {
                    T::identity()
                }
            })
            .collect();
        let excl = exclusive(&lanes);
        let incl_last = T::combine(*excl.last().expect("width >= 1"), lanes[width - 1]);
        for lane in 0..width {
            if c + lane < count {
                sh[c + lane] = T::combine(carry, excl[lane]);
            }
        }
        carry = T::combine(carry, incl_last);
        c += width;
    }
    (sh, carry)
}

/// `wg_compact` for a workgroup of `keep.len()` invocations in subgroups of `width` lanes: each
/// invocation's slot (survivors with a smaller local index) and the total, computed as the
/// kernel does (a ballot per subgroup, its count below the lane, the carry across subgroups).
pub fn wg_compact(keep: &[bool], width: usize) -> (Vec<u32>, u32) {
    assert!(width >= 1 && keep.len().is_multiple_of(width));
    let subgroups = keep.len() / width;
    let ballots: Vec<_> = (0..subgroups)
        .map(|s| ballot(width, |lane| keep[s * width + lane]))
        .collect();
    let totals: Vec<u32> = ballots.iter().map(|&b| ballot_count(b)).collect();
    let (before, total) = wg_exclusive_of_subgroups(&totals, width);
    let slots = (0..keep.len())
        .map(|i| before[i / width] + ballot_count_below(ballots[i / width], (i % width) as u32))
        .collect();
    (slots, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::WIDTHS;

    #[test]
    fn the_carry_across_subgroups_is_the_exclusive_prefix_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(5);
        for &width in &WIDTHS {
            for count in [1, 2, 3, 7, 31, 32, 33, 200] {
                let totals: Vec<u32> = (0..count).map(|_| rng.u32(..1000)).collect();
                let (before, total) = wg_exclusive_of_subgroups(&totals, width);
                let mut run = 0;
                for (i, &t) in totals.iter().enumerate() {
                    assert_eq!(before[i], run, "width {width}, {count} subgroups, #{i}");
                    run += t;
                }
                assert_eq!(total, run);
            }
        }
    }

    #[test]
    fn wg_compact_keeps_order_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(6);
        for &width in &WIDTHS {
            for wg in [width, 2 * width, 256usize.next_multiple_of(width)] {
                for density in [0, 3, 50, 97, 100] {
                    let keep: Vec<bool> = (0..wg).map(|_| rng.u32(..100) < density).collect();
                    let (slots, total) = wg_compact(&keep, width);
                    let mut next = 0;
                    for (i, &k) in keep.iter().enumerate() {
                        assert_eq!(slots[i], next, "width {width}, wg {wg}, invocation {i}");
                        next += u32::from(k);
                    }
                    assert_eq!(total, next);
                }
            }
        }
    }
}
