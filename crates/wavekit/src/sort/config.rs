//! What a sort is (key type, values, order, bits) and how it is built (its policy, and the
//! shape that policy takes on an adapter).

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::tuning::{
    LOOKBACK_SPINS, SORT_BLOCK_TILES, SORT_INLINE_BLOCKS, SORT_ITEMS, SORT_LOOK_WINDOW,
    SORT_SINGLE_PASS_ITEMS, SORT_SMALL_ITEMS, SORT_SMALL_UP_TO, SORT_SMALL_WORKGROUP,
    SORT_WORKGROUP,
};

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
    /// `f32` in numpy's order (`np.sort`): −0 equal to +0, every NaN equal to every other and
    /// after +∞. The keys keep their own bits; only their order differs from
    /// [`KeyType::F32`]'s. Sort them as `f32` through [`crate::sort::reference::NumpyF32`].
    F32Numpy,
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
            KeyType::F32Numpy => "f32 (numpy's order)",
        }
    }

    /// The `KEY_KIND` constant of `sort/keys.wgsl`: how the key's bits are made sortable.
    pub(crate) fn kind(self) -> u32 {
        match self {
            KeyType::U32 | KeyType::U64 => 0,
            KeyType::I32 => 1,
            KeyType::F32 => 2,
            KeyType::F32Numpy => 3,
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

impl Values {
    /// The `VALUES` constant of the kernels: 0 none, 1 loaded, 2 indices on the first pass.
    pub(crate) fn code(self) -> u32 {
        match self {
            Values::None => 0,
            Values::U32 => 1,
            Values::Indices => 2,
        }
    }
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
    /// How the sort is built; `None`: [`SortPolicy::for_device`], measured on the H200 (the
    /// tile is fitted to the adapter's workgroup memory when the sort is built).
    pub policy: Option<SortPolicy>,
}

impl SortConfig {
    /// Keys of type `key`, ascending, all bits, no values, the device's policy.
    pub fn keys(key: KeyType) -> Self {
        Self {
            key,
            values: Values::None,
            descending: false,
            bits: None,
            policy: None,
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

/// How a sort is built (CUB's tuning policy); the numbers and their measurements are in
/// [`crate::tuning`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SortPolicy {
    /// Onesweep-style passes (one read of the keys per pass, a look-back across tiles) instead
    /// of three kernels (count, scan, scatter). On the H200 the three kernels are 1.6× faster
    /// (ADR-0038), so they are the default.
    pub single_pass: bool,
    /// Invocations per workgroup to try first (32, 64, 128, 256 or 512); the shape halves it
    /// where the adapter's workgroup memory does not hold the tile.
    pub workgroup: u32,
    /// Keys per invocation to try first (1 to 32).
    pub items: u32,
    /// Tiles per block of the count table (three kernels), 1 to 64.
    pub block_tiles: u32,
    /// Blocks up to which each scatter workgroup sums the blocks' sums itself instead of the
    /// scan primitive (three kernels), 0 to 64.
    pub inline_blocks: u32,
    /// Tiles whose counts the blocks kernel loads together, in one unrolled step of its loop
    /// down a digit's column (three kernels): 0 for all of a block's tiles at once (the
    /// default, 2.4 % faster at 2^20 keys on the H200 than one at a time), else a divisor of
    /// `block_tiles`. SwiftShader's compiler did not finish the fully unrolled kernel within
    /// 100 s and compiles one at a time in 57 ms: [`SortPolicy::for_device`] picks 1 in the
    /// browser (ADR-0077).
    pub column_step: u32,
    /// Predecessor tiles each digit's look-back reads per round (single pass), 1 to 32.
    pub look_window: u32,
    /// Reads of a silent predecessor before the single pass counts it itself.
    pub spins: u32,
    /// Unroll the scatter's final stores (and stage values in the keys' memory); `None`: for
    /// sorts with values only (pairs 15.95 → 15.46 ms, keys 9.21 → 9.54 ms on the H200).
    pub stores_unrolled: Option<bool>,
    /// Fault injection (tests): in the single pass every `fault_skip`-th tile never publishes,
    /// so its successors must count it themselves. 0: none.
    pub fault_skip: u32,
    /// Count the single pass's look-back rounds (measurement: the atomics cost time).
    pub count_windows: bool,
    /// Sorts of at most this many keys take the small path instead of the radix passes (0:
    /// none): each tile sorted in workgroup memory (one dispatch), and more than one tile
    /// merged by a binary search of every other tile (a second), ADR-0090. Its cost grows with
    /// the tiles: at most 2^24.
    pub small_up_to: u32,
    /// Invocations of the small path's tile sort to try first (32 to 1024, a power of two; at
    /// most 128 without subgroups, where the workgroup layer scans serially).
    pub small_workgroup: u32,
    /// Keys per invocation of the small path's tile sort to try first (1 to 32); halved until
    /// the tile fits the adapter's workgroup memory.
    pub small_items: u32,
}

impl Default for SortPolicy {
    fn default() -> Self {
        Self {
            single_pass: false,
            workgroup: SORT_WORKGROUP,
            items: SORT_ITEMS,
            block_tiles: SORT_BLOCK_TILES,
            inline_blocks: SORT_INLINE_BLOCKS,
            column_step: 0,
            look_window: SORT_LOOK_WINDOW,
            spins: LOOKBACK_SPINS,
            stores_unrolled: None,
            fault_skip: 0,
            count_windows: false,
            small_up_to: SORT_SMALL_UP_TO,
            small_workgroup: SORT_SMALL_WORKGROUP,
            small_items: SORT_SMALL_ITEMS,
        }
    }
}

impl SortPolicy {
    /// The single-pass (Onesweep) policy, in tiles of [`SORT_SINGLE_PASS_ITEMS`] keys an
    /// invocation (ADR-0038).
    pub fn single_pass() -> Self {
        Self {
            single_pass: true,
            items: SORT_SINGLE_PASS_ITEMS,
            ..Self::default()
        }
    }

    /// The default policy fitted to `ctx`'s device: in the browser, the
    /// blocks kernel loads one tile's count at a time (`column_step` 1), which SwiftShader
    /// compiles in milliseconds where the unrolled form took minutes.
    pub fn for_device(ctx: &GpuContext) -> Self {
        Self {
            column_step: if ctx.caps.browser { 1 } else { 0 },
            ..Self::default()
        }
    }

    /// Fails on values the kernels are not written for.
    pub fn check(&self) -> Result<()> {
        let ok = [32, 64, 128, 256, 512].contains(&self.workgroup)
            && (1..=32).contains(&self.items)
            && (1..=64).contains(&self.block_tiles)
            && self.inline_blocks <= 64
            && (self.column_step == 0 || self.block_tiles.is_multiple_of(self.column_step))
            && (1..=32).contains(&self.look_window)
            && (1..=1 << 20).contains(&self.spins)
            && self.small_up_to <= 1 << 24
            && (32..=1024).contains(&self.small_workgroup)
            && self.small_workgroup.is_power_of_two()
            && (1..=32).contains(&self.small_items);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "sort policy {self:?}: use workgroups of 32 to 512 (powers of two), 1 to 32 keys \
                 an invocation, 1 to 64 tiles a block, at most 64 inline blocks, a column step \
                 of 0 (all) or a divisor of the block's tiles, a look window \
                 of 1 to 32, 1 to 2^20 spins, and for the small path at most 2^24 keys, \
                 workgroups of 32 to 1024 (powers of two) and 1 to 32 keys an invocation"
            )));
        }
        Ok(())
    }

    /// Whether the scatter's final stores are unrolled (with values, that also stages the
    /// values in the keys' workgroup memory after the keys have left: ADR-0024).
    pub(crate) fn stores_unrolled(&self, values: bool) -> bool {
        self.stores_unrolled.unwrap_or(values)
    }
}

