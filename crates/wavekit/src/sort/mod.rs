//! Radix sort: least-significant digit first, stable, 8-bit digits; keys u32, i32, f32 (total
//! order: −NaN < −∞ < … < −0 < +0 < … < +∞ < +NaN) and u64; keys alone or with a u32 value (or
//! the original index); ascending or descending; any range of key bits.
//!
//! Each pass: `sort/count.wgsl` counts every tile's keys per digit (one row per tile),
//! `sort/blocks.wgsl` scans each block of 32 tiles' rows down every digit's column and sums
//! each block per digit, one exclusive [`Scan`] of the blocks' sums (digit-major; left out
//! when there is one block) completes every (digit, tile)'s first destination, and
//! `sort/scatter.wgsl` ranks each key stably within its tile (ballots per step, a counter per
//! subgroup and digit, a scan across subgroups) and writes it there. Keys and values alternate
//! between the caller's buffers and scratch of the same size; after an odd number of passes
//! the result is copied back, so it always ends in the caller's buffers.

pub mod reference;
pub mod sim;

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Range};
use crate::monoid::{Monoid, Op, Scalar};
use crate::primitive::{LookbackStats, check_fits, chunk_elements, fault_skip, subgroup_api};
use crate::scan::{BoundScan, Scan, ScanConfig};
use crate::shader::{Composed, ConstValue, compose};
use crate::tuning::{
    LOOKBACK_SPINS, SORT_BLOCK_TILES, SORT_INLINE_BLOCKS, SORT_ITEMS, SORT_LOOK_WINDOW,
    SORT_SINGLE_PASS_ITEMS, SORT_WORKGROUP,
};
pub use reference::SortKey;

