//! Tuning numbers, kept apart from the algorithms, each beside its reason.

/// Every workgroup shape wavekit's kernels are built with. `wavekit selftest` runs every
/// subgroup operation family in each of them, so a driver that lays out subgroups
/// differently in one shape is caught before a kernel relies on it.
///
/// All are one-dimensional: naga rejects `subgroup_invocation_id` and `subgroup_id` in a
/// multi-dimensional workgroup, so 2-D tiles (the UI compositor's 16×16, the wavelet's rows)
/// run as a 1-D workgroup and derive (x, y) from the local index (ADR-0004).
/// - `[256, 1, 1]`: the default (the copy kernel; one 16×16 tile).
/// - `[1024, 1, 1]`: the largest WebGPU allows, for tile-heavy kernels.
/// - `[128, 1, 1]`: four subgroups on 32-wide hardware, one on 128-wide.
/// - `[64, 1, 1]`: two subgroups on 32-wide hardware, one on 64-wide.
pub const WORKGROUP_SHAPES: &[[u32; 3]] = &[[256, 1, 1], [1024, 1, 1], [128, 1, 1], [64, 1, 1]];

/// Workgroup size of the copy kernel (the bandwidth yardstick). 256 lanes with a grid-stride
/// loop reached 3.9–4.2 TB/s on the H200 (BENCHMARKS.md, the copy floor; measured 2026-11-29).
pub const COPY_WORKGROUP: u32 = 256;

/// Most workgroups the copy kernel launches; larger inputs loop (grid stride). 8192 × 256 lanes
/// is 16× the resident-thread count of an H200 (132 SMs × 2048), enough to hide latency.
pub const COPY_MAX_WORKGROUPS: u32 = 8192;

/// Invocations per workgroup of the scan, reduce and select kernels. A multiple of 128, so
/// every subgroup is full at every width from 1 to 128.
pub const PRIMITIVE_WORKGROUP: u32 = 256;

/// Steps per tile; in each step an invocation holds PRIMITIVE_VEC consecutive elements (one
/// 16-byte load in the scan's direct layout), so a tile is 256 × 7 × 4 = 7168 elements.
///
/// Measured on the H200 (2026-11-29, 2^28 u32 inclusive scan, direct layout with every load
/// issued first, % of the copy kernel in the same run): 5 steps 58.4 %, 6 steps 63.6–64.5 %,
/// 7 steps 66.8–67.6 % (three runs), 8 steps 62.0 %; workgroups of 512 × 3–5 steps 61.0–63.1 %,
/// 1024 × 2–3 49.4–59.9 %, 128 × 12–14 56.6–59.4 %. Fewer, larger tiles mean fewer
/// look-backs; past 7 the registers per invocation cost occupancy. Earlier (blocked layout):
/// one element per lane per step with a subgroup scan each ran at 40 % and was shuffle-bound.
pub const PRIMITIVE_STEPS: u32 = 7;

/// Steps per tile of out-of-place scans of one-word elements (the direct layout, ADR-0014):
/// 256 × 10 × 4 = 10 240 elements. The other scans (in place, wider elements: through
/// workgroup memory) keep [`PRIMITIVE_STEPS`]. Measured on the H200 (2026-11-30, tenth session,
/// 2^28 u32, CUB in the same call, whole tiles loaded and stored without bound checks, ADR-0036):
/// 7 steps 73.0–73.2 % of copy (46–48 registers), 8 steps 75.2–75.9 %, 9 steps 77.6–78.5 %,
/// **10 steps 79.0–79.4 % (1.00–1.01× CUB)**, all at 64 registers; before ADR-0036, 7 steps took
/// 64 registers and 67–68 %, and 8 steps 80 registers and 62 %.
pub const SCAN_STEPS: u32 = 10;

/// Steps per tile of reduce (tiles of 256 × 8 × 4 = 8 192 elements), chosen with
/// [`REDUCE_MAX_WORKGROUPS`]: what matters is that the first level's workgroups fill whole
/// waves of the H200 (ADR-0037). Measured there (2026-11-30, eleventh session, 2^28 u32 sum, CUB
/// in the same calls, two rounds each), steps × first-level groups: **8 × 660 244.2–244.3 µs
/// (CUB 243.3 µs: 0.996×)**, 8 × 528 245.5–246.0, 8 × 792 245.5–246.6, 8 × 924 258.1–258.6,
/// 10 × 528 246.0, 10 × 660 244.8–245.3, 12 × 528 246.6–247.1, 12 × 1024 (before)
/// 249.5–249.9, 12 × 792 252.2–254.2, 14 × 528 246.2–246.6, 16 × 528 259.0–259.4, 16 × 396
/// 245.6–246.0, 6 × 1056 246.0–246.3, 6 × 1320 252.3–253.1 µs. Registers (`kernel-stats`, tenth
/// session): 6 steps 32, 8 steps 40, 10 48, 12 56, 16 71 (eight, six, five, four and three
/// workgroups of 256 an SM).
pub const REDUCE_STEPS: u32 = 8;

