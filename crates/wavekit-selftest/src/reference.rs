//! The host side of the subgroup self-test: what each field of `subgroup_ops.wgsl` must hold,
//! computed from the inputs and the layout the GPU reported, and the comparison.

use serde::Serialize;

use wavekit_gpu::POISON;

/// Words each invocation writes (see the `F_*` constants in `subgroup_ops.wgsl`).
pub const FIELDS: u32 = 37;

// Field numbers, as in the shader.
const F_LOCAL: usize = 0;
const F_LANE: usize = 1;
const F_SIZE: usize = 2;
const F_SG_ID: usize = 3;
const F_NUM_SG: usize = 4;
const F_ADD_U32: usize = 5;
const F_MIN_U32: usize = 6;
const F_MAX_U32: usize = 7;
const F_MIN_I32: usize = 8;
const F_MAX_I32: usize = 9;
const F_ADD_F32: usize = 10;
const F_MIN_F32: usize = 11;
const F_MAX_F32: usize = 12;
const F_INCL_U32: usize = 13;
const F_EXCL_U32: usize = 14;
const F_INCL_F32: usize = 15;
const F_EXCL_F32: usize = 16;
const F_BALLOT: usize = 17;
const F_BALLOT_COUNT: usize = 21;
const F_BALLOT_BELOW: usize = 22;
const F_BCAST_FIRST: usize = 23;
const F_BCAST_0: usize = 24;
const F_BCAST_3: usize = 25;
const F_SHUFFLE: usize = 26;
const F_SHUFFLE_UP: usize = 27;
const F_SHUFFLE_DOWN: usize = 28;
const F_SHUFFLE_XOR1: usize = 29;
const F_SHUFFLE_XOR_HALF: usize = 30;
const F_ALL_NONZERO: usize = 31;
const F_ALL_ODD: usize = 32;
const F_ANY_ODD: usize = 33;
const F_ANY_ZERO: usize = 34;
const F_LANE0_ADD: usize = 35;
const F_UNIFORM_ADD: usize = 36;

/// The operation families, in report order: (key, description).
pub const FAMILIES: &[(&str, &str)] = &[
    (
        "layout",
        "subgroup_size, subgroup_invocation_id, subgroup_id, num_subgroups",
    ),
    ("reduce", "subgroupAdd/Min/Max on u32, i32, f32"),
    ("scan", "subgroupInclusiveAdd/ExclusiveAdd on u32, f32"),
    (
        "ballot",
        "subgroupBallot, all four words, bit count and count below lane",
    ),
    ("broadcast_first", "subgroupBroadcastFirst"),
    ("broadcast", "subgroupBroadcast from lanes 0 and 3"),
    ("shuffle", "subgroupShuffle by a computed lane"),
    (
        "shuffle_relative",
        "subgroupShuffleUp/Down by 1, subgroupShuffleXor by 1 and width/2",
    ),
    ("vote", "subgroupAll/subgroupAny"),
    (
        "divergence",
        "subgroupAdd(1) inside `if lane == 0` sums one lane (the pitfall), uniform sums all",
    ),
];

/// The outcome of one family.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyResult {
    /// Family key, e.g. "reduce".
    pub family: &'static str,
    /// What it covers.
    pub description: &'static str,
    /// Values compared.
    pub checks: u64,
    /// Values that differed.
    pub failures: u64,
    /// The first difference, located by shape, workgroup, subgroup and lane.
    pub first_failure: Option<String>,
}

impl FamilyResult {
    /// Whether every comparison held (and at least one was made).
    pub fn ok(&self) -> bool {
        self.failures == 0 && self.checks > 0
    }
}

/// One family's tally while checking.
struct Tally<'a> {
    results: &'a mut [FamilyResult],
    shape: [u32; 3],
}

