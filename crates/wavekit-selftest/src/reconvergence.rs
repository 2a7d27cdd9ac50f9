//! Subgroup operations right after loops whose trip count differs by lane (ADR-0092): the
//! host side of `reconvergence.wgsl`. ADR-0071 saw the codec's `subgroupAdd`/`subgroupMax`
//! come out wrong on the H200 after its divergent per-sample loops; this check runs that
//! pattern reduced to three small loops (observed: an adapter may leave the lanes apart after
//! such a loop, and wavekit must not rely on it), and the same loops made subgroup-uniform
//! (the remedy: it must be right on every adapter).

use serde::Serialize;

use wavekit_gpu::POISON;
use wavekit_gpu::context::GpuContext;
use wavekit_gpu::error::Result;
use wavekit_gpu::kernel::Kernel;
use wavekit_gpu::shader::{Composed, ConstValue, compose};

/// Invocations of a workgroup: the codec's block encoder's.
pub const WG_SIZE: u32 = 256;
/// Workgroups dispatched per variant.
pub const WORKGROUPS: u32 = 8;
/// Invocations per variant.
pub const INVOCATIONS: u32 = WG_SIZE * WORKGROUPS;
/// Input words an invocation: its items' trip counts (the codec's samples per invocation).
pub const PER: u32 = 4;
/// Variant (a) leaves its loop once its sum passes this.
pub const BREAK_AT: u32 = 16_000;
/// Words of workgroup memory the loops set bits in.
pub const SINK: u32 = 64;
/// Largest trip count in the inputs.
pub const MAX_COUNT: u32 = 100;
/// Words each invocation writes per variant.
pub const FIELDS: u32 = 9;

const F_LOCAL: usize = 0;
const F_LANE: usize = 1;
const F_SIZE: usize = 2;
const F_SG_ID: usize = 3;
const F_ACC: usize = 4;
const F_ADD: usize = 5;
const F_MAX: usize = 6;
const F_BALLOT: usize = 7;

/// What an observation that came out wrong means.
pub const NOT_RECONVERGED: &str = "this adapter does not reconverge after divergent loops: \
     wavekit keeps subgroup operations in subgroup-uniform control flow";

/// The loops a variant runs before its subgroup operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loops {
    /// (a) A loop of per-lane length with an early `continue` and a `break`.
    Break,
    /// (b) `for j < PER { if (per-lane) { while (q > 0) { .. } } }`: the codec's form.
    IfWhile,
    /// (c) A function with a divergent `while`, called in a uniform loop.
    CallWhile,
}

/// One variant of the kernel: (key, loops, the remedy?, description), in `VARIANT` order.
pub const VARIANTS: &[(&str, Loops, bool, &str)] = &[
    (
        "loop_break",
        Loops::Break,
        false,
        "(a) a loop of per-lane length with `continue` and `break`, then subgroupAdd/Max",
    ),
    (
        "if_while",
        Loops::IfWhile,
        false,
        "(b) `for j { if (lane's item) { while (q > 0) {..} } }`, the codec's, then subgroupAdd/Max",
    ),
    (
        "call_while",
        Loops::CallWhile,
        false,
        "(c) a function with a divergent `while` called in a uniform loop, then subgroupAdd/Max",
    ),
    (
        "uniform_loop_break",
        Loops::Break,
        true,
        "(d) (a) with a subgroup-uniform trip count (subgroupMax before the loop, body predicated)",
    ),
    (
        "uniform_if_while",
        Loops::IfWhile,
        true,
        "(d) (b) with a subgroup-uniform trip count",
    ),
    (
        "uniform_call_while",
        Loops::CallWhile,
        true,
        "(d) (c) with a subgroup-uniform trip count",
    ),
];