/// What of an adapter decides the sort's shapes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adapter {
    pub subgroups: bool,
    pub min_width: u32,
    pub workgroup_bytes: u32,
    pub invocations: u32,
}

impl Adapter {
    pub fn of(ctx: &GpuContext) -> Adapter {
        Adapter {
            subgroups: ctx.caps.subgroups.supported,
            min_width: ctx.caps.subgroups.min_size,
            workgroup_bytes: ctx.caps.limits.max_compute_workgroup_storage_size,
            invocations: ctx.caps.limits.max_compute_invocations_per_workgroup,
        }
    }
}

/// How the sort kernels are built for an adapter: workgroup size, narrowest subgroup, keys
/// per invocation, and the block sizes (the kernels and the bound scratch must agree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    pub workgroup: u32,
    pub min_width: u32,
    pub items: u32,
    /// Tiles per block of the count table.
    pub block_tiles: u32,
    /// Blocks up to which the scatter sums the blocks' sums itself.
    pub inline_blocks: u32,
}

impl Shape {
    /// The largest workgroup (the policy's, then halves down to 32) and number of keys per
    /// invocation (the policy's, [`SORT_ITEMS`], 8, 4, 2) whose workgroup memory fits the
    /// adapter: per-subgroup counters for the narrowest subgroup it may run, the tile's keys and
    /// values, and the digit tables.
    pub fn for_adapter(
        subgroups: bool,
        min_width: u32,
        workgroup_bytes: u32,
        invocations: u32,
        config: &SortConfig,
        policy: &SortPolicy,
    ) -> Shape {
        // Values need workgroup memory of their own only when they are not staged in the keys'.
        let has_values = config.values != Values::None;
        let words_per_key =
            config.key.words() + u32::from(has_values && !policy.stores_unrolled(true));
        // Without subgroups every invocation is a subgroup of one, with its own 256 counters.
        let (workgroups, min_width) = if subgroups {
            (vec![policy.workgroup, 128, 64, 32], min_width.max(1))
        } else {
            (vec![32, 16, 8], 1)
        };
        // Sorts with values take the keys' shape: their values are staged in the keys' memory
        // (ADR-0024), and 256 × 16 sorted 2^28 pairs 20 % faster than 512 × 8 on the H200
        // (ADR-0028).
        let items_list = [policy.items, SORT_ITEMS, 8, 4, 2];
        let shape = |workgroup: u32, items| Shape {
            workgroup,
            min_width: min_width.min(workgroup),
            items,
            block_tiles: policy.block_tiles,
            inline_blocks: policy.inline_blocks,
        };
        for workgroup in workgroups {
            if workgroup > invocations {
                continue;
            }
            let counters = (workgroup / min_width.min(workgroup)).max(1) * 128;
            let fixed = 4 * (counters + 4 * 256 + workgroup + 8);
            for items in items_list {
                if fixed + 4 * workgroup * items * words_per_key <= workgroup_bytes {
                    return shape(workgroup, items);
                }
            }
        }
        // Nothing fits (an adapter below WebGPU's 16 KiB): the smallest; creating the
        // pipeline will say what is missing.
        shape(32, 2)
    }

