//! Radix sort on the GPU against `std`'s stable sort (`sort::reference`): every key type,
//! ascending and descending, keys alone, with values (stability) and with indices, bit ranges,
//! the float specials, and the sizes around the tile; in every mode (the three kernels and the
//! single pass, both without the small path, and the small path: tiles sorted in workgroup
//! memory, then merged).

mod common;

use common::{gpu, on, run};
use wavekit::POISON;
use wavekit::sort::{self, KeyType, RadixSort, SortConfig, SortKey, SortPolicy, Values, reference};

/// The three-kernel passes (the default) and the single pass, neither taking the small path;
/// and the small path for every size (ADR-0090).
fn modes() -> [SortPolicy; 3] {
    [
        SortPolicy {
            small_up_to: 0,
            ..SortPolicy::default()
        },
        SortPolicy {
            small_up_to: 0,
            ..SortPolicy::single_pass()
        },
        small_mode(),
    ]
}

fn small_mode() -> SortPolicy {
    SortPolicy {
        small_up_to: 1 << 24,
        ..SortPolicy::default()
    }
}

fn sizes(tile: usize) -> Vec<usize> {
    vec![0, 1, 2, 31, 1009, tile - 1, tile, tile + 1, 3 * tile + 17]
}

/// The input families the issue names, for keys drawn by `draw`.
fn inputs<K: SortKey>(
    n: usize,
    seed: u64,
    draw: impl Fn(&mut fastrand::Rng) -> K,
) -> Vec<(&'static str, Vec<K>)> {
    let mut r = fastrand::Rng::with_seed(seed);
    let random: Vec<K> = (0..n).map(|_| draw(&mut r)).collect();
    let sorted = reference::sort(&random, false, (0, K::TYPE.bits()));
    let reversed: Vec<K> = sorted.iter().rev().copied().collect();
    let one = draw(&mut r);
    let few: Vec<K> = (0..4).map(|_| draw(&mut r)).collect();
    let two = [draw(&mut r), draw(&mut r)];
    vec![
        ("random", random),
        ("sorted", sorted),
        ("reversed", reversed),
        ("all equal", vec![one; n]),
        ("few unique", (0..n).map(|_| few[r.usize(..4)]).collect()),
        ("two values", (0..n).map(|_| two[r.usize(..2)]).collect()),
    ]
}

fn check<K: SortKey + std::fmt::Debug>(
    ctx: &wavekit::GpuContext,
    what: &str,
    keys: &[K],
    config: &SortConfig,
    sorter: &RadixSort,
) {
    let n = keys.len();
    let bits = config.bit_range().unwrap();
    let kb = ctx.storage_from("keys", keys).unwrap();
    let given: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let vb = match config.values {
        Values::None => None,
        Values::U32 => Some(ctx.storage_from("values", &given).unwrap()),
        Values::Indices => Some(ctx.storage_poisoned("values", n.max(1)).unwrap()),
    };
    let bound = sorter.bind(ctx, &kb, vb.as_ref(), n as u64).unwrap();
    run(ctx, |e| bound.record(e));
    let perm = reference::permutation(keys, config.descending, bits);
    let got: Vec<K> = ctx.read_back("keys", &kb, n).unwrap();
    let raw = |k: &K| k.raw();
    let want: Vec<u64> = perm.iter().map(|&i| raw(&keys[i as usize])).collect();
    let got_raw: Vec<u64> = got.iter().map(raw).collect();
    assert_eq!(got_raw, want, "{}: {what} {config:?} n={n}: keys", on(ctx));
    if let Some(vb) = vb {
        let got_v: Vec<u32> = ctx.read_back("values", &vb, n).unwrap();
        let want_v: Vec<u32> = match config.values {
            Values::U32 => perm.iter().map(|&i| given[i as usize]).collect(),
            _ => perm.clone(),
        };
        assert!(!got_v.contains(&POISON) || n == 0 || want_v.contains(&POISON));
        assert_eq!(
            got_v,
            want_v,
            "{}: {what} {config:?} n={n}: values",
            on(ctx)
        );
    }
}

