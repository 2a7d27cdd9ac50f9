//! Reduce, scan, segmented scan, select and partition on a real Vulkan driver, against the
//! plain Rust references (`wavekit::scan::reference`). Inputs are fresh seeded random values;
//! outputs are poisoned before each run and every element is checked. Integers must match
//! exactly. f32 results are compared with an f64 reference: add within
//! `F32_ADD_TOLERANCE * (sum of |x| so far)`, min and max exactly.

mod common;

use common::{check_select, gpu, on, run};
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::reduce::{Reduce, ReduceConfig, ReducePolicy};
use wavekit::scan::{Scan, ScanConfig, ScanPolicy, reference};
use wavekit::select::{Keep, Select, SelectConfig, SelectPolicy};
use wavekit::{Error, GpuContext, POISON};

/// Relative tolerance of f32 sums: a few ulps per level of a 2^20-element reduction tree.
const F32_ADD_TOLERANCE: f64 = 1e-5;

fn sizes() -> Vec<usize> {
    // The scan's tile edges (out of place; in place, through workgroup memory), and the
    // reduce's (tiles of their own size).
    let t = ScanPolicy::default().tile_elements(1, false) as usize;
    let b = ScanPolicy::default().tile_elements(1, true) as usize;
    let r = ReducePolicy::default().tile.elements() as usize;
    vec![
        r - 1,
        r,
        r + 1,
        b - 1,
        b + 1,
        0,
        1,
        2,
        31,
        257,
        t - 1,
        t,
        t + 1,
        3 * t + 5,
        10_007,
        65_537,
        (1 << 20) + 3,
    ]
}

/// `sizes()` without the largest (2^20 + 3) unless `large`: the largest runs for one operator
/// a type (and f32 addition, whose tolerance grows with the input), so that every type and
/// every operator meets it while the suite stays within CI time.
fn sizes_if(large: bool) -> Vec<usize> {
    sizes()
        .into_iter()
        .filter(|&n| large || n < 1 << 20)
        .collect()
}

/// Whether (type, operator) takes the largest sizes (see `sizes_if`).
fn large_for(scalar: Scalar, op: Op) -> bool {
    matches!(
        (scalar, op),
        (Scalar::U32, Op::Add)
            | (Scalar::I32, Op::Min)
            | (Scalar::F32, Op::Max)
            | (Scalar::F32, Op::Add)
    )
}

