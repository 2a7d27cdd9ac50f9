//! Radix sort: least-significant digit first, stable, 8-bit digits; keys u32, i32, f32 (total
//! order: −NaN < −∞ < … < −0 < +0 < … < +∞ < +NaN) and u64; keys alone or with a u32 value (or
//! the original index); ascending or descending; any range of key bits.
//!
//! Each pass, in the default three-kernel mode ([`three_kernel`]): `sort/count.wgsl` counts
//! every tile's keys per digit (one row per tile), `sort/blocks.wgsl` scans each block of 32
//! tiles' rows down every digit's column and sums each block per digit, one exclusive [`Scan`]
//! of the blocks' sums (digit-major; left out when there are few blocks) completes every
//! (digit, tile)'s first destination, and `sort/scatter.wgsl` ranks each key stably within its
//! tile (ballots per step, a counter per subgroup and digit, a scan across subgroups) and writes
//! it there. The single pass ([`single_pass`], [`SortPolicy::single_pass`]) counts every pass's
//! digits in one read first, then each pass's scatter finds its tile's offsets by a look-back.
//! Keys and values alternate between the caller's buffers and scratch of the same size; after
//! an odd number of passes the result is copied back, so it always ends in the caller's
//! buffers.
//!
//! Files: [`config`] (what a sort is and how it is built), [`three_kernel`] and
//! [`single_pass`] (each mode's scratch and dispatches), `keys.wgsl` (the key piece every
//! kernel imports), [`reference`](mod@reference) (the plain Rust sort), [`sim`] (a CPU port of the scatter's
//! ranking).

pub mod config;
pub mod reference;
pub mod sim;
pub mod single_pass;
pub mod small;
pub mod three_kernel;

use crate::clear::ClearKernel;
use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelCache, Range};
use crate::monoid::{Monoid, Op, Scalar};
use crate::prelude::subgroup_api;
use crate::record;
use crate::scan::{Scan, ScanConfig};
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{LookbackStats, check_fits, chunk_elements};
use config::Shape;
pub use config::{KeyType, SortConfig, SortPolicy, Values, block_tiles_for};
pub use reference::SortKey;

/// The sort's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    crate::wgsl_source!("sort/keys", "keys.wgsl"),
    crate::wgsl_source!("sort/key_order", "key_order.wgsl"),
    crate::wgsl_source!("sort/small_keys", "small_keys.wgsl"),
    crate::wgsl_source!("sort/tile_sort", "tile_sort.wgsl"),
    crate::wgsl_source!("sort/merge", "merge.wgsl"),
    crate::wgsl_source!("sort/count", "count.wgsl"),
    crate::wgsl_source!("sort/blocks", "blocks.wgsl"),
    crate::wgsl_source!("sort/histograms", "histograms.wgsl"),
    crate::wgsl_source!("sort/scatter", "scatter.wgsl"),
];

/// The names of the sort's kernels: `sort/count` and `sort/blocks` (three-kernel passes, with
/// the scan primitive between blocks and scatter), `sort/histograms` (single pass),
/// `sort/scatter` (both).
pub const KERNELS: [&str; 4] = [
    "sort/count",
    "sort/blocks",
    "sort/histograms",
    "sort/scatter",
];