/// The outcome of one variant.
#[derive(Clone, Debug, Serialize)]
pub struct VariantResult {
    /// Variant key, e.g. "if_while".
    pub variant: &'static str,
    /// What it runs.
    pub description: &'static str,
    /// The remedy (must be right on every adapter), or an observation of the pitfall.
    pub remedy: bool,
    /// Subgroups checked.
    pub subgroups: u64,
    /// Subgroups in which some lane saw a wrong value.
    pub wrong_subgroups: u64,
    /// Every value of `subgroupAdd(1u)` seen after the loops: the lanes that took part.
    pub lanes_seen: Vec<u32>,
    /// Every bit count of `subgroupBallot(true)` seen after the loops.
    pub ballot_seen: Vec<u32>,
    /// The first wrong value, located by workgroup, subgroup and lane.
    pub first_wrong: Option<String>,
}

impl VariantResult {
    /// Whether every subgroup saw the right values (and at least one was checked).
    pub fn ok(&self) -> bool {
        self.wrong_subgroups == 0 && self.subgroups > 0
    }
}

/// The whole check.
#[derive(Clone, Debug, Serialize)]
pub struct ReconvergenceReport {
    /// Invocations of a workgroup.
    pub workgroup: u32,
    /// Workgroups a variant.
    pub workgroups: u32,
    /// One per variant, in `VARIANTS` order.
    pub variants: Vec<VariantResult>,
    /// [`NOT_RECONVERGED`] when an observation came out wrong.
    pub note: Option<String>,
}

impl ReconvergenceReport {
    /// Whether every remedy variant was right: the self-test's rule on every adapter.
    pub fn remedy_ok(&self) -> bool {
        let mut remedies = self.variants.iter().filter(|v| v.remedy).peekable();
        remedies.peek().is_some() && remedies.all(VariantResult::ok)
    }

    /// Whether the observations were right too: the lanes came together again after every
    /// divergent loop here (which wavekit does not rely on).
    pub fn reconverged(&self) -> bool {
        self.variants.iter().all(VariantResult::ok)
    }
}

/// Inputs: PER trip counts an invocation, in 0 ..= MAX_COUNT, by workgroup: random; one lane
/// in eight long, the rest none; all odd (every lane takes (b)'s branch, for different
/// lengths); short (0 to 3).
pub fn make_input(seed: u64) -> Vec<u32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut v = Vec::with_capacity((INVOCATIONS * PER) as usize);
    for w in 0..WORKGROUPS {
        for local in 0..WG_SIZE {
            for _ in 0..PER {
                v.push(match w % 4 {
                    0 => rng.u32(0..=MAX_COUNT),
                    1 if local % 8 == 3 => rng.u32(MAX_COUNT / 2..MAX_COUNT) | 1,
                    1 => 0,
                    2 => rng.u32(0..MAX_COUNT) | 1,
                    _ => rng.u32(0..=3),
                });
            }
        }
    }
    v
}

fn step_value(g: u32, i: u32) -> u32 {
    let mut v = g.wrapping_mul(0x9e37_79b1) ^ i.wrapping_mul(0x85eb_ca77);
    v ^= v >> 15;
    v = v.wrapping_mul(0x2c1b_3c6d);
    v ^ (v >> 12)
}

fn start_bit(g: u32, j: u32) -> u32 {
    (g.wrapping_mul(7).wrapping_add(j * 13)) % 32
}

/// Words `put_ones(at, q)` touches: the trip count of its while loop.
pub fn words_of(at: u32, q: u32) -> u32 {
    if q == 0 {
        0
    } else {
        (at + q - 1) / 32 - at / 32 + 1
    }
}

/// `put_ones` of the kernel: (what the lane adds, the while loop's trip count).
fn put_ones(at0: u32, q0: u32, j: u32) -> (u32, u32) {
    let (mut at, mut q, mut acc, mut trips) = (at0, q0, 0u32, 0);
    while q > 0 {
        let c = q.min(32 - at % 32);
        acc = acc.wrapping_add((c * (j + 1)) ^ at);
        at += c;
        q -= c;
        trips += 1;
    }
    (acc, trips)
}

/// Variant (a)'s loop for invocation `g` and trip count `t`: (what the lane adds, the
/// iterations it ran).
fn break_loop(g: u32, t: u32) -> (u32, u32) {
    let mut acc = 0u32;
    for i in 0..t {
        let v = step_value(g, i);
        if v.is_multiple_of(7) {
            continue;
        }
        acc = acc.wrapping_add(v % 1000);
        if acc > BREAK_AT {
            return (acc, i + 1);
        }
    }
    (acc, t)
}

