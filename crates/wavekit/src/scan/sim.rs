//! A CPU port of the scan and select kernels' own arithmetic (`scan/scan.wgsl`'s `scan_tile`
//! and direct layout, `select.wgsl`'s ranking and staging), for any subgroup width, built on the
//! foundation's ports of the layers beneath ([`crate::sim`]: ballots, the carry across
//! subgroups, the look-back). The tests run it at widths 1, 2, 4 … 128 over many random trials
//! against the serial reference, so an index error that only shows at a width no test machine
//! has is still caught.

// Lane loops index several per-lane arrays, as the shader does.
#![allow(clippy::needless_range_loop)]

use crate::sim::subgroup::{SimMonoid, ballot, ballot_count, ballot_count_below, exclusive};
use crate::sim::workgroup::wg_exclusive_of_subgroups;

/// `scan_tile` + the tile's final combine: the scan of one tile with `prefix` before it, for
/// `wg` invocations of `per_lane` consecutive elements in subgroups of `width`.
pub fn scan_tile<T: SimMonoid>(
    tile: &[T],
    prefix: T,
    wg: usize,
    per_lane: usize,
    width: usize,
    inclusive: bool,
) -> (Vec<T>, T) {
    assert_eq!(tile.len(), wg * per_lane);
    // Each invocation's serial scan of its consecutive elements.
    let mut vals = vec![T::identity(); tile.len()];
    let mut runs = vec![T::identity(); wg];
    for t in 0..wg {
        let mut run = T::identity();
        for j in 0..per_lane {
            let before = run;
            run = T::combine(run, tile[t * per_lane + j]);
            vals[t * per_lane + j] = if inclusive { run } else { before };
        }
        runs[t] = run;
    }
    // Per subgroup: lanes before, subgroup total.
    let subgroups = wg / width;
    let mut sg_totals = Vec::with_capacity(subgroups);
    let mut lanes_before = vec![T::identity(); wg];
    for s in 0..subgroups {
        let lanes = &runs[s * width..(s + 1) * width];
        let excl = exclusive(lanes);
        sg_totals.push(T::combine(excl[width - 1], lanes[width - 1]));
        lanes_before[s * width..(s + 1) * width].copy_from_slice(&excl);
    }
    let (sg_prefix, total) = wg_exclusive_of_subgroups(&sg_totals, width);
    let out = (0..tile.len())
        .map(|i| {
            let t = i / per_lane;
            let p = T::combine(prefix, sg_prefix[t / width]);
            T::combine(p, T::combine(lanes_before[t], vals[i]))
        })
        .collect();
    (out, total)
}

/// The ranks `select/select.wgsl` gives survivors after the look-back (ADR-0033, ADR-0035), as
/// its direct stores compute them: for each element, the survivors before it in the tile.
/// Subgroup `sg` holds the chunk of `per_lane * width` elements at `sg * per_lane * width`; in
/// step v lane i holds element `v * width + i` of it; a ballot per step (four words, as the
/// GPU's) ranks the step's survivors.
pub fn select_slots(keep: &[bool], wg: usize, per_lane: usize, width: usize) -> Vec<u32> {
    assert_eq!(keep.len(), wg * per_lane);
    let subgroups = wg / width;
    let element = |sg: usize, lane: usize, v: usize| (sg * per_lane + v) * width + lane;
    let mut slots = vec![0u32; keep.len()];
    let mut totals = Vec::with_capacity(subgroups);
    for sg in 0..subgroups {
        let mut carry = 0u32;
        for v in 0..per_lane {
            let b = ballot(width, |lane| keep[element(sg, lane, v)]);
            for lane in 0..width {
                slots[element(sg, lane, v)] = carry + ballot_count_below(b, lane as u32);
            }
            carry += ballot_count(b);
        }
        totals.push(carry);
    }
    let (sg_prefix, _) = wg_exclusive_of_subgroups(&totals, width);
    for (e, slot) in slots.iter_mut().enumerate() {
        *slot += sg_prefix[e / (per_lane * width)];
    }
    slots
}

