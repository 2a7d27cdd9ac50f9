//! Rate control on the CPU: given every block's bytes and (weighted) squared error for each
//! number of bit-planes sent, choose the planes of every block so that the payloads fit in
//! `available` bytes and the error is least for that size: the slope λ of the Lagrangian
//! `D + λR` found by bisection (every block then takes its best point for that λ), then the
//! room left filled block by block in order of the error each added plane removes per byte.

/// A block's choices: `rates[n]` bytes and `distortions[n]` error with `n` planes sent.
pub struct Choices<'a> {
    /// Bytes for 0 ..= P planes.
    pub rates: &'a [usize],
    /// Weighted squared error for 0 ..= P planes.
    pub distortions: &'a [f64],
}

fn best(c: &Choices, lambda: f64) -> usize {
    (0..c.rates.len())
        .min_by(|&a, &b| {
            let ja = c.distortions[a] + lambda * c.rates[a] as f64;
            let jb = c.distortions[b] + lambda * c.rates[b] as f64;
            ja.total_cmp(&jb).then(a.cmp(&b))
        })
        .unwrap_or(0)
}

/// The planes of each block: `None` when even no plane of any block fits.
pub fn choose(blocks: &[Choices], available: usize) -> Option<Vec<usize>> {
    let least: usize = blocks.iter().map(|c| c.rates[0]).sum();
    if least > available {
        return None;
    }
    let all: Vec<usize> = blocks.iter().map(|c| c.rates.len() - 1).collect();
    let total = |n: &[usize]| -> usize { blocks.iter().zip(n).map(|(c, &k)| c.rates[k]).sum() };
    if total(&all) <= available {
        return Some(all);
    }
    let pick = |lambda: f64| -> Vec<usize> { blocks.iter().map(|c| best(c, lambda)).collect() };
    // λ from 2^-40 to 2^60 (log2, bisected): a larger λ, fewer bytes.
    let (mut lo, mut hi) = (-40.0f64, 60.0f64);
    if total(&pick(hi.exp2())) > available {
        // Only the floor fits: every block at 0 planes (checked above).
        return Some(vec![0; blocks.len()]);
    }
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if total(&pick(mid.exp2())) <= available {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let mut n = pick(hi.exp2());
    let mut used = total(&n);
    // Fill what is left: the next plane of the block that removes the most error per byte,
    // while one fits.
    loop {
        let mut cand: Option<(f64, usize)> = None;
        for (i, c) in blocks.iter().enumerate() {
            let k = n[i];
            if k + 1 < c.rates.len() {
                let dr = c.rates[k + 1] - c.rates[k];
                if used + dr <= available {
                    let gain = (c.distortions[k] - c.distortions[k + 1]) / dr.max(1) as f64;
                    if cand.is_none_or(|(g, _)| gain > g) {
                        cand = Some((gain, i));
                    }
                }
            }
        }
        let Some((_, i)) = cand else { break };
        used += blocks[i].rates[n[i] + 1] - blocks[i].rates[n[i]];
        n[i] += 1;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_fits_and_uses_the_room() {
        let mut rng = fastrand::Rng::with_seed(9);
        let blocks: Vec<(Vec<usize>, Vec<f64>)> = (0..200)
            .map(|_| {
                let p = rng.usize(0..12);
                let mut r = vec![2usize];
                let mut d = vec![rng.f64() * 1e6];
                for _ in 0..p {
                    r.push(r.last().unwrap() + 16 + rng.usize(0..200));
                    d.push(d.last().unwrap() * rng.f64());
                }
                (r, d)
            })
            .collect();
        let choices: Vec<Choices> = blocks
            .iter()
            .map(|(r, d)| Choices {
                rates: r,
                distortions: d,
            })
            .collect();
        let floor: usize = blocks.iter().map(|b| b.0[0]).sum();
        let full: usize = blocks.iter().map(|b| *b.0.last().unwrap()).sum();
        assert!(choose(&choices, floor - 1).is_none());
        assert_eq!(choose(&choices, floor).unwrap(), vec![0; 200]);
        assert_eq!(
            choose(&choices, full).unwrap(),
            blocks.iter().map(|b| b.0.len() - 1).collect::<Vec<_>>()
        );
        let mut last_d = f64::INFINITY;
        for frac in [0.05, 0.2, 0.5, 0.8, 0.99] {
            let avail = floor + ((full - floor) as f64 * frac) as usize;
            let n = choose(&choices, avail).unwrap();
            let used: usize = blocks.iter().zip(&n).map(|(b, &k)| b.0[k]).sum();
            let d: f64 = blocks.iter().zip(&n).map(|(b, &k)| b.1[k]).sum();
            assert!(used <= avail, "{used} > {avail}");
            // No block's next plane still fits: the room left is less than the smallest step.
            let step = blocks
                .iter()
                .zip(&n)
                .filter(|(b, k)| **k + 1 < b.0.len())
                .map(|(b, &k)| b.0[k + 1] - b.0[k])
                .min()
                .unwrap_or(0);
            assert!(
                avail - used < step.max(1),
                "{frac}: {} left, step {step}",
                avail - used
            );
            assert!(d <= last_d, "more bytes, less error");
            last_d = d;
        }
    }
}
