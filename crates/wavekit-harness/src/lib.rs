//! The one place where wavekit's environment variables are read: the CLI, the benchmarks and
//! the test suites turn them into the plain values the libraries take ([`ContextOptions`],
//! each primitive's policy, the wavelet's tile shape). The libraries themselves read no
//! environment variable.
//!
//! | variable | becomes |
//! |---|---|
//! | `WAVEKIT_ADAPTER` | [`ContextOptions::adapter`] (an index or part of a name) |
//! | `WAVEKIT_NO_SUBGROUPS=1` | [`ContextOptions::disable_subgroups`] |
//! | `WGPU_BACKEND` | [`ContextOptions::backends`] (wgpu's names: `vulkan`, `metal`, …) |
//! | `WAVEKIT_MAX_BINDING_BYTES` | [`ContextOptions::max_binding_bytes`] (tests: the chunked paths) |
//! | `WAVEKIT_CHECKED=1` | [`ContextOptions::checked_shaders`] |
//! | `WAVEKIT_ZERO_WORKGROUP_MEMORY=0` | [`ContextOptions::zero_workgroup_memory`] off |
//! | `WAVEKIT_DUMP_WGSL=DIR` | [`ContextOptions::dump_wgsl`] |
//! | `WAVEKIT_PIPELINE_CACHE=DIR` | [`ContextOptions::pipeline_cache`] (the CLI saves it before it exits) |
//! | `WAVEKIT_KERNEL_CACHE=N` | [`ContextOptions::kernel_cache_entries`] |
//! | `WAVEKIT_UNROLL_IN_FULL=1` or `0` | [`ContextOptions::unroll_in_full`] (unset: in full except on software adapters) |
//! | `WAVEKIT_TIMER=markers` | [`timer_markers`] |
//! | `WAVEKIT_TILE_WORKGROUP`, `WAVEKIT_TILE_STEPS`, `WAVEKIT_TILE_VEC`, `WAVEKIT_SCAN_LAYOUT=blocked`, `WAVEKIT_SCAN_SELF_CLEAR_TILES`, `WAVEKIT_SELECT_SELF_CLEAR_TILES`, `WAVEKIT_REDUCE_GROUPS`, `WAVEKIT_SELECT_STAGE_STEPS`, `WAVEKIT_SMALL_UP_TO` (0: no small tiles), `WAVEKIT_SMALL_STEPS`, `WAVEKIT_LOOKBACK_{SPINS,BACKOFF,FIRST_WINDOW,PER_LANE}`, `WAVEKIT_STATS_WINDOWS=1`, `WAVEKIT_FAULT_LOOKBACK` | [`policies`] (scan, reduce, select) |
//! | `WAVEKIT_SORT_SINGLE_PASS=1`, `WAVEKIT_SORT_{WORKGROUP,ITEMS,BLOCK_TILES,INLINE_BLOCKS,LOOK_WINDOW,SPINS,STORES_UNROLLED}`, `WAVEKIT_SORT_SMALL_{UP_TO,WORKGROUP,ITEMS}` | [`policies`] (sort) |
//! | `WAVEKIT_DWT_TILE=CxRxS`, `WAVEKIT_DWT_SMALL_SAMPLES` | [`dwt_tuning`] |
//! | `WAVEKIT_STREAM_CHUNK_BYTES` | [`stream_chunk_bytes`] (the CLI's staging chunks; tests) |
//! | `WAVEKIT_EXPECT_SUBGROUP=N` | [`gpu`] (tests: the width is checked) |
//! | `WAVEKIT_MESHES=DIR` | [`meshes_dir`] (tests: where the Stanford bunny and dragon are) |
//! | `WAVEKIT_TEST_SWEEP=short`, `WAVEKIT_TEST_SWEEP=rest` | [`sweep`], [`short_sweep`] (tests: which part of the widest sweeps) |
//! | `WAVEKIT_FUZZ_RUNS=N`, `WAVEKIT_FUZZ_SEED=N` | [`fuzz::fuzz`] (runs a target, its seed) |
//!
//! A knob whose value does not parse or is out of range is an error naming the variable, not
//! silently ignored.