fn run_family<K: SortKey + std::fmt::Debug>(
    draw: impl Fn(&mut fastrand::Rng) -> K + Copy,
    bit_ranges: &[Option<(u32, u32)>],
) {
    let ctx = gpu();
    let sweep = wavekit_harness::sweep();
    for (m, mode) in modes().into_iter().enumerate() {
        for descending in [false, true] {
            // Every kind of values in one direction of each mode; the other direction with
            // values (CI time).
            let kinds: &[Values] = if descending == (m != 1) {
                &[Values::U32]
            } else {
                &[Values::None, Values::U32, Values::Indices]
            };
            for &values in kinds {
                for (r, &bits) in bit_ranges.iter().enumerate() {
                    // The short part of the sweep (ADR-0084) leaves out indices (the blocks
                    // test sorts with them), all but the first two bit ranges, and the small
                    // path but for u32 and u64 keys (the key order it shares with the radix
                    // passes, sort/key_order.wgsl, is tested there for every type); the rest
                    // is the first width's (ADR-0101), and both take the first configuration.
                    let in_short = values != Values::Indices
                        && r < 2
                        && (m != 2 || matches!(K::TYPE, KeyType::U32 | KeyType::U64));
                    let first = m == 0 && !descending && values == kinds[0] && r == 0;
                    if !sweep.takes(in_short, first) {
                        continue;
                    }
                    let config = SortConfig {
                        values,
                        descending,
                        bits,
                        policy: Some(mode),
                        ..SortConfig::keys(K::TYPE)
                    };
                    let sorter = RadixSort::new(ctx, &config).unwrap();
                    let tile = if mode == small_mode() {
                        sorter.small_tile_keys().expect("a small tile") as usize
                    } else {
                        sorter.tile_keys() as usize
                    };
                    for n in sizes(tile) {
                        assert_eq!(
                            sorter.takes_small_path(n as u64),
                            n > 0 && mode == small_mode(),
                            "n={n} {mode:?}"
                        );
                        for (what, keys) in inputs(n, n as u64 * 7 + 1, draw) {
                            check(ctx, what, &keys, &config, &sorter);
                        }
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_u32_keys() {
    run_family(|r| r.u32(..), &[None, Some((0, 4)), Some((4, 13))]);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_i32_keys() {
    run_family(|r| r.i32(..), &[None, Some((8, 32))]);
}

/// Floats the random bits seldom give: zeros of both signs, infinities, NaNs of both signs
/// (quiet and signalling), subnormals, the extremes.
const FLOAT_SPECIALS: [f32; 13] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::from_bits(0x7fc0_0000),
    f32::from_bits(0xffc0_0000),
    f32::from_bits(0x7f80_0001),
    f32::from_bits(0xff80_0001),
    f32::from_bits(1),
    f32::from_bits(0x8000_0001),
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
];

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_f32_keys_in_total_order() {
    run_family(
        |r| {
            if r.u32(..4) == 0 {
                FLOAT_SPECIALS[r.usize(..FLOAT_SPECIALS.len())]
            } else {
                f32::from_bits(r.u32(..))
            }
        },
        &[None],
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_f32_keys_in_numpys_order() {
    // Zeros of both signs and NaNs of every kind often, so that equal keys meet.
    run_family(
        |r| {
            reference::NumpyF32(if r.bool() {
                FLOAT_SPECIALS[r.usize(..FLOAT_SPECIALS.len())]
            } else {
                f32::from_bits(r.u32(..))
            })
        },
        &[None],
    );
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_u64_keys() {
    run_family(|r| r.u64(..), &[None, Some((20, 50)), Some((32, 64))]);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn conveniences_and_bad_input() {
    let ctx = gpu();
    let keys = [5u32, 3, 9, 3, 0];
    assert_eq!(
        sort::sort_slice(ctx, &keys, false, None).unwrap(),
        [0, 3, 3, 5, 9]
    );
    let (k, order) = sort::sort_pairs_slice(ctx, &keys, None, true, None).unwrap();
    assert_eq!(k, [9, 5, 3, 3, 0]);
    assert_eq!(order, [2, 0, 1, 3, 4]);
    // A bit range outside the key, an empty range, values that do not match.
    for bits in [(0, 33), (5, 5), (9, 3)] {
        let e = sort::sort_slice(ctx, &keys, false, Some(bits)).unwrap_err();
        assert!(e.to_string().contains("sort bits"), "{e}");
    }
    let e = sort::sort_pairs_slice(ctx, &keys, Some(&[1, 2]), false, None).unwrap_err();
    assert!(e.to_string().contains("5 keys but 2 values"), "{e}");
    let sorter = RadixSort::new(ctx, &SortConfig::keys(KeyType::U32)).unwrap();
    let small = ctx.storage_from("keys", &keys).unwrap();
    assert!(
        sorter.bind(ctx, &small, None, 6).is_err(),
        "more keys than the buffer holds"
    );
    let v = ctx.storage_from("values", &keys).unwrap();
    assert!(
        sorter.bind(ctx, &small, Some(&v), 5).is_err(),
        "values for a keys-only sort"
    );
}

/// Tiles' digit counts are scanned in blocks of `block_tiles` tiles (down each digit's column
/// within a block, then the blocks' sums: up to `inline_blocks` blocks
/// summed by each scatter workgroup, past that by the scan): sizes that end inside the first
/// block, on its edge, just past it, in a third block, and one block past the inline limit
/// (random keys only: the largest), keys alone and with indices (stability), both directions;
/// the blocks kernel's column loads all at once (the default), one at a time (the browser's
/// policy) and four at a time. In full sweeps every configuration takes the default tiles on
/// the routes up to a few blocks (hundreds of thousands of keys), and the first again at small
/// tiles takes every route: the two largest (past the inline limit, and the scan of the
/// blocks' sums) need millions of keys at the default tiles, which took 20 of the test's 35 s
/// at the first width (ADR-0101). Short sweeps (`WAVEKIT_TEST_SWEEP=short`: lavapipe's later
/// widths, ADR-0084) take every configuration at small tiles: the default workgroup but 2 keys
/// an invocation, 4 tiles a block and 2 inline blocks, thousands of keys.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn sorts_across_blocks_of_tiles() {
    let ctx = gpu();
    let small = |p: SortPolicy| SortPolicy {
        items: 2,
        block_tiles: 4,
        inline_blocks: 2,
        ..p
    };
    let short = wavekit_harness::short_sweep();
    let shrink = |p: SortPolicy| if short { small(p) } else { p };
    // The radix passes at every size (no small path: ADR-0090).
    let radix = |p: SortPolicy| SortPolicy {
        small_up_to: 0,
        ..p
    };
    let policy = shrink(radix(SortPolicy::default()));
    for (c, (values, descending, mode)) in [
        (Values::None, false, policy),
        // The first configuration's largest routes at the small tiles (the short sweep's
        // first configuration takes them itself).
        (Values::None, false, small(policy)),
        (
            Values::Indices,
            true,
            SortPolicy {
                column_step: 1,
                ..policy
            },
        ),
        (
            Values::Indices,
            false,
            shrink(radix(SortPolicy::single_pass())),
        ),
        (
            Values::None,
            false,
            SortPolicy {
                column_step: 4,
                ..policy
            },
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if c == 1 && short {
            continue;
        }
        let config = SortConfig {
            values,
            descending,
            policy: Some(mode),
            ..SortConfig::keys(KeyType::U32)
        };
        let sorter = RadixSort::new(ctx, &config).unwrap();
        let tile = sorter.tile_keys() as usize;
        let block = mode.block_tiles as usize;
        let inline = mode.inline_blocks as usize;
        // Routes (ADR-0027, ADR-0031): one block, no blocks kernel; one block of twice the
        // tiles; a few blocks; a few blocks of twice the tiles (more than `inline` of the
        // usual); the scan of the blocks' sums (more than `inline` even of twice the tiles).
        for (route, n) in [
            block * tile - 1,
            block * tile,
            block * tile + 1,
            (2 * block + 1) * tile + 5,
            (inline + 1) * block * tile + 3,
            (2 * inline * block + 1) * tile + 7,
        ]
        .into_iter()
        .enumerate()
        {
            // The two largest routes only at small tiles (millions of keys at the default
            // ones); the largest (the scan of the blocks' sums) for the first configuration
            // at small tiles alone.
            let small_tiles = short || c == 1;
            let takes_largest = c == usize::from(!short);
            if (!small_tiles && route >= 4) || (route == 5 && !takes_largest) {
                continue;
            }
            let all = inputs(n, n as u64 * 3 + 5, |r| r.u32(..));
            let large = n > (2 * block + 1) * tile + 5;
            for (what, keys) in all
                .iter()
                .filter(|(w, _)| *w == "random" || (!large && *w == "few unique"))
            {
                check(ctx, what, keys, &config, &sorter);
            }
        }
    }
}

/// The small path's merge (ADR-0090) over many tiles: tiles of 32 keys, so that an input of
/// more than 256 tiles takes the merge's windows in more than one batch; random keys (windows
/// searched in workgroup memory) and few distinct ones (wide windows searched in place), keys
/// alone and with values, u32 and u64 keys with a bit range, both directions.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn small_sorts_merge_many_tiles() {
    let ctx = gpu();
    let policy = SortPolicy {
        small_up_to: 1 << 24,
        small_workgroup: 32,
        small_items: 1,
        ..SortPolicy::default()
    };
    for (key, values, descending, bits) in [
        (KeyType::U32, Values::U32, false, None),
        (KeyType::U32, Values::None, true, None),
        (KeyType::U64, Values::Indices, false, Some((5, 47))),
    ] {
        let config = SortConfig {
            values,
            descending,
            bits,
            policy: Some(policy),
            ..SortConfig::keys(key)
        };
        let sorter = RadixSort::new(ctx, &config).unwrap();
        let tile = sorter.small_tile_keys().unwrap() as usize;
        assert_eq!(tile, 32, "{}", on(ctx));
        // Random keys (narrow windows), all equal and few distinct (wide ones).
        let wanted = |what: &&str| ["random", "all equal", "few unique"].contains(what);
        let n = 257 * tile + 5;
        assert!(sorter.takes_small_path(n as u64));
        let seed = n as u64 + u64::from(descending);
        if key == KeyType::U64 {
            for (what, keys) in inputs(n, seed, |r| r.u64(..)) {
                if wanted(&what) {
                    check(ctx, what, &keys, &config, &sorter);
                }
            }
        } else {
            for (what, keys) in inputs(n, seed, |r| r.u32(..)) {
                if wanted(&what) {
                    check(ctx, what, &keys, &config, &sorter);
                }
            }
        }
    }
}