fn rng(seed: u64, n: usize) -> fastrand::Rng {
    fastrand::Rng::with_seed(seed ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

fn random_u32(seed: u64, n: usize) -> Vec<u32> {
    let mut r = rng(seed, n);
    (0..n).map(|_| r.u32(..)).collect()
}

fn random_i32(seed: u64, n: usize) -> Vec<i32> {
    let mut r = rng(seed, n);
    (0..n).map(|_| r.i32(..)).collect()
}

fn random_f32(seed: u64, n: usize) -> Vec<f32> {
    let mut r = rng(seed, n);
    (0..n).map(|_| (r.f32() - 0.5) * 2000.0).collect()
}

fn check_f32(ctx: &GpuContext, what: &str, data: &[f32], got: &[f32], want: &[f64], op: Op) {
    let mut abs = 0.0f64;
    for (i, ((&g, &w), &x)) in got.iter().zip(want).zip(data).enumerate() {
        abs += f64::from(x).abs();
        assert_ne!(
            g.to_bits(),
            POISON,
            "{}: {what}: element {i} never written",
            on(ctx)
        );
        let ok = match op {
            Op::Add => (f64::from(g) - w).abs() <= F32_ADD_TOLERANCE * abs + 1e-30,
            _ => f64::from(g) == w,
        };
        assert!(
            ok,
            "{}: {what}: element {i}: {g} vs {w} (sum |x| {abs})",
            on(ctx)
        );
    }
}

fn scan_of(ctx: &GpuContext, scalar: Scalar, op: Op, inclusive: bool, in_place: bool) -> Scan {
    let config = ScanConfig {
        in_place,
        inclusive,
        ..ScanConfig::inclusive(Monoid::builtin(scalar, op))
    };
    Scan::new(ctx, &config).unwrap()
}

/// Scan `n` fresh random values with `scan` (built for `scalar`, `op`, `inclusive`,
/// `in_place`) and check every element against the reference.
fn scan_one(
    ctx: &GpuContext,
    scan: &Scan,
    (scalar, op, inclusive, in_place): (Scalar, Op, bool, bool),
    n: usize,
) {
    let what = format!("{scalar:?} {op:?} inclusive={inclusive} in_place={in_place} n={n}");
    let seed = 1 + op as u64 * 7 + scalar as u64 * 131 + u64::from(inclusive);
    let words: Vec<u32> = match scalar {
        Scalar::U32 => random_u32(seed, n),
        Scalar::I32 => bytemuck::cast_vec(random_i32(seed, n)),
        Scalar::F32 => bytemuck::cast_vec(random_f32(seed, n)),
    };
    let src = ctx.storage_from("src", &words).unwrap();
    let dst = ctx.storage_poisoned("dst", n + 1).unwrap();
    let bound = if in_place {
        scan.bind(ctx, &src, None, n as u64).unwrap()
    } else {
        scan.bind(ctx, &src, Some(&dst), n as u64).unwrap()
    };
    run(ctx, |e| bound.record(e));
    let out = if in_place { &src } else { &dst };
    let got: Vec<u32> = ctx.read_back("scan output", out, n).unwrap();
    match scalar {
        Scalar::U32 => {
            assert_eq!(
                got,
                reference::scan(&words, op, inclusive),
                "{}: {what}",
                on(ctx)
            );
        }
        Scalar::I32 => {
            let x: Vec<i32> = bytemuck::cast_vec(words);
            let g: Vec<i32> = bytemuck::cast_vec(got);
            assert_eq!(g, reference::scan(&x, op, inclusive), "{}: {what}", on(ctx));
        }
        Scalar::F32 => {
            let x: Vec<f32> = bytemuck::cast_vec(words);
            let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            let g: Vec<f32> = bytemuck::cast_vec(got);
            check_f32(
                ctx,
                &what,
                &x,
                &g,
                &reference::scan(&x64, op, inclusive),
                op,
            );
        }
    }
    if !in_place {
        let tail: Vec<u32> = ctx.read_back("dst", &dst, n + 1).unwrap();
        assert_eq!(tail[n], POISON, "{}: {what}: wrote past the end", on(ctx));
    }
}

/// The built-in types and operators a sweep covers: every pair at the first width; in the
/// short sweep (the other widths and without subgroups, where each pair's kernels are compiled
/// again: ADR-0084) a transversal, each type once and each operator once, so that every
/// subgroup operation the kernels use still runs at every width.
fn types_and_operators() -> Vec<(Scalar, Op)> {
    if wavekit_harness::short_sweep() {
        return vec![
            (Scalar::F32, Op::Add),
            (Scalar::U32, Op::Max),
            (Scalar::I32, Op::Min),
        ];
    }
    let mut all = Vec::new();
    for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
        for op in [Op::Add, Op::Min, Op::Max] {
            all.push((scalar, op));
        }
    }
    all
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn scan_every_type_operator_direction_and_size() {
    let ctx = gpu();
    for (scalar, op) in types_and_operators() {
        for inclusive in [true, false] {
            let scan = scan_of(ctx, scalar, op, inclusive, false);
            for n in sizes_if(large_for(scalar, op)) {
                scan_one(ctx, &scan, (scalar, op, inclusive, false), n);
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn scan_in_place() {
    let ctx = gpu();
    let sweep = wavekit_harness::sweep();
    for (scalar, op) in [
        (Scalar::U32, Op::Add),
        (Scalar::F32, Op::Max),
        (Scalar::I32, Op::Add),
    ] {
        // The short part of the sweep (ADR-0084): one direction a pair, each direction at
        // least once; the rest (the first width's, ADR-0101) the other, and the first pair's
        // inclusive scan, which every part takes.
        for inclusive in [true, false] {
            let in_short = inclusive == (scalar != Scalar::F32);
            let first = scalar == Scalar::U32 && inclusive;
            if !sweep.takes(in_short, first) {
                continue;
            }
            let scan = scan_of(ctx, scalar, op, inclusive, true);
            for n in sizes() {
                scan_one(ctx, &scan, (scalar, op, inclusive, true), n);
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn reduce_every_type_operator_and_size() {
    let ctx = gpu();
    for (scalar, op) in types_and_operators() {
        let r = Reduce::new(ctx, &ReduceConfig::new(Monoid::builtin(scalar, op))).unwrap();
        let large = large_for(scalar, op);
        let extra = if large { vec![(1 << 22) + 17] } else { vec![] };
        for n in sizes_if(large).into_iter().chain(extra) {
            let what = format!("reduce {scalar:?} {op:?} n={n}");
            let seed = 99 + op as u64;
            let words: Vec<u32> = match scalar {
                Scalar::U32 => random_u32(seed, n),
                Scalar::I32 => bytemuck::cast_vec(random_i32(seed, n)),
                Scalar::F32 => bytemuck::cast_vec(random_f32(seed, n)),
            };
            let src = ctx.storage_from("src", &words).unwrap();
            let bound = r.bind(ctx, &src, n as u64).unwrap();
            run(ctx, |e| bound.record(e));
            let got: u32 = ctx.read_back("result", bound.result(), 1).unwrap()[0];
            match scalar {
                Scalar::U32 => assert_eq!(got, reference::reduce(&words, op), "{what}"),
                Scalar::I32 => {
                    let x: Vec<i32> = bytemuck::cast_vec(words);
                    assert_eq!(got as i32, reference::reduce(&x, op), "{}: {what}", on(ctx));
                }
                Scalar::F32 => {
                    let x: Vec<f32> = bytemuck::cast_vec(words);
                    let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
                    let want = reference::reduce(&x64, op);
                    let abs: f64 = x64.iter().map(|v| v.abs()).sum();
                    let g = f64::from(f32::from_bits(got));
                    let ok = match op {
                        Op::Add => (g - want).abs() <= F32_ADD_TOLERANCE * abs + 1e-30,
                        _ => g == want,
                    };
                    assert!(ok, "{}: {what}: {g} vs {want}", on(ctx));
                }
            }
        }
    }
}

/// The one-dispatch reduce (ADR-0080): tilings that give one workgroup many tiles, more
/// workgroups than a workgroup has lanes (so its last workgroup combines several partials a
/// lane), a non-commutative monoid (any reordering shows), the same reduce recorded three times
/// in one encoder (the count of finished workgroups must be back at 0 after each run), and
/// exactly one dispatch and nothing else recorded.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn reduce_is_one_dispatch_for_any_tiling_and_runs_again_unchanged() {
    use wavekit::tiling::TileShape;
    let ctx = gpu();
    let shapes = [
        (
            TileShape {
                workgroup: 128,
                steps: 1,
                vec: 1,
            },
            1,
        ),
        (
            TileShape {
                workgroup: 128,
                steps: 1,
                vec: 1,
            },
            3,
        ),
        (
            TileShape {
                workgroup: 128,
                steps: 1,
                vec: 1,
            },
            257,
        ),
        (
            TileShape {
                workgroup: 256,
                steps: 2,
                vec: 4,
            },
            1000,
        ),
    ];
    for (tile, max_workgroups) in shapes {
        let policy = ReducePolicy {
            tile,
            max_workgroups,
            small: None,
        };
        let add = Reduce::new(
            ctx,
            &ReduceConfig {
                monoid: Monoid::builtin(Scalar::U32, Op::Add),
                policy: Some(policy),
            },
        )
        .unwrap();
        let aff = Reduce::new(
            ctx,
            &ReduceConfig {
                monoid: affine(),
                policy: Some(policy),
            },
        )
        .unwrap();
        let t = tile.elements() as usize;
        // One workgroup over 513 tiles of the emulated subgroup layer's nested loops would
        // pass llvmpipe's 65535 iterations a loop (ADR-0052): one workgroup takes 128 here.
        let most = if max_workgroups == 1 {
            127 * t + 5
        } else {
            65_537
        };
        for n in [0, 1, t - 1, t, t + 1, 3 * t + 2, 127 * t + 5, 65_537] {
            if n > most {
                continue;
            }
            let what = format!("{}: tile {tile:?}, {max_workgroups} groups, n={n}", on(ctx));
            let words = random_u32(31 + n as u64, n);
            let pairs: Vec<[u32; 2]> = words.iter().map(|&w| [w | 1, w.rotate_left(7)]).collect();
            let src = ctx.storage_from("src", &words).unwrap();
            let src2 = ctx.storage_from("src2", &pairs).unwrap();
            let b1 = add.bind(ctx, &src, n as u64).unwrap();
            let b2 = aff.bind(ctx, &src2, n as u64).unwrap();
            let counted = wavekit::record::count(|| {
                let mut e = ctx.device.create_command_encoder(&Default::default());
                b1.record(&mut e);
            });
            assert_eq!(
                (counted.dispatches, counted.clears, counted.copies),
                (1, 0, 0),
                "{what}: {counted:?}"
            );
            let out1 = ctx.storage_poisoned("out1", 3).unwrap();
            let out2 = ctx.storage_poisoned("out2", 6).unwrap();
            run(ctx, |e| {
                for r in 0..3u64 {
                    b1.record(e);
                    e.copy_buffer_to_buffer(b1.result(), 0, &out1, 4 * r, Some(4));
                    b2.record(e);
                    e.copy_buffer_to_buffer(b2.result(), 0, &out2, 8 * r, Some(8));
                }
            });
            let want1 = words.iter().fold(0u32, |a, &x| a.wrapping_add(x));
            let want2 = pairs.iter().fold([1u32, 0], |a, &x| affine_ref(a, x));
            let got1: Vec<u32> = ctx.read_back("out1", &out1, 3).unwrap();
            let got2: Vec<[u32; 2]> = ctx.read_back("out2", &out2, 3).unwrap();
            assert_eq!(got1, vec![want1; 3], "{what}: sum");
            assert_eq!(got2, vec![want2; 3], "{what}: affine");
        }
    }
}

/// Small inputs' tiles (ADR-0082): with a rule for up to `u` elements (1 step a tile), the
/// scan, select, partition and reduce take the small tiles up to `u` and the policy's above,
/// and are right on both sides of the threshold and at both tiles' edges; without a rule
/// (`small: None`) they keep the policy's tiles at every size (their results at small sizes
/// are checked by the store-mode, fallback, chunked and one-dispatch tests, which take no
/// rule).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn small_inputs_take_small_tiles_on_their_side_of_the_threshold() {
    use wavekit::tiling::SmallInputs;
    let ctx = gpu();
    let add = Monoid::builtin(Scalar::U32, Op::Add);
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    let main = ScanPolicy::default().tile_elements(1, false) as usize;
    let up_to = 3 * main + 5;
    for rule in [
        Some(SmallInputs {
            up_to: up_to as u64,
            steps: 1,
        }),
        None,
    ] {
        let scan_policy = ScanPolicy {
            small: rule,
            ..Default::default()
        };
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                policy: Some(scan_policy),
                ..ScanConfig::inclusive(add.clone())
            },
        )
        .unwrap();
        let select_policy = SelectPolicy {
            small: rule,
            ..Default::default()
        };
        let sel = |partition| {
            Select::new(
                ctx,
                &SelectConfig {
                    policy: Some(select_policy),
                    ..SelectConfig::new(Scalar::U32, pred.clone(), partition)
                },
            )
            .unwrap()
        };
        let (select, partition) = (sel(false), sel(true));
        let reduce = Reduce::new(
            ctx,
            &ReduceConfig {
                monoid: add.clone(),
                policy: Some(ReducePolicy {
                    small: rule,
                    ..Default::default()
                }),
            },
        )
        .unwrap();
        let small_scan = scan_policy.for_small().tile_elements(1, false) as usize;
        let sizes = [
            1,
            small_scan - 1,
            small_scan,
            small_scan + 1,
            main - 1,
            main,
            main + 1,
            up_to - 1,
            up_to,
            up_to + 1,
            2 * up_to + 3,
        ];
        for n in sizes {
            let what = format!("{}: rule {rule:?} n={n}", on(ctx));
            let small = rule.is_some() && n <= up_to;
            // The tiles taken: the small ones exactly where the rule says.
            let tiles = [
                (
                    scan.tile_elements_for(ctx, n as u64).unwrap(),
                    scan.tile_elements(),
                ),
                (
                    select.tile_elements_for(ctx, n as u64).unwrap(),
                    select.tile_elements(),
                ),
                (
                    partition.tile_elements_for(ctx, n as u64).unwrap(),
                    partition.tile_elements(),
                ),
                (
                    reduce.tile_elements_for(ctx, n as u64).unwrap(),
                    reduce.tile_elements(),
                ),
            ];
            for (got, policy) in tiles {
                assert_eq!(
                    got < policy,
                    small,
                    "{what}: tile {got} (policy's {policy})"
                );
            }
            if rule.is_none() {
                continue;
            }
            scan_one(ctx, &scan, (Scalar::U32, Op::Add, true, false), n);
            check_select(ctx, &select, &pred, false, n, 0);
            check_select(ctx, &partition, &pred, true, n, 0);
            let words = random_u32(77 + n as u64, n);
            let src = ctx.storage_from("src", &words).unwrap();
            let b = reduce.bind(ctx, &src, n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let got: u32 = ctx.read_back("result", b.result(), 1).unwrap()[0];
            assert_eq!(got, reference::reduce(&words, Op::Add), "{what}: reduce");
        }
    }
}

/// The scratch a run needs cleared (the scan's and select's look-back state, select's count)
/// is cleared by a dispatch inside the primitive's pass, never by `clear_buffer` (ADR-0081):
/// the same bound scan and select recorded three times in one encoder give the same results
/// each time (a state left from the run before would be read as published tiles, a count
/// would go on from the last).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn scan_and_select_clear_their_scratch_each_run_without_clear_buffer() {
    let ctx = gpu();
    let add = Monoid::builtin(Scalar::U32, Op::Add);
    let scan = Scan::new(ctx, &ScanConfig::inclusive(add)).unwrap();
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    let select = Select::new(ctx, &SelectConfig::new(Scalar::U32, pred, true)).unwrap();
    for n in [1usize, 4099, 70_001] {
        let words = random_u32(5 + n as u64, n);
        let src = ctx.storage_from("src", &words).unwrap();
        let dst = ctx.storage_poisoned("dst", n).unwrap();
        let part = ctx.storage_poisoned("part", n).unwrap();
        let bs = scan.bind(ctx, &src, Some(&dst), n as u64).unwrap();
        let bp = select.bind(ctx, &src, None, &part, n as u64).unwrap();
        for counted in [
            wavekit::record::count(|| {
                bs.record(&mut ctx.device.create_command_encoder(&Default::default()))
            }),
            wavekit::record::count(|| {
                bp.record(&mut ctx.device.create_command_encoder(&Default::default()))
            }),
        ] {
            assert_eq!((counted.clears, counted.copies, counted.passes), (0, 0, 1));
        }
        let outs = ctx.storage_poisoned("outs", 3 * n).unwrap();
        let counts = ctx.storage_poisoned("counts", 3).unwrap();
        run(ctx, |e| {
            for r in 0..3u64 {
                bs.record(e);
                e.copy_buffer_to_buffer(&dst, 0, &outs, 4 * r * n as u64, Some(4 * n as u64));
                bp.record(e);
                e.copy_buffer_to_buffer(bp.count(), 0, &counts, 4 * r, Some(4));
            }
        });
        let want = reference::scan(&words, Op::Add, true);
        let got: Vec<u32> = ctx.read_back("outs", &outs, 3 * n).unwrap();
        for r in 0..3 {
            assert_eq!(
                &got[r * n..(r + 1) * n],
                &want[..],
                "{}: n={n} run {r}",
                on(ctx)
            );
        }
        let kept = words.iter().filter(|&&x| x % 3 == 0).count() as u32;
        let c: Vec<u32> = ctx.read_back("counts", &counts, 3).unwrap();
        assert_eq!(c, vec![kept; 3], "{}: n={n}: counts", on(ctx));
    }
}

/// A self-clearing scan (ADR-0087), plain and segmented, run three times in one encoder with
/// new input and a poisoned output each time: every run equals the reference of its own input
/// (descriptors left from the run before would be read as published prefixes, a tile counter
/// left at the end would make every workgroup exit and leave the poison); the same with the
/// clearing dispatch, and with self-clearing up to 3 tiles (larger inputs cleared by the
/// dispatch); one dispatch a run where the chunk clears itself, two where not.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_self_clearing_scan_runs_again_on_new_input() {
    let ctx = gpu();
    let mut sizes = vec![1usize, 4099, 70_001];
    if !wavekit_harness::short_sweep() {
        // Past the small inputs' rule (2^20): the policy's own tiles.
        sizes.push((1 << 20) + 7);
    }
    // Every chunk clears itself; none does (a dispatch clears); up to 3 tiles do.
    for limit in [u32::MAX, 0, 3] {
        let policy = ScanPolicy {
            self_clear_tiles: limit,
            ..ScanPolicy::for_device(ctx)
        };
        let plain = Scan::new(
            ctx,
            &ScanConfig {
                policy: Some(policy),
                ..ScanConfig::inclusive(Monoid::builtin(Scalar::U32, Op::Add))
            },
        )
        .unwrap();
        let segmented = Scan::segmented(ctx, Scalar::I32, Op::Max, false, Some(policy)).unwrap();
        for &n in &sizes {
            if limit != u32::MAX && n > 70_001 {
                continue;
            }
            let inputs: Vec<Vec<u32>> = (0..3).map(|r| random_u32(40 + r + n as u64, n)).collect();
            let heads: Vec<u32> = random_u32(7 + n as u64, n)
                .iter()
                .map(|x| u32::from(x % 97 == 0))
                .collect();
            let staged = ctx.storage_from("staged", &inputs.concat()).unwrap();
            let flags = ctx.storage_from("heads", &heads).unwrap();
            let src = ctx.storage_poisoned("src", n).unwrap();
            let dst = ctx.storage_poisoned("dst", n).unwrap();
            let poison = ctx.storage_poisoned("poison", n).unwrap();
            let outs = ctx.storage_poisoned("outs", 6 * n).unwrap();
            let bound = [
                plain.bind(ctx, &src, Some(&dst), n as u64).unwrap(),
                segmented
                    .bind_segmented(ctx, &src, &flags, &dst, n as u64)
                    .unwrap(),
            ];
            for (b, scan) in bound.iter().zip([&plain, &segmented]) {
                let counted = wavekit::record::count(|| {
                    b.record(&mut ctx.device.create_command_encoder(&Default::default()))
                });
                let tiles = n.div_ceil(scan.tile_elements_for(ctx, n as u64).unwrap() as usize);
                let want = if tiles <= limit as usize { 1 } else { 2 };
                assert_eq!(counted.dispatches, want, "{}: n={n} limit {limit}", on(ctx));
            }
            let bytes = 4 * n as u64;
            run(ctx, |e| {
                for r in 0..3u64 {
                    for (k, b) in bound.iter().enumerate() {
                        e.copy_buffer_to_buffer(&staged, r * bytes, &src, 0, Some(bytes));
                        e.copy_buffer_to_buffer(&poison, 0, &dst, 0, Some(bytes));
                        b.record(e);
                        let at = (2 * r + k as u64) * bytes;
                        e.copy_buffer_to_buffer(&dst, 0, &outs, at, Some(bytes));
                    }
                }
            });
            let got: Vec<u32> = ctx.read_back("outs", &outs, 6 * n).unwrap();
            for (r, x) in inputs.iter().enumerate() {
                let want = reference::scan(x, Op::Add, true);
                let at = 2 * r * n;
                assert_eq!(
                    &got[at..at + n],
                    &want[..],
                    "{}: self_clear_tiles={limit} n={n} run {r}",
                    on(ctx)
                );
                let xi: Vec<i32> = bytemuck::cast_slice(x).to_vec();
                let want: Vec<u32> =
                    bytemuck::cast_vec(reference::segmented_scan(&xi, &heads, Op::Max, false));
                let at = (2 * r + 1) * n;
                assert_eq!(
                    &got[at..at + n],
                    &want[..],
                    "{}: segmented, self_clear_tiles={limit} n={n} run {r}",
                    on(ctx)
                );
            }
        }
    }
}

/// A self-clearing select and partition (ADR-0089), run three times in one encoder with new
/// input and a poisoned output each time: every run's count and output equal the reference of
/// its own input (descriptors left from the run before would be read as published counts, a
/// tile counter left at the end would make every workgroup exit and leave the poison, a
/// partition count left uncleared would put the rejected side past the end); the same with
/// the clearing dispatch, and with self-clearing up to 3 tiles; one dispatch less a run where
/// the input clears itself.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_self_clearing_select_runs_again_on_new_input() {
    let ctx = gpu();
    let mut sizes = vec![1usize, 4099, 70_001];
    if !wavekit_harness::short_sweep() {
        // Past the small inputs' rule (2^20): the policy's own tiles.
        sizes.push((1 << 20) + 7);
    }
    let keep = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u != 0u; }".into());
    for limit in [u32::MAX, 0, 3] {
        let policy = SelectPolicy {
            self_clear_tiles: limit,
            ..Default::default()
        };
        let kernels: Vec<Select> = [false, true]
            .into_iter()
            .map(|partition| {
                Select::new(
                    ctx,
                    &SelectConfig {
                        policy: Some(policy),
                        ..SelectConfig::new(Scalar::U32, keep.clone(), partition)
                    },
                )
                .unwrap()
            })
            .collect();
        for &n in &sizes {
            if limit != u32::MAX && n > 70_001 {
                continue;
            }
            let inputs: Vec<Vec<u32>> = (0..3).map(|r| random_u32(90 + r + n as u64, n)).collect();
            let staged = ctx.storage_from("staged", &inputs.concat()).unwrap();
            let src = ctx.storage_poisoned("src", n).unwrap();
            let dst = ctx.storage_poisoned("dst", n).unwrap();
            let poison = ctx.storage_poisoned("poison", n).unwrap();
            let outs = ctx.storage_poisoned("outs", 6 * n).unwrap();
            let counts = ctx.storage_poisoned("counts", 6).unwrap();
            let bound: Vec<_> = kernels
                .iter()
                .map(|k| k.bind(ctx, &src, None, &dst, n as u64).unwrap())
                .collect();
            for ((b, k), base) in bound.iter().zip(&kernels).zip([1, 2]) {
                let counted = wavekit::record::count(|| {
                    b.record(&mut ctx.device.create_command_encoder(&Default::default()))
                });
                let tiles = n.div_ceil(k.tile_elements_for(ctx, n as u64).unwrap() as usize);
                let want = if tiles <= limit as usize {
                    base
                } else {
                    base + 1
                };
                assert_eq!(counted.dispatches, want, "{}: n={n} limit {limit}", on(ctx));
            }
            let bytes = 4 * n as u64;
            run(ctx, |e| {
                for r in 0..3u64 {
                    for (k, b) in bound.iter().enumerate() {
                        e.copy_buffer_to_buffer(&staged, r * bytes, &src, 0, Some(bytes));
                        e.copy_buffer_to_buffer(&poison, 0, &dst, 0, Some(bytes));
                        b.record(e);
                        let at = 2 * r + k as u64;
                        e.copy_buffer_to_buffer(&dst, 0, &outs, at * bytes, Some(bytes));
                        e.copy_buffer_to_buffer(b.count(), 0, &counts, at * 4, Some(4));
                    }
                }
            });
            let got: Vec<u32> = ctx.read_back("outs", &outs, 6 * n).unwrap();
            let got_counts: Vec<u32> = ctx.read_back("counts", &counts, 6).unwrap();
            for (r, x) in inputs.iter().enumerate() {
                let (kept, rejected): (Vec<u32>, Vec<u32>) = x.iter().partition(|v| *v % 3 != 0);
                let what = format!("{}: self_clear_tiles={limit} n={n} run {r}", on(ctx));
                for k in 0..2 {
                    assert_eq!(
                        got_counts[2 * r + k] as usize,
                        kept.len(),
                        "{what}, side {k}"
                    );
                }
                let at = 2 * r * n;
                assert_eq!(&got[at..at + kept.len()], &kept[..], "{what}: select");
                assert!(
                    got[at + kept.len()..at + n].iter().all(|&v| v == POISON),
                    "{what}: select wrote past its survivors"
                );
                let at = (2 * r + 1) * n;
                assert_eq!(
                    &got[at..at + kept.len()],
                    &kept[..],
                    "{what}: partition, kept"
                );
                assert_eq!(
                    &got[at + kept.len()..at + n],
                    &rejected[..],
                    "{what}: partition, rejected"
                );
            }
        }
    }
}

/// The clear kernel (ADR-0081): one to four buffers of any size (past its grid's stride too)
/// set to zero in one dispatch, every word, nothing past them; a buffer given twice, none or
/// five are errors.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_clear_kernel_zeroes_every_word_of_each_buffer() {
    use wavekit::clear::ClearKernel;
    let ctx = gpu();
    let clear = ClearKernel::new(ctx).unwrap();
    let sizes = [1usize, 255, 1000, 262_144 + 3];
    for count in 1..=4 {
        let bufs: Vec<wgpu::Buffer> = sizes[..count]
            .iter()
            .map(|&w| ctx.storage_poisoned("to clear", w).unwrap())
            .collect();
        // A neighbour that must keep its words.
        let other = ctx.storage_poisoned("other", 64).unwrap();
        let refs: Vec<&wgpu::Buffer> = bufs.iter().collect();
        let bound = clear.bind(ctx, &refs).unwrap();
        run(ctx, |e| {
            let mut pass = e.begin_compute_pass(&Default::default());
            bound.dispatch(&mut pass);
        });
        for (b, &w) in bufs.iter().zip(&sizes) {
            let got: Vec<u32> = ctx.read_back("cleared", b, w).unwrap();
            assert!(
                got.iter().all(|&x| x == 0),
                "{}: {count} buffers, {w} words",
                on(ctx)
            );
        }
        let o: Vec<u32> = ctx.read_back("other", &other, 64).unwrap();
        assert!(o.iter().all(|&x| x == POISON));
    }
    let a = ctx.storage_poisoned("a", 4).unwrap();
    let b = ctx.storage_poisoned("b", 4).unwrap();
    for bad in [vec![], vec![&a, &b, &a], vec![&a, &b, &a, &b, &a]] {
        let e = clear.bind(ctx, &bad).unwrap_err().to_string();
        assert!(e.contains("clear:"), "{e}");
    }
}

/// f(x) = a * x + b (mod 2^32) as vec2(a, b); combine(f, g) = g after f. Associative and not
/// commutative, so any reordering by the GPU shows.
fn affine() -> Monoid {
    Monoid::custom(
        "affine",
        "vec2<u32>",
        "vec2<u32>(1u, 0u)",
        "vec2<u32>(b.x * a.x, b.x * a.y + b.y)",
        false,
    )
    .unwrap()
}

fn affine_ref(a: [u32; 2], b: [u32; 2]) -> [u32; 2] {
    [
        b[0].wrapping_mul(a[0]),
        b[0].wrapping_mul(a[1]).wrapping_add(b[1]),
    ]
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn custom_non_commutative_monoid_scan_and_reduce() {
    let ctx = gpu();
    for inclusive in [true, false] {
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                inclusive,
                ..ScanConfig::inclusive(affine())
            },
        )
        .unwrap();
        let red = Reduce::new(ctx, &ReduceConfig::new(affine())).unwrap();
        for n in sizes() {
            let mut r = rng(5, n);
            let data: Vec<[u32; 2]> = (0..n).map(|_| [r.u32(..) | 1, r.u32(..)]).collect();
            let src = ctx.storage_from("src", &data).unwrap();
            let dst = ctx.storage_poisoned("dst", 2 * n).unwrap();
            let bound = scan.bind(ctx, &src, Some(&dst), n as u64).unwrap();
            run(ctx, |e| bound.record(e));
            let got: Vec<[u32; 2]> = ctx.read_back("dst", &dst, n).unwrap();
            let mut acc = [1u32, 0];
            for (i, (&x, g)) in data.iter().zip(&got).enumerate() {
                let before = acc;
                acc = affine_ref(acc, x);
                let want = if inclusive { acc } else { before };
                assert_eq!(*g, want, "{}: affine scan n={n} element {i}", on(ctx));
            }
            let b = red.bind(ctx, &src, n as u64).unwrap();
            run(ctx, |e| b.record(e));
            let got: Vec<[u32; 2]> = ctx.read_back("result", b.result(), 1).unwrap();
            let want = data.iter().fold([1u32, 0], |a, &x| affine_ref(a, x));
            assert_eq!(got[0], want, "{}: affine reduce n={n}", on(ctx));
        }
    }
}

/// x ↦ a·x + b modulo 2^16, packed in one word as (a << 16) | b: a one-word monoid that is
/// not commutative, so the one-word (direct) scan layout's order is checked too.
fn affine16() -> Monoid {
    Monoid::custom(
        "affine16",
        "u32",
        "0x10000u",
        "((((b >> 16u) * (a >> 16u)) & 0xffffu) << 16u) | (((b >> 16u) * (a & 0xffffu) + (b & 0xffffu)) & 0xffffu)",
        false,
    )
    .unwrap()
}

fn affine16_ref(a: u32, b: u32) -> u32 {
    let (fa, fb) = (a >> 16, a & 0xffff);
    let (ga, gb) = (b >> 16, b & 0xffff);
    ((ga.wrapping_mul(fa) & 0xffff) << 16) | (ga.wrapping_mul(fb).wrapping_add(gb) & 0xffff)
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn custom_one_word_non_commutative_scan() {
    let ctx = gpu();
    for inclusive in [true, false] {
        let scan = Scan::new(
            ctx,
            &ScanConfig {
                inclusive,
                ..ScanConfig::inclusive(affine16())
            },
        )
        .unwrap();
        for n in sizes() {
            let mut r = rng(6, n);
            // Odd multipliers keep the composition from collapsing to a constant.
            let data: Vec<u32> = (0..n).map(|_| r.u32(..) | 0x10000).collect();
            let src = ctx.storage_from("src", &data).unwrap();
            let dst = ctx.storage_poisoned("dst", n).unwrap();
            let bound = scan.bind(ctx, &src, Some(&dst), n as u64).unwrap();
            run(ctx, |e| bound.record(e));
            let got: Vec<u32> = ctx.read_back("dst", &dst, n).unwrap();
            let mut acc = 0x10000u32;
            for (i, (&x, &g)) in data.iter().zip(&got).enumerate() {
                let before = acc;
                acc = affine16_ref(acc, x);
                let want = if inclusive { acc } else { before };
                assert_eq!(g, want, "{}: affine16 scan n={n} element {i}", on(ctx));
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn segmented_scan_every_operator() {
    let ctx = gpu();
    for op in [Op::Add, Op::Min, Op::Max] {
        // The short sweep: each operator in one direction (both directions, each operator, at
        // the first width).
        let directions: &[bool] = match (wavekit_harness::short_sweep(), op) {
            (false, _) => &[true, false],
            (true, Op::Min) => &[false],
            (true, _) => &[true],
        };
        for &inclusive in directions {
            let scan = Scan::segmented(ctx, Scalar::I32, op, inclusive, None).unwrap();
            for n in sizes() {
                let x = random_i32(3, n);
                let mut r = rng(4, n);
                // About one head in 20, and long segments crossing tiles.
                let heads: Vec<u32> = (0..n).map(|_| u32::from(r.u32(..20) == 0)).collect();
                let src = ctx.storage_from("src", &x).unwrap();
                let flags = ctx.storage_from("flags", &heads).unwrap();
                let dst = ctx.storage_poisoned("dst", n).unwrap();
                let b = scan
                    .bind_segmented(ctx, &src, &flags, &dst, n as u64)
                    .unwrap();
                run(ctx, |e| b.record(e));
                let got: Vec<i32> = ctx.read_back("dst", &dst, n).unwrap();
                let want = reference::segmented_scan(&x, &heads, op, inclusive);
                assert_eq!(
                    got,
                    want,
                    "{}: segmented {op:?} inclusive={inclusive} n={n}",
                    on(ctx)
                );
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn select_and_partition_keep_order() {
    let ctx = gpu();
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    for partition in [false, true] {
        let flags =
            Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, partition)).unwrap();
        let by_pred = Select::new(
            ctx,
            &SelectConfig::new(Scalar::U32, pred.clone(), partition),
        )
        .unwrap();
        let t = flags.tile_elements() as usize;
        // The short sweep (ADR-0084): without the largest size, and the densities that differ
        // in kind (none, some, all kept).
        let short = wavekit_harness::short_sweep();
        let mut all = sizes_if(!short);
        all.extend([t - 1, t, t + 1, 2 * t + 1]);
        let densities: &[u32] = if short {
            &[0, 50, 100]
        } else {
            &[0, 1, 50, 100]
        };
        for &n in &all {
            for &density in densities {
                check_select(ctx, &flags, &Keep::Flags, partition, n, density);
            }
            check_select(ctx, &by_pred, &pred, partition, n, 0);
        }
    }
}

/// Every way select and partition store a tile: through workgroup memory in their default
/// batches (13 and 16 elements per lane), in batches of 1 (select) and of 4 (partition: its
/// two sides through the same staging code, `select.wgsl`), and straight from registers
/// (ADR-0034).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn select_and_partition_in_every_store_mode() {
    let ctx = gpu();
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    // The store modes at every size: without the small inputs' tiles (ADR-0082), whose 8
    // elements a lane no batch of 13 or 16 divides.
    let d = SelectPolicy {
        small: None,
        ..Default::default()
    };
    // Each primitive's default batch and 0 (from registers), then batches of 1 and 4 as a
    // transversal (select 1, partition 4: each batch and each side count once, ADR-0101). The
    // short part of the sweep (ADR-0084) takes the default and registers, the rest (the first
    // width's, ADR-0101) the default and the batches; every part takes every size.
    let modes = [
        (d.select_stage_steps, d.partition_stage_steps),
        (0, 0),
        (1, 4),
    ];
    let sweep = wavekit_harness::sweep();
    for (m, &(sel, part)) in modes.iter().enumerate() {
        if !sweep.takes(m < 2, m == 0) {
            continue;
        }
        let policy = SelectPolicy {
            select_stage_steps: sel,
            partition_stage_steps: part,
            ..d
        };
        // The predicate (which makes the flags, not the stores) in the default batch and from
        // registers; the batches of 1 and 4 with flags alone (ADR-0101).
        let with_predicate = m < 2;
        for partition in [false, true] {
            let flags = Select::new(
                ctx,
                &SelectConfig {
                    scalar: Scalar::U32,
                    keep: Keep::Flags,
                    partition,
                    policy: Some(policy),
                },
            )
            .unwrap();
            let by_pred = with_predicate.then(|| {
                Select::new(
                    ctx,
                    &SelectConfig {
                        scalar: Scalar::U32,
                        keep: pred.clone(),
                        partition,
                        policy: Some(policy),
                    },
                )
                .unwrap()
            });
            let t = flags.tile_elements() as usize;
            for n in [0, 1, 5, 33, t - 1, t, t + 1, 3 * t + 7] {
                for density in [0, 50, 100] {
                    check_select(ctx, &flags, &Keep::Flags, partition, n, density);
                }
                if let Some(by_pred) = &by_pred {
                    check_select(ctx, by_pred, &pred, partition, n, 0);
                }
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn bad_input_is_an_error_not_a_panic() {
    let ctx = gpu();
    let small = ctx.storage_poisoned("small", 4).unwrap();
    let scan = Scan::new(
        ctx,
        &ScanConfig::inclusive(Monoid::builtin(Scalar::U32, Op::Add)),
    )
    .unwrap();
    let e = scan.bind(ctx, &small, Some(&small), 5).unwrap_err();
    assert!(
        e.to_string()
            .contains("5 elements need 20 bytes but the buffer has 16"),
        "{e}"
    );
    let e = scan.bind(ctx, &small, None, 4).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let huge = ctx.caps.limits.max_storage_buffer_binding_size / 4 + 1;
    let e = scan.bind(ctx, &small, Some(&small), huge).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(_) | Error::BindingTooLarge { .. }),
        "{e}"
    );

    let bad = Monoid::custom("bad", "u32", "0u", "a +* b", true).unwrap();
    let e = Reduce::new(ctx, &ReduceConfig::new(bad.clone())).unwrap_err();
    assert!(matches!(e, Error::Shader { .. }), "{e}");
    assert!(
        e.to_string().contains("monoid.wgsl:"),
        "the line is named: {e}"
    );
    let keep = Keep::Predicate("fn keep(x: u32) -> bool { return true; }".into());
    let e = Select::new(ctx, &SelectConfig::new(Scalar::U32, keep, false)).unwrap_err();
    assert!(matches!(e, Error::Shader { .. }), "{e}");
    let s = Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, false)).unwrap();
    let e = s.bind(ctx, &small, None, &small, 4).unwrap_err();
    assert!(e.to_string().contains("needs a flags buffer"), "{e}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn convenience_functions() {
    let ctx = gpu();
    let x = [3u32, 1, 4, 1, 5, 9, 2, 6];
    assert_eq!(
        wavekit::scan::scan_slice(ctx, &x, Op::Add, false).unwrap(),
        [0, 3, 4, 8, 9, 14, 23, 25]
    );
    assert_eq!(wavekit::reduce::reduce_slice(ctx, &x, Op::Max).unwrap(), 9);
    let flags = [1, 0, 1, 0, 1, 0, 0, 1];
    assert_eq!(
        wavekit::select::select_slice(ctx, &x, &flags).unwrap(),
        [3, 4, 5, 6]
    );
    assert_eq!(
        wavekit::select::partition_slice(ctx, &x, &flags).unwrap(),
        (vec![3, 4, 5, 6, 1, 1, 9, 2], 4)
    );
    let e = wavekit::select::select_slice(ctx, &x, &flags[..3]).unwrap_err();
    assert!(e.to_string().contains("3 flags for 8 elements"), "{e}");
}

/// The survivor count drives an indirect dispatch: exactly ceil(count / items) workgroups run.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn select_count_drives_an_indirect_dispatch() {
    let ctx = gpu();
    let items = 64u32;
    let s = Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, false))
        .unwrap()
        .with_indirect_items(items)
        .unwrap();
    assert!(
        Select::new(ctx, &SelectConfig::new(Scalar::U32, Keep::Flags, false))
            .unwrap()
            .with_indirect_items(0)
            .is_err()
    );
    let n = 10_007usize;
    let data = random_u32(41, n);
    let mut r = rng(42, n);
    let flags: Vec<u32> = (0..n).map(|_| r.u32(..2)).collect();
    let kept = flags.iter().filter(|&&f| f != 0).count();
    let src = ctx.storage_from("src", &data).unwrap();
    let f = ctx.storage_from("flags", &flags).unwrap();
    let dst = ctx.storage_poisoned("dst", n).unwrap();
    let b = s.bind(ctx, &src, Some(&f), &dst, n as u64).unwrap();

    // A kernel whose every workgroup writes totals[group]: count the groups that ran.
    let compact = common::compact_kernel(ctx, 256);
    let max_groups = n.div_ceil(items as usize) + 4;
    let zeros = ctx
        .storage_from("zeros", &vec![0u32; max_groups * 256])
        .unwrap();
    let out = ctx.storage_poisoned("out", max_groups * 256).unwrap();
    let totals = ctx.storage_poisoned("totals", max_groups).unwrap();
    let bind = compact
        .bind(ctx, &[(0, &zeros), (1, &out), (2, &totals)])
        .unwrap();
    ctx.scoped("indirect dispatch", || {
        run(ctx, |e| {
            b.record(e);
            let mut pass = e.begin_compute_pass(&Default::default());
            compact.dispatch_indirect(&mut pass, &bind, b.indirect_args());
        })
    })
    .unwrap();
    let groups = kept.div_ceil(items as usize);
    let args: Vec<u32> = ctx.read_back("args", b.indirect_args().0, 5).unwrap();
    assert_eq!(
        &args[..],
        &[kept as u32, 0, groups as u32, 1, 1],
        "{}",
        on(ctx)
    );
    let t: Vec<u32> = ctx.read_back("totals", &totals, max_groups).unwrap();
    assert!(
        t[..groups].iter().all(|&x| x == 0),
        "{}: a group did not run",
        on(ctx)
    );
    assert!(
        t[groups..].iter().all(|&x| x == POISON),
        "{}: extra groups ran",
        on(ctx)
    );
}
