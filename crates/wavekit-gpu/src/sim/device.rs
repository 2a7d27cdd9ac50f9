//! `shaders/device/` on the CPU: the decoupled look-back (`device/lookback.wgsl`'s `walk`) over a
//! fixed snapshot of the tile descriptors.

use super::subgroup::SimMonoid;

/// What a look-back lane sees of a predecessor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seen<T> {
    /// Nothing published.
    Nothing,
    /// Only the aggregate.
    Aggregate(T),
    /// The inclusive prefix.
    Inclusive(T),
}

/// What a walk over a fixed snapshot of descriptors found.
#[derive(Debug)]
pub struct Walk<T> {
    /// The prefix gathered.
    pub prefix: T,
    /// `false`: it would wait on, then fall back to, tile `look - 1`.
    pub done: bool,
    /// Where it stopped.
    pub look: usize,
}

/// `walk` of `device/lookback.wgsl` over a fixed snapshot of descriptors, for subgroups of
/// `width` lanes reading `chunks` chunks per window, the first window `first_window` wide.
pub fn walk<T: SimMonoid>(
    seen: &[Seen<T>],
    tile: usize,
    width: usize,
    chunks: usize,
    first_window: usize,
) -> Walk<T> {
    let mut look = tile;
    let mut prefix = T::identity();
    let window = width * chunks;
    let mut w = first_window.min(window);
    while look > 0 {
        // Lane j of chunk c reads tile look - (c + 1) * width + j; past the first w tiles back,
        // a boundary; before tile 0, an empty inclusive prefix.
        let lanes: Vec<Vec<(u32, T)>> = (0..chunks)
            .map(|c| {
                (0..width)
                    .map(|lane| {
                        let back = (c + 1) * width - lane;
                        if back > w {
                            (0, T::identity())
                        } else if back <= look {
                            match seen[look - back] {
                                Seen::Nothing => (0, T::identity()),
                                Seen::Aggregate(v) => (1, v),
                                Seen::Inclusive(v) => (2, v),
                            }
                        } else {
                            (2, T::identity())
                        }
                    })
                    .collect()
            })
            .collect();
        let mut taken = 0;
        let mut got_all = T::identity();
        let mut anchored = false;
        for chunk in &lanes {
            let decider = chunk.iter().rposition(|&(k, _)| k != 1);
            let got = chunk
                .iter()
                .enumerate()
                .filter(|&(lane, &(kind, _))| match decider {
                    None => true,
                    Some(d) => lane > d || (lane == d && kind == 2),
                })
                .fold(T::identity(), |a, (_, &(_, v))| T::combine(a, v));
            got_all = T::combine(got, got_all);
            if let Some(d) = decider {
                anchored = chunk[d].0 == 2;
                taken += if anchored { width - d } else { width - 1 - d };
                break;
            }
            taken += width;
        }
        if anchored {
            return Walk {
                prefix: T::combine(got_all, prefix),
                done: true,
                look,
            };
        }
        if taken == 0 {
            return Walk {
                prefix,
                done: false,
                look,
            };
        }
        prefix = T::combine(got_all, prefix);
        look -= taken;
        w = (2 * w).min(window);
    }
    Walk {
        prefix,
        done: true,
        look,
    }
}

/// `device/grid`'s `grid_floor`: the cell ⌊d·2^bits / e⌋ of the real numbers `d` and `e`,
/// clamped to `0 ..= 2^bits − 1` (0 for `d ≤ 0` or NaN, the last cell for `d ≥ e`), computed
/// without rounding, so that it is the same on every device and here. `bits` ≤ 24; `e` > 0.
pub fn grid_floor(d: f32, e: f32, bits: u32) -> u32 {
    let top = (1u32 << bits) - 1;
    if d.is_nan() || d <= 0.0 {
        return 0;
    }
    if d >= e {
        return top;
    }
    let split = |x: f32| {
        let b = x.to_bits();
        let (ex, frac) = ((b >> 23) & 0xff, b & 0x7f_ffff);
        if ex == 0 {
            (u64::from(frac), -149i32)
        } else {
            (u64::from(frac | 0x80_0000), ex as i32 - 150)
        }
    };
    let ((ma, ea), (mb, eb)) = (split(d), split(e));
    let n = ea - eb + bits as i32;
    if n < 0 || mb == 0 {
        return 0;
    }
    // d < e bounds n by `bits`: ma < 2^24 shifted by at most 24 fits a u64.
    (((ma << n) / mb) as u32).min(top)
}