/// `store_staged` of `select/select.wgsl` for one subgroup of `width` lanes: `keep` is its
/// chunk in (step, lane) order, of which the first `avail` elements lie below n; batches of
/// `stage` steps; kept rank 0 goes to `kept_base` and (with `partition`) rejected rank 0 to
/// `rejected_base`. Returns the store instructions that write anything, in order: lane 0's
/// destination and the (destination, element) pairs its lanes write. Panics where the GPU
/// would stage past the subgroup's region, stage two elements in one word, or store a word
/// it did not stage.
pub fn staged_stores(
    keep: &[bool],
    width: usize,
    avail: usize,
    stage: usize,
    partition: bool,
    (kept_base, rejected_base): (u32, u32),
) -> Vec<(u32, Vec<(u32, usize)>)> {
    let per_lane = keep.len() / width;
    assert_eq!(per_lane % stage, 0);
    let keep: Vec<bool> = keep
        .iter()
        .enumerate()
        .map(|(e, &k)| k && e < avail)
        .collect();
    let line = width.min(32) as u32;
    let region = width * (stage + if partition { 2 } else { 1 });
    let mut stores = Vec::new();
    // A subgroup's stores of staged words j in lo..hi from `from` in the region, word j going
    // to at + j: `width` consecutive j per instruction, from 0.
    let mut out = |staged: &[Option<usize>], from: usize, lo: u32, hi: u32, at: u32| {
        for start in (0..hi).step_by(width) {
            let writes: Vec<(u32, usize)> = (start..(start + width as u32).min(hi))
                .filter(|&j| j >= lo)
                .map(|j| (at + j, staged[from + j as usize].expect("stored unstaged")))
                .collect();
            if !writes.is_empty() {
                stores.push((at + start, writes));
            }
        }
    };
    // The subgroup's kept elements before the batch.
    let mut k0 = 0u32;
    for b in 0..per_lane / stage {
        let steps = b * stage..(b + 1) * stage;
        let e0 = (b * stage * width).min(avail) as u32;
        let e1 = ((b + 1) * stage * width).min(avail) as u32;
        let kept_at = kept_base + k0;
        let kept_m = kept_at % line;
        let rejected_r0 = e0 - k0;
        let rejected_at = rejected_base + rejected_r0;
        let rejected_m = rejected_at % line;
        // Partition counts the batch's survivors first (a subgroup reduce of each lane's).
        let batch_kept = if partition {
            keep[steps.start * width..steps.end * width]
                .iter()
                .filter(|&&k| k)
                .count() as u32
        } else {
            0
        };
        let rejected_start = (line + batch_kept) as usize;
        let mut staged = vec![None; region];
        let mut rank = k0;
        for v in steps {
            let b = ballot(width, |lane| keep[v * width + lane]);
            for lane in 0..width {
                let e = v * width + lane;
                let kept_rank = rank + ballot_count_below(b, lane as u32);
                // What is not staged goes to the invocation's trash word, outside the region.
                let at = if e >= avail {
                    continue;
                } else if keep[e] {
                    (kept_m + kept_rank - k0) as usize
                } else if partition {
                    rejected_start + (rejected_m + (e as u32 - kept_rank) - rejected_r0) as usize
                } else {
                    continue;
                };
                assert!(at < region, "staged past the region: {at} of {region}");
                assert!(staged[at].is_none(), "two elements staged at {at}");
                staged[at] = Some(e);
            }
            rank += ballot_count(b);
        }
        let k1 = rank;
        if partition {
            assert_eq!(
                batch_kept,
                k1 - k0,
                "the batch's count and its ranks disagree"
            );
        }
        out(&staged, 0, kept_m, kept_m + k1 - k0, kept_at - kept_m);
        if partition {
            let end = rejected_m + (e1 - k1) - rejected_r0;
            out(
                &staged,
                rejected_start,
                rejected_m,
                end,
                rejected_at - rejected_m,
            );
        }
        k0 = k1;
    }
    stores
}