#![warn(missing_docs)]
use std::sync::OnceLock;

pub mod fuzz;

use wavekit::sort::SortPolicy;
use wavekit::tiling::{LookbackPolicy, SmallInputs};
use wavekit::{ContextOptions, GpuContext};
use wavekit_bench::primitives::Policies;

/// A knob that is set but wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnobError {
    /// The variable.
    pub name: &'static str,
    /// Its value.
    pub value: String,
    /// What it takes.
    pub expected: &'static str,
}

impl std::fmt::Display for KnobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}={:?}: expected {}; unset it or fix its value",
            self.name, self.value, self.expected
        )
    }
}

impl std::error::Error for KnobError {}

/// Where knobs are read from: the process environment, or a list (tests of this crate).
pub trait Source {
    /// The variable's value, if set and not empty.
    fn get(&self, name: &str) -> Option<String>;
}

/// The process environment.
pub struct Env;

impl Source for Env {
    fn get(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.trim().is_empty())
    }
}

impl Source for &[(&str, &str)] {
    fn get(&self, name: &str) -> Option<String> {
        self.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    }
}

fn parse<T: std::str::FromStr>(
    src: &dyn Source,
    name: &'static str,
    expected: &'static str,
    ok: impl Fn(&T) -> bool,
) -> Result<Option<T>, KnobError> {
    let Some(v) = src.get(name) else {
        return Ok(None);
    };
    match v.trim().parse::<T>() {
        Ok(x) if ok(&x) => Ok(Some(x)),
        _ => Err(KnobError {
            name,
            value: v,
            expected,
        }),
    }
}

fn flag(src: &dyn Source, name: &'static str) -> Result<Option<bool>, KnobError> {
    match src.get(name).as_deref().map(str::trim) {
        None => Ok(None),
        Some("1") => Ok(Some(true)),
        Some("0") => Ok(Some(false)),
        Some(v) => Err(KnobError {
            name,
            value: v.to_string(),
            expected: "1 or 0",
        }),
    }
}

/// [`ContextOptions`] from the knobs.
pub fn context_options(src: &dyn Source) -> Result<ContextOptions, KnobError> {
    let mut o = ContextOptions {
        adapter: src.get("WAVEKIT_ADAPTER"),
        ..ContextOptions::default()
    };
    if let Some(v) = src.get("WGPU_BACKEND") {
        o.backends = wgpu::Backends::from_comma_list(&v);
        if o.backends.is_empty() {
            return Err(KnobError {
                name: "WGPU_BACKEND",
                value: v,
                expected: "a comma list of vulkan, metal, dx12, gl",
            });
        }
    }
    o.disable_subgroups = flag(src, "WAVEKIT_NO_SUBGROUPS")?.unwrap_or(false);
    o.max_binding_bytes = parse(
        src,
        "WAVEKIT_MAX_BINDING_BYTES",
        "a byte count of at least 256",
        |b: &u64| *b >= 256,
    )?;
    o.checked_shaders = flag(src, "WAVEKIT_CHECKED")?.unwrap_or(false);
    o.zero_workgroup_memory = flag(src, "WAVEKIT_ZERO_WORKGROUP_MEMORY")?.unwrap_or(true);
    o.dump_wgsl = src.get("WAVEKIT_DUMP_WGSL").map(Into::into);
    o.pipeline_cache = src.get("WAVEKIT_PIPELINE_CACHE").map(Into::into);
    o.unroll_in_full = flag(src, "WAVEKIT_UNROLL_IN_FULL")?;
    if let Some(n) = parse(
        src,
        "WAVEKIT_KERNEL_CACHE",
        "a count of kernels (0: none kept)",
        |_: &usize| true,
    )? {
        o.kernel_cache_entries = n;
    }
    Ok(o)
}

