//! Device-wide scan (prefix sum) for any monoid: inclusive or exclusive, out of place in one
//! pass (decoupled look-back with fallback), or in place in two (aggregates, then the scan
//! from them). Also the segmented scan by head flags.

pub mod reference;
pub mod sim;

use crate::clear::{BoundClear, ClearKernel};
use crate::context::GpuContext;
use crate::error::Error;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernel::Range;
use crate::monoid::{Element, Monoid, Op, Scalar};
use crate::prelude::subgroup_api;
use crate::record;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{
    LookbackPolicy, LookbackStats, SmallInputs, TileShape, check_fits, chunk_elements,
    lookback_consts, params4, state_buffer,
};
use crate::tuning::{
    PRIMITIVE_STEPS, PRIMITIVE_VEC, PRIMITIVE_WORKGROUP, SCAN_STEPS, SELF_CLEAR_TILES, SMALL_STEPS,
    SMALL_UP_TO,
};

/// The scan's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    crate::wgsl_source!("scan/scan", "scan.wgsl"),
    crate::wgsl_source!("scan/io_separate", "io_separate.wgsl"),
    crate::wgsl_source!("scan/io_inplace", "io_inplace.wgsl"),
];

/// Which scan.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    /// The operation.
    pub monoid: Monoid,
    /// Inclusive (`out[i]` includes `in[i]`) or exclusive.
    pub inclusive: bool,
    /// Scan one buffer in place (two passes over the input instead of one).
    pub in_place: bool,
    /// Tiles and look-back; `None`: [`ScanPolicy::default`], measured on the H200.
    pub policy: Option<ScanPolicy>,
}

impl ScanConfig {
    /// An inclusive (`out[i]` includes `in[i]`), out-of-place scan of `monoid` with the
    /// device's default policy.
    pub fn inclusive(monoid: Monoid) -> Self {
        Self {
            monoid,
            inclusive: true,
            in_place: false,
            policy: None,
        }
    }

    /// An exclusive (`out[i]` combines `in[..i]`; `out[0]` is the identity), out-of-place scan
    /// of `monoid` with the device's default policy.
    pub fn exclusive(monoid: Monoid) -> Self {
        Self {
            inclusive: false,
            ..Self::inclusive(monoid)
        }
    }
}

/// How a scan is tiled (CUB's tuning policy): the numbers and their measurements are in
/// [`crate::tuning`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ScanPolicy {
    /// Tiles through workgroup memory (in place, elements of several words; ADR-0010).
    pub blocked: TileShape,
    /// Steps per tile of the direct layout (one-word elements out of place: 16-byte loads,
    /// values in registers; ADR-0014); its workgroup and step width are `blocked`'s.
    pub direct_steps: u32,
    /// Use the direct layout where it applies (false: always through workgroup memory).
    pub direct_layout: bool,
    /// The look-back.
    pub lookback: LookbackPolicy,
    /// Small inputs' tiles (both layouts' steps; not for segmented scans), `None`: the
    /// policy's tiles for every size.
    pub small: Option<SmallInputs>,
    /// Chunks of at most this many tiles leave their look-back state cleared for the next run
    /// (the last workgroup to finish clears it), so no clearing dispatch comes first: one
    /// dispatch a chunk instead of two (ADR-0087). Larger ones are cleared by a dispatch: one
    /// workgroup clearing every descriptor took longer than the dispatch (2^28 elements,
    /// 37 449 tiles, on the H200). 0: never. Not with `lookback.count_windows`, whose
    /// statistics are per run; the two-pass (in-place) scan clears by a dispatch either way.
    pub self_clear_tiles: u32,
}

impl Default for ScanPolicy {
    fn default() -> Self {
        Self {
            blocked: TileShape {
                workgroup: PRIMITIVE_WORKGROUP,
                steps: PRIMITIVE_STEPS,
                vec: PRIMITIVE_VEC,
            },
            direct_steps: SCAN_STEPS,
            direct_layout: true,
            lookback: LookbackPolicy::default(),
            small: Some(SmallInputs {
                up_to: SMALL_UP_TO,
                steps: SMALL_STEPS,
            }),
            self_clear_tiles: SELF_CLEAR_TILES,
        }
    }
}