/// Key types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum KeyType {
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f32`, in total order.
    F32,
    /// `u64`.
    U64,
}

impl KeyType {
    /// Bits per key.
    pub fn bits(self) -> u32 {
        match self {
            KeyType::U64 => 64,
            _ => 32,
        }
    }

    /// 32-bit words per key.
    pub fn words(self) -> u32 {
        self.bits() / 32
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
        }
    }
}

/// What travels with the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Keys only.
    None,
    /// A `u32` value per key, read from the values buffer.
    U32,
    /// The key's original index, written to the values buffer (its old contents unused).
    Indices,
}

/// Which sort.
#[derive(Clone, Debug, PartialEq)]
pub struct SortConfig {
    /// Key type.
    pub key: KeyType,
    /// Values carried along.
    pub values: Values,
    /// Largest first. Equal keys keep their order either way.
    pub descending: bool,
    /// The key bits that count, `begin..end` (`None`: all). Fewer bits, fewer passes.
    pub bits: Option<(u32, u32)>,
}

impl SortConfig {
    /// Keys of type `key`, ascending, all bits, no values.
    pub fn keys(key: KeyType) -> Self {
        Self {
            key,
            values: Values::None,
            descending: false,
            bits: None,
        }
    }

    /// The bit range, checked.
    pub fn bit_range(&self) -> Result<(u32, u32)> {
        let (b, e) = self.bits.unwrap_or((0, self.key.bits()));
        if b >= e || e > self.key.bits() {
            return Err(Error::InvalidArgument(format!(
                "sort bits {b}..{e}: need begin < end <= {} for {} keys",
                self.key.bits(),
                self.key.name()
            )));
        }
        Ok((b, e))
    }

    /// Passes of 8 bits (the last may be narrower).
    pub fn passes(&self) -> Result<u32> {
        let (b, e) = self.bit_range()?;
        Ok((e - b).div_ceil(8))
    }
}

/// How the sort kernels are built for an adapter: workgroup size, narrowest subgroup, keys
/// per invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    workgroup: u32,
    min_width: u32,
    items: u32,
    /// Tiles per block of the count table ([`block_tiles`], read once: the kernels and the
    /// bound scratch must agree).
    block_tiles: u32,
    /// Blocks up to which the scatter sums the blocks' sums itself ([`inline_blocks`], read
    /// once for the same reason).
    inline_blocks: u32,
}

impl Shape {
    /// The largest workgroup (SORT_WORKGROUP, then halves down to 32) and number of keys per
    /// invocation (SORT_ITEMS, 8, 4, 2) whose workgroup memory fits the adapter: per-subgroup
    /// counters for the narrowest subgroup it may run, the tile's keys and values, and the
    /// digit tables.
    fn for_adapter(
        subgroups: bool,
        min_width: u32,
        workgroup_bytes: u32,
        invocations: u32,
        config: &SortConfig,
    ) -> Shape {
        // Values need workgroup memory of their own only when they are not staged in the keys'.
        let has_values = config.values != Values::None;
        let words_per_key = config.key.words() + u32::from(has_values && !stores_unrolled(true));
        let preferred = crate::primitive::env_u32("WAVEKIT_SORT_WORKGROUP")
            .filter(|w| [32, 64, 128, 256, 512].contains(w))
            .unwrap_or(SORT_WORKGROUP);
        // Tuning only: keys per invocation to try first (WAVEKIT_SORT_ITEMS, 1 to 32).
        let first_items = crate::primitive::env_u32("WAVEKIT_SORT_ITEMS")
            .filter(|i| (1..=32).contains(i))
            .unwrap_or(if single_pass() {
                SORT_SINGLE_PASS_ITEMS
            } else {
                SORT_ITEMS
            });
        // Without subgroups every invocation is a subgroup of one, with its own 256 counters.
        let (workgroups, min_width) = if subgroups {
            (vec![preferred, 128, 64, 32], min_width.max(1))
        } else {
            (vec![32, 16, 8], 1)
        };
        // Sorts with values take the keys' shape: their values are staged in the keys' memory
        // (ADR-024), and 256 × 16 sorted 2^28 pairs 20 % faster than 512 × 8 on the H200
        // (ADR-028).
        let items_list = [first_items, SORT_ITEMS, 8, 4, 2];
        for workgroup in workgroups {
            if workgroup > invocations {
                continue;
            }
            let counters = (workgroup / min_width.min(workgroup)).max(1) * 128;
            let fixed = 4 * (counters + 4 * 256 + workgroup + 8);
            for items in items_list {
                if fixed + 4 * workgroup * items * words_per_key <= workgroup_bytes {
                    return Shape {
                        workgroup,
                        min_width: min_width.min(workgroup),
                        items,
                        block_tiles: block_tiles(),
                        inline_blocks: inline_blocks(),
                    };
                }
            }
        }
        // Nothing fits (an adapter below WebGPU's 16 KiB): the smallest; creating the
        // pipeline will say what is missing.
        Shape {
            workgroup: 32,
            min_width: min_width.min(32),
            items: 2,
            block_tiles: block_tiles(),
            inline_blocks: inline_blocks(),
        }
    }

    fn of(ctx: &GpuContext, config: &SortConfig) -> Shape {
        let sg = ctx.caps.subgroups;
        Shape::for_adapter(
            sg.supported,
            sg.min_size,
            ctx.caps.limits.max_compute_workgroup_storage_size,
            ctx.caps.limits.max_compute_invocations_per_workgroup,
            config,
        )
    }

    fn tile(self) -> u32 {
        self.workgroup * self.items
    }

    /// The same shape with the scatter's few-blocks path compiled out (INLINE_BLOCKS = 0):
    /// the sorts that scan the blocks' sums pay nothing for it (measured 1 % on the H200).
    fn scanning(self) -> Shape {
        Shape {
            inline_blocks: 0,
            ..self
        }
    }
}

/// Tiles per block of the count table: [`SORT_BLOCK_TILES`] unless `WAVEKIT_SORT_BLOCK_TILES`
/// (1 to 64, a tuning knob) says otherwise.
pub fn block_tiles() -> u32 {
    crate::primitive::env_u32("WAVEKIT_SORT_BLOCK_TILES")
        .filter(|b| (1..=64).contains(b))
        .unwrap_or(SORT_BLOCK_TILES)
}

/// Tiles per block for a three-kernel sort of `tiles` tiles within one binding: twice `base`
/// (at most 64) where that leaves out a dispatch a pass — one block instead of two (no blocks
/// kernel), or at most `inline` blocks instead of more (no scan) — else `base`. Measured on the
/// H200 (ADR-031): 2^18 keys 112 → 99 µs, 2^22 312 → 304 µs; where both sizes need the same
/// dispatches the smaller blocks were as fast or faster (2^20: 125 against 134 µs, seventh
/// session).
pub fn block_tiles_for(tiles: u32, base: u32, inline: u32) -> u32 {
    let double = 2 * base;
    let saves = inline > 0
        && ((tiles > base && tiles <= double)
            || (tiles.div_ceil(base) > inline && tiles.div_ceil(double) <= inline));
    if double <= 64 && saves { double } else { base }
}

/// Blocks of tiles up to which each scatter workgroup sums the blocks' digit sums itself
/// instead of the scan primitive scanning them: [`SORT_INLINE_BLOCKS`] unless
/// `WAVEKIT_SORT_INLINE_BLOCKS` (0 to 64, a tuning knob; 0: always the scan) says otherwise.
pub fn inline_blocks() -> u32 {
    crate::primitive::env_u32("WAVEKIT_SORT_INLINE_BLOCKS")
        .filter(|b| *b <= 64)
        .unwrap_or(SORT_INLINE_BLOCKS)
}

/// Keys per tile of the sort kernels for `config` on this context (tile boundaries are worth
/// testing).
pub fn tile_keys(ctx: &GpuContext, config: &SortConfig) -> u32 {
    Shape::of(ctx, config).tile()
}

/// The `sort/keys` piece: parameters, key buffers, and the digit of a key.
fn keys_piece(key: KeyType) -> String {
    // Buffers past one storage binding are bound as two windows of `params.window` words
    // (keys) and `params.window / KEY_WORDS` (values); a window holds whole keys.
    let (load, store) = if key.words() == 1 {
        ("vec2<u32>(key_word(i), 0u)", "store_key_word(i, k.x);")
    } else {
        (
            "vec2<u32>(key_word(2u * i), key_word(2u * i + 1u))",
            "store_key_word(2u * i, k.x);\n    store_key_word(2u * i + 1u, k.y);",
        )
    };
    let transform = match key {
        KeyType::U32 | KeyType::U64 => "k",
        KeyType::I32 => "vec2<u32>(k.x ^ 0x80000000u, 0u)",
        KeyType::F32 => "vec2<u32>(select(k.x | 0x80000000u, ~k.x, (k.x & 0x80000000u) != 0u), 0u)",
    };
    let words = key.words();
    format!(
        "// Keys: {name}.\n\
         struct Params {{\n    n: u32,\n    tiles: u32,\n    shift: u32,\n    bits: u32,\n    \
         descending: u32,\n    first_pass: u32,\n    pass_index: u32,\n    \
         // Words of keys in the first window of each key buffer.\n    window: u32,\n}}\n\
         @group(0) @binding(0) var<uniform> params: Params;\n\
         @group(0) @binding(1) var<storage, read> keys_in: array<u32>;\n\
         @group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;\n\
         @group(0) @binding(9) var<storage, read> keys_in_hi: array<u32>;\n\
         @group(0) @binding(10) var<storage, read_write> keys_out_hi: array<u32>;\n\
         const KEY_WORDS: u32 = {words}u;\n\
         fn key_word(w: u32) -> u32 {{\n    if (WINDOWS == 1u || w < params.window) {{\n        return keys_in[w];\n    }}\n    \
         return keys_in_hi[w - params.window];\n}}\n\
         fn store_key_word(w: u32, v: u32) {{\n    if (WINDOWS == 1u || w < params.window) {{\n        keys_out[w] = v;\n    \
         }} else {{\n        keys_out_hi[w - params.window] = v;\n    }}\n}}\n\
         fn load_key(i: u32) -> vec2<u32> {{\n    return {load};\n}}\n\
         fn store_key(i: u32, k: vec2<u32>) {{\n    {store}\n}}\n\
         // Bits in the order of the keys (see sort::reference::sortable).\n\
         fn sortable(k: vec2<u32>) -> vec2<u32> {{\n    let t = {transform};\n    \
         if (params.descending != 0u) {{\n        return ~t;\n    }}\n    return t;\n}}\n\
         // `bits` (1 to 8) bits of the sortable key from bit `sh`.\n\
         fn digit_at(k: vec2<u32>, sh: u32, bits: u32) -> u32 {{\n    let s = sortable(k);\n    \
         var v = s.x >> (sh & 31u);\n    if (sh >= 32u) {{\n        v = s.y >> (sh - 32u);\n    \
         }} else if (sh > 0u && KEY_WORDS == 2u) {{\n        v |= s.y << (32u - sh);\n    }}\n    \
         return v & ((1u << bits) - 1u);\n}}\n\
         // The digit of this pass.\n\
         fn digit_of(k: vec2<u32>) -> u32 {{\n    return digit_at(k, params.shift, params.bits);\n}}\n",
        name = key.name(),
    )
}

fn composed(
    name: &str,
    config: &SortConfig,
    subgroups: bool,
    shape: Shape,
    windows: u32,
) -> Result<Composed> {
    let experiment = scatter_experiment(&std::env::var(SCATTER_EXPERIMENT_ENV).unwrap_or_default());
    let values = match config.values {
        Values::None => 0,
        Values::U32 => 1,
        Values::Indices => 2,
    };
    compose(
        name,
        &[
            ("WG_SIZE", ConstValue::U32(shape.workgroup)),
            ("ITEMS", ConstValue::U32(shape.items)),
            ("MIN_WIDTH", ConstValue::U32(shape.min_width)),
            ("BLOCK_TILES", ConstValue::U32(shape.block_tiles)),
            ("INLINE_BLOCKS", ConstValue::U32(shape.inline_blocks)),
            ("VALUES", ConstValue::U32(values)),
            // The sorted tile's stores unrolled for pairs only: on the H200 (2^28 u32) pairs
            // 15.95 → 15.46 ms, keys 9.21 → 9.54 ms.
            (
                "STORES_UNROLLED",
                ConstValue::Bool(stores_unrolled(values != 0)),
            ),
            ("SINGLE_PASS", ConstValue::Bool(single_pass())),
            (
                "LOOKBACK_SPINS",
                ConstValue::U32(if fault_skip() != 0 {
                    4
                } else {
                    lookback_spins()
                }),
            ),
            ("STATS", ConstValue::Bool(crate::primitive::stats_windows())),
            ("FAULT_SKIP", ConstValue::U32(fault_skip())),
            ("LOOK_WINDOW", ConstValue::U32(look_window())),
            // 2: buffers past one binding, bound as two windows (a pipeline of its own, so
            // that sorts within one binding pay nothing for it: 14 % measured on the H200).
            ("WINDOWS", ConstValue::U32(windows)),
            ("EXPERIMENT_SCATTER", ConstValue::U32(experiment.keys)),
            (
                "EXPERIMENT_NO_VALUE_STORES",
                ConstValue::Bool(experiment.no_value_stores),
            ),
            (
                "EXPERIMENT_NO_LOOKBACK",
                ConstValue::Bool(experiment.no_lookback),
            ),
        ],
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            // The subgroup layer is generic over a monoid; the sort's counts are u32 sums.
            (
                "monoid",
                &Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups),
            ),
            ("sort/keys", &keys_piece(config.key)),
        ],
    )
}

/// Environment variable forcing the scatter's final stores unrolled (`1`) or in a loop (`0`);
/// by default pairs unroll them and keys do not (a tuning knob for benchmarks).
pub const STORES_UNROLLED_ENV: &str = "WAVEKIT_SORT_STORES_UNROLLED";

/// Whether the scatter's final stores are unrolled; with values, that also stages the values
/// in the keys' workgroup memory after the keys have left (scatter.wgsl, ADR-024).
fn stores_unrolled(values: bool) -> bool {
    std::env::var(STORES_UNROLLED_ENV).map_or(values, |v| v == "1")
}

/// Environment variable for measurement only: `scatter` leaves the three-kernel passes'
/// scatter dispatches out (count, blocks and scan are timed), `scan,scatter` the blocks
/// kernels and scans too (the count alone); in the single pass, `scatter` leaves the passes out
/// (the histograms kernel is timed). The sort's result is then wrong; only dispatches
/// whose inputs stay valid can be left out (a scatter after a skipped count would write where
/// stale offsets say).
pub const SKIP_ENV: &str = "WAVEKIT_EXPERIMENT_SORT_SKIP";

/// Environment variable for measurement only: `stores` leaves the scatter's final stores of
/// keys out (and with them the reads of the sorted tile that only feed them), `ranking,stores`
/// its ranking too (no ballots, no counters: each key keeps its loaded place in the tile);
/// `values` leaves the stores of values out (sorts with values); `lookback` leaves the
/// single pass's look-back walk out (each tile still publishes its counts, and places its keys
/// as if no tile came before it). The sort's result is then wrong.
pub const SCATTER_EXPERIMENT_ENV: &str = "WAVEKIT_EXPERIMENT_SORT_SCATTER";

/// What [`SCATTER_EXPERIMENT_ENV`] leaves out of the scatter (measurement only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ScatterExperiment {
    /// EXPERIMENT_SCATTER: 0 nothing, 1 the final stores of keys, 2 the ranking too.
    keys: u32,
    /// EXPERIMENT_NO_VALUE_STORES.
    no_value_stores: bool,
    /// EXPERIMENT_NO_LOOKBACK (single pass).
    no_lookback: bool,
}

fn scatter_experiment(v: &str) -> ScatterExperiment {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let keys = match (parts.contains(&"ranking"), parts.contains(&"stores")) {
        (true, true) => 2,
        (false, true) => 1,
        // The ranking can only go with the stores: otherwise keys would land unsorted.
        _ => 0,
    };
    ScatterExperiment {
        keys,
        no_value_stores: parts.contains(&"values"),
        no_lookback: parts.contains(&"lookback"),
    }
}

/// Reads of a silent predecessor before the single pass counts it itself
/// ([`LOOKBACK_SPINS`] unless `WAVEKIT_SORT_SPINS`, 1 to 2^20, says otherwise; a tuning knob).
fn lookback_spins() -> u32 {
    crate::primitive::env_u32("WAVEKIT_SORT_SPINS")
        .filter(|s| (1..=1 << 20).contains(s))
        .unwrap_or(LOOKBACK_SPINS)
}

/// Which dispatches [`SKIP_ENV`] leaves out.
#[derive(Clone, Copy, Debug, Default)]
struct Skip {
    scan: bool,
    scatter: bool,
}

impl Skip {
    fn from_env() -> Skip {
        Skip::parse(&std::env::var(SKIP_ENV).unwrap_or_default())
    }

    fn parse(v: &str) -> Skip {
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        let scatter = parts.contains(&"scatter");
        Skip {
            // The scan may only go where the scatter that reads it goes too.
            scan: scatter && parts.contains(&"scan"),
            scatter,
        }
    }
}

/// Predecessor tiles each digit's look-back reads per round in the single pass
/// ([`SORT_LOOK_WINDOW`] unless `WAVEKIT_SORT_LOOK_WINDOW`, 1 to 32, says otherwise).
fn look_window() -> u32 {
    crate::primitive::env_u32("WAVEKIT_SORT_LOOK_WINDOW")
        .filter(|w| (1..=32).contains(w))
        .unwrap_or(SORT_LOOK_WINDOW)
}

/// Environment variable choosing the single-pass passes (`WAVEKIT_SORT_SINGLE_PASS=1`:
/// Onesweep-style, one read of the keys per pass) instead of the three-kernel ones (count,
/// scan, scatter). Opt-in: on the H200 it measured 1.5–2.2× slower than the three kernels
/// (ADR-016), 2.1× at 2^28 keys after ADR-037's look-back, and 1.6× with ADR-038's tiles of
/// [`SORT_SINGLE_PASS_ITEMS`] keys an invocation.
pub const SINGLE_PASS_ENV: &str = "WAVEKIT_SORT_SINGLE_PASS";

fn single_pass() -> bool {
    std::env::var(SINGLE_PASS_ENV).is_ok_and(|v| v == "1")
}

/// The names of the sort's kernels: `sort/count` and `sort/blocks` (three-kernel passes, with
/// the scan primitive between blocks and scatter), `sort/histograms` (single pass),
/// `sort/scatter` (both).
pub const KERNELS: [&str; 4] = [
    "sort/count",
    "sort/blocks",
    "sort/histograms",
    "sort/scatter",
];

/// The WGSL of sort kernel `name` (one of [`KERNELS`]) for `config`, on an adapter with (or
/// without) subgroups of at least `min_width` lanes, `workgroup_bytes` of workgroup memory and
/// `invocations` per workgroup.
pub fn composed_kernel(
    name: &str,
    config: &SortConfig,
    subgroups: bool,
    min_width: u32,
    workgroup_bytes: u32,
    invocations: u32,
) -> Result<Composed> {
    let shape = Shape::for_adapter(subgroups, min_width, workgroup_bytes, invocations, config);
    // The two-window variant: its code is a superset of the one-window variant's.
    composed(name, config, subgroups, shape, 2)
}

/// What `cell` holds, built by `build` the first time it is asked for (pipelines compiled only
/// when a sort needs them).
fn cached<T: Clone>(cell: &std::sync::OnceLock<T>, build: impl FnOnce() -> Result<T>) -> Result<T> {
    if let Some(v) = cell.get() {
        return Ok(v.clone());
    }
    let v = build()?;
    Ok(cell.get_or_init(|| v).clone())
}

/// A radix sort, built once for a configuration; bind it to buffers with [`RadixSort::bind`].
///
/// ```
/// use wavekit::{GpuContext, sort::{KeyType, RadixSort, SortConfig, Values}};
/// let ctx = GpuContext::from_env()?;
/// let config = SortConfig { values: Values::Indices, ..SortConfig::keys(KeyType::F32) };
/// let sort = RadixSort::new(&ctx, &config)?;
/// let keys = ctx.storage_from("keys", &[2.5f32, -1.0, 0.0, -0.0])?;
/// let order = ctx.storage_uninit("order", 4 * 4)?;
/// let bound = sort.bind(&ctx, &keys, Some(&order), 4)?;
/// ctx.submit(|enc| bound.record(enc));
/// assert_eq!(ctx.read_back::<f32>("keys", &keys, 4)?, [-1.0, -0.0, 0.0, 2.5]);
/// assert_eq!(ctx.read_back::<u32>("order", &order, 4)?, [1, 3, 2, 0]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct RadixSort {
    config: SortConfig,
    /// Single pass: the histograms kernel; otherwise the count kernel and the scan.
    first: Kernel,
    scatter: Kernel,
    /// The same two kernels for buffers past one binding (two windows), compiled when first
    /// needed.
    wide: std::sync::OnceLock<(Kernel, Kernel)>,
    /// Three-kernel mode: the scatter that sums up to `shape.inline_blocks` blocks' sums itself
    /// (one window), compiled when first needed; `scatter` and `wide` scan them.
    few_blocks: std::sync::OnceLock<Kernel>,
    /// The same scatter and the blocks kernel for blocks of twice `shape.block_tiles` tiles,
    /// for the sizes where that saves a dispatch (`block_tiles_for`), compiled when first
    /// needed.
    double_blocks: std::sync::OnceLock<(Kernel, Kernel)>,
    /// Three-kernel mode: the blocks kernel (sort/blocks.wgsl) and the scan of the blocks'
    /// digit sums.
    scan: Option<(Kernel, Scan)>,
    single_pass: bool,
    shape: Shape,
}

