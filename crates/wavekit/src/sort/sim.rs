//! A CPU port of the sort scatter's ranking (`sort/scatter.wgsl`), written to read like the
//! WGSL for any subgroup width: ballots as four words (the foundation's `sim::subgroup`), the lowest lane of a digit adding to
//! its subgroup's 16-bit counter, the scan across subgroups digit by digit, the digit starts by
//! the workgroup scan. The tests run it at widths 1, 2, 4 … 128 against a stable counting sort.
//!
//! Also a port of how a pass finds each (tile, digit)'s first destination from the tiles'
//! counts (`sort/blocks.wgsl`, the scan of the blocks' sums, the scatter's base), tested against
//! the definition: the keys of smaller digits plus those of the digit in earlier tiles.

// Lane loops index several per-lane arrays, as the shader does.
#![allow(clippy::needless_range_loop)]

use crate::sim::subgroup::{
    Ballot, ballot_count, ballot_count_below, ballot_first, ballot_of, lanes_below,
};
use crate::sim::workgroup::wg_exclusive_of_subgroups;

/// `a & b`, word by word.
fn and(a: Ballot, b: Ballot) -> Ballot {
    std::array::from_fn(|w| a[w] & b[w])
}

/// `~a`, word by word.
fn not(a: Ballot) -> Ballot {
    a.map(|w| !w)
}

/// Where each of the first `valid` keys of a tile (digits in tile order) lands in the tile
/// sorted by digit, for `wg` invocations of `items` keys in subgroups of `width` lanes.
pub fn tile_positions(
    digits: &[u32],
    valid: usize,
    wg: usize,
    items: usize,
    width: usize,
) -> Vec<usize> {
    assert_eq!(digits.len(), wg * items);
    let subgroups = wg / width;
    // counters[s][d]: keys of digit d in subgroup s so far (16-bit halves in the shader).
    let mut counters = vec![[0u32; 256]; subgroups];
    let mut ranks = vec![0usize; digits.len()];
    let all = lanes_below(width as u32);
    for s in 0..subgroups {
        for k in 0..items {
            let index = |lane: usize| (s * items + k) * width + lane;
            let valid_bits: Vec<bool> = (0..width).map(|lane| index(lane) < valid).collect();
            let d: Vec<u32> = (0..width).map(|lane| digits[index(lane)]).collect();
            // The 8 bit ballots every lane takes part in.
            let bit_ballots: Vec<Ballot> = (0..8)
                .map(|b| ballot_of(&d.iter().map(|x| (x >> b) & 1 == 1).collect::<Vec<_>>()))
                .collect();
            let mut old = vec![0u32; width];
            let mut same = vec![[0u32; 4]; width];
            for lane in 0..width {
                let mut m = and(ballot_of(&valid_bits), all);
                for (b, &ones) in bit_ballots.iter().enumerate() {
                    m = and(
                        m,
                        if (d[lane] >> b) & 1 == 1 {
                            ones
                        } else {
                            not(ones)
                        },
                    );
                }
                same[lane] = m;
            }
            // The leaders add (they hold distinct digits); then every lane reads its leader's
            // old value (the shuffle).
            for lane in 0..width {
                let leader = ballot_first(same[lane]);
                if valid_bits[lane] && lane as i32 == leader {
                    let c = &mut counters[s][d[lane] as usize];
                    old[lane] = *c;
                    *c += ballot_count(same[lane]);
                    assert!(*c < 1 << 16, "a 16-bit counter overflowed");
                }
            }
            for lane in 0..width {
                if valid_bits[lane] {
                    let leader = ballot_first(same[lane]) as usize;
                    let below = ballot_count_below(same[lane], lane as u32);
                    ranks[index(lane)] = (old[leader] + below) as usize;
                }
            }
        }
    }
    // Across subgroups, digit by digit.
    let mut before = vec![[0u32; 256]; subgroups];
    let mut totals = [0u32; 256];
    for d in 0..256 {
        for s in 0..subgroups {
            before[s][d] = totals[d];
            totals[d] += counters[s][d];
        }
    }
    // Across digits: invocation t sums the digits of its words; a subgroup exclusive sum and
    // the carry across subgroups give its first digit's start.
    let words_per = (128 / wg).max(1);
    let mut mine = vec![0u32; wg];
    for t in 0..wg {
        for j in 0..words_per {
            let w = t * words_per + j;
            if w < 128 {
                mine[t] += totals[2 * w] + totals[2 * w + 1];
            }
        }
    }
    let sg_totals: Vec<u32> = (0..subgroups)
        .map(|s| mine[s * width..(s + 1) * width].iter().sum())
        .collect();
    let (sg_prefix, _) = wg_exclusive_of_subgroups(&sg_totals, width);
    let mut start = [0u32; 256];
    for t in 0..wg {
        let s = t / width;
        let lanes_before: u32 = mine[s * width..t].iter().sum();
        let mut run = sg_prefix[s] + lanes_before;
        for j in 0..2 * words_per {
            let d = 2 * t * words_per + j;
            if d < 256 {
                start[d] = run;
                run += totals[d];
            }
        }
    }
    (0..valid)
        .map(|i| {
            let s = i / (items * width);
            let d = digits[i] as usize;
            (start[d] + before[s][d]) as usize + ranks[i]
        })
        .collect()
}