impl ScanPolicy {
    /// Fails on a shape the kernels are not written for.
    pub fn check(&self) -> Result<()> {
        self.blocked.check("scan")?;
        self.blocked
            .with_steps(self.direct_steps)
            .check("scan (direct)")?;
        SmallInputs::check(self.small, "scan")?;
        self.lookback.check("scan")
    }

    /// The policy small inputs take (the same where it has no rule for them).
    pub fn for_small(&self) -> Self {
        match self.small {
            Some(r) => Self {
                blocked: self.blocked.with_steps(r.steps),
                direct_steps: r.steps,
                small: None,
                ..*self
            },
            None => *self,
        }
    }

    /// The default policy fitted to `ctx`'s device: on the browser's WebGPU, which forbids
    /// binding the output twice as the direct layout does, through workgroup memory.
    pub fn for_device(ctx: &GpuContext) -> Self {
        Self {
            direct_layout: !ctx.caps.browser,
            ..Self::default()
        }
    }

    /// Whether an out-of-place scan of `words`-word elements uses the direct layout.
    fn direct(&self, words: u32, in_place: bool) -> bool {
        self.direct_layout
            && words == 1
            && !in_place
            && (self.direct_steps * self.blocked.vec).is_multiple_of(4)
    }

    /// The tile of a scan of `words`-word elements (in place or not).
    fn shape(&self, words: u32, in_place: bool) -> TileShape {
        if self.direct(words, in_place) {
            self.blocked.with_steps(self.direct_steps)
        } else {
            self.blocked
        }
    }

    /// Whether the kernel of `pass` (0: the single pass) may clear its own state (ADR-0087).
    fn self_clears(&self, pass: u32) -> bool {
        pass == 0 && self.self_clear_tiles != 0 && !self.lookback.count_windows
    }

    /// The most tiles a chunk may have and clear its own state (0: none), in place or not.
    fn self_clear_limit(&self, in_place: bool) -> u32 {
        if !in_place && self.self_clears(0) {
            self.self_clear_tiles
        } else {
            0
        }
    }

    /// Elements per tile of a scan of `words`-word elements (in place or not). Tile edges are
    /// worth testing.
    pub fn tile_elements(&self, words: u32, in_place: bool) -> u32 {
        let shape = self.shape(words, in_place);
        shape.workgroup * shape.per_lane(words)
    }
}

/// How the scan reads and writes.
#[derive(Clone, Debug, PartialEq)]
enum Io {
    Separate,
    InPlace,
    /// Segmented: data of this scalar type, head flags in their own buffer.
    Segmented(Scalar, Op),
}