/// Kernel `name` for `config` under `policy` in `shape`, for `windows` key windows (2: buffers
/// past one binding, a pipeline of its own so that sorts within one binding pay nothing for it:
/// 14 % measured on the H200).
fn composed(
    name: &str,
    config: &SortConfig,
    policy: &SortPolicy,
    subgroups: bool,
    shape: Shape,
    windows: u32,
) -> Result<Composed> {
    let values = config.values.code();
    // Loads unrolled together down a column of tiles' counts, and of blocks' sums (divisors of
    // the block's tiles and of the inline blocks; the whole column by default).
    let (column_step, inline_step) = match policy.column_step {
        0 => (shape.block_tiles, shape.inline_blocks),
        step => (step, gcd(step, shape.inline_blocks)),
    };
    let spins = if policy.fault_skip != 0 {
        4
    } else {
        policy.spins
    };
    compose(
        name,
        &[
            ("WG_SIZE", ConstValue::U32(shape.workgroup)),
            ("ITEMS", ConstValue::U32(shape.items)),
            ("MIN_WIDTH", ConstValue::U32(shape.min_width)),
            ("BLOCK_TILES", ConstValue::U32(shape.block_tiles)),
            ("COLUMN_STEP", ConstValue::U32(column_step)),
            ("INLINE_STEP", ConstValue::U32(inline_step)),
            ("INLINE_BLOCKS", ConstValue::U32(shape.inline_blocks)),
            ("VALUES", ConstValue::U32(values)),
            (
                "STORES_UNROLLED",
                ConstValue::Bool(policy.stores_unrolled(values != 0)),
            ),
            ("SINGLE_PASS", ConstValue::Bool(policy.single_pass)),
            ("LOOKBACK_SPINS", ConstValue::U32(spins)),
            ("STATS", ConstValue::Bool(policy.count_windows)),
            ("FAULT_SKIP", ConstValue::U32(policy.fault_skip)),
            ("LOOK_WINDOW", ConstValue::U32(policy.look_window)),
            ("WINDOWS", ConstValue::U32(windows)),
            ("KEY_WORDS", ConstValue::U32(config.key.words())),
            ("KEY_KIND", ConstValue::U32(config.key.kind())),
        ],
        SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            // Bindings for a second window only where one is used (WebGPU allows 8 storage
            // buffers a stage; two windows need 11).
            (
                "sort/windows",
                if windows == 2 {
                    include_str!("windows_two.wgsl")
                } else {
                    include_str!("windows_one.wgsl")
                },
            ),
            // The subgroup layer is generic over a monoid; the sort's counts are u32 sums.
            (
                "monoid",
                &Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups),
            ),
        ],
    )
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The WGSL of sort kernel `name` (one of [`KERNELS`]) for `config` under `policy`, on an
/// adapter with (or without) subgroups of at least `min_width` lanes, `workgroup_bytes` of
/// workgroup memory and `invocations` per workgroup (the two-window variant, whose code is a
/// superset of the one-window variant's).
pub fn composed_kernel(
    name: &str,
    config: &SortConfig,
    policy: &SortPolicy,
    subgroups: bool,
    (min_width, workgroup_bytes, invocations): (u32, u32, u32),
) -> Result<Composed> {
    let shape = Shape::for_adapter(
        subgroups,
        min_width,
        workgroup_bytes,
        invocations,
        config,
        policy,
    );
    composed(name, config, policy, subgroups, shape, 2)
}

/// A pipeline's kernel name, shape and number of key windows.
type KernelKey = (&'static str, Shape, u32);

/// A radix sort, built once for a configuration; bind it to buffers with [`RadixSort::bind`].
///
/// ```
/// use wavekit::{GpuContext, sort::{KeyType, RadixSort, SortConfig, Values}};
/// let ctx = GpuContext::new(&Default::default())?;
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
    policy: SortPolicy,
    shape: Shape,
    /// Every pipeline built so far, by kernel, shape and key windows: the common ones when the
    /// sort is built, the rest (two windows, the few-blocks scatter, doubled blocks) when a
    /// bind first needs them.
    kernels: KernelCache<KernelKey>,
    /// Three-kernel mode: the exclusive scan of the blocks' digit sums.
    scan: Option<Scan>,
    /// Single-pass mode: clears the digit table and the look-back state in the sort's passes
    /// (ADR-0081).
    clear: ClearKernel,
    /// The small path's shape and kernels (ADR-0090).
    small: small::SmallKernels,
}