/// Whether `WAVEKIT_TIMER=markers` asks the timer for marker passes (ADR-0041).
pub fn timer_markers(src: &dyn Source) -> Result<bool, KnobError> {
    match src.get("WAVEKIT_TIMER").as_deref() {
        None | Some("timestamps") => Ok(false),
        Some("markers") => Ok(true),
        Some(v) => Err(KnobError {
            name: "WAVEKIT_TIMER",
            value: v.to_string(),
            expected: "markers or timestamps",
        }),
    }
}

fn lookback(src: &dyn Source) -> Result<LookbackPolicy, KnobError> {
    let d = LookbackPolicy::default();
    let u = |name, expected, ok: fn(&u32) -> bool| parse::<u32>(src, name, expected, ok);
    Ok(LookbackPolicy {
        spins: u("WAVEKIT_LOOKBACK_SPINS", "1 or more", |v| *v >= 1)?.unwrap_or(d.spins),
        backoff: u("WAVEKIT_LOOKBACK_BACKOFF", "a count", |_| true)?.unwrap_or(d.backoff),
        first_window: u("WAVEKIT_LOOKBACK_FIRST_WINDOW", "1 or more", |v| *v >= 1)?
            .unwrap_or(d.first_window),
        per_lane: u("WAVEKIT_LOOKBACK_PER_LANE", "1 to 32", |v| {
            (1..=32).contains(v)
        })?
        .unwrap_or(d.per_lane),
        fault_skip: u(
            "WAVEKIT_FAULT_LOOKBACK",
            "a tile interval (0: none)",
            |_| true,
        )?
        .unwrap_or(0),
        count_windows: flag(src, "WAVEKIT_STATS_WINDOWS")?.unwrap_or(false),
    })
}

/// The primitives' policies from the tuning knobs (defaults where unset).
pub fn policies(src: &dyn Source) -> Result<Policies, KnobError> {
    let mut p = Policies::default();
    let lb = lookback(src)?;
    let u = |name, expected, ok: fn(&u32) -> bool| parse::<u32>(src, name, expected, ok);
    let workgroup = u("WAVEKIT_TILE_WORKGROUP", "128, 256, 512 or 1024", |v| {
        [128, 256, 512, 1024].contains(v)
    })?;
    let steps = u("WAVEKIT_TILE_STEPS", "1 to 64", |v| (1..=64).contains(v))?;
    let vec = u("WAVEKIT_TILE_VEC", "1, 2, 4 or 8", |v| {
        [1, 2, 4, 8].contains(v)
    })?;
    // Small inputs' tiles (scan, select, partition, reduce): most elements (0: none), steps.
    let small_up_to = parse::<u64>(
        src,
        "WAVEKIT_SMALL_UP_TO",
        "elements (0: no small tiles)",
        |_| true,
    )?;
    let small_steps = u("WAVEKIT_SMALL_STEPS", "1 to 64", |v| (1..=64).contains(v))?;
    let small = |rule: Option<SmallInputs>| match (rule, small_up_to) {
        (_, Some(0)) => None,
        (Some(r), up_to) => Some(SmallInputs {
            up_to: up_to.unwrap_or(r.up_to),
            steps: small_steps.unwrap_or(r.steps),
        }),
        (None, Some(up_to)) => Some(SmallInputs {
            up_to,
            steps: small_steps.unwrap_or(wavekit::tuning::SMALL_STEPS),
        }),
        (None, None) => None,
    };
    // Scan.
    let s = &mut p.scan;
    s.blocked.workgroup = workgroup.unwrap_or(s.blocked.workgroup);
    s.blocked.steps = steps.unwrap_or(s.blocked.steps);
    s.blocked.vec = vec.unwrap_or(s.blocked.vec);
    s.direct_steps = steps.unwrap_or(s.direct_steps);
    match src.get("WAVEKIT_SCAN_LAYOUT").as_deref() {
        None | Some("direct") => {}
        Some("blocked") => s.direct_layout = false,
        Some(v) => {
            return Err(KnobError {
                name: "WAVEKIT_SCAN_LAYOUT",
                value: v.to_string(),
                expected: "direct or blocked",
            });
        }
    }
    s.lookback = lb;
    s.small = small(s.small);
    s.self_clear_tiles = u("WAVEKIT_SCAN_SELF_CLEAR_TILES", "tiles (0: never)", |_| {
        true
    })?
    .unwrap_or(s.self_clear_tiles);
    // Reduce.
    let r = &mut p.reduce;
    r.tile.workgroup = workgroup.unwrap_or(r.tile.workgroup);
    r.tile.steps = steps.unwrap_or(r.tile.steps);
    r.tile.vec = vec.unwrap_or(r.tile.vec);
    r.max_workgroups = u("WAVEKIT_REDUCE_GROUPS", "1 to 65535", |v| {
        (1..=65535).contains(v)
    })?
    .unwrap_or(r.max_workgroups);
    r.small = small(r.small);
    // Select and partition.
    let sel = &mut p.select;
    sel.workgroup = workgroup.unwrap_or(sel.workgroup);
    sel.select_steps = steps.unwrap_or(sel.select_steps);
    sel.partition_steps = steps.unwrap_or(sel.partition_steps);
    if let Some(stage) = u(
        "WAVEKIT_SELECT_STAGE_STEPS",
        "elements per lane (0: none)",
        |_| true,
    )? {
        sel.select_stage_steps = stage;
        sel.partition_stage_steps = stage;
    }
    sel.lookback = lb;
    sel.small = small(sel.small);
    sel.self_clear_tiles = u(
        "WAVEKIT_SELECT_SELF_CLEAR_TILES",
        "tiles (0: never)",
        |_| true,
    )?
    .unwrap_or(sel.self_clear_tiles);
    // Sort.
    p.sort = sort_policy(src)?;
    Ok(p)
}