/// The value invocation `g` computes in its loops, `items` its PER input words: as the kernel's
/// divergent variants (0-2) write the loops.
pub fn expected_acc(loops: Loops, g: u32, items: &[u32]) -> u32 {
    if loops == Loops::Break {
        return break_loop(g, items[0]).0;
    }
    let mut acc = 0u32;
    for (j, &x) in (0u32..).zip(items) {
        let q = match loops {
            Loops::IfWhile if x & 1 == 1 => x,
            Loops::IfWhile => continue,
            _ => x >> 1,
        };
        acc = acc.wrapping_add(put_ones(start_bit(g, j), q, j).0);
    }
    acc
}

/// The same value as the remedy variants (3-5) compute it: every lane of `subgroup` (each
/// lane's invocation number and items) runs the subgroup's largest trip count, its body
/// predicated. Equal to [`expected_acc`] lane by lane (a unit test shows it).
pub fn uniform_accs(loops: Loops, subgroup: &[(u32, &[u32])]) -> Vec<u32> {
    let mut acc = vec![0u32; subgroup.len()];
    match loops {
        Loops::Break => {
            let n = subgroup
                .iter()
                .map(|(_, items)| items[0])
                .max()
                .unwrap_or(0);
            let mut going = vec![true; subgroup.len()];
            for i in 0..n {
                for (k, &(g, items)) in subgroup.iter().enumerate() {
                    let v = step_value(g, i);
                    if going[k] && i < items[0] && !v.is_multiple_of(7) {
                        acc[k] = acc[k].wrapping_add(v % 1000);
                        going[k] = acc[k] <= BREAK_AT;
                    }
                }
            }
        }
        Loops::IfWhile | Loops::CallWhile => {
            for j in 0..PER {
                let mut state: Vec<(u32, u32)> = subgroup
                    .iter()
                    .map(|&(g, items)| {
                        let x = items[j as usize];
                        let q = match loops {
                            Loops::IfWhile => x * (x & 1),
                            _ => x >> 1,
                        };
                        (start_bit(g, j), q)
                    })
                    .collect();
                let n = state.iter().map(|&(at, q)| words_of(at, q)).max();
                for _ in 0..n.unwrap_or(0) {
                    for (k, (at, q)) in state.iter_mut().enumerate() {
                        if *q > 0 {
                            let c = (*q).min(32 - *at % 32);
                            acc[k] = acc[k].wrapping_add((c * (j + 1)) ^ *at);
                            *at += c;
                            *q -= c;
                        }
                    }
                }
            }
        }
    }
    acc
}

/// Compare the GPU's `output` (every variant's, in order) for `input` with the reference.
pub fn check(input: &[u32], output: &[u32]) -> ReconvergenceReport {
    let per_variant = (INVOCATIONS * FIELDS) as usize;
    let variants = VARIANTS
        .iter()
        .enumerate()
        .map(|(v, &(key, loops, remedy, description))| {
            let out = &output[v * per_variant..(v + 1) * per_variant];
            check_variant(key, loops, remedy, description, input, out)
        })
        .collect::<Vec<_>>();
    let note = variants
        .iter()
        .any(|v| !v.remedy && !v.ok())
        .then(|| NOT_RECONVERGED.to_string());
    ReconvergenceReport {
        workgroup: WG_SIZE,
        workgroups: WORKGROUPS,
        variants,
        note,
    }
}