/// The `scan/io` and `monoid` pieces for a segmented scan of `scalar` under `op`: the element
/// is `vec2<u32>(head flag, value bits)`.
fn segmented_pieces(scalar: Scalar, op: Op, inclusive: bool, subgroups: bool) -> (String, String) {
    let inner = Monoid::builtin(scalar, op);
    let d = scalar.wgsl();
    let op_expr = match op {
        Op::Add => "x + y",
        Op::Min => "min(x, y)",
        Op::Max => "max(x, y)",
    };
    let pair = Monoid::custom(
        &format!("segmented_{}", inner.name()),
        "vec2<u32>",
        "vec2<u32>(0u, bitcast<u32>(seg_identity()))",
        "seg_combine(a, b)",
        false,
    )
    .expect("valid built-in pair type");
    let monoid = format!(
        "{}\n\
         fn seg_identity() -> {d} {{\n    return {ident};\n}}\n\
         fn seg_op(x: {d}, y: {d}) -> {d} {{\n    return {op_expr};\n}}\n\
         // A head flag in b restarts the scan at b.\n\
         fn seg_combine(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{\n\
         \x20   let v = bitcast<u32>(seg_op(bitcast<{d}>(a.y), bitcast<{d}>(b.y)));\n\
         \x20   return vec2<u32>(a.x | b.x, select(v, b.y, b.x != 0u));\n}}\n",
        pair.wgsl(subgroups),
        ident = Monoid::builtin(scalar, op).identity_wgsl(),
    );
    let store = if inclusive {
        "dst[i] = bitcast<D>(v.y);".to_string()
    } else {
        // An exclusive value at a head is the identity, not the previous segment's total.
        "dst[i] = select(bitcast<D>(v.y), seg_identity(), flags[i] != 0u);".to_string()
    };
    let io = format!(
        "alias D = {d};\n\
         @group(0) @binding(2) var<storage, read> src: array<D>;\n\
         @group(0) @binding(3) var<storage, read_write> dst: array<D>;\n\
         @group(0) @binding(4) var<storage, read> flags: array<u32>;\n\
         fn load(i: u32) -> T {{\n    return vec2<u32>(u32(flags[i] != 0u), bitcast<u32>(src[i]));\n}}\n\
         fn store(i: u32, v: T) {{\n    {store}\n}}\n"
    );
    (monoid, io)
}

/// Quads of four elements loaded and stored one element at a time (any element type, in place).
const SCALAR_QUADS: &str = "
fn load_quad(q: u32) -> array<T, 4> {
    let i = q * 4u;
    return array<T, 4>(load(i), load(i + 1u), load(i + 2u), load(i + 3u));
}
fn store_quad(q: u32, v: array<T, 4>) {
    let i = q * 4u;
    store(i, v[0]);
    store(i + 1u, v[1]);
    store(i + 2u, v[2]);
    store(i + 3u, v[3]);
}
";

/// Quads of one-word elements moved as one 16-byte vector: the input and output bound a
/// second time as `array<vec4<u32>>` (bindings 7 and 8, whole quads only).
const VECTOR_QUADS: &str = "
@group(0) @binding(7) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read_write> dst4: array<vec4<u32>>;
fn load_quad(q: u32) -> array<T, 4> {
    let v = src4[q];
    return array<T, 4>(bitcast<T>(v.x), bitcast<T>(v.y), bitcast<T>(v.z), bitcast<T>(v.w));
}
fn store_quad(q: u32, v: array<T, 4>) {
    dst4[q] = vec4<u32>(bitcast<u32>(v[0]), bitcast<u32>(v[1]), bitcast<u32>(v[2]), bitcast<u32>(v[3]));
}
";

#[allow(clippy::too_many_arguments)]
fn composed_with(
    monoid_wgsl: &str,
    io: &str,
    inclusive: bool,
    pass: u32,
    subgroups: bool,
    words: u32,
    policy: &ScanPolicy,
    in_place: bool,
) -> Result<Composed> {
    let direct = policy.direct(words, in_place);
    let shape = policy.shape(words, in_place);
    let mut consts = lookback_consts(shape, words, &policy.lookback, subgroups);
    let per_lane = shape.per_lane(words);
    consts.push(("DIRECT", ConstValue::Bool(direct)));
    consts.push(("QUADS", ConstValue::U32((per_lane / 4).max(1))));
    // Only the single pass may skip publishing: the two-pass mode needs every aggregate.
    if pass != 0 {
        for c in consts.iter_mut().filter(|c| c.0 == "FAULT_SKIP") {
            c.1 = ConstValue::U32(0);
        }
    }
    consts.push(("INCLUSIVE", ConstValue::Bool(inclusive)));
    consts.push(("SPLIT_REGIONS", ConstValue::Bool(pass == 2)));
    consts.push(("PASS", ConstValue::U32(pass)));
    consts.push(("SELF_CLEAR", ConstValue::Bool(policy.self_clears(pass))));
    compose(
        "scan/scan",
        &consts,
        SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            ("monoid", monoid_wgsl),
            ("scan/io", io),
        ],
    )
}