/// The sort's policy from its knobs (the single pass with `WAVEKIT_SORT_SINGLE_PASS=1`).
pub fn sort_policy(src: &dyn Source) -> Result<SortPolicy, KnobError> {
    let u = |name, expected, ok: fn(&u32) -> bool| parse::<u32>(src, name, expected, ok);
    let mut s = if flag(src, "WAVEKIT_SORT_SINGLE_PASS")?.unwrap_or(false) {
        SortPolicy::single_pass()
    } else {
        SortPolicy::default()
    };
    s.workgroup = u("WAVEKIT_SORT_WORKGROUP", "32, 64, 128, 256 or 512", |v| {
        [32, 64, 128, 256, 512].contains(v)
    })?
    .unwrap_or(s.workgroup);
    s.items = u("WAVEKIT_SORT_ITEMS", "1 to 32", |v| (1..=32).contains(v))?.unwrap_or(s.items);
    s.block_tiles = u("WAVEKIT_SORT_BLOCK_TILES", "1 to 64", |v| {
        (1..=64).contains(v)
    })?
    .unwrap_or(s.block_tiles);
    s.inline_blocks =
        u("WAVEKIT_SORT_INLINE_BLOCKS", "0 to 64", |v| *v <= 64)?.unwrap_or(s.inline_blocks);
    s.look_window = u("WAVEKIT_SORT_LOOK_WINDOW", "1 to 32", |v| {
        (1..=32).contains(v)
    })?
    .unwrap_or(s.look_window);
    s.spins = u("WAVEKIT_SORT_SPINS", "1 to 2^20", |v| {
        (1..=1 << 20).contains(v)
    })?
    .unwrap_or(s.spins);
    s.stores_unrolled = flag(src, "WAVEKIT_SORT_STORES_UNROLLED")?;
    s.fault_skip = u(
        "WAVEKIT_FAULT_LOOKBACK",
        "a tile interval (0: none)",
        |_| true,
    )?
    .unwrap_or(0);
    s.count_windows = flag(src, "WAVEKIT_STATS_WINDOWS")?.unwrap_or(false);
    s.small_up_to = u(
        "WAVEKIT_SORT_SMALL_UP_TO",
        "keys, 0 to 2^24 (0: none)",
        |v| *v <= 1 << 24,
    )?
    .unwrap_or(s.small_up_to);
    s.small_workgroup = u(
        "WAVEKIT_SORT_SMALL_WORKGROUP",
        "32 to 1024, a power of two",
        |v| (32..=1024).contains(v) && v.is_power_of_two(),
    )?
    .unwrap_or(s.small_workgroup);
    s.small_items = u("WAVEKIT_SORT_SMALL_ITEMS", "1 to 32", |v| {
        (1..=32).contains(v)
    })?
    .unwrap_or(s.small_items);
    Ok(s)
}