/// Steps of four elements per tile of select (tiles of 256 × 13 × 4 = 13 312 elements; a lane
/// holds one element of each of 52 steps of a subgroup width, ADR-0033). The tile's size is
/// bounded by registers: past 128 an invocation, an SM of the H200 holds one workgroup of 256
/// instead of two (`kernel-stats`, ADR-0035). Measured on the H200 (2026-11-30, tenth session,
/// 2^28 u32, half kept, CUB in the same call), with whole tiles unchecked (ADR-0036), steps /
/// elements per batch: 10 / 20 759 µs, 12 / 16 701 µs (104–106 registers), **13 / 13 569–570 µs
/// (1.04× CUB, 112–116 registers)**, 14 / 14 664 µs, 14 / 28 1031 µs (159 registers), 16 / 16
/// 647 µs (127–128 registers), 11 / 22 1145 µs. Before ADR-0036 (ADR-0035's kernel): 8 steps
/// 925 µs, 10 steps 838 µs, 12 steps 790 µs (128 registers), 14–16 steps 1142–1259 µs (169–194
/// registers: one workgroup an SM); before ADR-0035 (a slot per element through the look-back)
/// 8 steps took 128 registers and 900 µs.
pub const SELECT_STEPS: u32 = 13;

/// Elements per lane that select stores in one batch through workgroup memory, in runs that
/// start on a line of 32 words (13: four batches of a tile; 0 would store from registers).
/// Measured with [`SELECT_STEPS`] (above, ADR-0036); with ADR-0035's kernel at 12 steps, batches
/// of 12, 16, 24 elements took 795, 789–790, 1221 µs; with 8 steps (ADR-0034) from registers
/// 1008 µs and batches of 2, 4, 8, 16, 32 elements 1151, 1015, 955, 899–900, 1436 µs.
pub const SELECT_STAGE_STEPS: u32 = 13;

/// Elements per lane that partition stores in one batch, both sides staged together (the
/// kept side, then the rejected side, each aligned to lines; one pair of barriers per batch).
/// Measured with [`PARTITION_STEPS`] (below).
pub const PARTITION_STAGE_STEPS: u32 = 16;

/// Steps of four elements per tile of partition (tiles of 256 × 16 × 4 = 16 384 elements), in
/// select's layout; the count kernel walks the same tiles. Measured on the H200 (2026-11-30,
/// 2^28 u32, CUB in the same call), with whole tiles unchecked (ADR-0036), steps / elements per
/// batch: 10 / 20 1237–1238 µs, 12 / 16 1215–1217 µs, 13 / 13 1214 µs, 14 / 14 1191–1193 µs,
/// **16 / 16 1184–1188 µs (0.73× CUB, 127–128 registers)**, 14 / 28 1744 µs, 11 / 22 1859 µs.
/// With ADR-0035's kernel: 8 / 16 1414 µs, 10 / 20 1312–1313 µs, 12 / 16 1341 µs; before it
/// (ADR-0034) 8 steps 0.60–0.61× and 10–16 steps 0.39–0.43× CUB.
pub const PARTITION_STEPS: u32 = 16;

/// Consecutive elements an invocation scans serially per step before one subgroup scan.
pub const PRIMITIVE_VEC: u32 = 4;

/// Reads of a predecessor's descriptors before a workgroup stops waiting and reduces the
/// predecessor's tile itself (the look-back fallback).
pub const LOOKBACK_SPINS: u32 = 256;

/// Chunks of one subgroup width that the look-back reads per round trip (lane j reads tile
/// look - (c + 1) × width + j of chunk c; all loads issued before any is used). Measured on the
/// H200 (2026-11-29, 2^28 u32 inclusive scan, direct layout): 1 chunk 55.9 %, 2 chunks 52.8 %,
/// 4 chunks 27.6–39.5 % of copy bandwidth, although the windows per tile fell from 3.9 to 2.5:
/// every extra descriptor read costs more than the round trip it saves. Again with every
/// chunk's loads issued before any is decoded, 7-step tiles (fourth session): 1 chunk 67.7 %,
/// 2: 58.6 %, 4: 55.2 %, 8: 52.1 % (ADR-0021).
pub const LOOKBACK_PER_LANE: u32 = 1;