impl RadixSort {
    /// Build the pipelines for `config` (its bit range and policy are checked here).
    pub fn new(ctx: &GpuContext, config: &SortConfig) -> Result<Self> {
        config.bit_range()?;
        let policy = config.policy.unwrap_or_else(|| SortPolicy::for_device(ctx));
        policy.check()?;
        let shape = Shape::of(ctx, config, &policy);
        let scanning = shape.scanning();
        let mut wanted: Vec<KernelKey> = if policy.single_pass {
            vec![
                ("sort/histograms", scanning, 1),
                ("sort/scatter", scanning, 1),
            ]
        } else {
            vec![
                ("sort/count", scanning, 1),
                ("sort/blocks", scanning, 1),
                ("sort/scatter", scanning, 1),
            ]
        };
        // Small sorts' scatter, which sums the blocks' sums itself (ADR-0027).
        if !policy.single_pass && shape.inline_blocks > 0 {
            wanted.push(("sort/scatter", shape, 1));
        }
        let sg = ctx.caps.subgroups.supported;
        // The pipelines every bind within one binding needs, compiled together on threads of
        // their own (drivers compile in parallel: a cold start in a third of the time), and the
        // scan of the blocks' sums beside them.
        let kernels = KernelCache::new();
        let scan_new = || {
            let u32_add = Monoid::builtin(Scalar::U32, Op::Add);
            Scan::new(ctx, &ScanConfig::exclusive(u32_add))
        };
        // wasm has no threads here (and the browser compiles in a process of its own).
        #[cfg(target_arch = "wasm32")]
        let (built, scan) = (
            kernels.prebuild(ctx, &wanted, |&(n, shape, windows)| {
                composed(n, config, &policy, sg, shape, windows)
            }),
            (!policy.single_pass).then(scan_new),
        );
        #[cfg(not(target_arch = "wasm32"))]
        let (built, scan) = std::thread::scope(|s| {
            let scan = (!policy.single_pass).then(|| s.spawn(scan_new));
            let built = kernels.prebuild(ctx, &wanted, |&(n, shape, windows)| {
                composed(n, config, &policy, sg, shape, windows)
            });
            let scan = scan.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            (built, scan)
        });
        built?;
        Ok(Self {
            config: config.clone(),
            policy,
            shape,
            kernels,
            scan: scan.transpose()?,
            clear: ClearKernel::new(ctx)?,
            small: small::SmallKernels::new(ctx, config, &policy),
        })
    }

    /// Kernel `name` in `shape` for `windows` key windows, built the first time it is asked for.
    fn kernel(
        &self,
        ctx: &GpuContext,
        name: &'static str,
        shape: Shape,
        windows: u32,
    ) -> Result<Kernel> {
        let sg = ctx.caps.subgroups.supported;
        self.kernels
            .get(ctx, &(name, shape, windows), |&(n, shape, windows)| {
                composed(n, &self.config, &self.policy, sg, shape, windows)
            })
    }

    /// Keys per tile (tile boundaries are worth testing).
    pub fn tile_keys(&self) -> u32 {
        self.shape.tile()
    }

    /// Keys per tile of the small path (ADR-0090), `None` where the adapter's workgroup memory
    /// holds no tile of it (every sort then takes the radix passes).
    pub fn small_tile_keys(&self) -> Option<u32> {
        self.small.shape.map(|s| s.tile())
    }

    /// Whether a sort of `n` keys takes the small path ([`SortPolicy::small_up_to`]).
    pub fn takes_small_path(&self, n: u64) -> bool {
        u32::try_from(n).is_ok_and(|n| small::BoundSmall::applies(self, n).is_some())
    }