impl Tally<'_> {
    fn check(&mut self, family: usize, at: &Loc, what: &str, got: u32, want: u32) {
        let r = &mut self.results[family];
        r.checks += 1;
        if got != want {
            r.failures += 1;
            if r.first_failure.is_none() {
                let note = if got == POISON {
                    " (never written)"
                } else {
                    ""
                };
                r.first_failure = Some(format!(
                    "workgroup {}x{}x{} #{} subgroup {} lane {}: {what} = {got:#x}, expected {want:#x}{note}",
                    self.shape[0], self.shape[1], self.shape[2], at.wg, at.sg, at.lane
                ));
            }
        }
    }
}

struct Loc {
    wg: u32,
    sg: u32,
    lane: u32,
}

/// Fresh empty results, one per family.
pub fn empty_results() -> Vec<FamilyResult> {
    FAMILIES
        .iter()
        .map(|&(family, description)| FamilyResult {
            family,
            description,
            checks: 0,
            failures: 0,
            first_failure: None,
        })
        .collect()
}

const LAYOUT: usize = 0;
const REDUCE: usize = 1;
const SCAN: usize = 2;
const BALLOT: usize = 3;
const BCAST_FIRST: usize = 4;
const BCAST: usize = 5;
const SHUFFLE: usize = 6;
const SHUFFLE_REL: usize = 7;
const VOTE: usize = 8;
const DIVERGENCE: usize = 9;

/// Inputs for `workgroups` workgroups of `per_wg` invocations. Workgroup 0 is all odd (so
/// `all(odd)` holds), workgroup 1 has zeros (so `any(x == 0)` holds); the rest are random.
pub fn make_input(seed: u64, workgroups: u32, per_wg: u32) -> Vec<u32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut v = Vec::with_capacity((workgroups * per_wg) as usize);
    for w in 0..workgroups {
        for i in 0..per_wg {
            let x = rng.u32(..);
            v.push(match w {
                0 => x | 1,
                1 if i % 3 == 0 => 0,
                _ => x,
            });
        }
    }
    v
}