/// Nearest predecessors the look-back reads first; the window doubles after each step that
/// had to go further back. 128 (a whole subgroup at any width) won: on the H200 (2026-11-29,
/// 2^26 u32 inclusive scan, 4096-element tiles) first windows of 1, 2, 4 and 32 tiles gave
/// 28.5 %, 30.2 %, 31.9 % and 36.5 % of copy bandwidth (5.5, 4.8, 4.0 and 2.5 windows per tile).
pub const LOOKBACK_FIRST_WINDOW: u32 = 128;

/// Iterations of a dependent integer loop between two look-back windows that made no
/// progress (a few hundred cycles), so waiting workgroups do not flood the L2 with atomics.
pub const LOOKBACK_BACKOFF: u32 = 32;

/// Most workgroups of a reduce level (each takes a contiguous run of tiles; few enough
/// partials that a second level is one workgroup): 660 = 5 × the H200's 132 SMs, one wave of
/// [`REDUCE_STEPS`]-step tiles, which fit six workgroups an SM (ADR-0037; the measurements are at
/// `REDUCE_STEPS`). A count that leaves a partial wave costs up to 5 % there (8 steps × 924
/// groups: 258 µs). wgpu does not report a GPU's SM count, so other GPUs get the H200's figure;
/// `WAVEKIT_REDUCE_GROUPS` overrides it. Earlier (2026-11-29, 6-step tiles): 264–4096 groups
/// gave 0.94–0.97× CUB.
pub const REDUCE_MAX_WORKGROUPS: u32 = 660;

/// Most workgroups of partition's count pass (contiguous runs of tiles, as reduce's first
/// level). It kept the 1024 that reduce had when the partition's tiles were measured (ADR-0036):
/// the count kernel has 17 registers (eight workgroups an SM), and 660 was not measured for it.
pub const PARTITION_COUNT_WORKGROUPS: u32 = 1024;

/// Predecessor tiles whose digit counts each digit's look-back reads per round trip in the
/// sort's single pass (all in flight together; taken newest first up to an inclusive count;
/// `WAVEKIT_SORT_LOOK_WINDOW`). Measured on the H200 (2026-11-30, eleventh session, 2^28 u32
/// keys, ADR-0037): with the walks in step, 1 tile 21.5 ms, 4 tiles 18.7 ms, 8 18.9 ms, 16
/// 21.1 ms; with independent walks, 1 tile 18.5 ms, **4 tiles 18.1 ms**, 8 18.4 ms (the
/// three-kernel passes: 8.57 ms).
pub const SORT_LOOK_WINDOW: u32 = 4;

/// Invocations per workgroup of the radix sort's count and scatter kernels, where workgroup
/// memory allows (the scatter keeps 256 16-bit digit counters per subgroup and the tile's keys
/// and values; `sort::Shape` halves the workgroup, then the keys per invocation, until they
/// fit). Measured on the H200 (2026-11-29, 2^28 u32 keys, CUB in the same call): 256 (tiles of
/// 4096) sorted keys in 9.7 ms (0.65× CUB) against 12.9 ms (0.49×) with 128; pairs 20.2 ms
/// against 20.4 ms.
pub const SORT_WORKGROUP: u32 = 256;

/// Tiles per block of the sort's count table (sort/blocks.wgsl): each tile's digit counts are
/// one row, tile-major; a block's rows are scanned down each digit's column, and only the
/// blocks' sums go through the scan primitive. Measured on the H200 (2026-11-30, 2^28 u32,
/// CUB in the same call): blocks of 4, 8, 16, 32, 64 tiles sorted keys in 9177, 8804, 8663,
/// 8636, 8641 µs and pairs in 15397, 14982, 14841–14868, 14789, 14803 µs (digit-major table
/// scanned whole: 9277 and 15303 µs, ADR-0026).
pub const SORT_BLOCK_TILES: u32 = 32;

/// Blocks of tiles up to which the sort's scatter sums the blocks' digit sums itself instead of
/// the scan primitive scanning them (one dispatch fewer per pass; each scatter workgroup then
/// reads every block's 256 sums). Measured on the H200 (2026-11-30, ADR-0027): 2^20 keys (8
/// blocks) 183 → 126 µs; 2^21 (16 blocks) 179 µs against 221 µs scanned; at 2^22 (32 blocks)
/// limits of 32 and 64 ran 383 and 398 µs against 317 µs with the scan.
pub const SORT_INLINE_BLOCKS: u32 = 16;

/// Keys per invocation of the sort kernels (tiles of 256 × 16 = 4096 keys), with values or
/// without. Measured on the H200 (2026-11-30, 2^28 u32, ADR-0028): keys 8.57 ms against 9.31 ms
/// with 12; pairs (values staged in the keys' memory) 11.77–11.80 ms against 14.66–14.68 ms
/// for 512 × 8 (the earlier choice for pairs, from before the staging), 13.22 ms for 256 × 12,
/// 14.39–14.41 ms for 256 × 8 and 12.03–12.05 ms for 512 × 6.
pub const SORT_ITEMS: u32 = 16;