/// The scan kernel's WGSL for `config` under `policy` and pass (0 single, 1 aggregates, 2 scan).
pub fn composed(
    config: &ScanConfig,
    policy: &ScanPolicy,
    pass: u32,
    subgroups: bool,
) -> Result<Composed> {
    let direct = policy.direct(config.monoid.words(), config.in_place);
    let io = match (config.in_place, direct) {
        (true, _) => format!("#import scan/io_inplace\n{SCALAR_QUADS}"),
        (false, false) => format!("#import scan/io_separate\n{SCALAR_QUADS}"),
        (false, true) => format!("#import scan/io_separate\n{VECTOR_QUADS}"),
    };
    composed_with(
        &config.monoid.wgsl(subgroups),
        &io,
        config.inclusive,
        pass,
        subgroups,
        config.monoid.words(),
        policy,
        config.in_place,
    )
}

/// The segmented scan kernel's WGSL.
pub fn composed_segmented(
    scalar: Scalar,
    op: Op,
    inclusive: bool,
    policy: &ScanPolicy,
    subgroups: bool,
) -> Result<Composed> {
    let (monoid, io) = segmented_pieces(scalar, op, inclusive, subgroups);
    composed_with(
        &monoid,
        &format!("{io}{SCALAR_QUADS}"),
        inclusive,
        0,
        subgroups,
        2,
        policy,
        false,
    )
}

/// A scan, built once for a monoid and direction; bind it to buffers with [`Scan::bind`].
///
/// ```
/// use wavekit::{GpuContext, monoid::{Monoid, Op, Scalar}, scan::{Scan, ScanConfig}};
/// let ctx = GpuContext::new(&Default::default())?;
/// let config = ScanConfig::exclusive(Monoid::builtin(Scalar::U32, Op::Add));
/// let scan = Scan::new(&ctx, &config)?;
/// let input = ctx.storage_from("in", &[3u32, 1, 4, 1, 5])?;
/// let output = ctx.storage_uninit("out", 5 * 4)?;
/// let bound = scan.bind(&ctx, &input, Some(&output), 5)?;
/// let mut enc = ctx.device.create_command_encoder(&Default::default());
/// bound.record(&mut enc);
/// ctx.queue.submit([enc.finish()]);
/// assert_eq!(ctx.read_back::<u32>("out", &output, 5)?, [0, 3, 4, 8, 9]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct Scan {
    io: Io,
    /// Words per input element.
    words: u32,
    /// Elements per tile.
    tile: u32,
    kernels: Vec<Kernel>,
    /// Whether the kernels count every look-back window.
    counted: bool,
    /// Chunks of at most this many tiles clear their own state (ADR-0087; 0: none).
    self_clear_tiles: u32,
    /// Clears the look-back state inside the scan's pass (ADR-0081).
    clear: ClearKernel,
    /// The configuration and policy, for the small inputs' variant.
    config: ScanConfig,
    policy: ScanPolicy,
    /// The variant for small inputs (`policy.small`), built when a bind first needs it.
    small: std::sync::OnceLock<Box<Scan>>,
}

impl Scan {
    /// Build the pipelines for `config`.
    pub fn new(ctx: &GpuContext, config: &ScanConfig) -> Result<Self> {
        let sg = ctx.caps.subgroups.supported;
        let policy = config.policy.unwrap_or_else(|| ScanPolicy::for_device(ctx));
        policy.check()?;
        if ctx.caps.browser && policy.direct(config.monoid.words(), config.in_place) {
            return Err(Error::InvalidArgument(
                "a scan policy with the direct layout on the browser's WebGPU, which forbids its \
                 writable vector view of the output: set direct_layout to false, or leave the \
                 policy to ScanPolicy::for_device"
                    .into(),
            ));
        }
        let passes: &[u32] = if config.in_place { &[1, 2] } else { &[0] };
        let composed = passes
            .iter()
            .map(|&pass| composed(config, &policy, pass, sg))
            .collect::<Result<Vec<_>>>()?;
        let kernels = Kernel::build_parallel(ctx, &composed)?;
        Ok(Self {
            io: if config.in_place {
                Io::InPlace
            } else {
                Io::Separate
            },
            words: config.monoid.words(),
            tile: policy.tile_elements(config.monoid.words(), config.in_place),
            kernels,
            counted: policy.lookback.count_windows,
            self_clear_tiles: policy.self_clear_limit(config.in_place),
            clear: ClearKernel::new(ctx)?,
            config: config.clone(),
            policy,
            small: std::sync::OnceLock::new(),
        })
    }

