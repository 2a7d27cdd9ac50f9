//! The small path (ADR-0090): sorts of at most [`SortPolicy::small_up_to`] keys skip the radix
//! passes. `sort/tile_sort.wgsl` sorts each tile of the input in workgroup memory (digits of
//! three bits, stable) in one dispatch; an input of one tile is sorted there, in place. More
//! tiles are sorted into scratch, and `sort/merge.wgsl` puts every key at its place in the
//! whole input: its place in its tile plus, in each other tile, the keys that go before it
//! (found by a binary search). Two dispatches for any size, but the merge's work grows with
//! the tiles, so only small inputs take it.
//!
//! [`tile_sort`] and [`merge`] are the kernels' CPU twins, tested against a stable sort;
//! [`pass_slots`] simulates one pass of the tile sort's slot arithmetic (packed counters,
//! subgroup scans, the subgroups' totals) at any subgroup width.

use super::config::{Adapter, SortConfig, SortPolicy, Values};
use super::{Io, RadixSort};
use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::{Kernel, KernelCache, Range};
use crate::monoid::Monoid;
use crate::prelude::subgroup_api;
use crate::record;
use crate::shader::{Composed, ConstValue, compose};

/// Bits per digit of the tile sort: eight 16-bit counters in one `vec4<u32>`.
pub const DIGIT_BITS: u32 = 3;

/// Invocations of the merge: keys a chunk.
const MERGE_WORKGROUP: u32 = 256;

/// Keys of another tile the merge searches in workgroup memory (wider windows are searched
/// where they lie).
const MERGE_WINDOW: u32 = 2 * MERGE_WORKGROUP;

/// How the tile sort is built on an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SmallShape {
    pub workgroup: u32,
    pub items: u32,
    pub min_width: u32,
}

impl SmallShape {
    /// The policy's workgroup (at most 128 without subgroups, and at most the adapter's
    /// invocations) and the most keys an invocation, from the policy's down by halves, whose
    /// tile, values and workgroup-layer scratch fit the adapter's workgroup memory; `None`
    /// where not even one key an invocation fits.
    pub fn for_adapter(
        adapter: &Adapter,
        config: &SortConfig,
        policy: &SortPolicy,
    ) -> Option<SmallShape> {
        let Adapter {
            subgroups,
            min_width,
            workgroup_bytes,
            invocations,
        } = *adapter;
        let cap = if subgroups { invocations } else { 128 };
        let workgroup = prev_power_of_two(policy.small_workgroup.min(cap).max(1));
        let min_width = if subgroups {
            min_width.clamp(1, workgroup)
        } else {
            1
        };
        let words = config.key.words() + u32::from(config.values != Values::None);
        // The workgroup layer: a vec4 a subgroup and the total.
        let fixed = 16 * (workgroup / min_width + 1) + 64;
        let mut items = policy.small_items;
        while items > 0 {
            let tile = workgroup * items;
            if tile < 1 << 16 && fixed + padded_bytes(tile, words) <= workgroup_bytes {
                return Some(SmallShape {
                    workgroup,
                    items,
                    min_width,
                });
            }
            items /= 2;
        }
        None
    }

    pub fn of(ctx: &GpuContext, config: &SortConfig, policy: &SortPolicy) -> Option<SmallShape> {
        SmallShape::for_adapter(&Adapter::of(ctx), config, policy)
    }

    pub fn tile(self) -> u32 {
        self.workgroup * self.items
    }
}

/// Bytes of workgroup memory for `tile` keys of `words` words (keys and values), padded by a
/// word every 32 (each array one more).
fn padded_bytes(tile: u32, words: u32) -> u32 {
    4 * (tile * words + tile * words / 32 + 2)
}

/// The merge's chunks a tile.
fn merge_chunks(shape: SmallShape) -> u32 {
    shape.tile().div_ceil(MERGE_WORKGROUP)
}

fn prev_power_of_two(x: u32) -> u32 {
    1 << (31 - x.leading_zeros())
}

/// Which kernel of the small path: the tile sort in place (one tile), the tile sort into
/// scratch, or the merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SmallKernel {
    InPlace,
    ToScratch,
    Merge,
}