/// Keys per invocation of the sort's single pass (`WAVEKIT_SORT_SINGLE_PASS=1`; tiles of
/// 256 × 12 = 3072 keys). Its scatter holds the look-back's state besides the tile: at 16 keys
/// it needs 129–133 registers on the H200, one workgroup an SM; at 12, 101–114, two. Measured
/// (2026-11-30, twelfth session, 2^28 u32 keys, ADR-0038): 8 keys 18.8 ms, 12 keys 14.5 ms, 16
/// keys 18.3 ms, 24 keys 15.2 ms (the three-kernel passes: 8.6 ms).
pub const SORT_SINGLE_PASS_ITEMS: u32 = 12;

/// Invocations per workgroup of the histogram.
pub const HISTOGRAM_WORKGROUP: u32 = 256;

/// Counters of workgroup memory per histogram workgroup (16 KiB): one copy of 4096 bins, or up
/// to 16 copies of fewer (256 bins: one per subgroup at width 16 and above), so that few bins
/// do not serialise a whole workgroup on one counter.
pub const HISTOGRAM_COUNTERS: u32 = 4096;

/// Most workgroups of the histogram (each takes a contiguous run of samples): every extra one
/// adds one global atomic per non-empty bin.
pub const HISTOGRAM_MAX_WORKGROUPS: u32 = 1024;

/// 16-byte loads each histogram invocation issues together per round (16 samples). One sample
/// per invocation and round read at 0.69 TB/s on the H200 (2^28 u32, 256 bins): one load in
/// flight per invocation is latency-bound.
pub const HISTOGRAM_QUADS: u32 = 4;

/// Inputs of at most this many elements take the small tiles below (scan, select, partition,
/// reduce; `SmallInputs`, ADR-0082). Measured on the H200, session 23.
pub const SMALL_UP_TO: u64 = 1 << 20;

/// Steps per tile of the scan, select, partition and reduce on small inputs (ADR-0082):
/// smaller tiles spread an input of 2^12 to 2^20 over more workgroups (on the H200 at 2^16:
/// scan 20.6 → 16.3 µs, select 21.5 → 16.7, partition 31.2 → 19.6, reduce 12.2 → 10.8).
pub const SMALL_STEPS: u32 = 2;

/// Chunks of at most this many tiles are scanned by a kernel that clears its own look-back
/// state as it ends, with no clearing dispatch before it (`ScanPolicy::self_clear_tiles`,
/// ADR-0087). On the H200 (session 25) one dispatch less took 2^16 from 13.7–13.9 to 12.3–12.6
/// µs and 2^20 from 17.8–18.3 to 17.3–17.5, 2^24 (2 341 tiles) unchanged; at 2^28 (37 449
/// tiles) the last workgroup clearing every descriptor word made the scan 10–12 % slower.
pub const SELF_CLEAR_TILES: u32 = 4096;

/// Sorts of at most this many keys take the small path (`SortPolicy::small_up_to`, ADR-0090):
/// each tile sorted in workgroup memory in one dispatch, a few tiles merged by a second. On
/// the H200 (session 26, u32 keys, two processes each) the small path against the radix
/// passes: 2^12 40.0 against 90.2 µs, 2^16 71.4–71.8 against 95.4, 2^17 102.2–102.8 against
/// 94.9–95.8 (the merge's search grows with the tiles): up to 2^16.
pub const SORT_SMALL_UP_TO: u32 = 1 << 16;

/// Invocations of the small path's tile sort (`SortPolicy::small_workgroup`). 512 × 8 was the
/// fastest tile at 2^16 of six measured on the H200 (ADR-0090: 78.1 µs against 78.7–112.3).
pub const SORT_SMALL_WORKGROUP: u32 = 512;

/// Keys per invocation of the small path's tile sort (`SortPolicy::small_items`): tiles of
/// 512 × 8 = 4096 keys where workgroup memory holds them.
pub const SORT_SMALL_ITEMS: u32 = 8;

/// Select and partition of one chunk of at most this many tiles clear their own look-back
/// state (`SelectPolicy::self_clear_tiles`, ADR-0089). On the H200 (session 26, two processes
/// each): select 2^16 (32 tiles) 14.3–14.4 → 13.4–13.9 µs, 2^20 (512) 17.7–17.8 → 17.2–17.5,
/// partition 2^16 17.0–17.4 → 16.3–16.6, 2^20 23.9–24.3 → 23.1–23.2; at 2^24 (select 1 261
/// tiles, partition 1 024) 6 % and 2 % slower (70.4–71.0 → 75.1 µs, 114.7 → 117.4–117.7), so
/// the limit stops below them.
pub const SELECT_SELF_CLEAR_TILES: u32 = 512;