    /// A segmented scan of `scalar` values under `op`, restarting at every element whose head
    /// flag (a separate `u32` buffer) is non-zero; `policy: None`: [`ScanPolicy::default`].
    pub fn segmented(
        ctx: &GpuContext,
        scalar: Scalar,
        op: Op,
        inclusive: bool,
        policy: Option<ScanPolicy>,
    ) -> Result<Self> {
        let sg = ctx.caps.subgroups.supported;
        let policy = policy.unwrap_or_default();
        policy.check()?;
        Ok(Self {
            io: Io::Segmented(scalar, op),
            words: 1,
            // The kernel's monoid pairs value and flag: two words, through workgroup memory.
            tile: policy.tile_elements(2, false),
            kernels: vec![Kernel::new(
                ctx,
                &composed_segmented(scalar, op, inclusive, &policy, sg)?,
            )?],
            counted: policy.lookback.count_windows,
            self_clear_tiles: policy.self_clear_limit(false),
            clear: ClearKernel::new(ctx)?,
            config: ScanConfig {
                inclusive,
                ..ScanConfig::inclusive(Monoid::builtin(scalar, op))
            },
            policy: ScanPolicy {
                small: None,
                ..policy
            },
            small: std::sync::OnceLock::new(),
        })
    }

    /// The scan that binds `n` elements: this one, or its variant for small inputs.
    fn for_size(&self, ctx: &GpuContext, n: u64) -> Result<&Scan> {
        let steps = if self.policy.direct(self.words, self.config.in_place) {
            self.policy.direct_steps
        } else {
            self.policy.blocked.steps
        };
        if !SmallInputs::applies(self.policy.small, n, steps) {
            return Ok(self);
        }
        SmallInputs::variant(&self.small, || {
            let config = ScanConfig {
                policy: Some(self.policy.for_small()),
                ..self.config.clone()
            };
            Scan::new(ctx, &config)
        })
    }

    /// Elements per tile (tile edges are worth testing).
    pub fn tile_elements(&self) -> u32 {
        self.tile
    }

