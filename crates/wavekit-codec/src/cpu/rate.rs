//! Rate control on the CPU, the GPU's twin (`gpu/rate.wgsl`): given every block's bytes for
//! each number of bit-planes sent and each plane's key (`block::keys`: error removed per byte,
//! as an integer bin, non-increasing), take every plane whose key is at least a threshold θ,
//! the lowest θ ≥ 1 for which the frame fits, found from a histogram of the planes' bytes by
//! key (a suffix sum); then fill the room left with the planes of key θ − 1, block by block in
//! order, each block's in turn, up to the first that does not fit (what an exclusive scan of
//! those planes' bytes over the blocks gives on the GPU). Integers only: the GPU chooses the
//! same planes.

use super::block::KEY_BINS;

/// A block's choices: `rates[n]` bytes with `n` planes sent, and the key of each plane.
pub struct Choices<'a> {
    /// Bytes for 0 ..= P planes.
    pub rates: &'a [usize],
    /// Keys of planes 1 ..= P (index n − 1), non-increasing.
    pub keys: &'a [u32],
}

/// The threshold and the room left for the planes of key θ − 1.
pub fn threshold(blocks: &[Choices], available: usize) -> Option<(u32, usize)> {
    let base: usize = blocks.iter().map(|c| c.rates[0]).sum();
    if base > available {
        return None;
    }
    let mut hist = vec![0usize; KEY_BINS as usize];
    for c in blocks {
        for (n, &k) in c.keys.iter().enumerate() {
            hist[k as usize] += c.rates[n + 1] - c.rates[n];
        }
    }
    // θ: the lowest bin ≥ 1 whose suffix fits (the empty suffix, θ = KEY_BINS, always does).
    let mut suffix = 0usize;
    let mut theta = KEY_BINS;
    for k in (1..KEY_BINS).rev() {
        if base + suffix + hist[k as usize] > available {
            break;
        }
        suffix += hist[k as usize];
        theta = k;
    }
    Some((theta, available - base - suffix))
}

/// The planes of each block, and θ (1: every plane that removes error was sent); `None` when
/// not even the blocks' headers fit.
pub fn choose(blocks: &[Choices], available: usize) -> Option<(Vec<usize>, u32)> {
    let (theta, remaining) = threshold(blocks, available)?;
    let tie = theta - 1;
    let mut before = 0usize;
    let mut out = Vec::with_capacity(blocks.len());
    for c in blocks {
        let mut n = c.keys.iter().filter(|&&k| k >= theta).count();
        // The block's planes of key θ − 1 (they follow its planes ≥ θ), while they fit after
        // all of every earlier block's.
        let ties: Vec<usize> = (n..c.keys.len())
            .take_while(|&j| tie != 0 && c.keys[j] == tie)
            .map(|j| c.rates[j + 1] - c.rates[j])
            .collect();
        let mut used = before;
        for dr in &ties {
            if used + dr > remaining {
                break;
            }
            used += dr;
            n += 1;
        }
        before += ties.iter().sum::<usize>();
        out.push(n);
    }
    Some((out, theta))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(rng: &mut fastrand::Rng, count: usize) -> Vec<(Vec<usize>, Vec<u32>)> {
        (0..count)
            .map(|_| {
                let p = rng.usize(0..12);
                let mut r = vec![2usize];
                let mut k = Vec::new();
                let mut low = KEY_BINS - 1;
                for _ in 0..p {
                    r.push(r.last().unwrap() + rng.usize(0..200));
                    low = low.min(rng.u32(0..KEY_BINS));
                    k.push(low);
                }
                (r, k)
            })
            .collect()
    }

    /// The choice fits; it takes every plane of key ≥ θ, planes of key θ − 1 in block order up
    /// to the first that does not fit, and nothing below; a lower θ would not have fitted.
    #[test]
    fn the_choice_fits_and_follows_the_keys() {
        let mut rng = fastrand::Rng::with_seed(9);
        for trial in 0..40 {
            let b = blocks(&mut rng, 1 + trial * 7);
            let choices: Vec<Choices> = b
                .iter()
                .map(|(r, k)| Choices { rates: r, keys: k })
                .collect();
            let floor: usize = b.iter().map(|x| x.0[0]).sum();
            let full: usize = b.iter().map(|x| *x.0.last().unwrap()).sum();
            assert!(choose(&choices, floor.wrapping_sub(1)).is_none() || floor == 0);
            for avail in [
                floor,
                floor + (full - floor) / 3,
                floor + (full - floor) / 2,
                full,
            ] {
                let (n, theta) = choose(&choices, avail).unwrap();
                let used: usize = b.iter().zip(&n).map(|(x, &k)| x.0[k]).sum();
                assert!(used <= avail, "{used} > {avail}");
                let mut stopped = false;
                for ((r, k), &nb) in b.iter().zip(&n) {
                    for (j, &key) in k.iter().enumerate() {
                        if key >= theta {
                            assert!(j < nb, "a plane above θ left out");
                        } else if key + 1 < theta || theta == 1 {
                            assert!(j >= nb, "a plane below θ − 1 taken");
                        } else if j >= nb {
                            stopped = true;
                        } else {
                            assert!(!stopped, "a tie taken after the first that did not fit");
                        }
                    }
                    let _ = r;
                }
                if theta > 1 {
                    // θ − 1 whole would not have fitted.
                    let with: usize = b
                        .iter()
                        .map(|(r, k)| r[k.iter().filter(|&&x| x + 1 >= theta).count()])
                        .sum();
                    assert!(with > avail, "θ − 1 fitted: {with} <= {avail}");
                }
            }
        }
    }
}