impl RadixSort {
    fn first_name(&self) -> &'static str {
        if self.single_pass {
            "sort/histograms"
        } else {
            "sort/count"
        }
    }

    /// The first and scatter kernels for one or two windows; with `few_blocks` (one window
    /// only), the scatter that sums the blocks' sums itself, for blocks of `block_tiles`.
    fn kernels(
        &self,
        ctx: &GpuContext,
        two_windows: bool,
        few_blocks: bool,
        block_tiles: u32,
    ) -> Result<(Kernel, Kernel)> {
        let build =
            |name: &str, shape: Shape, windows: u32| self.pipeline(ctx, name, shape, windows);
        if few_blocks && block_tiles != self.shape.block_tiles {
            let (scatter, _) = self.double_blocks(ctx)?;
            return Ok((self.first.clone(), scatter));
        }
        if few_blocks {
            let scatter = cached(&self.few_blocks, || build("sort/scatter", self.shape, 1))?;
            return Ok((self.first.clone(), scatter));
        }
        if !two_windows {
            return Ok((self.first.clone(), self.scatter.clone()));
        }
        cached(&self.wide, || {
            let shape = self.shape.scanning();
            Ok((
                build(self.first_name(), shape, 2)?,
                build("sort/scatter", shape, 2)?,
            ))
        })
    }

    /// The few-blocks scatter and the blocks kernel for blocks of twice the shape's tiles.
    fn double_blocks(&self, ctx: &GpuContext) -> Result<(Kernel, Kernel)> {
        cached(&self.double_blocks, || {
            let shape = Shape {
                block_tiles: 2 * self.shape.block_tiles,
                ..self.shape
            };
            Ok((
                self.pipeline(ctx, "sort/scatter", shape, 1)?,
                self.pipeline(ctx, "sort/blocks", shape, 1)?,
            ))
        })
    }

    /// Kernel `name` of this sort's configuration in `shape`, for `windows` key windows.
    fn pipeline(&self, ctx: &GpuContext, name: &str, shape: Shape, windows: u32) -> Result<Kernel> {
        let sg = ctx.caps.subgroups.supported;
        Kernel::new(ctx, &composed(name, &self.config, sg, shape, windows)?)
    }

    /// Build the pipelines for `config` (its bit range is checked here).
    pub fn new(ctx: &GpuContext, config: &SortConfig) -> Result<Self> {
        config.bit_range()?;
        let shape = Shape::of(ctx, config);
        let sg = ctx.caps.subgroups.supported;
        let single_pass = single_pass();
        let first = if single_pass {
            "sort/histograms"
        } else {
            "sort/count"
        };
        let scanning = shape.scanning();
        Ok(Self {
            config: config.clone(),
            first: Kernel::new(ctx, &composed(first, config, sg, scanning, 1)?)?,
            scatter: Kernel::new(ctx, &composed("sort/scatter", config, sg, scanning, 1)?)?,
            wide: std::sync::OnceLock::new(),
            few_blocks: std::sync::OnceLock::new(),
            double_blocks: std::sync::OnceLock::new(),
            scan: if single_pass {
                None
            } else {
                Some((
                    Kernel::new(ctx, &composed("sort/blocks", config, sg, scanning, 1)?)?,
                    Scan::new(
                        ctx,
                        &ScanConfig {
                            monoid: Monoid::builtin(Scalar::U32, Op::Add),
                            inclusive: false,
                            in_place: false,
                        },
                    )?,
                ))
            },
            single_pass,
            shape,
        })
    }

    /// Keys per window of a key buffer: as many whole keys as one storage binding holds, a
    /// multiple of 64 (buffers past one binding are bound as two windows).
    fn window(&self, ctx: &GpuContext, words: u32) -> u32 {
        chunk_elements(ctx, words, 64).min(u64::from(u32::MAX / 2)) as u32
    }

    /// Bind to `n` keys in `keys` and, unless the configuration has no values, `values` (one
    /// u32 per key). The sort allocates scratch of the same sizes; the result ends in `keys`
    /// and `values`.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        keys: &wgpu::Buffer,
        values: Option<&wgpu::Buffer>,
        n: u64,
    ) -> Result<BoundSort> {
        let words = self.config.key.words();
        check_fits("sort keys", keys, n, words)?;
        let n = u32::try_from(n)
            .map_err(|_| Error::InvalidArgument(format!("sort of {n} keys: at most 2^32 - 1")))?;
        // Key buffers past one storage binding are bound as two windows of `window` keys (a
        // multiple of 64, so that the second window's offset is aligned for values too).
        let window = self.window(ctx, words);
        if u64::from(n) > 2 * u64::from(window) {
            return Err(Error::InvalidArgument(format!(
                "sort of {n} keys: they would need more than two storage bindings of {window} \
                 keys; sort at most {} at once",
                2 * u64::from(window)
            )));
        }
        match (self.config.values, values) {
            (Values::None, None) => {}
            (Values::None, Some(_)) => {
                return Err(Error::InvalidArgument(
                    "sort without values takes no values buffer (use Values::U32 or \
                     Values::Indices)"
                        .into(),
                ));
            }
            (_, None) => {
                return Err(Error::InvalidArgument(
                    "sort with values needs a values buffer (one u32 per key)".into(),
                ));
            }
            (_, Some(v)) => {
                check_fits("sort values", v, u64::from(n), 1)?;
            }
        }
        let (begin, end) = self.config.bit_range()?;
        let passes = self.config.passes()?;
        let tile = self.shape.tile();
        let tiles = n.div_ceil(tile);
        let key_bytes = (u64::from(n) * u64::from(words) * 4).max(4);
        let alt_keys = ctx.storage_uninit("sort keys scratch", key_bytes)?;
        let alt_values = match values {
            Some(_) => Some(ctx.storage_uninit("sort values scratch", u64::from(n).max(1) * 4)?),
            None => None,
        };
        // Single pass: the histograms of every pass, and the look-back's descriptors (one word
        // per tile and digit, 30-bit counts). Otherwise: the tiles' digit counts, the blocks'
        // sums and their scan.
        let slots = u64::from(tiles) * 256;
        let two = n > window;
        // Three-kernel passes over a few blocks of tiles within one binding: no scan, and over
        // one block no blocks kernel (the scatter sums them itself, ADR-027); blocks twice as
        // large where that saves one of those dispatches (ADR-031).
        let block_tiles = if self.single_pass || two {
            self.shape.block_tiles
        } else {
            block_tiles_for(tiles, self.shape.block_tiles, self.shape.inline_blocks)
        };
        let blocks = tiles.div_ceil(block_tiles);
        let few = !self.single_pass && !two && blocks <= self.shape.inline_blocks;
        let (table, state, block_offsets, scan, first_groups, first_params) = if self.single_pass {
            if n >= 1 << 30 {
                return Err(Error::InvalidArgument(format!(
                    "sort of {n} keys: the single-pass sort counts in 30 bits, so at most 2^30 - 1 \
                     keys (unset {SINGLE_PASS_ENV} for the three-kernel passes)"
                )));
            }
            let table = ctx.storage_uninit("sort digit histograms", u64::from(passes) * 256 * 4)?;
            let state_words = 64 + slots;
            ctx.check_binding("sort look-back descriptors", state_words * 4)?;
            let state = ctx.storage_uninit("sort look-back descriptors", state_words * 4)?;
            let groups = n.div_ceil(self.shape.workgroup * 16).clamp(1, 1024);
            let per_group = n.div_ceil(groups).max(1);
            let params = ctx.uniform_from(
                "sort histogram params",
                &[
                    n,
                    per_group,
                    begin,
                    end - begin,
                    u32::from(self.config.descending),
                    0,
                    0,
                    window * words,
                ],
            )?;
            let no_blocks = ctx.storage_uninit("sort no block offsets", 4)?;
            (
                table,
                state,
                no_blocks,
                None,
                n.div_ceil(per_group),
                Some(params),
            )
        } else {
            // Tile-major digit counts (turned in place into the digit's keys in the block's
            // earlier tiles), the blocks' digit sums (digit-major) and their exclusive scan.
            ctx.check_binding("sort digit counts", slots * 4)?;
            let counts = ctx.storage_uninit("sort digit counts", slots.max(1) * 4)?;
            let block_slots = u64::from(blocks) * 256;
            let sums = ctx.storage_uninit("sort block sums", block_slots.max(1) * 4)?;
            let (blocks_k, scan) = self.scan.as_ref().expect("three-kernel mode has a scan");
            let blocks_k = if block_tiles == self.shape.block_tiles {
                blocks_k.clone()
            } else {
                self.double_blocks(ctx)?.1
            };
            // Few blocks: the scatter reads the sums themselves (scatter.wgsl, inline_bases).
            let (offsets, scan) = if few {
                (sums.clone(), None)
            } else {
                let offsets = ctx.storage_uninit("sort block offsets", block_slots * 4)?;
                let scan = scan.bind(ctx, &sums, Some(&offsets), block_slots)?;
                (offsets, Some(scan))
            };
            let placeholder = ctx.storage_uninit("sort no state", 16)?;
            let parts = (blocks_k, blocks, scan, sums);
            (counts, placeholder, offsets, Some(parts), tiles, None)
        };
        // Placeholders for the values bindings of a keys-only sort (one read, one written: a
        // buffer may not be both in one dispatch).
        let none = [
            ctx.storage_uninit("sort no values in", 4)?,
            ctx.storage_uninit("sort no values out", 4)?,
        ];
        let key_bytes_all = u64::from(n) * u64::from(words) * 4;
        let window_words = window * words;
        let key_window = u64::from(window_words) * 4;
        let [none_ro, none_rw] = &none;
        let (first_k, scatter_k) = self.kernels(ctx, two, few, block_tiles)?;
        let first_bind = match &first_params {
            Some(p) => {
                let [k, k_hi] = windows((1, 9), keys, key_bytes_all, key_window, none_ro);
                let e = [(0, p, 0, None), k, (3, &table, 0, None), k_hi];
                Some(first_k.bind_ranges(ctx, &e)?)
            }
            None => None,
        };
        let mut pass_binds = Vec::new();
        for p in 0..passes {
            let shift = begin + 8 * p;
            let bits = (end - shift).min(8);
            let params = ctx.uniform_from(
                "sort params",
                &[
                    n,
                    tiles,
                    shift,
                    bits,
                    u32::from(self.config.descending),
                    u32::from(p == 0),
                    p,
                    window_words,
                ],
            )?;
            let (src_k, dst_k) = if p % 2 == 0 {
                (keys, &alt_keys)
            } else {
                (&alt_keys, keys)
            };
            let (src_v, dst_v) = match (values, &alt_values) {
                (Some(v), Some(a)) if p % 2 == 0 => (v, a),
                (Some(v), Some(a)) => (a, v),
                _ => (&none[0], &none[1]),
            };
            let [k_in, k_in_hi] = windows((1, 9), src_k, key_bytes_all, key_window, none_ro);
            let [k_out, k_out_hi] = windows((2, 10), dst_k, key_bytes_all, key_window, none_rw);
            let value_bytes = if values.is_some() {
                u64::from(n) * 4
            } else {
                4
            };
            let value_window = u64::from(window) * 4;
            let [v_in, v_in_hi] = windows((4, 11), src_v, value_bytes, value_window, none_ro);
            let [v_out, v_out_hi] = windows((5, 12), dst_v, value_bytes, value_window, none_rw);
            let count = match &scan {
                Some(_) => {
                    let e = [(0, &params, 0, None), k_in, (3, &table, 0, None), k_in_hi];
                    Some(first_k.bind_ranges(ctx, &e)?)
                }
                None => None,
            };
            let scatter = scatter_k.bind_ranges(
                ctx,
                &[
                    (0, &params, 0, None),
                    k_in,
                    k_out,
                    (3, &table, 0, None),
                    v_in,
                    v_out,
                    (6, &state, 0, None),
                    k_in_hi,
                    k_out_hi,
                    v_in_hi,
                    v_out_hi,
                    (13, &block_offsets, 0, None),
                ],
            )?;
            pass_binds.push((count, scatter, params));
        }
        // The blocks kernel reads only the tile count, the same in every pass's params.
        let scan = match (scan, pass_binds.first()) {
            (Some((blocks_k, groups, scan, sums)), Some((_, _, params))) => {
                let e = [
                    (0, params, 0, None),
                    (3, &table, 0, None),
                    (13, &sums, 0, None),
                ];
                Some(ThreeKernel {
                    blocks: blocks_k.clone(),
                    bind: blocks_k.bind_ranges(ctx, &e)?,
                    groups,
                    // One block with the few-blocks scatter: it sums the tiles' counts itself.
                    run_blocks: !(few && groups == 1),
                    scan,
                    _sums: sums,
                })
            }
            _ => None,
        };
        Ok(BoundSort {
            first: first_k,
            scatter: scatter_k,
            first_bind: first_bind.map(|b| (b, first_groups, table.clone())),
            scan,
            state,
            passes: pass_binds,
            tiles,
            skip: Skip::from_env(),
            copy_back: (passes % 2 == 1).then(|| {
                (
                    alt_keys.clone(),
                    keys.clone(),
                    key_bytes,
                    alt_values.clone().zip(values.cloned()),
                    u64::from(n) * 4,
                )
            }),
            _scratch: (
                alt_keys,
                alt_values,
                table,
                first_params,
                none,
                block_offsets,
            ),
        })
    }
}