fn f32_bits(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// Compare the GPU's `output` for `input` against the reference, adding to `results`.
/// `size_range` is the adapter's reported subgroup width range.
pub fn check(
    shape: [u32; 3],
    input: &[u32],
    output: &[u32],
    size_range: (u32, u32),
    results: &mut [FamilyResult],
) {
    let per_wg = shape.iter().product::<u32>() as usize;
    let fields = FIELDS as usize;
    let workgroups = input.len() / per_wg;
    let mut t = Tally { results, shape };
    for w in 0..workgroups {
        let rec = |i: usize, f: usize| output[(w * per_wg + i) * fields + f];
        // Group the invocations of this workgroup by the subgroup they report.
        let mut groups: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for i in 0..per_wg {
            groups.entry(rec(i, F_SG_ID)).or_default().push(i);
        }
        let num_groups = groups.len() as u32;
        for (&sg, members) in &groups {
            let mut members = members.clone();
            members.sort_by_key(|&i| rec(i, F_LANE));
            let n = members.len();
            let size = rec(members[0], F_SIZE);
            let xs: Vec<u32> = members.iter().map(|&i| input[w * per_wg + i]).collect();

            // Layout: lanes 0..n, one width, a linear order (local = sg * size + lane).
            for (k, &i) in members.iter().enumerate() {
                let at = Loc {
                    wg: w as u32,
                    sg,
                    lane: rec(i, F_LANE),
                };
                t.check(
                    LAYOUT,
                    &at,
                    "local_invocation_index",
                    rec(i, F_LOCAL),
                    i as u32,
                );
                t.check(
                    LAYOUT,
                    &at,
                    "subgroup_invocation_id",
                    rec(i, F_LANE),
                    k as u32,
                );
                t.check(
                    LAYOUT,
                    &at,
                    "subgroup_size (same in subgroup)",
                    rec(i, F_SIZE),
                    size,
                );
                let in_range = (size_range.0..=size_range.1).contains(&size) && size >= n as u32;
                t.check(
                    LAYOUT,
                    &at,
                    "subgroup_size within the adapter's range and >= active lanes",
                    u32::from(in_range),
                    1,
                );
                t.check(
                    LAYOUT,
                    &at,
                    "local index == subgroup_id * subgroup_size + lane",
                    i as u32,
                    sg.wrapping_mul(size).wrapping_add(k as u32),
                );
                t.check(LAYOUT, &at, "num_subgroups", rec(i, F_NUM_SG), num_groups);
                t.check(
                    LAYOUT,
                    &at,
                    "num_subgroups == ceil(workgroup / subgroup_size)",
                    num_groups,
                    (per_wg as u32).div_ceil(size.max(1)),
                );
            }

            let sum = xs.iter().fold(0u32, |a, &x| a.wrapping_add(x));
            let xi: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
            let xf: Vec<f64> = xs.iter().map(|&x| f64::from(x & 0xffff)).collect();
            let mut ballot = [0u32; 4];
            for (k, &x) in xs.iter().enumerate() {
                if x & 1 == 1 {
                    ballot[k / 32] |= 1 << (k % 32);
                }
            }
            let odd_count = xs.iter().filter(|&&x| x & 1 == 1).count() as u32;
            for (k, &i) in members.iter().enumerate() {
                let at = Loc {
                    wg: w as u32,
                    sg,
                    lane: k as u32,
                };
                let r = |f| rec(i, f);
                t.check(REDUCE, &at, "subgroupAdd(u32)", r(F_ADD_U32), sum);
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMin(u32)",
                    r(F_MIN_U32),
                    *xs.iter().min().unwrap(),
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMax(u32)",
                    r(F_MAX_U32),
                    *xs.iter().max().unwrap(),
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMin(i32)",
                    r(F_MIN_I32),
                    *xi.iter().min().unwrap() as u32,
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMax(i32)",
                    r(F_MAX_I32),
                    *xi.iter().max().unwrap() as u32,
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupAdd(f32)",
                    r(F_ADD_F32),
                    f32_bits(xf.iter().fold(0.0, |a, b| a + b)),
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMin(f32)",
                    r(F_MIN_F32),
                    f32_bits(xf.iter().copied().fold(f64::INFINITY, f64::min)),
                );
                t.check(
                    REDUCE,
                    &at,
                    "subgroupMax(f32)",
                    r(F_MAX_F32),
                    f32_bits(xf.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                );

                let excl = xs[..k].iter().fold(0u32, |a, &x| a.wrapping_add(x));
                t.check(
                    SCAN,
                    &at,
                    "subgroupInclusiveAdd(u32)",
                    r(F_INCL_U32),
                    excl.wrapping_add(xs[k]),
                );
                t.check(SCAN, &at, "subgroupExclusiveAdd(u32)", r(F_EXCL_U32), excl);
                // An empty f64 `sum()` is -0.0 in Rust; the GPU's identity is +0.0.
                let excl_f = xf[..k].iter().fold(0.0, |a, b| a + b);
                t.check(
                    SCAN,
                    &at,
                    "subgroupInclusiveAdd(f32)",
                    r(F_INCL_F32),
                    f32_bits(excl_f + xf[k]),
                );
                t.check(
                    SCAN,
                    &at,
                    "subgroupExclusiveAdd(f32)",
                    r(F_EXCL_F32),
                    f32_bits(excl_f),
                );

                for (word, &want) in ballot.iter().enumerate() {
                    t.check(
                        BALLOT,
                        &at,
                        &format!("subgroupBallot word {word}"),
                        r(F_BALLOT + word),
                        want,
                    );
                }
                t.check(
                    BALLOT,
                    &at,
                    "ballot bit count",
                    r(F_BALLOT_COUNT),
                    odd_count,
                );
                let below = xs[..k].iter().filter(|&&x| x & 1 == 1).count() as u32;
                t.check(
                    BALLOT,
                    &at,
                    "ballot count below lane",
                    r(F_BALLOT_BELOW),
                    below,
                );

                t.check(
                    BCAST_FIRST,
                    &at,
                    "subgroupBroadcastFirst",
                    r(F_BCAST_FIRST),
                    xs[0],
                );
                t.check(BCAST, &at, "subgroupBroadcast(x, 0)", r(F_BCAST_0), xs[0]);
                if n > 3 {
                    t.check(BCAST, &at, "subgroupBroadcast(x, 3)", r(F_BCAST_3), xs[3]);
                }

                let src = (k as u32 * 5 + 3) % size.max(1);
                if (src as usize) < n {
                    t.check(
                        SHUFFLE,
                        &at,
                        "subgroupShuffle(x, (lane*5+3) % size)",
                        r(F_SHUFFLE),
                        xs[src as usize],
                    );
                }
                if k >= 1 {
                    t.check(
                        SHUFFLE_REL,
                        &at,
                        "subgroupShuffleUp(x, 1)",
                        r(F_SHUFFLE_UP),
                        xs[k - 1],
                    );
                }
                if k + 1 < n {
                    t.check(
                        SHUFFLE_REL,
                        &at,
                        "subgroupShuffleDown(x, 1)",
                        r(F_SHUFFLE_DOWN),
                        xs[k + 1],
                    );
                }
                if (k ^ 1) < n {
                    t.check(
                        SHUFFLE_REL,
                        &at,
                        "subgroupShuffleXor(x, 1)",
                        r(F_SHUFFLE_XOR1),
                        xs[k ^ 1],
                    );
                }
                let half = (size / 2).max(1) as usize;
                if (k ^ half) < n {
                    t.check(
                        SHUFFLE_REL,
                        &at,
                        "subgroupShuffleXor(x, size/2)",
                        r(F_SHUFFLE_XOR_HALF),
                        xs[k ^ half],
                    );
                }

                let b = |p: bool| u32::from(p);
                t.check(
                    VOTE,
                    &at,
                    "subgroupAll(x != 0)",
                    r(F_ALL_NONZERO),
                    b(xs.iter().all(|&x| x != 0)),
                );
                t.check(
                    VOTE,
                    &at,
                    "subgroupAll(odd)",
                    r(F_ALL_ODD),
                    b(odd_count as usize == n),
                );
                t.check(
                    VOTE,
                    &at,
                    "subgroupAny(odd)",
                    r(F_ANY_ODD),
                    b(odd_count > 0),
                );
                t.check(
                    VOTE,
                    &at,
                    "subgroupAny(x == 0)",
                    r(F_ANY_ZERO),
                    b(xs.contains(&0)),
                );

                let lane0 = if k == 0 { 1 } else { u32::MAX };
                t.check(
                    DIVERGENCE,
                    &at,
                    "subgroupAdd(1) inside `if lane == 0`",
                    r(F_LANE0_ADD),
                    lane0,
                );
                t.check(
                    DIVERGENCE,
                    &at,
                    "subgroupAdd(1) in uniform control flow",
                    r(F_UNIFORM_ADD),
                    n as u32,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an ideal device of subgroup width `width` writes for one 1-D workgroup shape:
    /// subgroups laid out linearly, the last one partial when `width` does not divide it.
    fn simulate(per_wg: usize, input: &[u32], width: usize) -> Vec<u32> {
        let fields = FIELDS as usize;
        let mut out = vec![POISON; input.len() * fields];
        let num_sg = per_wg.div_ceil(width);
        for (w, wg_in) in input.chunks(per_wg).enumerate() {
            for (sg, xs) in wg_in.chunks(width).enumerate() {
                let n = xs.len();
                let xf: Vec<f32> = xs.iter().map(|&x| (x & 0xffff) as f32).collect();
                let mut ballot = [0u32; 4];
                for (k, &x) in xs.iter().enumerate() {
                    ballot[k / 32] |= (x & 1) << (k % 32);
                }
                for (k, &x) in xs.iter().enumerate() {
                    let local = sg * width + k;
                    let o = &mut out[(w * per_wg + local) * fields..][..fields];
                    let excl = xs[..k].iter().fold(0u32, |a, &v| a.wrapping_add(v));
                    let excl_f = xf[..k].iter().fold(0.0f32, |a, &v| a + v);
                    let at = |l: usize| if l < n { xs[l] } else { 0 };
                    o[F_LOCAL] = local as u32;
                    o[F_LANE] = k as u32;
                    o[F_SIZE] = width as u32;
                    o[F_SG_ID] = sg as u32;
                    o[F_NUM_SG] = num_sg as u32;
                    o[F_ADD_U32] = xs.iter().fold(0u32, |a, &v| a.wrapping_add(v));
                    o[F_MIN_U32] = *xs.iter().min().unwrap();
                    o[F_MAX_U32] = *xs.iter().max().unwrap();
                    o[F_MIN_I32] = xs.iter().map(|&v| v as i32).min().unwrap() as u32;
                    o[F_MAX_I32] = xs.iter().map(|&v| v as i32).max().unwrap() as u32;
                    o[F_ADD_F32] = xf.iter().fold(0.0f32, |a, &v| a + v).to_bits();
                    o[F_MIN_F32] = xf.iter().copied().fold(f32::INFINITY, f32::min).to_bits();
                    o[F_MAX_F32] = xf
                        .iter()
                        .copied()
                        .fold(f32::NEG_INFINITY, f32::max)
                        .to_bits();
                    o[F_INCL_U32] = excl.wrapping_add(x);
                    o[F_EXCL_U32] = excl;
                    o[F_INCL_F32] = (excl_f + xf[k]).to_bits();
                    o[F_EXCL_F32] = excl_f.to_bits();
                    o[F_BALLOT..F_BALLOT + 4].copy_from_slice(&ballot);
                    o[F_BALLOT_COUNT] = ballot.iter().map(|b| b.count_ones()).sum();
                    o[F_BALLOT_BELOW] = xs[..k].iter().map(|v| v & 1).sum();
                    o[F_BCAST_FIRST] = xs[0];
                    o[F_BCAST_0] = xs[0];
                    o[F_BCAST_3] = at(3);
                    o[F_SHUFFLE] = at((k * 5 + 3) % width);
                    o[F_SHUFFLE_UP] = if k > 0 { xs[k - 1] } else { 0 };
                    o[F_SHUFFLE_DOWN] = at(k + 1);
                    o[F_SHUFFLE_XOR1] = at(k ^ 1);
                    o[F_SHUFFLE_XOR_HALF] = at(k ^ (width / 2).max(1));
                    o[F_ALL_NONZERO] = u32::from(xs.iter().all(|&v| v != 0));
                    o[F_ALL_ODD] = u32::from(xs.iter().all(|&v| v & 1 == 1));
                    o[F_ANY_ODD] = u32::from(xs.iter().any(|&v| v & 1 == 1));
                    o[F_ANY_ZERO] = u32::from(xs.contains(&0));
                    o[F_LANE0_ADD] = if k == 0 { 1 } else { u32::MAX };
                    o[F_UNIFORM_ADD] = n as u32;
                }
            }
        }
        out
    }

    fn run_check(per_wg: usize, input: &[u32], output: &[u32], width: u32) -> Vec<FamilyResult> {
        let mut results = empty_results();
        check(
            [per_wg as u32, 1, 1],
            input,
            output,
            (width, width),
            &mut results,
        );
        results
    }

    const WIDTHS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

    #[test]
    fn an_ideal_device_passes_at_every_width() {
        for (t, &width) in WIDTHS.iter().enumerate() {
            for per_wg in [64usize, 96, 256] {
                let input = make_input(t as u64 * 31 + per_wg as u64, 5, per_wg as u32);
                let output = simulate(per_wg, &input, width);
                for r in run_check(per_wg, &input, &output, width as u32) {
                    // A one-lane subgroup has no neighbour to shuffle with: nothing to check.
                    if width == 1 && r.family == "shuffle_relative" {
                        assert_eq!((r.checks, r.failures), (0, 0));
                        continue;
                    }
                    assert!(
                        r.ok(),
                        "width {width}, workgroup {per_wg}: {} failed: {:?}",
                        r.family,
                        r.first_failure
                    );
                }
            }
        }
    }

    /// The checker must catch a wrong value in any field: flip one field of one random
    /// invocation and only the family owning that field may fail, and it must.
    #[test]
    fn every_field_is_checked() {
        let family_of = |f: usize| match f {
            F_LOCAL..=F_NUM_SG => LAYOUT,
            F_ADD_U32..=F_MAX_F32 => REDUCE,
            F_INCL_U32..=F_EXCL_F32 => SCAN,
            F_BALLOT..=F_BALLOT_BELOW => BALLOT,
            F_BCAST_FIRST => BCAST_FIRST,
            F_BCAST_0 | F_BCAST_3 => BCAST,
            F_SHUFFLE => SHUFFLE,
            F_SHUFFLE_UP..=F_SHUFFLE_XOR_HALF => SHUFFLE_REL,
            F_ALL_NONZERO..=F_ANY_ZERO => VOTE,
            _ => DIVERGENCE,
        };
        let mut rng = fastrand::Rng::with_seed(7);
        for &width in &[4usize, 8, 32] {
            let per_wg = 64;
            let input = make_input(width as u64, 4, per_wg as u32);
            let clean = simulate(per_wg, &input, width);
            for field in 0..FIELDS as usize {
                // Lanes where the field is defined: avoid lanes whose shuffle source is absent.
                let inv = loop {
                    let i = rng.usize(..input.len());
                    let lane = i % width;
                    let ok = match field {
                        F_SHUFFLE_UP => lane > 0,
                        F_SHUFFLE_DOWN => lane + 1 < width,
                        _ => true,
                    };
                    if ok {
                        break i;
                    }
                };
                let mut bad = clean.clone();
                let slot = inv * FIELDS as usize + field;
                bad[slot] = if field == F_LOCAL || field == F_SG_ID || field == F_LANE {
                    bad[slot] ^ 1
                } else {
                    bad[slot].wrapping_add(1)
                };
                let results = run_check(per_wg, &input, &bad, width as u32);
                let want = family_of(field);
                assert!(
                    !results[want].ok(),
                    "width {width}: corrupting field {field} went unnoticed by {}",
                    results[want].family
                );
                if family_of(field) != LAYOUT {
                    for (k, r) in results.iter().enumerate() {
                        if k != want {
                            assert!(r.ok(), "field {field} also failed {}", r.family);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn poison_is_named_in_the_report() {
        let input = make_input(3, 2, 64);
        let mut out = simulate(64, &input, 8);
        out[5 * FIELDS as usize + F_ADD_U32] = POISON;
        let results = run_check(64, &input, &out, 8);
        let msg = results[REDUCE].first_failure.clone().unwrap();
        assert!(msg.contains("never written"), "{msg}");
        assert!(msg.contains("#0 subgroup 0 lane 5"), "{msg}");
    }

    #[test]
    fn a_width_outside_the_adapter_range_fails_layout() {
        let input = make_input(4, 2, 64);
        let out = simulate(64, &input, 16);
        let mut results = empty_results();
        check([64, 1, 1], &input, &out, (32, 32), &mut results);
        assert!(!results[LAYOUT].ok());
    }

    #[test]
    fn inputs_exercise_both_vote_outcomes() {
        let input = make_input(9, 6, 64);
        assert!(input[..64].iter().all(|x| x & 1 == 1));
        assert!(input[64..128].contains(&0));
        assert!(input[128..].iter().any(|x| x & 1 == 0));
    }
}