/// The `sort/small_io` piece: the key and value bindings, read from the same buffer they are
/// written to in place. Tile sort: binding 1 keys in, 2 keys out, 4 values in, 5 values out;
/// `values` 0 none, 1 loaded, 2 indices (written only).
fn io_piece(in_place: bool, values: u32) -> String {
    let mut s = String::from(
        "@group(0) @binding(2) var<storage, read_write> dst_keys: array<u32>;\n\
         fn store_key_word(w: u32, v: u32) {\n    dst_keys[w] = v;\n}\n",
    );
    if in_place {
        s.push_str("fn src_key_word(w: u32) -> u32 {\n    return dst_keys[w];\n}\n");
    } else {
        s.push_str(
            "@group(0) @binding(1) var<storage, read> src_keys: array<u32>;\n\
             fn src_key_word(w: u32) -> u32 {\n    return src_keys[w];\n}\n",
        );
    }
    if values == 0 {
        s.push_str(
            "fn src_value(i: u32) -> u32 {\n    return 0u;\n}\n\
             fn store_value(i: u32, v: u32) {}\n",
        );
        return s;
    }
    s.push_str(
        "@group(0) @binding(5) var<storage, read_write> dst_values: array<u32>;\n\
         fn store_value(i: u32, v: u32) {\n    dst_values[i] = v;\n}\n",
    );
    if values == 2 {
        s.push_str("fn src_value(i: u32) -> u32 {\n    return i;\n}\n");
    } else if in_place {
        s.push_str("fn src_value(i: u32) -> u32 {\n    return dst_values[i];\n}\n");
    } else {
        s.push_str(
            "@group(0) @binding(4) var<storage, read> src_values: array<u32>;\n\
             fn src_value(i: u32) -> u32 {\n    return src_values[i];\n}\n",
        );
    }
    s
}

/// The WGSL of a small-path kernel for `config` in `shape`.
pub(crate) fn composed(
    which: SmallKernel,
    config: &SortConfig,
    shape: SmallShape,
    subgroups: bool,
) -> Result<Composed> {
    let values = config.values.code();
    let key = [
        ("KEY_WORDS", ConstValue::U32(config.key.words())),
        ("KEY_KIND", ConstValue::U32(config.key.kind())),
    ];
    if which == SmallKernel::Merge {
        // The tile sort has written indices as values: the merge moves them like any values.
        let io = io_piece(false, u32::from(values != 0));
        let mut consts = vec![
            ("WG_SIZE", ConstValue::U32(MERGE_WORKGROUP)),
            ("TILE", ConstValue::U32(shape.tile())),
            ("CHUNKS", ConstValue::U32(merge_chunks(shape))),
            ("WINDOW", ConstValue::U32(MERGE_WINDOW)),
            ("VALUES", ConstValue::U32(u32::from(values != 0))),
        ];
        consts.extend(key);
        return compose(
            "sort/merge",
            &consts,
            super::SOURCES,
            &[("sort/small_io", &io)],
        );
    }
    let io = io_piece(which == SmallKernel::InPlace, values);
    let mut consts = vec![
        ("WG_SIZE", ConstValue::U32(shape.workgroup)),
        ("ITEMS", ConstValue::U32(shape.items)),
        ("MIN_WIDTH", ConstValue::U32(shape.min_width)),
        ("DIGIT_BITS", ConstValue::U32(DIGIT_BITS)),
        ("VALUES", ConstValue::U32(values)),
    ];
    consts.extend(key);
    let counters = Monoid::vector_sum(4)?;
    compose(
        "sort/tile_sort",
        &consts,
        super::SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            ("monoid", &counters.wgsl(subgroups)),
            ("sort/small_io", &io),
        ],
    )
}

/// The small path's kernels, built when a bind first takes it.
#[derive(Debug)]
pub(crate) struct SmallKernels {
    pub shape: Option<SmallShape>,
    pub cache: KernelCache<SmallKernel>,
}

impl SmallKernels {
    pub fn new(ctx: &GpuContext, config: &SortConfig, policy: &SortPolicy) -> Self {
        Self {
            shape: SmallShape::of(ctx, config, policy),
            cache: KernelCache::new(),
        }
    }
}

/// A small sort bound to its buffers.
#[derive(Debug)]
pub(crate) struct BoundSmall {
    tile_sort: Kernel,
    tile_bind: wgpu::BindGroup,
    tiles: u32,
    /// More than one tile: the merge, its bind group and workgroups.
    merge: Option<(Kernel, wgpu::BindGroup, u32)>,
    _params: wgpu::Buffer,
}

impl BoundSmall {
    /// Whether `sort` sorts `n` keys by the small path, and in which shape.
    pub fn applies(sort: &RadixSort, n: u32) -> Option<SmallShape> {
        let shape = sort.small.shape?;
        (n > 0 && n <= sort.policy.small_up_to).then_some(shape)
    }