/// A buffer of `total` bytes bound as two windows: `[0, window)` at binding `lo` and the rest
/// at binding `hi`, which gets `placeholder` when the buffer fits one window. (Both kernel
/// variants declare the second-window bindings.)
fn windows<'a>(
    (lo, hi): (u32, u32),
    b: &'a wgpu::Buffer,
    total: u64,
    window: u64,
    placeholder: &'a wgpu::Buffer,
) -> [Range<'a>; 2] {
    let first = (lo, b, 0, Some(total.min(window).max(4)));
    if total > window {
        [first, (hi, b, window, Some(total - window))]
    } else {
        [first, (hi, placeholder, 0, None)]
    }
}

type CopyBack = (
    wgpu::Buffer,
    wgpu::Buffer,
    u64,
    Option<(wgpu::Buffer, wgpu::Buffer)>,
    u64,
);

/// A sort bound to its buffers and scratch, ready to record any number of times.
#[derive(Debug)]
pub struct BoundSort {
    first: Kernel,
    scatter: Kernel,
    /// Single pass: the histograms dispatch (bind group, workgroups, histogram buffer).
    first_bind: Option<(wgpu::BindGroup, u32, wgpu::Buffer)>,
    /// Three-kernel mode: the blocks kernel and the scan of the blocks' digit sums.
    scan: Option<ThreeKernel>,
    state: wgpu::Buffer,
    passes: Vec<(Option<wgpu::BindGroup>, wgpu::BindGroup, wgpu::Buffer)>,
    tiles: u32,
    copy_back: Option<CopyBack>,
    /// Measurement only ([`SKIP_ENV`]): dispatches left out, so the others can be timed apart.
    skip: Skip,
    _scratch: (
        wgpu::Buffer,
        Option<wgpu::Buffer>,
        wgpu::Buffer,
        Option<wgpu::Buffer>,
        [wgpu::Buffer; 2],
        wgpu::Buffer,
    ),
}