/// Inner node `i` of the binary radix tree over sorted keys (`device/radix_tree`'s
/// `radix_node`, Karras 2012): `delta(i, j)` is the length of the common prefix of keys i and
/// j (−1 outside the keys; equal keys told apart by their positions). Returns (first, gamma,
/// last): the node covers [first, last], its left child [first, gamma], its right [gamma + 1,
/// last].
pub fn radix_node(i: i64, delta: impl Fn(i64, i64) -> i64) -> (usize, usize, usize) {
    let d = if delta(i, i + 1) > delta(i, i - 1) {
        1
    } else {
        -1
    };
    let dmin = delta(i, i - d);
    let mut lmax = 2;
    while delta(i, i + lmax * d) > dmin {
        lmax *= 2;
    }
    let mut len = 0;
    let mut t = lmax / 2;
    while t >= 1 {
        if delta(i, i + (len + t) * d) > dmin {
            len += t;
        }
        t /= 2;
    }
    let j = i + len * d;
    let dnode = delta(i, j);
    let (mut s, mut div) = (0, 2);
    loop {
        let t = (len + div - 1) / div;
        if delta(i, i + (s + t) * d) > dnode {
            s += t;
        }
        if t <= 1 {
            break;
        }
        div *= 2;
    }
    (
        i.min(j) as usize,
        (i + s * d + d.min(0)) as usize,
        i.max(j) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::WIDTHS;
    use crate::sim::subgroup::Affine;

    #[test]
    fn the_look_back_window_combines_predecessors_in_order() {
        let mut rng = fastrand::Rng::with_seed(23);
        for &width in &WIDTHS {
            for _ in 0..200 {
                let tiles = 1 + rng.usize(..300);
                let aggs: Vec<Affine> = (0..tiles)
                    .map(|_| Affine(rng.u32(..) | 1, rng.u32(..)))
                    .collect();
                let mut incl = Vec::with_capacity(tiles);
                let mut acc = Affine::identity();
                for &a in &aggs {
                    acc = Affine::combine(acc, a);
                    incl.push(acc);
                }
                let tile = rng.usize(..tiles);
                // Random publication state; a tile with nothing blocks the walk there.
                let seen: Vec<Seen<Affine>> = (0..tiles)
                    .map(|t| match rng.u32(..10) {
                        0 => Seen::Nothing,
                        1..=6 => Seen::Aggregate(aggs[t]),
                        _ => Seen::Inclusive(incl[t]),
                    })
                    .collect();
                let chunks = 1 + rng.usize(..4);
                let first_window = 1 + rng.usize(..width * chunks);
                let Walk { prefix, done, look } = walk(&seen, tile, width, chunks, first_window);
                let want_from = |from: usize| {
                    aggs[from..tile]
                        .iter()
                        .fold(Affine::identity(), |a, &b| Affine::combine(a, b))
                };
                if done {
                    let want = if tile == 0 {
                        Affine::identity()
                    } else {
                        incl[tile - 1]
                    };
                    assert_eq!(prefix, want, "width {width} tile {tile}");
                } else {
                    // It stopped at an unpublished tile look - 1 with the tiles after it taken.
                    assert_eq!(seen[look - 1], Seen::Nothing, "width {width} tile {tile}");
                    assert_eq!(prefix, want_from(look), "width {width} tile {tile}");
                }
            }
        }
    }

    /// `grid_floor` against the exact criterion q·e ≤ d·2^bits < (q + 1)·e (exact in f64:
    /// both sides have at most 48 significant bits), on random values and on the cells'
    /// edges, where a rounded quotient goes wrong.
    #[test]
    fn grid_floor_is_the_exact_cell() {
        let mut rng = fastrand::Rng::with_seed(0x9e1d);
        for bits in [1u32, 10, 21] {
            let cells = f64::from(1u32 << bits);
            let check = |d: f32, e: f32| {
                let q = grid_floor(d, e, bits);
                let (df, ef) = (f64::from(d), f64::from(e));
                if d.is_nan() || d <= 0.0 {
                    assert_eq!(q, 0, "{d} {e}");
                } else if d >= e {
                    assert_eq!(q, (1 << bits) - 1, "{d} {e}");
                } else {
                    let x = df * cells;
                    assert!(
                        f64::from(q) * ef <= x && x < f64::from(q + 1) * ef,
                        "{d} / {e} at {bits} bits: {q}"
                    );
                }
            };
            for _ in 0..20_000 {
                let e = f32::from_bits(rng.u32(0x0080_0000..0x7f00_0000));
                let d = e * rng.f32();
                check(d, e);
                // A cell's edge and its neighbours in f32.
                let k = rng.u32(0..1 << bits);
                let edge = (f64::from(k) / cells * f64::from(e)) as f32;
                for x in [
                    edge,
                    f32::from_bits(edge.to_bits().wrapping_sub(1)),
                    f32::from_bits(edge.to_bits() + 1),
                ] {
                    check(x, e);
                }
            }
            check(-1.0, 3.0);
            check(f32::NAN, 3.0);
            check(3.0, 3.0);
            check(1e-45, 1e-30);
            check(1e-38, 2e-38);
        }
    }
}