    /// Bind to `n` elements of `src`, written to `dst` (`None` in place; a segmented scan
    /// takes its flags with [`Scan::bind_segmented`]).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: Option<&wgpu::Buffer>,
        n: u64,
    ) -> Result<BoundScan> {
        self.for_size(ctx, n)?.bind_all(ctx, src, dst, None, n)
    }

    /// Elements per tile for an input of `n` elements (small inputs may take smaller tiles).
    pub fn tile_elements_for(&self, ctx: &GpuContext, n: u64) -> Result<u32> {
        Ok(self.for_size(ctx, n)?.tile)
    }

    /// Bind a segmented scan: values `src`, head flags `flags` (u32, non-zero = head).
    pub fn bind_segmented(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        flags: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        n: u64,
    ) -> Result<BoundScan> {
        self.bind_all(ctx, src, Some(dst), Some(flags), n)
    }

    fn bind_all(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: Option<&wgpu::Buffer>,
        flags: Option<&wgpu::Buffer>,
        n: u64,
    ) -> Result<BoundScan> {
        check_fits("scan input", src, n, self.words)?;
        match (&self.io, dst, flags) {
            (Io::InPlace, None, None) => {}
            (Io::Separate, Some(d), None) => check_fits("scan output", d, n, self.words)?,
            (Io::Segmented(..), Some(d), Some(f)) => {
                check_fits("scan output", d, n, self.words)?;
                check_fits("segment flags", f, n, 1)?;
            }
            _ => {
                return Err(Error::InvalidArgument(
                    "scan buffers do not match its configuration: in place takes no output, \
                     out of place one output, segmented an output and flags"
                        .into(),
                ));
            }
        }
        // Inputs larger than one binding go in chunks, the carry passed along on the GPU.
        let per_chunk = chunk_elements(ctx, self.words, self.tile);
        let max_tiles = (n.min(per_chunk) as u32).div_ceil(self.tile);
        let state = state_buffer(ctx, max_tiles)?;
        let carries = [
            ctx.storage_uninit("scan carry", 16)?,
            ctx.storage_uninit("scan carry", 16)?,
        ];
        let bytes = u64::from(self.words) * 4;
        // The direct layout's vector views (bindings 7 and 8) cover the whole quads of a chunk;
        // a chunk of fewer than four elements has none and gets placeholders.
        let placeholders = [
            ctx.storage_uninit("scan placeholder", 16)?,
            ctx.storage_uninit("scan placeholder", 16)?,
        ];
        let mut chunks = Vec::new();
        let mut start = 0u64;
        while start < n {
            let len = (n - start).min(per_chunk);
            let t = (len as u32).div_ceil(self.tile);
            // The grid's workgroups, which the self-clearing kernel counts (ADR-0087); 0 where
            // a dispatch clears the state.
            let (gx, gy) = crate::kernel::grid(t);
            let groups = if t <= self.self_clear_tiles {
                gx * gy
            } else {
                0
            };
            let params = params4(ctx, len as u32, t, u32::from(start == 0), groups)?;
            let c = chunks.len();
            let mut entries: Vec<Range> = vec![
                (0, &params, 0, None),
                (1, &state, 0, None),
                (2, src, start * bytes, Some(len * bytes)),
                (5, &carries[c % 2], 0, None),
                (6, &carries[(c + 1) % 2], 0, None),
            ];
            let quad_bytes = len * bytes / 16 * 16;
            if quad_bytes == 0 {
                entries.push((7, &placeholders[0], 0, None));
            } else {
                entries.push((7, src, start * bytes, Some(quad_bytes)));
            }
            if let Some(d) = dst {
                entries.push((3, d, start * bytes, Some(len * bytes)));
                if quad_bytes == 0 {
                    entries.push((8, &placeholders[1], 0, None));
                } else {
                    entries.push((8, d, start * bytes, Some(quad_bytes)));
                }
            }
            if let Some(f) = flags {
                entries.push((4, f, start * 4, Some(len * 4)));
            }
            let binds = self
                .kernels
                .iter()
                .map(|k| k.bind_ranges(ctx, &entries))
                .collect::<Result<Vec<_>>>()?;
            chunks.push(Chunk {
                binds,
                tiles: t,
                self_clearing: groups != 0,
                _params: params,
            });
            start += len;
        }
        Ok(BoundScan {
            kernels: self.kernels.clone(),
            chunks,
            clear: self.clear.bind(ctx, &[&state])?,
            // wgpu hands out buffers zeroed: a self-clearing scan's first run finds its state
            // clear, and leaves it so.
            state,
            counted: self.counted,
            _carries: carries,
        })
    }
}

/// One chunk of a scan: at most one binding's worth of elements.
#[derive(Debug)]
struct Chunk {
    binds: Vec<wgpu::BindGroup>,
    tiles: u32,
    /// Its last workgroup clears the state (ADR-0087): no clearing dispatch before it.
    self_clearing: bool,
    _params: wgpu::Buffer,
}

/// A scan bound to its buffers and scratch, ready to record any number of times.
#[derive(Debug)]
pub struct BoundScan {
    kernels: Vec<Kernel>,
    chunks: Vec<Chunk>,
    clear: BoundClear,
    state: wgpu::Buffer,
    counted: bool,
    _carries: [wgpu::Buffer; 2],
}