/// The three-kernel passes' steps between the count and the scatter: the blocks kernel (its
/// bind group and workgroups, one per block; not run over a single block when the scatter sums
/// the tiles' counts itself) and the scan of the blocks' digit sums (none up to
/// [`inline_blocks`] blocks, whose sums the scatter reads itself).
#[derive(Debug)]
struct ThreeKernel {
    blocks: Kernel,
    bind: wgpu::BindGroup,
    groups: u32,
    /// False over one block with the few-blocks scatter, which sums the tiles' counts itself.
    run_blocks: bool,
    scan: Option<BoundScan>,
    _sums: wgpu::Buffer,
}

impl BoundSort {
    /// Number of digit passes.
    pub fn passes(&self) -> usize {
        self.passes.len()
    }

    /// Predecessor tiles the single-pass look-back counted itself in the last recorded pass
    /// (after the commands completed; 0 in three-kernel mode).
    pub fn fallbacks(&self, ctx: &GpuContext) -> Result<u32> {
        Ok(self.lookback_stats(ctx)?.map_or(0, |s| s.fallbacks))
    }

    /// The single-pass look-back's statistics for the last recorded pass (after the commands
    /// completed): fallbacks always; rounds without progress and rounds in all only with
    /// `WAVEKIT_STATS_WINDOWS=1` (their atomics cost time). `None` in three-kernel mode.
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<Option<LookbackStats>> {
        if self.scan.is_some() {
            return Ok(None);
        }
        let w = ctx.read_back::<u32>("sort state", &self.state, 4)?;
        Ok(Some(LookbackStats {
            waited_windows: w[2],
            fallbacks: w[1],
            windows: w[3],
        }))
    }