/// The direct layout of `scan/scan.wgsl`: subgroup s takes the `width * quads` quads at
/// `s * width * quads`; in step k lane i holds quad `k * width + i` of them, scans it serially,
/// and one subgroup scan per step carries across lanes and steps. Returns the tile's scan after
/// `prefix` and its aggregate.
pub fn scan_tile_direct<T: SimMonoid>(
    tile: &[T],
    prefix: T,
    wg: usize,
    quads: usize,
    width: usize,
    inclusive: bool,
) -> (Vec<T>, T) {
    assert_eq!(tile.len(), wg * quads * 4);
    let subgroups = wg / width;
    let mut out = vec![T::identity(); tile.len()];
    let mut sg_totals = Vec::with_capacity(subgroups);
    // Per subgroup: the offset of each (step, lane) and the serial scans, before the
    // workgroup's carry is known.
    let mut parts = Vec::with_capacity(subgroups);
    for s in 0..subgroups {
        let mut carry = T::identity();
        let mut offs = vec![T::identity(); quads * width];
        let mut vals = vec![T::identity(); quads * width * 4];
        for k in 0..quads {
            let totals: Vec<T> = (0..width)
                .map(|lane| {
                    let q = (s * quads + k) * width + lane;
                    let mut run = T::identity();
                    for j in 0..4 {
                        let before = run;
                        run = T::combine(run, tile[q * 4 + j]);
                        vals[(k * width + lane) * 4 + j] = if inclusive { run } else { before };
                    }
                    run
                })
                .collect();
            let excl = exclusive(&totals);
            for lane in 0..width {
                offs[k * width + lane] = T::combine(carry, excl[lane]);
            }
            carry = T::combine(carry, T::combine(excl[width - 1], totals[width - 1]));
        }
        sg_totals.push(carry);
        parts.push((offs, vals));
    }
    let (sg_prefix, total) = wg_exclusive_of_subgroups(&sg_totals, width);
    for (s, (offs, vals)) in parts.iter().enumerate() {
        let p = T::combine(prefix, sg_prefix[s]);
        for k in 0..quads {
            for lane in 0..width {
                let q = (s * quads + k) * width + lane;
                let o = T::combine(p, offs[k * width + lane]);
                for j in 0..4 {
                    out[q * 4 + j] = T::combine(o, vals[(k * width + lane) * 4 + j]);
                }
            }
        }
    }
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monoid::Op;
    use crate::scan::reference;

    use crate::sim::WIDTHS;
    use crate::sim::subgroup::Affine;

    #[test]
    fn tile_scans_match_the_serial_reference_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(21);
        for &width in &WIDTHS {
            for _ in 0..40 {
                // Workgroups of 128 .. 1024 invocations: up to 1024 subgroups of one lane.
                let wg = 128 << rng.usize(..4);
                let per_lane = [1, 2, 4, 8, 16][rng.usize(..5)];
                let inclusive = rng.bool();
                let x: Vec<u32> = (0..wg * per_lane).map(|_| rng.u32(..)).collect();
                let carry = rng.u32(..);
                let (got, total) = scan_tile(&x, carry, wg, per_lane, width, inclusive);
                let mut want = reference::scan(&x, Op::Add, inclusive);
                for w in &mut want {
                    *w = w.wrapping_add(carry);
                }
                assert_eq!(got, want, "width {width} wg {wg} per_lane {per_lane}");
                assert_eq!(total, reference::reduce(&x, Op::Add));

                let f: Vec<Affine> = (0..wg * per_lane)
                    .map(|_| Affine(rng.u32(..) | 1, rng.u32(..)))
                    .collect();
                let (got, total) = scan_tile(&f, Affine::identity(), wg, per_lane, width, true);
                let mut acc = Affine::identity();
                for (i, &v) in f.iter().enumerate() {
                    acc = Affine::combine(acc, v);
                    assert_eq!(got[i], acc, "affine, width {width}, element {i}");
                }
                assert_eq!(total, acc);
            }
        }
    }

    #[test]
    fn direct_tile_scans_match_the_serial_reference_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(24);
        for &width in &WIDTHS {
            for _ in 0..40 {
                let wg = 128 << rng.usize(..4);
                let quads = 1 + rng.usize(..4);
                let inclusive = rng.bool();
                let f: Vec<Affine> = (0..wg * quads * 4)
                    .map(|_| Affine(rng.u32(..) | 1, rng.u32(..)))
                    .collect();
                let p = Affine(rng.u32(..) | 1, rng.u32(..));
                let (got, total) = scan_tile_direct(&f, p, wg, quads, width, inclusive);
                let mut acc = p;
                for (i, &v) in f.iter().enumerate() {
                    let before = acc;
                    acc = Affine::combine(acc, v);
                    let want = if inclusive { acc } else { before };
                    assert_eq!(
                        got[i], want,
                        "width {width} wg {wg} quads {quads} element {i}"
                    );
                }
                let whole = f
                    .iter()
                    .fold(Affine::identity(), |a, &b| Affine::combine(a, b));
                assert_eq!(total, whole);
            }
        }
    }

    #[test]
    fn compaction_slots_keep_order_at_every_width() {
        let mut rng = fastrand::Rng::with_seed(22);
        for &width in &WIDTHS {
            for _ in 0..40 {
                let wg = 128 << rng.usize(..4);
                let per_lane = [1, 2, 3, 4, 8, 32][rng.usize(..6)];
                let density = rng.u32(..=100);
                let keep: Vec<bool> = (0..wg * per_lane)
                    .map(|_| rng.u32(..100) < density)
                    .collect();
                let slots = select_slots(&keep, wg, per_lane, width);
                let mut seen = 0;
                for (i, &k) in keep.iter().enumerate() {
                    // A survivor's slot, and (partition) a rejected element's rank among the
                    // rejected, `i - slot`.
                    assert_eq!(slots[i], seen, "width {width} element {i}");
                    seen += u32::from(k);
                }
            }
        }
    }

    #[test]
    fn staged_stores_place_every_element_and_start_on_lines() {
        let mut rng = fastrand::Rng::with_seed(24);
        for &width in &WIDTHS {
            for _ in 0..60 {
                // 13 and 16 are select's and partition's batches (tuning.rs).
                let stage = [1, 2, 4, 8, 13, 16][rng.usize(..6)];
                let per_lane = stage * (1 + rng.usize(..4));
                let len = per_lane * width;
                let avail = if rng.bool() { len } else { rng.usize(..=len) };
                let density = rng.u32(..=100);
                let keep: Vec<bool> = (0..len).map(|_| rng.u32(..100) < density).collect();
                let bases = (rng.u32(..1 << 30), rng.u32(..1 << 30));
                for partition in [false, true] {
                    let stores = staged_stores(&keep, width, avail, stage, partition, bases);
                    // Each side's elements below `avail`, in order, at consecutive places.
                    let mut want: Vec<(u32, usize)> = Vec::new();
                    for (kept_side, base) in [(true, bases.0), (false, bases.1)] {
                        if kept_side || partition {
                            let side = (0..avail).filter(|&e| keep[e] == kept_side);
                            want.extend(side.zip(base..).map(|(e, d)| (d, e)));
                        }
                    }
                    let mut got: Vec<(u32, usize)> =
                        stores.iter().flat_map(|s| s.1.iter().copied()).collect();
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(
                        got, want,
                        "width {width} stage {stage} partition {partition}"
                    );
                    // Every store starts on a line (32 words, or the subgroup's width if less)
                    // and writes within the `width` words from there.
                    let line = width.min(32) as u32;
                    for (start, w) in &stores {
                        assert_eq!(start % line, 0, "width {width}: a store starts at {start}");
                        assert!(
                            w.iter()
                                .all(|&(d, _)| d >= *start && d - start < width as u32)
                        );
                    }
                }
            }
        }
    }
}