    /// The policy this sort was built with.
    pub fn policy(&self) -> &SortPolicy {
        &self.policy
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
        self.check_values(values, n)?;
        // Every buffer is bound as storage; an odd number of passes ends in the scratch, which
        // is copied back into the caller's buffers.
        let odd =
            small::BoundSmall::applies(self, n).is_none() && passes_odd(self.config.passes()?);
        let (need, why) = if odd {
            (
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                "the sort binds it as storage and, with an odd number of 8-bit passes, copies \
                 its result back into it",
            )
        } else {
            (wgpu::BufferUsages::STORAGE, "the sort binds it as storage")
        };
        crate::tiling::check_usage("sort, binding keys", keys, need, why)?;
        if let Some(v) = values {
            crate::tiling::check_usage("sort, binding values", v, need, why)?;
        }
        let io = Io::new(ctx, keys, values, n, words, window)?;
        if let Some(shape) = small::BoundSmall::applies(self, n) {
            return Ok(BoundSort {
                radix: None,
                small: Some(small::BoundSmall::bind(self, ctx, &io, shape)?),
                passes: Vec::new(),
                tiles: n.div_ceil(shape.tile()),
                copy_back: None,
                _io: io,
            });
        }
        let tiles = n.div_ceil(self.shape.tile());
        let two = n > window;
        let mode = if self.policy.single_pass {
            Mode::Single(Box::new(single_pass::SinglePass::bind(
                self, ctx, &io, tiles, two,
            )?))
        } else {
            Mode::Three(Box::new(three_kernel::ThreeKernel::bind(
                self, ctx, &io, tiles, two,
            )?))
        };
        let scatter_k = mode.scatter_kernel(self, ctx, two)?;
        let (begin, end) = self.config.bit_range()?;
        let mut passes = Vec::new();
        for p in 0..self.config.passes()? {
            let shift = begin + 8 * p;
            let params = ctx.uniform_from(
                "sort params",
                &[
                    n,
                    tiles,
                    shift,
                    (end - shift).min(8),
                    u32::from(self.config.descending),
                    u32::from(p == 0),
                    p,
                    window * words,
                ],
            )?;
            let b = io.pass_bindings(p);
            let first = mode.first_bind(ctx, &params, &b)?;
            let (table, state, offsets) = mode.scatter_scratch();
            let scatter = scatter_k.bind_ranges(
                ctx,
                &[
                    (0, &params, 0, None),
                    b.keys_in[0],
                    b.keys_out[0],
                    (3, table, 0, None),
                    b.values_in[0],
                    b.values_out[0],
                    (6, state, 0, None),
                    b.keys_in[1],
                    b.keys_out[1],
                    b.values_in[1],
                    b.values_out[1],
                    (13, offsets, 0, None),
                ],
            )?;
            passes.push(Pass {
                first,
                scatter,
                _params: params,
            });
        }
        Ok(BoundSort {
            radix: Some((scatter_k, mode)),
            small: None,
            passes,
            tiles,
            copy_back: (passes_odd(self.config.passes()?)).then(|| io.copy_back()),
            _io: io,
        })
    }

    fn check_values(&self, values: Option<&wgpu::Buffer>, n: u32) -> Result<()> {
        match (self.config.values, values) {
            (Values::None, None) => Ok(()),
            (Values::None, Some(_)) => Err(Error::InvalidArgument(
                "sort without values takes no values buffer (use Values::U32 or \
                 Values::Indices)"
                    .into(),
            )),
            (_, None) => Err(Error::InvalidArgument(
                "sort with values needs a values buffer (one u32 per key)".into(),
            )),
            (_, Some(v)) => check_fits("sort values", v, u64::from(n), 1),
        }
    }
}

fn passes_odd(passes: u32) -> bool {
    passes % 2 == 1
}

/// The caller's buffers and their scratch twins, and how each is bound: a buffer past one
/// storage binding as two windows.
#[derive(Debug)]
pub(crate) struct Io {
    keys: wgpu::Buffer,
    values: Option<wgpu::Buffer>,
    alt_keys: wgpu::Buffer,
    alt_values: Option<wgpu::Buffer>,
    /// Placeholders for unused bindings (one read, one written: a buffer may not be both in one
    /// dispatch).
    none: [wgpu::Buffer; 2],
    n: u32,
    key_bytes: u64,
    key_window: u64,
    value_window: u64,
}