    /// Record the sort into `enc`.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if self.tiles == 0 {
            return;
        }
        if let Some((bind, groups, hist)) = &self.first_bind {
            enc.clear_buffer(hist, 0, None);
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.sort.histograms"),
                timestamp_writes: None,
            });
            self.first.dispatch(&mut pass, bind, *groups);
        }
        for (count, scatter, _) in &self.passes {
            if let (Some(count), Some(parts)) = (count, &self.scan) {
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("wavekit.sort.count"),
                        timestamp_writes: None,
                    });
                    self.first.dispatch(&mut pass, count, self.tiles);
                    if !self.skip.scan && parts.run_blocks {
                        parts.blocks.dispatch(&mut pass, &parts.bind, parts.groups);
                    }
                }
                if let (false, Some(scan)) = (self.skip.scan, &parts.scan) {
                    scan.record(enc);
                }
            } else {
                enc.clear_buffer(&self.state, 0, None);
            }
            if self.skip.scatter {
                continue;
            }
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.sort.scatter"),
                timestamp_writes: None,
            });
            self.scatter.dispatch(&mut pass, scatter, self.tiles);
        }
        if let Some((from, to, bytes, values, vbytes)) = &self.copy_back {
            enc.copy_buffer_to_buffer(from, 0, to, 0, Some(*bytes));
            if let Some((vf, vt)) = values {
                enc.copy_buffer_to_buffer(vf, 0, vt, 0, Some(*vbytes));
            }
        }
    }
}