/// The wavelet transform's tuning from its knobs: a tile shape for every level
/// (`WAVEKIT_DWT_TILE=CxRxS`) and the region up to which levels take the small shape
/// (`WAVEKIT_DWT_SMALL_SAMPLES`).
pub fn dwt_tuning(src: &dyn Source) -> Result<wavekit_dwt::Tuning, KnobError> {
    let shape = match src.get("WAVEKIT_DWT_TILE") {
        None => None,
        Some(v) => {
            let parts: Vec<Option<u32>> = v.split('x').map(|n| n.trim().parse().ok()).collect();
            match parts[..] {
                [Some(columns), Some(rows), Some(segments)] => Some(wavekit_dwt::TileShape {
                    columns,
                    rows,
                    segments,
                }),
                _ => {
                    return Err(KnobError {
                        name: "WAVEKIT_DWT_TILE",
                        value: v,
                        expected: "COLUMNSxROWSxSEGMENTS, e.g. 64x16x4",
                    });
                }
            }
        }
    };
    Ok(wavekit_dwt::Tuning {
        shape,
        small_samples: parse(src, "WAVEKIT_DWT_SMALL_SAMPLES", "a sample count", |_| true)?,
    })
}

static CTX: OnceLock<GpuContext> = OnceLock::new();

/// The GPU tests' shared context, made once per test binary from the knobs. GPU tests are
/// marked `#[ignore = "GPU test: …"]`, so that `cargo test` without a GPU lists them as
/// ignored instead of counting them as passed; `cargo test -- --include-ignored` runs them, and
/// then a missing adapter is a failure, never a skip (lavapipe counts as an adapter: `apt-get
/// install mesa-vulkan-drivers`). With `WAVEKIT_EXPECT_SUBGROUP=N` a device of another subgroup
/// width fails (so a lavapipe width that did not take effect is caught, not silently tested
/// twice).
pub fn gpu() -> &'static GpuContext {
    CTX.get_or_init(|| {
        let options = context_options(&Env).unwrap_or_else(|e| panic!("{e}"));
        let ctx = GpuContext::new(&options).unwrap_or_else(|e| {
            panic!(
                "a GPU test ran without a GPU adapter ({e}); GPU tests are ignored unless run \
                 with --include-ignored: run them where Vulkan has an adapter (lavapipe counts)"
            )
        });
        let sg = ctx.caps.subgroups;
        eprintln!(
            "[wavekit tests] adapter: {}; subgroup width {}..{}{}",
            ctx.summary.label(),
            sg.min_size,
            sg.max_size,
            if sg.supported { "" } else { " (subgroups off)" }
        );
        if let Some(want) = expect_subgroup() {
            assert_eq!(
                (sg.min_size, sg.max_size),
                (want, want),
                "expected subgroup width {want} on {}",
                ctx.summary.label()
            );
        }
        ctx
    })
}