fn check_variant(
    variant: &'static str,
    loops: Loops,
    remedy: bool,
    description: &'static str,
    input: &[u32],
    out: &[u32],
) -> VariantResult {
    let fields = FIELDS as usize;
    let per = PER as usize;
    let mut r = VariantResult {
        variant,
        description,
        remedy,
        subgroups: 0,
        wrong_subgroups: 0,
        lanes_seen: Vec::new(),
        ballot_seen: Vec::new(),
        first_wrong: None,
    };
    let wg = WG_SIZE as usize;
    for w in 0..WORKGROUPS as usize {
        let rec = |i: usize, f: usize| out[(w * wg + i) * fields + f];
        let mut groups: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for i in 0..wg {
            groups.entry(rec(i, F_SG_ID)).or_default().push(i);
        }
        for (&sg, members) in &groups {
            let n = members.len() as u32;
            let accs: Vec<u32> = members
                .iter()
                .map(|&i| {
                    let g = (w * wg + i) as u32;
                    expected_acc(loops, g, &input[g as usize * per..][..per])
                })
                .collect();
            let top = accs.iter().copied().max().unwrap_or(0);
            let mut wrong = None;
            for (&i, &acc) in members.iter().zip(&accs) {
                r.lanes_seen.push(rec(i, F_ADD));
                r.ballot_seen.push(rec(i, F_BALLOT));
                let checks = [
                    ("local_invocation_index", F_LOCAL, i as u32),
                    ("the lane's own result", F_ACC, acc),
                    ("subgroupAdd(1u)", F_ADD, n),
                    ("subgroupMax(result)", F_MAX, top),
                    ("countOneBits(subgroupBallot(true))", F_BALLOT, n),
                ];
                for (what, f, want) in checks {
                    let got = rec(i, f);
                    if got != want && wrong.is_none() {
                        let note = if got == POISON {
                            " (never written)"
                        } else {
                            ""
                        };
                        wrong = Some(format!(
                            "workgroup #{w} subgroup {sg} lane {}: {what} = {got}, expected \
                             {want} ({n} lanes, width {}){note}",
                            rec(i, F_LANE),
                            rec(i, F_SIZE),
                        ));
                    }
                }
            }
            r.subgroups += 1;
            if let Some(msg) = wrong {
                r.wrong_subgroups += 1;
                r.first_wrong.get_or_insert(msg);
            }
        }
    }
    r.lanes_seen.sort_unstable();
    r.lanes_seen.dedup();
    r.ballot_seen.sort_unstable();
    r.ballot_seen.dedup();
    r
}

/// The kernel of variant `variant` (an index into [`VARIANTS`]).
pub fn composed(variant: usize) -> Result<Composed> {
    let c = |v: u32| ConstValue::U32(v);
    compose(
        "selftest/reconvergence",
        &[
            ("WG_SIZE", c(WG_SIZE)),
            ("FIELDS", c(FIELDS)),
            ("INVOCATIONS", c(INVOCATIONS)),
            ("PER", c(PER)),
            ("BREAK_AT", c(BREAK_AT)),
            ("SINK", c(SINK)),
            ("VARIANT", c(variant as u32)),
        ],
        crate::SOURCES,
        &[],
    )
}

