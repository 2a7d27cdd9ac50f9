//! `shaders/shared/ballot.wgsl` and `shaders/subgroup/` on the CPU: ballots as four 32-bit
//! words (lane i is bit i % 32 of word i / 32, so any width up to 128), their counts, the
//! subgroup scans, and the subgroup compaction of `subgroup/compact.wgsl` (`ballot_select`,
//! `compact_source`).

/// A monoid on the host, as the WGSL sees it.
pub trait SimMonoid: Copy + PartialEq + std::fmt::Debug {
    /// Identity.
    fn identity() -> Self;
    /// Associative combine (in this order).
    fn combine(a: Self, b: Self) -> Self;
}

impl SimMonoid for u32 {
    fn identity() -> Self {
        0
    }
    fn combine(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
}

/// x ↦ a·x + b (mod 2^32): associative, not commutative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine(pub u32, pub u32);

impl SimMonoid for Affine {
    fn identity() -> Self {
        Affine(1, 0)
    }
    fn combine(f: Self, g: Self) -> Self {
        Affine(
            g.0.wrapping_mul(f.0),
            g.0.wrapping_mul(f.1).wrapping_add(g.1),
        )
    }
}

/// Subgroup exclusive scan over `xs` (one value per lane), as `sg_exclusive_scan` (`subgroup/hw.wgsl`).
pub fn exclusive<T: SimMonoid>(xs: &[T]) -> Vec<T> {
    let mut acc = T::identity();
    xs.iter()
        .map(|&x| {
            let before = acc;
            acc = T::combine(acc, x);
            before
        })
        .collect()
}

/// A ballot: four words, lane i is bit i % 32 of word i / 32.
pub type Ballot = [u32; 4];

/// Set bits (`ballot_count`).
pub fn ballot_count(b: Ballot) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}

/// The lanes below `lane` (`lanes_below`).
pub fn lanes_below(lane: u32) -> Ballot {
    [0u32, 32, 64, 96].map(|lo| {
        if lane >= lo + 32 {
            u32::MAX
        } else if lane <= lo {
            0
        } else {
            (1u32 << (lane - lo)) - 1
        }
    })
}

/// Set bits of `b` below `lane` (`ballot_count_below`).
pub fn ballot_count_below(b: Ballot, lane: u32) -> u32 {
    let m = lanes_below(lane);
    ballot_count([0, 1, 2, 3].map(|i| b[i] & m[i]))
}

/// The lowest set lane, or −1 (`ballot_first`).
pub fn ballot_first(b: Ballot) -> i32 {
    for (i, w) in b.iter().enumerate() {
        if *w != 0 {
            return 32 * i as i32 + w.trailing_zeros() as i32;
        }
    }
    -1
}

/// The lane of the r-th set bit (`ballot_select`, `subgroup/compact.wgsl`), written as the shader
/// does it: pick the word, then halve the window five times.
pub fn ballot_select(b: Ballot, r: u32) -> u32 {
    let mut rank = r;
    let mut w = b[0];
    let mut base = 0;
    let cx = b[0].count_ones();
    if rank >= cx {
        rank -= cx;
        w = b[1];
        base = 32;
        let cy = b[1].count_ones();
        if rank >= cy {
            rank -= cy;
            w = b[2];
            base = 64;
            let cz = b[2].count_ones();
            if rank >= cz {
                rank -= cz;
                w = b[3];
                base = 96;
            }
        }
    }
    let mut lo = 0;
    let mut s = 16;
    while s > 0 {
        let c = ((w >> lo) & ((1u32 << s) - 1)).count_ones();
        if rank >= c {
            rank -= c;
            lo += s;
        }
        s >>= 1;
    }
    base + lo
}

/// `compact_source`: the lane whose task (lane < k) or free stack slot (lane ≥ k) `lane` takes.
pub fn compact_source(alive: Ballot, valid: Ballot, lane: u32, k: u32) -> u32 {
    if lane < k {
        return ballot_select(alive, lane);
    }
    ballot_select([0, 1, 2, 3].map(|i| !alive[i] & valid[i]), lane - k)
}

/// The ballot of one flag per lane (lane i is `p[i]`), as `subgroupBallot`.
pub fn ballot_of(p: &[bool]) -> Ballot {
    let mut b = [0u32; 4];
    for (i, &x) in p.iter().enumerate() {
        if x {
            b[i / 32] |= 1 << (i % 32);
        }
    }
    b
}

/// `subgroupBallot` over `width` lanes: bit `lane` set where `set(lane)` holds.
pub fn ballot(width: usize, set: impl Fn(usize) -> bool) -> Ballot {
    let mut b = [0u32; 4];
    for lane in (0..width).filter(|&lane| set(lane)) {
        b[lane / 32] |= 1 << (lane % 32);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_below_is_every_lane_under_it() {
        for lane in 0..=128u32 {
            let m = lanes_below(lane);
            for l in 0..128u32 {
                let set = m[l as usize / 32] >> (l % 32) & 1 == 1;
                assert_eq!(set, l < lane, "lane {lane}, bit {l}");
            }
        }
    }

    #[test]
    fn ballot_select_inverts_the_rank_at_every_width() {
        let mut r = fastrand::Rng::with_seed(77);
        for width in 1..=128u32 {
            let valid = lanes_below(width);
            for density in [0, 10, 50, 90, 100] {
                let alive: Vec<bool> = (0..width).map(|_| r.u32(..100) < density).collect();
                let b = ballot_of(&alive);
                let k = ballot_count(b);
                // A live task at lane i goes to ballot_count_below(b, i); the source of that
                // lane is i.
                for (i, _) in alive.iter().enumerate().filter(|(_, a)| **a) {
                    let dest = ballot_count_below(b, i as u32);
                    assert_eq!(compact_source(b, valid, dest, k), i as u32);
                }
                // The lanes past k take the dead lanes in order.
                let dead: Vec<u32> = (0..width).filter(|&i| !alive[i as usize]).collect();
                for (j, &d) in dead.iter().enumerate() {
                    assert_eq!(
                        compact_source(b, valid, k + j as u32, k),
                        d,
                        "width {width}"
                    );
                }
                assert_eq!(
                    ballot_first(b),
                    alive.iter().position(|&a| a).map_or(-1, |p| p as i32)
                );
            }
        }
    }

    #[test]
    fn exclusive_scan_is_the_serial_prefix_of_a_non_commutative_monoid() {
        let xs = [Affine(3, 1), Affine(5, 4), Affine(7, 3)];
        let e = exclusive(&xs);
        assert_eq!(e[0], Affine::identity());
        assert_eq!(e[1], xs[0]);
        assert_eq!(e[2], Affine::combine(xs[0], xs[1]));
        assert_ne!(Affine::combine(xs[0], xs[1]), Affine::combine(xs[1], xs[0]));
    }
}
