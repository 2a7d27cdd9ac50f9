//! The host side of the subgroup self-test: what each field of `subgroup_ops.wgsl` must hold,
//! computed from the inputs and the layout the GPU reported, and the comparison.

use serde::Serialize;

use crate::buffers::POISON;

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
                let note = if got == POISON { " (never written)" } else { "" };
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
                t.check(LAYOUT, &at, "local_invocation_index", rec(i, F_LOCAL), i as u32);
                t.check(LAYOUT, &at, "subgroup_invocation_id", rec(i, F_LANE), k as u32);
                t.check(LAYOUT, &at, "subgroup_size (same in subgroup)", rec(i, F_SIZE), size);
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
                    sg * size + k as u32,
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
                t.check(REDUCE, &at, "subgroupMin(u32)", r(F_MIN_U32), *xs.iter().min().unwrap());
                t.check(REDUCE, &at, "subgroupMax(u32)", r(F_MAX_U32), *xs.iter().max().unwrap());
                t.check(REDUCE, &at, "subgroupMin(i32)", r(F_MIN_I32), *xi.iter().min().unwrap() as u32);
                t.check(REDUCE, &at, "subgroupMax(i32)", r(F_MAX_I32), *xi.iter().max().unwrap() as u32);
                t.check(REDUCE, &at, "subgroupAdd(f32)", r(F_ADD_F32), f32_bits(xf.iter().fold(0.0, |a, b| a + b)));
                t.check(REDUCE, &at, "subgroupMin(f32)", r(F_MIN_F32), f32_bits(xf.iter().copied().fold(f64::INFINITY, f64::min)));
                t.check(REDUCE, &at, "subgroupMax(f32)", r(F_MAX_F32), f32_bits(xf.iter().copied().fold(f64::NEG_INFINITY, f64::max)));

                let excl = xs[..k].iter().fold(0u32, |a, &x| a.wrapping_add(x));
                t.check(SCAN, &at, "subgroupInclusiveAdd(u32)", r(F_INCL_U32), excl.wrapping_add(xs[k]));
                t.check(SCAN, &at, "subgroupExclusiveAdd(u32)", r(F_EXCL_U32), excl);
                // An empty f64 `sum()` is -0.0 in Rust; the GPU's identity is +0.0.
                let excl_f = xf[..k].iter().fold(0.0, |a, b| a + b);
                t.check(SCAN, &at, "subgroupInclusiveAdd(f32)", r(F_INCL_F32), f32_bits(excl_f + xf[k]));
                t.check(SCAN, &at, "subgroupExclusiveAdd(f32)", r(F_EXCL_F32), f32_bits(excl_f));

                for (word, &want) in ballot.iter().enumerate() {
                    t.check(BALLOT, &at, &format!("subgroupBallot word {word}"), r(F_BALLOT + word), want);
                }
                t.check(BALLOT, &at, "ballot bit count", r(F_BALLOT_COUNT), odd_count);
                let below = xs[..k].iter().filter(|&&x| x & 1 == 1).count() as u32;
                t.check(BALLOT, &at, "ballot count below lane", r(F_BALLOT_BELOW), below);

                t.check(BCAST_FIRST, &at, "subgroupBroadcastFirst", r(F_BCAST_FIRST), xs[0]);
                t.check(BCAST, &at, "subgroupBroadcast(x, 0)", r(F_BCAST_0), xs[0]);
                if n > 3 {
                    t.check(BCAST, &at, "subgroupBroadcast(x, 3)", r(F_BCAST_3), xs[3]);
                }

                let src = (k as u32 * 5 + 3) % size.max(1);
                if (src as usize) < n {
                    t.check(SHUFFLE, &at, "subgroupShuffle(x, (lane*5+3) % size)", r(F_SHUFFLE), xs[src as usize]);
                }
                if k >= 1 {
                    t.check(SHUFFLE_REL, &at, "subgroupShuffleUp(x, 1)", r(F_SHUFFLE_UP), xs[k - 1]);
                }
                if k + 1 < n {
                    t.check(SHUFFLE_REL, &at, "subgroupShuffleDown(x, 1)", r(F_SHUFFLE_DOWN), xs[k + 1]);
                }
                if (k ^ 1) < n {
                    t.check(SHUFFLE_REL, &at, "subgroupShuffleXor(x, 1)", r(F_SHUFFLE_XOR1), xs[k ^ 1]);
                }
                let half = (size / 2).max(1) as usize;
                if (k ^ half) < n {
                    t.check(SHUFFLE_REL, &at, "subgroupShuffleXor(x, size/2)", r(F_SHUFFLE_XOR_HALF), xs[k ^ half]);
                }

                let b = |p: bool| u32::from(p);
                t.check(VOTE, &at, "subgroupAll(x != 0)", r(F_ALL_NONZERO), b(xs.iter().all(|&x| x != 0)));
                t.check(VOTE, &at, "subgroupAll(odd)", r(F_ALL_ODD), b(odd_count as usize == n));
                t.check(VOTE, &at, "subgroupAny(odd)", r(F_ANY_ODD), b(odd_count > 0));
                t.check(VOTE, &at, "subgroupAny(x == 0)", r(F_ANY_ZERO), b(xs.contains(&0)));

                let lane0 = if k == 0 { 1 } else { u32::MAX };
                t.check(DIVERGENCE, &at, "subgroupAdd(1) inside `if lane == 0`", r(F_LANE0_ADD), lane0);
                t.check(DIVERGENCE, &at, "subgroupAdd(1) in uniform control flow", r(F_UNIFORM_ADD), n as u32);
            }
        }
    }
}