/// The subgroup width `WAVEKIT_EXPECT_SUBGROUP=N` asks the tests' device to have (panics on a
/// value that is not a number).
pub fn expect_subgroup() -> Option<u32> {
    parse::<u32>(&Env, "WAVEKIT_EXPECT_SUBGROUP", "a width", |_| true)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `WAVEKIT_STREAM_CHUNK_BYTES`: the CLI's staging chunk (tests lower it to take the many-chunk
/// paths on small files): a multiple of 256 from 256 bytes to 1 GiB.
pub fn stream_chunk_bytes(src: &dyn Source) -> Result<Option<u64>, KnobError> {
    parse(
        src,
        "WAVEKIT_STREAM_CHUNK_BYTES",
        "a multiple of 256 from 256 to 2^30",
        |b: &u64| (256..=1 << 30).contains(b) && b.is_multiple_of(256),
    )
}

/// Which part of their widest sweeps (store modes, tree configurations and point sets,
/// fault-injection skips) the GPU tests run, from `WAVEKIT_TEST_SWEEP` (ADR-0084, ADR-0101):
/// each kernel variant costs a compilation on lavapipe, so the test command splits a sweep
/// between lavapipe's widths instead of compiling every variant at every width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// Every variant (`full`, the default: a test run by hand covers everything).
    Full,
    /// A representative part (`short`): lavapipe's later widths and the run without subgroups.
    Short,
    /// What [`Sweep::Short`] leaves out, and the sweep's first variant (`rest`): lavapipe's
    /// first width, so that the widths together run every variant. A test that does not split
    /// its sweep runs it whole here.
    Rest,
}

impl Sweep {
    /// Whether a variant runs in this part of the sweep: `in_short` whether the short part
    /// takes it, `first` whether it is the sweep's first (which every part takes).
    pub fn takes(self, in_short: bool, first: bool) -> bool {
        match self {
            Sweep::Full => true,
            Sweep::Short => in_short || first,
            Sweep::Rest => !in_short || first,
        }
    }
}

/// The part of the widest sweeps to run (`WAVEKIT_TEST_SWEEP`: `full`, `short` or `rest`;
/// another value is an error).
pub fn sweep() -> Sweep {
    match Env.get("WAVEKIT_TEST_SWEEP").as_deref().map(str::trim) {
        None | Some("full") => Sweep::Full,
        Some("short") => Sweep::Short,
        Some("rest") => Sweep::Rest,
        Some(v) => panic!("WAVEKIT_TEST_SWEEP={v}: give full, short or rest"),
    }
}

/// Whether the GPU tests narrow their widest sweeps to the short part (`WAVEKIT_TEST_SWEEP=short`;
/// see [`Sweep`]). A test whose sweep does not split runs it whole under `rest`.
pub fn short_sweep() -> bool {
    sweep() == Sweep::Short
}

/// Whether `WAVEKIT_LARGE_TESTS=1` asks for the tests that need a large device (over 8 GiB).
pub fn large_tests() -> bool {
    large_tests_from(&Env).unwrap_or_else(|e| panic!("{e}"))
}

/// [`large_tests`] from `src`: a value other than 1 or 0 is an error naming the variable.
pub fn large_tests_from(src: &dyn Source) -> Result<bool, KnobError> {
    Ok(flag(src, "WAVEKIT_LARGE_TESTS")?.unwrap_or(false))
}