/// Sort a slice of keys on the GPU (a one-call convenience).
pub fn sort_slice<K: SortKey>(
    ctx: &GpuContext,
    keys: &[K],
    descending: bool,
    bits: Option<(u32, u32)>,
) -> Result<Vec<K>> {
    let config = SortConfig {
        descending,
        bits,
        ..SortConfig::keys(K::TYPE)
    };
    let sort = RadixSort::new(ctx, &config)?;
    let buf = ctx.storage_from("sort keys", keys)?;
    let bound = sort.bind(ctx, &buf, None, keys.len() as u64)?;
    ctx.submit(|enc| bound.record(enc));
    ctx.read_back("sort keys", &buf, keys.len())
}

/// Sort keys with u32 values (or, with `values = None`, compute the stable sorting
/// permutation): returns the sorted keys and the values (or original indices) in that order.
pub fn sort_pairs_slice<K: SortKey>(
    ctx: &GpuContext,
    keys: &[K],
    values: Option<&[u32]>,
    descending: bool,
    bits: Option<(u32, u32)>,
) -> Result<(Vec<K>, Vec<u32>)> {
    if let Some(v) = values
        && v.len() != keys.len()
    {
        return Err(Error::InvalidArgument(format!(
            "sort pairs: {} keys but {} values",
            keys.len(),
            v.len()
        )));
    }
    let config = SortConfig {
        key: K::TYPE,
        values: if values.is_some() {
            Values::U32
        } else {
            Values::Indices
        },
        descending,
        bits,
    };
    let sort = RadixSort::new(ctx, &config)?;
    let kb = ctx.storage_from("sort keys", keys)?;
    let vb = match values {
        Some(v) => ctx.storage_from("sort values", v)?,
        None => ctx.storage_uninit("sort values", (keys.len() as u64).max(1) * 4)?,
    };
    let bound = sort.bind(ctx, &kb, Some(&vb), keys.len() as u64)?;
    ctx.submit(|enc| bound.record(enc));
    Ok((
        ctx.read_back("sort keys", &kb, keys.len())?,
        ctx.read_back("sort values", &vb, keys.len())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_double_only_where_a_dispatch_goes() {
        // Blocks of 32 tiles, the scatter summing up to 16 blocks (the H200's defaults).
        let route = |tiles: u32| block_tiles_for(tiles, 32, 16);
        // One block of 32 already, or two of 32 against one of 64: no blocks kernel with 64.
        assert_eq!(route(1), 32);
        assert_eq!(route(32), 32);
        assert_eq!(route(33), 64);
        assert_eq!(route(64), 64);
        // A few blocks either way: the same dispatches, the smaller blocks.
        assert_eq!(route(65), 32);
        assert_eq!(route(512), 32);
        // Over 16 blocks of 32 but at most 16 of 64: no scan with 64.
        assert_eq!(route(513), 64);
        assert_eq!(route(1024), 64);
        // Over 16 even of 64: the scan either way.
        assert_eq!(route(1025), 32);
        // No inline sums (always the scan): nothing to save; blocks past 64: not doubled.
        assert_eq!(block_tiles_for(40, 32, 0), 32);
        assert_eq!(block_tiles_for(40, 33, 16), 33);
        assert_eq!(block_tiles_for(20, 16, 16), 32);
    }

    #[test]
    fn skipping_the_scan_needs_skipping_the_scatter() {
        let s = Skip::parse("scatter");
        assert!(s.scatter && !s.scan);
        let s = Skip::parse("scan, scatter");
        assert!(s.scatter && s.scan);
        // A scatter reading offsets that no scan wrote would store out of place.
        let s = Skip::parse("scan");
        assert!(!s.scatter && !s.scan);
        let s = Skip::parse("");
        assert!(!s.scatter && !s.scan);
    }

    #[test]
    fn scatter_experiments_parse() {
        let e = |v| {
            let x = super::scatter_experiment(v);
            (x.keys, x.no_value_stores, x.no_lookback)
        };
        assert_eq!(e(""), (0, false, false));
        assert_eq!(e("stores"), (1, false, false));
        assert_eq!(e("ranking, stores"), (2, false, false));
        assert_eq!(e("stores,ranking"), (2, false, false));
        assert_eq!(e("ranking"), (0, false, false));
        assert_eq!(e("values"), (0, true, false));
        assert_eq!(e("stores, values"), (1, true, false));
        assert_eq!(e("lookback"), (0, false, true));
        assert_eq!(e("lookback,stores"), (1, false, true));
    }

    #[test]
    fn shapes_fit_workgroup_memory() {
        for key in [KeyType::U32, KeyType::U64] {
            for values in [Values::None, Values::U32] {
                let config = SortConfig {
                    values,
                    ..SortConfig::keys(key)
                };
                for (subgroups, width, bytes) in [
                    (true, 4, 32768),
                    (true, 8, 32768),
                    (true, 32, 49152),
                    (false, 1, 16384),
                ] {
                    let s = Shape::for_adapter(subgroups, width, bytes, 1024, &config);
                    // Values staged in the keys' memory (the default) need none of their own.
                    let words =
                        key.words() + u32::from(values != Values::None && !stores_unrolled(true));
                    let used = 4
                        * ((s.workgroup / s.min_width) * 128
                            + 4 * 256
                            + s.workgroup
                            + 8
                            + s.workgroup * s.items * words);
                    assert!(
                        used <= bytes,
                        "{config:?} at width {width}: {s:?} uses {used}"
                    );
                    assert!(s.tile() < 1 << 16, "16-bit counters");
                }
            }
        }
        // The H200: 256 invocations of 16 keys, with values or without.
        let keys = SortConfig::keys(KeyType::U32);
        let s = Shape::for_adapter(true, 32, 49152, 1024, &keys);
        assert_eq!((s.workgroup, s.items), (256, 16));
        let pairs = SortConfig {
            values: Values::U32,
            ..keys.clone()
        };
        let s = Shape::for_adapter(true, 32, 49152, 1024, &pairs);
        assert_eq!((s.workgroup, s.items), (256, 16));
    }
}