/// Every (tile, digit)'s first destination, as the pass computes it from the tile-major
/// `counts` (`counts[tile * 256 + digit]`) with blocks of `block` tiles and workgroups of `wg`
/// invocations in subgroups of `width` lanes: the blocks kernel's column scans (in place) and
/// digit-major sums; then, up to `inline` blocks, the scatter's own sum of them
/// (`inline_bases`: digit totals scanned across digits in chunks of `wg`, a subgroup exclusive
/// sum and the carry across subgroups, plus the digit's sums in earlier blocks; over a single
/// block from the tiles' raw counts, as the blocks kernel does not run there), else the scan
/// primitive's exclusive scan of the sums; then the scatter's base. Returned tile-major.
pub fn tile_bases(
    counts: &[u32],
    tiles: usize,
    block: usize,
    inline: usize,
    wg: usize,
    width: usize,
) -> Vec<u32> {
    assert_eq!(counts.len(), tiles * 256);
    let blocks = tiles.div_ceil(block);
    let mut table = counts.to_vec();
    let mut sums = vec![0u32; blocks * 256];
    for b in 0..blocks {
        let t0 = b * block;
        for d in 0..256 {
            let mut run = 0u32;
            for t in t0..(t0 + block).min(tiles) {
                let count = table[t * 256 + d];
                table[t * 256 + d] = run;
                run += count;
            }
            sums[d * blocks + b] = run;
        }
    }
    if blocks <= inline {
        // Each tile's workgroup: digits in chunks of `wg`, invocation j taking digit c + j; over
        // one block, from the tiles' own counts (no blocks kernel ran).
        let one = blocks == 1;
        let mut bases = vec![0u32; tiles * 256];
        for t in 0..tiles {
            let mut carry = 0u32;
            for c in (0..256).step_by(wg) {
                let digit = |j: usize| (c + j < 256).then_some(c + j);
                let total = |d: usize| -> u32 {
                    if one {
                        (0..tiles).map(|u| counts[u * 256 + d]).sum()
                    } else {
                        sums[d * blocks..(d + 1) * blocks].iter().sum()
                    }
                };
                let totals: Vec<u32> = (0..wg).map(|j| digit(j).map_or(0, total)).collect();
                let sg_totals: Vec<u32> = totals.chunks(width).map(|s| s.iter().sum()).collect();
                let (sg_prefix, total) = wg_exclusive_of_subgroups(&sg_totals, width);
                for j in 0..wg {
                    if let Some(d) = digit(j) {
                        let s = j / width;
                        let lanes_before: u32 = totals[s * width..j].iter().sum();
                        let earlier: u32 = if one {
                            (0..t).map(|u| counts[u * 256 + d]).sum()
                        } else {
                            sums[d * blocks..d * blocks + t / block].iter().sum::<u32>()
                                + table[t * 256 + d]
                        };
                        bases[t * 256 + d] = carry + sg_prefix[s] + lanes_before + earlier;
                    }
                }
                carry += total;
            }
        }
        return bases;
    }
    // The scan primitive: an exclusive scan of the digit-major sums.
    let mut offsets = vec![0u32; blocks * 256];
    let mut run = 0u32;
    for (o, &v) in offsets.iter_mut().zip(&sums) {
        *o = run;
        run += v;
    }
    (0..tiles * 256)
        .map(|i| {
            let (t, d) = (i / 256, i % 256);
            offsets[d * blocks + t / block] + table[t * 256 + d]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDTHS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

    #[test]
    fn tile_ranking_is_a_stable_counting_sort_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(31);
        for &width in &WIDTHS {
            for _ in 0..30 {
                let wg = [32usize, 64, 128, 256][rng.usize(..4)].max(width);
                let items = [1usize, 2, 4, 16][rng.usize(..4)];
                let tile = wg * items;
                let spread = [1u32, 2, 5, 256][rng.usize(..4)];
                let digits: Vec<u32> = (0..tile).map(|_| rng.u32(..spread)).collect();
                let valid = if rng.bool() { tile } else { rng.usize(..=tile) };
                let got = tile_positions(&digits, valid, wg, items, width);
                let mut order: Vec<usize> = (0..valid).collect();
                order.sort_by_key(|&i| digits[i]);
                let mut want = vec![0; valid];
                for (p, &i) in order.iter().enumerate() {
                    want[i] = p;
                }
                assert_eq!(
                    got, want,
                    "width {width} wg {wg} items {items} valid {valid}"
                );
            }
        }
    }

    /// The blocks' arithmetic gives every (tile, digit) the keys of smaller digits plus those
    /// of the digit in earlier tiles, for one block and many, partial last blocks, any
    /// workgroup (more or fewer invocations than digits) and subgroup width.
    #[test]
    fn tile_bases_by_blocks_equal_the_definition() {
        let mut rng = fastrand::Rng::with_seed(11);
        for &width in &WIDTHS {
            for _ in 0..40 {
                let wg = [32usize, 64, 128, 256, 512][rng.usize(..5)].max(width);
                let block = [1usize, 2, 3, 16, 32, 64][rng.usize(..6)];
                let tiles = [1usize, 2, block, block + 1, 3 * block + 2][rng.usize(..5)].max(1);
                // Summed in the scatter up to `inline` blocks, else scanned.
                let inline = [0usize, 1, 3, 16][rng.usize(..4)];
                let counts: Vec<u32> = (0..tiles * 256).map(|_| rng.u32(..50)).collect();
                let mut want = vec![0u32; tiles * 256];
                let mut run = 0u32;
                for d in 0..256 {
                    for t in 0..tiles {
                        want[t * 256 + d] = run;
                        run += counts[t * 256 + d];
                    }
                }
                let got = tile_bases(&counts, tiles, block, inline, wg, width);
                assert_eq!(
                    got, want,
                    "width {width} wg {wg} block {block} inline {inline} tiles {tiles}"
                );
            }
        }
    }
}