    pub fn of(ctx: &GpuContext, config: &SortConfig, policy: &SortPolicy) -> Shape {
        let a = Adapter::of(ctx);
        Shape::for_adapter(
            a.subgroups,
            a.min_width,
            a.workgroup_bytes,
            a.invocations,
            config,
            policy,
        )
    }

    pub fn tile(self) -> u32 {
        self.workgroup * self.items
    }

    /// The same shape with the scatter's few-blocks path compiled out (INLINE_BLOCKS = 0):
    /// the sorts that scan the blocks' sums pay nothing for it (measured 1 % on the H200).
    pub fn scanning(self) -> Shape {
        Shape {
            inline_blocks: 0,
            ..self
        }
    }

    /// The same shape in blocks of twice the tiles.
    pub fn doubled(self) -> Shape {
        Shape {
            block_tiles: 2 * self.block_tiles,
            ..self
        }
    }
}

/// Tiles per block for a three-kernel sort of `tiles` tiles within one binding: twice `base`
/// (at most 64) where that leaves out a dispatch a pass — one block instead of two (no blocks
/// kernel), or at most `inline` blocks instead of more (no scan) — else `base`. Measured on the
/// H200 (ADR-0031): 2^18 keys 112 → 99 µs, 2^22 312 → 304 µs; where both sizes need the same
/// dispatches the smaller blocks were as fast or faster (2^20: 125 against 134 µs, seventh
/// session).
pub fn block_tiles_for(tiles: u32, base: u32, inline: u32) -> u32 {
    let double = 2 * base;
    let saves = inline > 0
        && ((tiles > base && tiles <= double)
            || (tiles.div_ceil(base) > inline && tiles.div_ceil(double) <= inline));
    if double <= 64 && saves { double } else { base }
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
    fn shapes_fit_workgroup_memory() {
        let policy = SortPolicy::default();
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
                    let s = Shape::for_adapter(subgroups, width, bytes, 1024, &config, &policy);
                    // Values staged in the keys' memory (the default) need none of their own.
                    let words = key.words()
                        + u32::from(values != Values::None && !policy.stores_unrolled(true));
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
        let s = Shape::for_adapter(true, 32, 49152, 1024, &keys, &policy);
        assert_eq!((s.workgroup, s.items), (256, 16));
        let pairs = SortConfig {
            values: Values::U32,
            ..keys.clone()
        };
        let s = Shape::for_adapter(true, 32, 49152, 1024, &pairs, &policy);
        assert_eq!((s.workgroup, s.items), (256, 16));
        let s = Shape::for_adapter(true, 32, 49152, 1024, &keys, &SortPolicy::single_pass());
        assert_eq!((s.workgroup, s.items), (256, 12));
    }

    #[test]
    fn bad_policies_are_errors() {
        SortPolicy::default().check().unwrap();
        SortPolicy::single_pass().check().unwrap();
        for step in [1, 2, 4, 8, 16, 32] {
            SortPolicy {
                column_step: step,
                ..Default::default()
            }
            .check()
            .unwrap();
        }
        for bad in [
            SortPolicy {
                column_step: 3,
                ..Default::default()
            },
            SortPolicy {
                column_step: 64,
                ..Default::default()
            },
            SortPolicy {
                workgroup: 100,
                ..Default::default()
            },
            SortPolicy {
                items: 0,
                ..Default::default()
            },
            SortPolicy {
                look_window: 33,
                ..Default::default()
            },
        ] {
            let e = bad.check().unwrap_err().to_string();
            assert!(e.contains("sort policy"), "{e}");
        }
    }
}