/// One pass's key and value bindings, each as its two windows.
pub(crate) struct PassBindings<'a> {
    pub keys_in: [Range<'a>; 2],
    pub keys_out: [Range<'a>; 2],
    pub values_in: [Range<'a>; 2],
    pub values_out: [Range<'a>; 2],
}

impl Io {
    fn new(
        ctx: &GpuContext,
        keys: &wgpu::Buffer,
        values: Option<&wgpu::Buffer>,
        n: u32,
        words: u32,
        window: u32,
    ) -> Result<Self> {
        let key_bytes = u64::from(n) * u64::from(words) * 4;
        Ok(Self {
            keys: keys.clone(),
            values: values.cloned(),
            alt_keys: ctx.storage_uninit("sort keys scratch", key_bytes.max(4))?,
            alt_values: match values {
                Some(_) => {
                    Some(ctx.storage_uninit("sort values scratch", u64::from(n).max(1) * 4)?)
                }
                None => None,
            },
            none: [
                ctx.storage_uninit("sort no values in", 4)?,
                ctx.storage_uninit("sort no values out", 4)?,
            ],
            n,
            key_bytes,
            key_window: u64::from(window * words) * 4,
            value_window: u64::from(window) * 4,
        })
    }

    /// Words of keys in a key buffer's first window.
    pub fn window_words(&self) -> u32 {
        (self.key_window / 4) as u32
    }

    /// The keys a pass reads, in its two windows (also what the first kernel reads).
    pub fn keys_in(&self, pass: u32) -> [Range<'_>; 2] {
        let src = if pass.is_multiple_of(2) {
            &self.keys
        } else {
            &self.alt_keys
        };
        windows((1, 9), src, self.key_bytes, self.key_window, &self.none[0])
    }

    fn pass_bindings(&self, pass: u32) -> PassBindings<'_> {
        let even = pass.is_multiple_of(2);
        let dst_k = if even { &self.alt_keys } else { &self.keys };
        let (src_v, dst_v) = match (&self.values, &self.alt_values) {
            (Some(v), Some(a)) if even => (v, a),
            (Some(v), Some(a)) => (a, v),
            _ => (&self.none[0], &self.none[1]),
        };
        let value_bytes = if self.values.is_some() {
            u64::from(self.n) * 4
        } else {
            4
        };
        let (w, none) = (self.value_window, &self.none);
        PassBindings {
            keys_in: self.keys_in(pass),
            keys_out: windows((2, 10), dst_k, self.key_bytes, self.key_window, &none[1]),
            values_in: windows((4, 11), src_v, value_bytes, w, &none[0]),
            values_out: windows((5, 12), dst_v, value_bytes, w, &none[1]),
        }
    }

    /// What an odd number of passes leaves in scratch, to be copied back.
    fn copy_back(&self) -> CopyBack {
        CopyBack {
            keys: (
                self.alt_keys.clone(),
                self.keys.clone(),
                self.key_bytes.max(4),
            ),
            values: self
                .alt_values
                .clone()
                .zip(self.values.clone())
                .map(|(from, to)| (from, to, u64::from(self.n) * 4)),
        }
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

/// The copies that bring the result back into the caller's buffers: (from, to, bytes).
#[derive(Debug)]
struct CopyBack {
    keys: (wgpu::Buffer, wgpu::Buffer, u64),
    values: Option<(wgpu::Buffer, wgpu::Buffer, u64)>,
}

/// The mode's scratch and dispatches besides the scatter.
#[derive(Debug)]
enum Mode {
    Three(Box<three_kernel::ThreeKernel>),
    Single(Box<single_pass::SinglePass>),
}

impl Mode {
    fn scatter_kernel(&self, sort: &RadixSort, ctx: &GpuContext, two: bool) -> Result<Kernel> {
        match self {
            Mode::Three(t) => t.scatter_kernel(sort, ctx, two),
            Mode::Single(_) => sort.kernel(
                ctx,
                "sort/scatter",
                sort.shape.scanning(),
                1 + u32::from(two),
            ),
        }
    }

    /// The scatter's digit table, look-back state and block offsets.
    fn scatter_scratch(&self) -> (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer) {
        match self {
            Mode::Three(t) => t.scatter_scratch(),
            Mode::Single(s) => s.scatter_scratch(),
        }
    }

    /// The pass's bind group of the kernel before the scatter (three kernels: the count).
    fn first_bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        b: &PassBindings<'_>,
    ) -> Result<Option<wgpu::BindGroup>> {
        match self {
            Mode::Three(t) => t.count_bind(ctx, params, b).map(Some),
            Mode::Single(_) => Ok(None),
        }
    }
}

/// One pass: the count's bind group (three kernels) and the scatter's.
#[derive(Debug)]
struct Pass {
    first: Option<wgpu::BindGroup>,
    scatter: wgpu::BindGroup,
    _params: wgpu::Buffer,
}

/// A sort bound to its buffers and scratch, ready to record any number of times.
#[derive(Debug)]
pub struct BoundSort {
    /// The radix passes' scatter kernel and mode (`None` on the small path).
    radix: Option<(Kernel, Mode)>,
    /// The small path (ADR-0090).
    small: Option<small::BoundSmall>,
    passes: Vec<Pass>,
    tiles: u32,
    copy_back: Option<CopyBack>,
    _io: Io,
}

impl BoundSort {
    /// Number of radix digit passes (0 on the small path).
    pub fn passes(&self) -> usize {
        self.passes.len()
    }

    /// Whether this sort takes the small path (ADR-0090).
    pub fn is_small(&self) -> bool {
        self.small.is_some()
    }

    /// Predecessor tiles the single-pass look-back counted itself in the last recorded pass
    /// (after the commands completed; 0 in three-kernel mode).
    pub fn fallbacks(&self, ctx: &GpuContext) -> Result<u32> {
        Ok(self.lookback_stats(ctx)?.map_or(0, |s| s.fallbacks))
    }

    /// The single-pass look-back's statistics for the last recorded pass (after the commands
    /// completed): fallbacks always; rounds without progress and rounds in all only with
    /// [`SortPolicy::count_windows`] (their atomics cost time). `None` in three-kernel mode.
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<Option<LookbackStats>> {
        match &self.radix {
            Some((_, Mode::Single(s))) => s.lookback_stats(ctx).map(Some),
            _ => Ok(None),
        }
    }

    /// Record the sort into `enc`.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if self.tiles == 0 {
            return;
        }
        if let Some(s) = &self.small {
            s.record(enc);
            return;
        }
        let Some((scatter, mode)) = &self.radix else {
            return;
        };
        if let Mode::Single(s) = mode {
            s.record_histograms(enc);
        }
        for pass in &self.passes {
            if let (Mode::Three(t), Some(count)) = (mode, &pass.first) {
                t.record_counts(enc, count, self.tiles);
            }
            let mut cp = record::compute_pass(enc, "wavekit.sort.scatter");
            if let Mode::Single(s) = mode {
                s.clear_state(&mut cp);
            }
            scatter.dispatch(&mut cp, &pass.scatter, self.tiles);
        }
        if let Some(c) = &self.copy_back {
            let (from, to, bytes) = &c.keys;
            record::copy(enc, from, 0, to, 0, Some(*bytes));
            if let Some((from, to, bytes)) = &c.values {
                record::copy(enc, from, 0, to, 0, Some(*bytes));
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
    ctx.submit_checked("a sort", |enc| bound.record(enc))?;
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
        values: if values.is_some() {
            Values::U32
        } else {
            Values::Indices
        },
        descending,
        bits,
        ..SortConfig::keys(K::TYPE)
    };
    let sort = RadixSort::new(ctx, &config)?;
    let kb = ctx.storage_from("sort keys", keys)?;
    let vb = match values {
        Some(v) => ctx.storage_from("sort values", v)?,
        None => ctx.storage_uninit("sort values", (keys.len() as u64).max(1) * 4)?,
    };
    let bound = sort.bind(ctx, &kb, Some(&vb), keys.len() as u64)?;
    ctx.submit_checked("a sort", |enc| bound.record(enc))?;
    Ok((
        ctx.read_back("sort keys", &kb, keys.len())?,
        ctx.read_back("sort values", &vb, keys.len())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel of every key type and values mode, in both modes, with subgroups and
    /// without, validates; every WGSL file of the sort is used.
    #[test]
    fn every_variant_validates() {
        let mut variants = Vec::new();
        for sg in [true, false] {
            for key in [
                KeyType::U32,
                KeyType::I32,
                KeyType::F32,
                KeyType::U64,
                KeyType::F32Numpy,
            ] {
                for values in [Values::None, Values::U32, Values::Indices] {
                    let c = SortConfig {
                        values,
                        ..SortConfig::keys(key)
                    };
                    for policy in [SortPolicy::default(), SortPolicy::single_pass()] {
                        // The narrowest subgroups wgpu reports (4) with lavapipe's 32 KiB, and
                        // the H200's 32 lanes with 48 KiB and 1024 invocations.
                        for adapter in [(4, 32768, 256), (32, 49152, 1024)] {
                            for name in KERNELS {
                                let k = composed_kernel(name, &c, &policy, sg, adapter).unwrap();
                                variants.push((k, sg));
                            }
                            let (min_width, workgroup_bytes, invocations) = adapter;
                            let a = config::Adapter {
                                subgroups: sg,
                                min_width,
                                workgroup_bytes,
                                invocations,
                            };
                            let shape = small::SmallShape::for_adapter(&a, &c, &policy).unwrap();
                            for which in [
                                small::SmallKernel::InPlace,
                                small::SmallKernel::ToScratch,
                                small::SmallKernel::Merge,
                            ] {
                                let k = small::composed(which, &c, shape, sg).unwrap();
                                variants.push((k, sg));
                            }
                        }
                    }
                }
            }
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
    }
}