impl BoundScan {
    /// What the look-back did in the last run (after the commands completed; the last chunk's).
    /// A self-clearing scan ([`ScanPolicy::self_clear_tiles`]) sums its waits and fallbacks
    /// over every run since it was bound.
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<LookbackStats> {
        crate::tiling::lookback_stats(ctx, &self.state, self.counted)
    }

    /// How many chunks (bindings) the input is split into.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Record the scan into `enc`: one compute pass, each chunk's look-back state cleared by a
    /// dispatch before its scan (ADR-0081), or by the scan itself as it ends (ADR-0087).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = record::compute_pass(enc, "wavekit.scan");
        for chunk in &self.chunks {
            if !chunk.self_clearing {
                self.clear.dispatch(&mut pass);
            }
            for (k, b) in self.kernels.iter().zip(&chunk.binds) {
                k.dispatch(&mut pass, b, chunk.tiles);
            }
        }
    }
}

/// Scan a slice on the GPU: a one-call convenience (builds pipelines each call; keep a
/// [`Scan`] for repeated use).
pub fn scan_slice<T: Element>(
    ctx: &GpuContext,
    data: &[T],
    op: Op,
    inclusive: bool,
) -> Result<Vec<T>> {
    let config = ScanConfig {
        inclusive,
        ..ScanConfig::inclusive(Monoid::builtin(T::SCALAR, op))
    };
    let scan = Scan::new(ctx, &config)?;
    let src = ctx.storage_from("scan input", data)?;
    let dst = ctx.storage_uninit("scan output", std::mem::size_of_val(data) as u64)?;
    let bound = scan.bind(ctx, &src, Some(&dst), data.len() as u64)?;
    ctx.submit_checked("a scan", |enc| bound.record(enc))?;
    ctx.read_back("scan output", &dst, data.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant the scan builds, with subgroups and without, validates with naga, and
    /// every one of its WGSL files is used.
    #[test]
    fn every_variant_validates() {
        let policy = ScanPolicy::default();
        let custom = Monoid::custom(
            "argmin",
            "vec2<u32>",
            "vec2<u32>(0xffffffffu)",
            "select(a, b, b.x < a.x)",
            false,
        )
        .unwrap();
        let mut variants = Vec::new();
        for sg in [true, false] {
            for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
                for op in [Op::Add, Op::Min, Op::Max] {
                    let m = Monoid::builtin(scalar, op);
                    for (inclusive, in_place) in [(true, false), (false, false), (true, true)] {
                        let c = ScanConfig {
                            in_place,
                            inclusive,
                            ..ScanConfig::inclusive(m.clone())
                        };
                        for pass in if in_place { vec![1, 2] } else { vec![0] } {
                            variants.push((composed(&c, &policy, pass, sg).unwrap(), sg));
                        }
                    }
                    let c = composed_segmented(scalar, op, false, &policy, sg).unwrap();
                    variants.push((c, sg));
                }
            }
            let c = ScanConfig::exclusive(custom.clone());
            variants.push((composed(&c, &policy, 0, sg).unwrap(), sg));
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
    }

    #[test]
    fn tiles_follow_the_policy() {
        let p = ScanPolicy::default();
        assert_eq!(p.tile_elements(1, false), 256 * SCAN_STEPS * 4);
        assert_eq!(p.tile_elements(1, true), 256 * PRIMITIVE_STEPS * 4);
        assert_eq!(p.tile_elements(2, false), 256 * PRIMITIVE_STEPS * 2);
        let blocked = ScanPolicy {
            direct_layout: false,
            ..p
        };
        assert_eq!(blocked.tile_elements(1, false), 256 * PRIMITIVE_STEPS * 4);
        let bad = ScanPolicy {
            direct_steps: 0,
            ..p
        };
        assert!(bad.check().is_err());
    }
}