/// Every variant over `input` (from [`make_input`]), each a dispatch of its own into one
/// poisoned output: the output buffer and its words.
pub fn submit(ctx: &GpuContext, input: &[u32]) -> Result<(wgpu::Buffer, usize)> {
    ctx.require_subgroups()?;
    ctx.check_workgroup([WG_SIZE, 1, 1])?;
    let composed = (0..VARIANTS.len())
        .map(composed)
        .collect::<Result<Vec<_>>>()?;
    let kernels = Kernel::build_parallel(ctx, &composed)?;
    let words = VARIANTS.len() * (INVOCATIONS * FIELDS) as usize;
    let in_buf = ctx.storage_from("selftest reconvergence input", input)?;
    let out_buf = ctx.storage_poisoned("selftest reconvergence output", words)?;
    let binds = kernels
        .iter()
        .map(|k| k.bind(ctx, &[(0, &in_buf), (1, &out_buf)]))
        .collect::<Result<Vec<_>>>()?;
    ctx.scoped("running the reconvergence kernels", || {
        ctx.submit(|enc| {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for (k, b) in kernels.iter().zip(&binds) {
                k.dispatch(&mut pass, b, WORKGROUPS);
            }
        })
    })?;
    Ok((out_buf, words))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(input: &[u32], g: usize) -> &[u32] {
        &input[g * PER as usize..][..PER as usize]
    }

    /// What a device writes whose subgroups of `width` lanes reconverge after every loop
    /// (`split` false), or split after variants 0-2's loops into groups of lanes that left
    /// the loop at the same trip (`split` true), each group running the operations alone.
    fn simulate(input: &[u32], width: usize, split: bool) -> Vec<u32> {
        let fields = FIELDS as usize;
        let wg = WG_SIZE as usize;
        let mut out = vec![POISON; VARIANTS.len() * INVOCATIONS as usize * fields];
        for (v, &(_, loops, remedy, _)) in VARIANTS.iter().enumerate() {
            for w in 0..WORKGROUPS as usize {
                for sg in 0..wg.div_ceil(width) {
                    let lanes: Vec<usize> = (sg * width..wg.min((sg + 1) * width)).collect();
                    let subgroup: Vec<(u32, &[u32])> = lanes
                        .iter()
                        .map(|&i| ((w * wg + i) as u32, items(input, w * wg + i)))
                        .collect();
                    let accs: Vec<u32> = if remedy {
                        uniform_accs(loops, &subgroup)
                    } else {
                        subgroup
                            .iter()
                            .map(|&(g, it)| expected_acc(loops, g, it))
                            .collect()
                    };
                    // The group a lane left its loops with: its trip counts.
                    let exit = |k: usize| -> Vec<u32> {
                        let (g, it) = subgroup[k];
                        if !split || remedy {
                            return vec![];
                        }
                        match loops {
                            Loops::Break => vec![break_loop(g, it[0]).1],
                            Loops::IfWhile => (0..PER)
                                .map(|j| {
                                    let x = it[j as usize];
                                    words_of(start_bit(g, j), x * (x & 1))
                                })
                                .collect(),
                            Loops::CallWhile => (0..PER)
                                .map(|j| words_of(start_bit(g, j), it[j as usize] >> 1))
                                .collect(),
                        }
                    };
                    for (k, &i) in lanes.iter().enumerate() {
                        let peers: Vec<usize> =
                            (0..lanes.len()).filter(|&m| exit(m) == exit(k)).collect();
                        let o = &mut out[((v * INVOCATIONS as usize) + w * wg + i) * fields..]
                            [..fields];
                        o[F_LOCAL] = i as u32;
                        o[F_LANE] = k as u32;
                        o[F_SIZE] = width as u32;
                        o[F_SG_ID] = sg as u32;
                        o[F_ACC] = accs[k];
                        o[F_ADD] = peers.len() as u32;
                        o[F_MAX] = peers.iter().map(|&m| accs[m]).max().unwrap();
                        o[F_BALLOT] = peers.len() as u32;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn the_remedy_computes_what_the_divergent_loops_do() {
        for seed in 0..4 {
            let input = make_input(seed);
            for &(key, loops, _, _) in VARIANTS {
                for width in [1usize, 4, 32, 128] {
                    for first in (0..INVOCATIONS as usize).step_by(width) {
                        let subgroup: Vec<(u32, &[u32])> = (first..first + width)
                            .map(|g| (g as u32, items(&input, g)))
                            .collect();
                        let uniform = uniform_accs(loops, &subgroup);
                        for (&(g, it), &u) in subgroup.iter().zip(&uniform) {
                            assert_eq!(u, expected_acc(loops, g, it), "{key} g {g}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn expected_values_by_hand() {
        // words_of counts put_ones's iterations.
        for at in 0..32 {
            for q in 0..=MAX_COUNT {
                assert_eq!(words_of(at, q), put_ones(at, q, 0).1, "at {at} q {q}");
            }
        }
        assert_eq!(
            (words_of(0, 32), words_of(0, 33), words_of(31, 2)),
            (1, 2, 2)
        );
        // 5 bits from bit 30: 2 in the first word, 3 in the next; (c · (j+1)) ^ at each.
        assert_eq!(put_ones(30, 5, 1), (((2 * 2) ^ 30) + ((3 * 2) ^ 32), 2));
        // No trips, nothing added; (b) skips even counts, (c) halves them.
        assert_eq!(expected_acc(Loops::Break, 9, &[0, 5, 5, 5]), 0);
        assert_eq!(expected_acc(Loops::IfWhile, 9, &[2, 4, 6, 8]), 0);
        let g = 5;
        assert_eq!(
            expected_acc(Loops::CallWhile, g, &[0, 0, 8, 0]),
            put_ones(start_bit(g, 2), 4, 2).0
        );
        // (a) stops once past BREAK_AT: at most one step's 999 over it.
        for g in 0..64 {
            let acc = expected_acc(Loops::Break, g, &[MAX_COUNT, 0, 0, 0]);
            assert!(acc <= BREAK_AT + 999, "{acc}");
        }
    }

    #[test]
    fn the_inputs_make_the_loops_diverge() {
        let input = make_input(1);
        let per = PER as usize;
        // Every workgroup pattern: within a subgroup of 4, trip counts differ somewhere.
        for w in 0..4 {
            let wg = &input[w * (WG_SIZE as usize) * per..][..WG_SIZE as usize * per];
            let counts: std::collections::BTreeSet<u32> = wg.iter().step_by(per).copied().collect();
            assert!(counts.len() > 1, "workgroup {w}: {counts:?}");
        }
        assert!(input.iter().all(|&x| x <= MAX_COUNT));
    }

    #[test]
    fn a_device_that_reconverges_passes_every_variant() {
        for width in [1usize, 4, 8, 16, 32, 64, 128] {
            let input = make_input(width as u64);
            let report = check(&input, &simulate(&input, width, false));
            assert!(report.remedy_ok() && report.reconverged(), "{report:?}");
            assert!(report.note.is_none());
            for v in &report.variants {
                assert_eq!(v.lanes_seen, [width as u32]);
                assert_eq!(v.ballot_seen, [width as u32]);
                assert_eq!(v.subgroups, u64::from(INVOCATIONS) / width as u64);
            }
        }
    }

    #[test]
    fn a_device_that_does_not_reconverge_is_observed_not_failed() {
        let input = make_input(3);
        let report = check(&input, &simulate(&input, 32, true));
        assert!(report.remedy_ok(), "{report:?}");
        assert!(!report.reconverged());
        assert_eq!(report.note.as_deref(), Some(NOT_RECONVERGED));
        for v in report.variants.iter().filter(|v| !v.remedy) {
            assert!(v.wrong_subgroups > 0, "{v:?}");
            assert!(v.lanes_seen.iter().any(|&n| n < 32), "{v:?}");
            assert!(
                v.first_wrong.as_deref().unwrap().contains("expected 32"),
                "{v:?}"
            );
        }
    }

    #[test]
    fn a_wrong_remedy_fails_and_poison_is_named() {
        let input = make_input(4);
        let clean = simulate(&input, 8, false);
        let fields = FIELDS as usize;
        for (field, needle) in [
            (F_ADD, "subgroupAdd(1u) = 7, expected 8"),
            (F_MAX, "subgroupMax"),
            (F_BALLOT, "subgroupBallot"),
            (F_ACC, "own result"),
        ] {
            let mut bad = clean.clone();
            // Variant 4 (a remedy), invocation 77.
            let slot = (4 * INVOCATIONS as usize + 77) * fields + field;
            bad[slot] = if field == F_ADD { 7 } else { bad[slot] ^ 1 };
            let report = check(&input, &bad);
            assert!(!report.remedy_ok() && report.note.is_none());
            let v = &report.variants[4];
            assert_eq!(v.wrong_subgroups, 1);
            let msg = v.first_wrong.as_deref().unwrap();
            assert!(
                msg.contains(needle) && msg.contains("#0 subgroup 9 lane 5"),
                "{msg}"
            );
        }
        let mut bad = clean.clone();
        bad[(3 * INVOCATIONS as usize + 5) * fields + F_MAX] = POISON;
        let report = check(&input, &bad);
        let msg = report.variants[3].first_wrong.clone().unwrap();
        assert!(msg.contains("never written"), "{msg}");
    }

    #[test]
    fn every_variant_validates() {
        let variants: Vec<(Composed, bool)> = (0..VARIANTS.len())
            .map(|v| (composed(v).unwrap(), true))
            .chain([(crate::composed(256).unwrap(), true)])
            .collect();
        wavekit_gpu::shader::check_kernels(crate::SOURCES, &variants).unwrap();
    }
}