/// Where the Stanford meshes are (`scripts/fetch-meshes.sh` puts them there): `WAVEKIT_MESHES`,
/// else the repository's `.meshes`. Tests that need a mesh skip with a note when it is absent.
pub fn meshes_dir() -> std::path::PathBuf {
    Env.get("WAVEKIT_MESHES").map_or_else(
        || concat!(env!("CARGO_MANIFEST_DIR"), "/../../.meshes").into(),
        Into::into,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavekit::reduce::ReducePolicy;
    use wavekit::scan::ScanPolicy;
    use wavekit::select::SelectPolicy;

    #[test]
    fn the_sweeps_short_part_and_its_rest_make_the_whole() {
        for in_short in [false, true] {
            for first in [false, true] {
                let (s, r) = (
                    Sweep::Short.takes(in_short, first),
                    Sweep::Rest.takes(in_short, first),
                );
                // Every variant in one part at least; the first in both; no other in both.
                assert!(s || r, "short {in_short} first {first}");
                assert_eq!(s && r, first, "short {in_short} first {first}");
                assert!(Sweep::Full.takes(in_short, first));
            }
        }
        assert!(!Sweep::Rest.takes(true, false) && !Sweep::Short.takes(false, false));
    }

    #[test]
    fn a_bad_large_tests_value_is_an_error_not_a_no() {
        let yes: &[(&str, &str)] = &[("WAVEKIT_LARGE_TESTS", "1")];
        let no: &[(&str, &str)] = &[("WAVEKIT_LARGE_TESTS", "0")];
        let unset: &[(&str, &str)] = &[];
        assert!(large_tests_from(&yes).unwrap());
        assert!(!large_tests_from(&no).unwrap());
        assert!(!large_tests_from(&unset).unwrap());
        for bad in ["yes", "true", "2"] {
            let env: &[(&str, &str)] = &[("WAVEKIT_LARGE_TESTS", bad)];
            let e = large_tests_from(&env).unwrap_err();
            assert_eq!(e.name, "WAVEKIT_LARGE_TESTS");
            assert!(e.to_string().contains(bad), "{e}");
        }
    }

    #[test]
    fn knobs_become_values() {
        let env: &[(&str, &str)] = &[
            ("WAVEKIT_ADAPTER", "llvmpipe"),
            ("WAVEKIT_NO_SUBGROUPS", "1"),
            ("WAVEKIT_MAX_BINDING_BYTES", "65536"),
            ("WAVEKIT_TILE_STEPS", "9"),
            ("WAVEKIT_SORT_SINGLE_PASS", "1"),
            ("WAVEKIT_FAULT_LOOKBACK", "3"),
            ("WAVEKIT_DWT_TILE", "64x16x4"),
            ("WAVEKIT_SCAN_SELF_CLEAR_TILES", "0"),
            ("WAVEKIT_SELECT_SELF_CLEAR_TILES", "5"),
        ];
        let o = context_options(&env).unwrap();
        assert_eq!(o.adapter.as_deref(), Some("llvmpipe"));
        assert!(o.disable_subgroups);
        assert_eq!(o.max_binding_bytes, Some(65536));
        let p = policies(&env).unwrap();
        assert_eq!(p.scan.direct_steps, 9);
        assert_eq!(p.reduce.tile.steps, 9);
        assert_eq!(p.select.partition_steps, 9);
        assert_eq!(p.scan.lookback.fault_skip, 3);
        assert_eq!(p.scan.self_clear_tiles, 0);
        assert_eq!(p.select.self_clear_tiles, 5);
        let unset: &[(&str, &str)] = &[];
        assert_eq!(
            policies(&unset).unwrap().scan.self_clear_tiles,
            wavekit::tuning::SELF_CLEAR_TILES
        );
        assert!(p.sort.single_pass);
        assert_eq!(p.sort.items, SortPolicy::single_pass().items);
        assert_eq!(p.sort.fault_skip, 3);
        let d = dwt_tuning(&env).unwrap();
        assert_eq!(
            d.shape.map(|s| (s.columns, s.rows, s.segments)),
            Some((64, 16, 4))
        );
        // Unset: the libraries' defaults.
        let none: &[(&str, &str)] = &[];
        let p = policies(&none).unwrap();
        assert_eq!(p.scan, ScanPolicy::default());
        assert_eq!(p.sort, SortPolicy::default());
        assert_eq!(p.select, SelectPolicy::default());
        assert_eq!(p.reduce, ReducePolicy::default());
    }

    #[test]
    fn a_wrong_knob_is_an_error_naming_it() {
        for (name, value) in [
            ("WAVEKIT_TILE_WORKGROUP", "100"),
            ("WAVEKIT_SORT_ITEMS", "x"),
            ("WAVEKIT_SCAN_LAYOUT", "diagonal"),
            ("WAVEKIT_NO_SUBGROUPS", "yes"),
            ("WAVEKIT_DWT_TILE", "64x16"),
            ("WAVEKIT_TIMER", "fast"),
        ] {
            let env: &[(&str, &str)] = &[(name, value)];
            let e = context_options(&env)
                .err()
                .or_else(|| policies(&env).err())
                .or_else(|| dwt_tuning(&env).err())
                .or_else(|| timer_markers(&env).err())
                .unwrap_or_else(|| panic!("{name}={value} accepted"));
            assert_eq!(e.name, name);
            assert!(e.to_string().contains(value), "{e}");
        }
    }
}