    pub fn bind(
        sort: &RadixSort,
        ctx: &GpuContext,
        io: &Io,
        shape: SmallShape,
    ) -> Result<BoundSmall> {
        let config = &sort.config;
        let (begin, end) = config.bit_range()?;
        let n = io.n;
        let tiles = n.div_ceil(shape.tile());
        let params = ctx.uniform_from(
            "small sort params",
            &[n, tiles, begin, end, u32::from(config.descending), 0, 0, 0],
        )?;
        let sg = ctx.caps.subgroups.supported;
        let kernel = |which| {
            sort.small
                .cache
                .get(ctx, &which, |&w| composed(w, config, shape, sg))
        };
        let key_bytes = io.key_bytes;
        let value_bytes = u64::from(n) * 4;
        let values = config.values;
        let user_v = io.values.as_ref();
        let alt_v = io.alt_values.as_ref();
        if tiles == 1 {
            let k = kernel(SmallKernel::InPlace)?;
            let mut e: Vec<Range> = vec![(0, &params, 0, None), (2, &io.keys, 0, Some(key_bytes))];
            if let Some(v) = user_v {
                push_values(&mut e, values, None, v, value_bytes);
            }
            let tile_bind = k.bind_ranges(ctx, &e)?;
            return Ok(BoundSmall {
                tile_sort: k,
                tile_bind,
                tiles,
                merge: None,
                _params: params,
            });
        }
        let k = kernel(SmallKernel::ToScratch)?;
        let mut e: Vec<Range> = vec![
            (0, &params, 0, None),
            (1, &io.keys, 0, Some(key_bytes)),
            (2, &io.alt_keys, 0, Some(key_bytes)),
        ];
        if let (Some(v), Some(a)) = (user_v, alt_v) {
            push_values(&mut e, values, Some(v), a, value_bytes);
        }
        let tile_bind = k.bind_ranges(ctx, &e)?;
        let m = kernel(SmallKernel::Merge)?;
        let mut e: Vec<Range> = vec![
            (0, &params, 0, None),
            (1, &io.alt_keys, 0, Some(key_bytes)),
            (2, &io.keys, 0, Some(key_bytes)),
        ];
        if let (Some(v), Some(a)) = (user_v, alt_v) {
            e.push((4, a, 0, Some(value_bytes)));
            e.push((5, v, 0, Some(value_bytes)));
        }
        let merge_bind = m.bind_ranges(ctx, &e)?;
        Ok(BoundSmall {
            tile_sort: k,
            tile_bind,
            tiles,
            merge: Some((m, merge_bind, tiles * merge_chunks(shape))),
            _params: params,
        })
    }

    /// One compute pass: the tile sort, then (more than one tile) the merge.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = record::compute_pass(enc, "wavekit.sort.small");
        self.tile_sort
            .dispatch(&mut pass, &self.tile_bind, self.tiles);
        if let Some((m, b, groups)) = &self.merge {
            m.dispatch(&mut pass, b, *groups);
        }
    }
}

/// The tile sort's value bindings: loaded values are read from `src` (none: in place) and
/// written to `dst`, indices only written.
fn push_values<'a>(
    e: &mut Vec<Range<'a>>,
    values: Values,
    src: Option<&'a wgpu::Buffer>,
    dst: &'a wgpu::Buffer,
    bytes: u64,
) {
    match values {
        Values::None => {}
        Values::U32 => {
            if let Some(s) = src {
                e.push((4, s, 0, Some(bytes)));
            }
            e.push((5, dst, 0, Some(bytes)));
        }
        Values::Indices => e.push((5, dst, 0, Some(bytes))),
    }
}

/// The tile sort's CPU twin: each tile of `tile` keys sorted by `key` (the sortable bits in
/// range), stably, by digits of [`DIGIT_BITS`] bits from the least significant, as the kernel
/// ranks them: a key's slot is its digit's first slot (the keys of smaller digits) plus the
/// keys of its digit before it, the slots past the input taking the largest digit.
pub fn tile_sort(keys: &[u64], bits: u32, tile: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    for (t, chunk) in order.chunks_mut(tile.max(1)).enumerate() {
        let count = chunk.len();
        let mut cur: Vec<Option<usize>> = (0..tile.max(1))
            .map(|i| (i < count).then(|| t * tile + i))
            .collect();
        let mut sh = 0;
        while sh < bits {
            let width = DIGIT_BITS.min(bits - sh);
            let last = (1u64 << width) - 1;
            let digit = |slot: &Option<usize>| match slot {
                Some(i) => ((keys[*i] >> sh) & last) as usize,
                None => last as usize,
            };
            let mut counts = vec![0usize; 1 << width];
            for s in &cur {
                counts[digit(s)] += 1;
            }
            let mut starts = vec![0usize; 1 << width];
            for d in 1..counts.len() {
                starts[d] = starts[d - 1] + counts[d - 1];
            }
            let mut next = vec![None; cur.len()];
            for s in &cur {
                let d = digit(s);
                next[starts[d]] = *s;
                starts[d] += 1;
            }
            cur = next;
            sh += width;
        }
        for (slot, s) in chunk.iter_mut().zip(&cur) {
            *slot = s.expect("the input's keys come first");
        }
    }
    order
}

/// The merge's CPU twin: where each entry of `sorted` (tiles of `tile` keys, each sorted)
/// goes in the whole order: its place in its tile plus, in every other tile, the keys below it
/// and, from an earlier tile, the keys equal to it.
pub fn merge(sorted: &[u64], tile: usize) -> Vec<usize> {
    let tile = tile.max(1);
    let tiles: Vec<&[u64]> = sorted.chunks(tile).collect();
    let mut place = vec![0; sorted.len()];
    for (i, &k) in sorted.iter().enumerate() {
        let own = i / tile;
        let mut rank = i - own * tile;
        for (t, keys) in tiles.iter().enumerate() {
            if t != own {
                rank += keys.partition_point(|&o| o < k || (t < own && o == k));
            }
        }
        place[i] = rank;
    }
    place
}

/// One pass of the tile sort as the kernel computes it, for `digits` (the tile's, in tile
/// order: invocation `t` holds `t * items ..`; `None` past the input) with subgroups of
/// `width` lanes: each invocation's packed 16-bit counters, their exclusive scan within its
/// subgroup, the totals of the subgroups before it, each digit's first slot; returns each
/// key's slot. A CPU port of `tile_sort.wgsl`'s arithmetic.
pub fn pass_slots(digits: &[Option<u32>], items: usize, width: usize, bits: u32) -> Vec<u32> {
    let last = (1u32 << bits) - 1;
    let digit = |d: Option<u32>| d.unwrap_or(last);
    let one_of = |d: u32| -> [u32; 4] {
        let mut v = [0u32; 4];
        v[(d >> 1) as usize] = 1 << ((d & 1) * 16);
        v
    };
    let add =
        |a: [u32; 4], b: [u32; 4]| -> [u32; 4] { std::array::from_fn(|i| a[i].wrapping_add(b[i])) };
    let field = |v: [u32; 4], d: u32| (v[(d >> 1) as usize] >> ((d & 1) * 16)) & 0xffff;
    let invocations = digits.len() / items;
    let mine: Vec<[u32; 4]> = (0..invocations)
        .map(|t| {
            digits[t * items..(t + 1) * items]
                .iter()
                .fold([0; 4], |acc, &d| add(acc, one_of(digit(d))))
        })
        .collect();
    // Within each subgroup, the lanes below; the subgroups' totals.
    let mut lanes_before = vec![[0u32; 4]; invocations];
    let mut totals = Vec::new();
    for sg in mine.chunks(width) {
        let mut run = [0u32; 4];
        for (lane, m) in sg.iter().enumerate() {
            lanes_before[totals.len() * width + lane] = run;
            run = add(run, *m);
        }
        totals.push(run);
    }
    let total = totals.iter().fold([0; 4], |a, &b| add(a, b));
    let mut starts = [0u32; 4];
    let mut run = 0;
    for d in 0..8 {
        starts = add(starts, one_of(d).map(|x| x * run));
        run += field(total, d);
    }
    let mut slots = Vec::with_capacity(digits.len());
    for t in 0..invocations {
        let sg = t / width;
        let below = totals[..sg].iter().fold([0; 4], |a, &b| add(a, b));
        let mut before = add(add(lanes_before[t], below), starts);
        for &d in &digits[t * items..(t + 1) * items] {
            let d = digit(d);
            slots.push(field(before, d));
            before = add(before, one_of(d));
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's slot arithmetic at every subgroup width from 1 to 128 (and a subgroup
    /// wider than the workgroup) gives each key the slot of a stable counting sort by digit,
    /// the slots past the input last, for tiles of up to 2^16 − 1 keys (the 16-bit counters).
    #[test]
    fn pass_slots_are_a_stable_counting_sort_at_every_width() {
        let mut r = fastrand::Rng::with_seed(5);
        for (invocations, items, bits, count) in [
            (512usize, 8usize, 3u32, 4096usize),
            (512, 8, 3, 1000),
            (128, 1, 2, 77),
            (1024, 63, 3, 1024 * 63),
            (32, 4, 1, 0),
        ] {
            let digits: Vec<Option<u32>> = (0..invocations * items)
                .map(|i| (i < count).then(|| r.u32(..1 << bits)))
                .collect();
            let last = (1u32 << bits) - 1;
            let mut want: Vec<usize> = (0..digits.len()).collect();
            want.sort_by_key(|&i| digits[i].unwrap_or(last));
            let mut want_slots = vec![0u32; digits.len()];
            for (slot, &i) in want.iter().enumerate() {
                want_slots[i] = slot as u32;
            }
            for width in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
                let w = width.min(invocations);
                let got = pass_slots(&digits, items, w, bits);
                assert_eq!(
                    got, want_slots,
                    "{invocations} x {items}, {count} keys, width {width}"
                );
            }
        }
    }

    /// The twins together sort like the reference (stable), for tiles that do and do not
    /// divide the input, digit widths that do and do not divide the bits.
    #[test]
    fn tile_sort_then_merge_is_a_stable_sort() {
        let mut r = fastrand::Rng::with_seed(11);
        for (n, tile, bits, range) in [
            (0, 8, 32, 1 << 32),
            (1, 8, 32, 1 << 32),
            (7, 8, 32, 1 << 32),
            (8, 8, 32, 1 << 32),
            (9, 8, 5, 32),
            (1000, 64, 32, 1 << 32),
            (1000, 64, 10, 7),
            (997, 128, 64, u64::MAX),
            (4099, 512, 4, 16),
        ] {
            let keys: Vec<u64> = (0..n).map(|_| r.u64(..range.max(1)) & mask(bits)).collect();
            let order = tile_sort(&keys, bits, tile);
            let sorted: Vec<u64> = order.iter().map(|&i| keys[i]).collect();
            for c in sorted.chunks(tile) {
                assert!(c.is_sorted(), "n={n} tile={tile}: a tile is not sorted");
            }
            let place = merge(&sorted, tile);
            let mut out = vec![None; n];
            for (i, &p) in place.iter().enumerate() {
                assert!(out[p].is_none(), "n={n}: two keys at {p}");
                out[p] = Some(order[i]);
            }
            let got: Vec<usize> = out.into_iter().map(|o| o.unwrap()).collect();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&i| keys[i]);
            assert_eq!(got, want, "n={n} tile={tile} bits={bits}");
        }
    }

    fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        }
    }

    #[test]
    fn shapes_fit_workgroup_memory() {
        use super::super::config::KeyType;
        let policy = SortPolicy::default();
        for key in [KeyType::U32, KeyType::U64] {
            for values in [Values::None, Values::U32] {
                let config = SortConfig {
                    values,
                    ..SortConfig::keys(key)
                };
                for (sg, width, bytes, inv) in [
                    (true, 4, 32768, 1024),
                    (true, 32, 49152, 1024),
                    (false, 1, 16384, 256),
                    (true, 4, 16384, 256),
                ] {
                    let a = Adapter {
                        subgroups: sg,
                        min_width: width,
                        workgroup_bytes: bytes,
                        invocations: inv,
                    };
                    let s = SmallShape::for_adapter(&a, &config, &policy).expect("a shape");
                    let words = key.words() + u32::from(values != Values::None);
                    let used =
                        16 * (s.workgroup / s.min_width + 1) + 64 + padded_bytes(s.tile(), words);
                    assert!(used <= bytes, "{config:?}: {s:?} uses {used} of {bytes}");
                    assert!(s.workgroup <= inv && (sg || s.workgroup <= 128));
                    assert!(s.tile() < 1 << 16);
                }
            }
        }
        // The H200: 512 × 8 keys, pairs too.
        let pairs = SortConfig {
            values: Values::U32,
            ..SortConfig::keys(KeyType::U32)
        };
        let h200 = |bytes| Adapter {
            subgroups: true,
            min_width: 32,
            workgroup_bytes: bytes,
            invocations: 1024,
        };
        let s = SmallShape::for_adapter(&h200(49152), &pairs, &policy).unwrap();
        assert_eq!((s.workgroup, s.items), (512, 8));
        // Nothing fits in 64 bytes.
        assert!(SmallShape::for_adapter(&h200(64), &pairs, &policy).is_none());
    }
}
