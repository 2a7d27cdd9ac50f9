//! Stream compaction: select (keep the elements whose flag is set or whose predicate holds,
//! in order) and partition (kept elements first, then the rest, both in their original order
//! — CUB's partition reverses the rejected side; this one does not). The number kept is left
//! on the GPU (a `u32` usable for an indirect dispatch) and can be read by the host.

use crate::clear::{BoundClear, ClearKernel};
use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Range};
use crate::monoid::{Element, Monoid, Op, Scalar};
use crate::prelude::subgroup_api;
use crate::record;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{
    LookbackPolicy, LookbackStats, SmallInputs, TileShape, check_fits, chunk_elements,
    lookback_consts, params4, state_buffer,
};
use crate::tuning::{
    PARTITION_COUNT_WORKGROUPS, PARTITION_STAGE_STEPS, PARTITION_STEPS, PRIMITIVE_WORKGROUP,
    SELECT_SELF_CLEAR_TILES, SELECT_STAGE_STEPS, SELECT_STEPS, SMALL_STEPS, SMALL_UP_TO,
};

/// Select's and partition's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    crate::wgsl_source!("select/select", "select.wgsl"),
    crate::wgsl_source!("select/count", "count.wgsl"),
];

/// Elements per step of select and partition: a tile is WG × STEPS × 4 elements, a lane
/// holds STEPS × 4 of them (one per subgroup-wide step, ADR-0033), and the look-back's fallback
/// and the partition's count read them as 16-byte quads.
const SELECT_VEC: u32 = 4;

/// How select and partition are tiled (the measurements are in [`crate::tuning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SelectPolicy {
    /// Invocations per workgroup (128, 256, 512 or 1024).
    pub workgroup: u32,
    /// Steps of four elements per tile of select.
    pub select_steps: u32,
    /// Steps of four elements per tile of partition (and its count kernel).
    pub partition_steps: u32,
    /// Elements per lane stored in one batch through workgroup memory by select; 0 (or a
    /// value that does not divide the elements per lane): straight from registers.
    pub select_stage_steps: u32,
    /// The same for partition (both sides staged together).
    pub partition_stage_steps: u32,
    /// Most workgroups of partition's count pass.
    pub count_workgroups: u32,
    /// The look-back.
    pub lookback: LookbackPolicy,
    /// Small inputs' tiles (select's and partition's steps), `None`: the policy's tiles for
    /// every size.
    pub small: Option<SmallInputs>,
    /// Inputs of one chunk and at most this many tiles leave their look-back state (and
    /// partition's count) cleared for the next run, so no clearing dispatch comes first:
    /// select in one dispatch, partition in two (ADR-0089, as the scan's ADR-0087). Larger
    /// ones are cleared by a dispatch; 0: always. Ignored when the look-back counts its windows
    /// (its statistics are per run).
    pub self_clear_tiles: u32,
}

impl Default for SelectPolicy {
    fn default() -> Self {
        Self {
            workgroup: PRIMITIVE_WORKGROUP,
            select_steps: SELECT_STEPS,
            partition_steps: PARTITION_STEPS,
            select_stage_steps: SELECT_STAGE_STEPS,
            partition_stage_steps: PARTITION_STAGE_STEPS,
            count_workgroups: PARTITION_COUNT_WORKGROUPS,
            lookback: LookbackPolicy::default(),
            small: Some(SmallInputs {
                up_to: SMALL_UP_TO,
                steps: SMALL_STEPS,
            }),
            self_clear_tiles: SELECT_SELF_CLEAR_TILES,
        }
    }
}

/// Which select.
#[derive(Clone, Debug)]
pub struct SelectConfig {
    /// The element type.
    pub scalar: Scalar,
    /// What is kept.
    pub keep: Keep,
    /// Also write the rejected elements after the kept ones (both sides in order: ADR-0037).
    pub partition: bool,
    /// The tiling; `None`: [`SelectPolicy::default`], measured on the H200.
    pub policy: Option<SelectPolicy>,
}

impl SelectConfig {
    /// Elements of `scalar` kept by `keep` (with the rejected after them if `partition`), the
    /// default policy.
    pub fn new(scalar: Scalar, keep: Keep, partition: bool) -> Self {
        Self {
            scalar,
            keep,
            partition,
            policy: None,
        }
    }
}

impl SelectPolicy {
    /// The policy small inputs take (the same where it has no rule for them).
    pub fn for_small(&self) -> Self {
        match self.small {
            Some(r) => Self {
                select_steps: r.steps,
                partition_steps: r.steps,
                small: None,
                ..*self
            },
            None => *self,
        }
    }

    /// The tile of select (`false`) or partition (`true`).
    pub fn shape(&self, partition: bool) -> TileShape {
        TileShape {
            workgroup: self.workgroup,
            steps: if partition {
                self.partition_steps
            } else {
                self.select_steps
            },
            vec: SELECT_VEC,
        }
    }

    /// Elements per tile of select or partition (their tile boundaries are worth testing).
    pub fn tile_elements(&self, partition: bool) -> u32 {
        self.shape(partition).elements()
    }

    /// Fails on a shape the kernels are not written for.
    pub fn check(&self) -> Result<()> {
        self.shape(false).check("select")?;
        self.shape(true).check("partition")?;
        if !(1..=65535).contains(&self.count_workgroups) {
            return Err(Error::InvalidArgument(format!(
                "partition: count_workgroups {}: use 1 to 65535",
                self.count_workgroups
            )));
        }
        SmallInputs::check(self.small, "select")?;
        self.lookback.check("select")
    }

    /// The most tiles an input may have and clear its own state (0: none).
    fn self_clear_limit(&self) -> u32 {
        if self.lookback.count_windows {
            0
        } else {
            self.self_clear_tiles
        }
    }

    /// Elements per lane and batch staged through workgroup memory (0: from registers).
    fn stage_steps(&self, partition: bool, per_lane: u32) -> u32 {
        let s = if partition {
            self.partition_stage_steps
        } else {
            self.select_stage_steps
        };
        if s == 0 || !per_lane.is_multiple_of(s) {
            0
        } else {
            s
        }
    }
}

/// Bytes of the counts buffer: survivors, the partition total, three indirect arguments, two
/// carry words for chunked inputs, one unused.
const COUNTS_BYTES: u64 = 32;

/// Which elements survive.
#[derive(Clone, Debug, PartialEq)]
pub enum Keep {
    /// A `u32` flag per element in its own buffer; non-zero keeps.
    Flags,
    /// A WGSL function `fn keep(x: D, i: u32) -> bool` (D is the element type).
    Predicate(String),
}

/// The `select/io` piece.
fn io_piece(scalar: Scalar, keep: &Keep) -> String {
    let d = scalar.wgsl();
    let mut s = format!(
        "alias D = {d};\n\
         @group(0) @binding(3) var<storage, read> src: array<D>;\n\
         @group(0) @binding(5) var<storage, read_write> dst: array<D>;\n\
         fn load_data(i: u32) -> D {{\n    return src[i];\n}}\n\
         fn store_data(i: u32, v: D) {{\n    dst[i] = v;\n}}\n\
         // The input (and flags) again as 16-byte vectors, whole quads only (bindings 6, 7).\n\
         @group(0) @binding(6) var<storage, read> src4: array<vec4<D>>;\n\
         fn load_quad(q: u32) -> vec4<D> {{\n    return src4[q];\n}}\n"
    );
    match keep {
        Keep::Flags => s.push_str(
            "@group(0) @binding(4) var<storage, read> flags: array<u32>;\n\
             fn keep_at(i: u32) -> bool {\n    return flags[i] != 0u;\n}\n\
             fn keep_value(x: D, i: u32) -> bool {\n    return flags[i] != 0u;\n}\n\
             @group(0) @binding(7) var<storage, read> flags4: array<vec4<u32>>;\n\
             fn keep_quad(x: vec4<D>, q: u32) -> vec4<bool> {\n    return flags4[q] != vec4<u32>(0u);\n}\n",
        ),
        Keep::Predicate(_) => s.push_str(
            "#import select/predicate\n\
             fn keep_at(i: u32) -> bool {\n    return keep(src[i], index_base() + i);\n}\n\
             fn keep_value(x: D, i: u32) -> bool {\n    return keep(x, index_base() + i);\n}\n\
             fn keep_quad(x: vec4<D>, q: u32) -> vec4<bool> {\n\
             \x20   let i = index_base() + q * 4u;\n\
             \x20   return vec4<bool>(keep(x.x, i), keep(x.y, i + 1u), keep(x.z, i + 2u), keep(x.w, i + 3u));\n}\n",
        ),
    }
    s.push_str(
        "// Survivors among elements i0..i0+3 that lie below n: one 16-byte load where the quad\n\
         // is whole (the partition's count, select's look-back fallback).\n\
         fn kept_in_quad(i0: u32, n: u32) -> u32 {\n\
         \x20   if (i0 + 3u < n) {\n\
         \x20       let q = i0 / 4u;\n\
         \x20       return dot(vec4<u32>(keep_quad(load_quad(q), q)), vec4<u32>(1u));\n\
         \x20   }\n\
         \x20   var count = 0u;\n\
         \x20   for (var j = 0u; j < 4u; j++) {\n\
         \x20       if (i0 + j < n && keep_at(i0 + j)) {\n\
         \x20           count += 1u;\n\
         \x20       }\n\
         \x20   }\n\
         \x20   return count;\n}\n",
    );
    s
}

fn compose_kernel(
    name: &str,
    scalar: Scalar,
    keep: &Keep,
    partition: bool,
    policy: &SelectPolicy,
    subgroups: bool,
) -> Result<Composed> {
    // The count kernel (partition only) walks the partition's tiles.
    let shape = policy.shape(partition || name == "select/count");
    let steps = shape.steps;
    let mut consts = lookback_consts(shape, 1, &policy.lookback, subgroups);
    consts.push(("PARTITION", ConstValue::Bool(partition)));
    consts.push((
        "SELF_CLEAR",
        ConstValue::Bool(policy.self_clear_limit() != 0),
    ));
    let stage = policy.stage_steps(partition, steps * SELECT_VEC);
    consts.push(("STAGE_STEPS", ConstValue::U32(stage)));
    consts.push((
        "STAGE_BATCHES",
        ConstValue::U32((steps * SELECT_VEC).checked_div(stage).unwrap_or(0)),
    ));
    consts.push(("SPLIT_REGIONS", ConstValue::Bool(false)));
    // One keep bit per element and lane, in words.
    consts.push((
        "KEEP_WORDS",
        ConstValue::U32((steps * SELECT_VEC).div_ceil(32)),
    ));
    let monoid = Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups);
    let io = io_piece(scalar, keep);
    let predicate = match keep {
        Keep::Predicate(p) => p.as_str(),
        Keep::Flags => "",
    };
    compose(
        name,
        &consts,
        SOURCES,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            ("monoid", &monoid),
            ("select/io", &io),
            ("select/predicate", predicate),
        ],
    )
}

/// The select kernel's WGSL.
pub fn composed(
    scalar: Scalar,
    keep: &Keep,
    partition: bool,
    policy: &SelectPolicy,
    subgroups: bool,
) -> Result<Composed> {
    compose_kernel("select/select", scalar, keep, partition, policy, subgroups)
}

/// The partition count kernel's WGSL.
pub fn composed_count(
    scalar: Scalar,
    keep: &Keep,
    policy: &SelectPolicy,
    subgroups: bool,
) -> Result<Composed> {
    compose_kernel("select/count", scalar, keep, false, policy, subgroups)
}

/// A select or partition, built once.
///
/// ```
/// use wavekit::{GpuContext, monoid::Scalar, select::{Keep, Select, SelectConfig}};
/// let ctx = GpuContext::new(&Default::default())?;
/// let keep = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return (x & 1u) == 1u; }".into());
/// let odd = Select::new(&ctx, &SelectConfig::new(Scalar::U32, keep, false))?;
/// let input = ctx.storage_from("in", &[3u32, 8, 5, 6, 7])?;
/// let output = ctx.storage_uninit("out", 5 * 4)?;
/// let bound = odd.bind(&ctx, &input, None, &output, 5)?;
/// let mut enc = ctx.device.create_command_encoder(&Default::default());
/// bound.record(&mut enc);
/// ctx.queue.submit([enc.finish()]);
/// let kept = ctx.read_back::<u32>("count", bound.count(), 1)?[0] as usize;
/// assert_eq!(ctx.read_back::<u32>("out", &output, kept)?, [3, 5, 7]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct Select {
    keep: Keep,
    /// Elements per tile (select's and partition's differ).
    tile: u32,
    indirect_items: u32,
    select: Kernel,
    count: Option<Kernel>,
    policy: SelectPolicy,
    /// Clears the count and the look-back state inside the select's pass (ADR-0081).
    clear: ClearKernel,
    /// The configuration, for the small inputs' variant.
    config: SelectConfig,
    /// The variant for small inputs (`policy.small`), built when a bind first needs it.
    small: std::sync::OnceLock<Box<Select>>,
}

impl Select {
    /// Build the pipelines for `config` (its policy is checked here).
    pub fn new(ctx: &GpuContext, config: &SelectConfig) -> Result<Self> {
        let policy = config.policy.unwrap_or_default();
        let (scalar, keep, partition) = (config.scalar, &config.keep, config.partition);
        policy.check()?;
        let sg = ctx.caps.subgroups.supported;
        let mut composed = vec![composed(scalar, keep, partition, &policy, sg)?];
        if partition {
            composed.push(composed_count(scalar, keep, &policy, sg)?);
        }
        let mut kernels = Kernel::build_parallel(ctx, &composed)?.into_iter();
        Ok(Self {
            keep: keep.clone(),
            tile: policy.tile_elements(partition),
            indirect_items: 256,
            select: kernels.next().expect("the select kernel"),
            count: kernels.next(),
            policy,
            clear: ClearKernel::new(ctx)?,
            config: config.clone(),
            small: std::sync::OnceLock::new(),
        })
    }

    /// The select that binds `n` elements: this one, or its variant for small inputs.
    fn for_size(&self, ctx: &GpuContext, n: u64) -> Result<&Select> {
        let steps = if self.config.partition {
            self.policy.partition_steps
        } else {
            self.policy.select_steps
        };
        if !SmallInputs::applies(self.policy.small, n, steps) {
            return Ok(self);
        }
        SmallInputs::variant(&self.small, || {
            let config = SelectConfig {
                policy: Some(self.policy.for_small()),
                ..self.config.clone()
            };
            Select::new(ctx, &config)?.with_indirect_items(self.indirect_items)
        })
    }

    /// Elements per tile for an input of `n` elements (small inputs may take smaller tiles).
    pub fn tile_elements_for(&self, ctx: &GpuContext, n: u64) -> Result<u32> {
        Ok(self.for_size(ctx, n)?.tile)
    }

    /// Elements per tile (tile edges are worth testing).
    pub fn tile_elements(&self) -> u32 {
        self.tile
    }

    /// Items each workgroup of the caller's indirect dispatch over the survivors handles (the
    /// arguments at [`BoundSelect::indirect_args`] are `ceil(survivors / items), 1, 1`).
    /// Default 256.
    pub fn with_indirect_items(mut self, items: u32) -> Result<Self> {
        if items == 0 {
            return Err(Error::InvalidArgument(
                "indirect items per workgroup must be at least 1".into(),
            ));
        }
        self.indirect_items = items;
        Ok(self)
    }

    /// Bind to `n` elements of `src` (and `flags`, one u32 each, with [`Keep::Flags`]),
    /// writing to `dst`. Inputs past one storage binding are dispatched in chunks, in order;
    /// the output may span two bindings (on the H200: any buffer the adapter allows).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        flags: Option<&wgpu::Buffer>,
        dst: &wgpu::Buffer,
        n: u64,
    ) -> Result<BoundSelect> {
        let this = self.for_size(ctx, n)?;
        if !std::ptr::eq(this, self) {
            return this.bind(ctx, src, flags, dst, n);
        }
        check_fits("select input", src, n, 1)?;
        check_fits("select output", dst, n, 1)?;
        let n = u32::try_from(n).map_err(|_| {
            Error::InvalidArgument(format!("select of {n} elements: at most 2^32 - 1"))
        })?;
        match (&self.keep, flags) {
            (Keep::Flags, Some(f)) => {
                check_fits("select flags", f, u64::from(n), 1)?;
            }
            (Keep::Predicate(_), None) => {}
            (Keep::Flags, None) => {
                return Err(Error::InvalidArgument(
                    "select with Keep::Flags needs a flags buffer".into(),
                ));
            }
            (Keep::Predicate(_), Some(_)) => {
                return Err(Error::InvalidArgument(
                    "select with a predicate takes no flags buffer".into(),
                ));
            }
        }
        let tile = self.tile;
        // Elements per chunk: whole tiles, one storage binding, aligned for binding offsets.
        // The output's first window is a whole binding (aligned, but not to tiles, so that a
        // tile that does not divide a binding costs no range); the rest goes to a second one.
        let chunk = chunk_elements(ctx, 1, tile).min(u64::from(u32::MAX)) as u32;
        let window = chunk_elements(ctx, 1, 1).min(u64::from(u32::MAX)) as u32;
        if u64::from(n) > 2 * u64::from(window) {
            return Err(Error::InvalidArgument(format!(
                "select of {n} elements: its output would need more than two storage bindings \
                 of {window} elements; select at most {} at once",
                2 * u64::from(window)
            )));
        }
        let counts = ctx.scoped("creating buffer 'select counts'", || {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wavekit.select.counts"),
                size: COUNTS_BYTES,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let placeholder = ctx.storage_uninit("select placeholder", 16)?;
        // A second one: a buffer may not be read-only and read-write in one dispatch.
        let no_hi = ctx.storage_uninit("select no second output window", 16)?;
        let out_lo = (u64::from(n.min(window)) * 4).max(4);
        let dst_lo: Range = (5, dst, 0, Some(out_lo));
        let dst_hi: Range = if n > window {
            (
                8,
                dst,
                u64::from(window) * 4,
                Some(u64::from(n - window) * 4),
            )
        } else {
            (8, &no_hi, 0, None)
        };
        let mut chunks = Vec::new();
        // One chunk at least: an empty input still clears the count.
        let chunk_count = n.div_ceil(chunk).max(1);
        // An input of one chunk and few tiles clears its own state (ADR-0089): the grid's
        // workgroups, which the kernel counts; 0 where a dispatch clears it. An empty input has
        // no dispatch to clear the count.
        let tiles = n.div_ceil(tile);
        let groups = if chunk_count == 1 && tiles > 0 && tiles <= self.policy.self_clear_limit() {
            let (gx, gy) = crate::kernel::grid(tiles);
            gx * gy
        } else {
            0
        };
        for c in 0..chunk_count {
            let start = c * chunk;
            let len = (n - start).min(chunk);
            let t = len.div_ceil(tile);
            let state = state_buffer(ctx, t)?;
            let p = ctx.uniform_from(
                "select params",
                &[len, t, self.indirect_items, start, c % 2, window, groups, 0],
            )?;
            let offset = u64::from(start) * 4;
            let bytes = (u64::from(len) * 4).max(4);
            // The vector views cover the whole quads; fewer than four elements have none.
            let quad_bytes = u64::from(len) / 4 * 16;
            let view =
                |binding, b| chunk_views(binding, b, &placeholder, offset, bytes, quad_bytes);
            let (src_v, src_q) = view(3, src);
            let mut entries: Vec<Range> = vec![
                (0, &p, 0, None),
                (1, &state, 0, None),
                (2, &counts, 0, None),
                src_v,
                dst_lo,
                src_q,
                dst_hi,
            ];
            let flag_views = flags.map(|f| view(4, f));
            if let Some((fv, fq)) = flag_views {
                entries.push(fv);
                entries.push(fq);
            }
            let bind = self.select.bind_ranges(ctx, &entries)?;
            let count = match &self.count {
                Some(k) => {
                    let groups = t.clamp(1, self.policy.count_workgroups);
                    let per_group = t.div_ceil(groups).max(1);
                    let cp = params4(ctx, len, t, per_group, start)?;
                    let mut entries: Vec<Range> =
                        vec![(0, &cp, 0, None), (2, &counts, 0, None), src_v, src_q];
                    if let Some((fv, fq)) = flag_views {
                        entries.push(fv);
                        entries.push(fq);
                    }
                    let b = k.bind_ranges(ctx, &entries)?;
                    Some((b, t.div_ceil(per_group), cp))
                }
                None => None,
            };
            chunks.push(SelectChunk {
                bind,
                count,
                state,
                _params: p,
                tiles: t,
            });
        }
        // The count and every chunk's state, four buffers a clear; none when the kernel
        // clears them itself (wgpu hands out buffers zeroed: its first run finds them clear,
        // and leaves them so).
        let scratch: Vec<&wgpu::Buffer> = std::iter::once(&counts)
            .chain(chunks.iter().map(|c| &c.state))
            .collect();
        let clears = if groups != 0 {
            Vec::new()
        } else {
            scratch
                .chunks(crate::clear::MAX_BUFFERS)
                .map(|b| self.clear.bind(ctx, b))
                .collect::<Result<Vec<_>>>()?
        };
        Ok(BoundSelect {
            select: self.select.clone(),
            count_kernel: self.count.clone(),
            chunks,
            clears,
            counts,
            counted: self.policy.lookback.count_windows,
            _placeholders: [placeholder, no_hi],
        })
    }
}

/// A chunk's binding of buffer `b` at `binding` (`bytes` from `offset`) and of its whole
/// quads at `binding + 3` (the placeholder when there are none).
fn chunk_views<'a>(
    binding: u32,
    b: &'a wgpu::Buffer,
    placeholder: &'a wgpu::Buffer,
    offset: u64,
    bytes: u64,
    quad_bytes: u64,
) -> (Range<'a>, Range<'a>) {
    let whole = (binding, b, offset, Some(bytes));
    let quads = if quad_bytes == 0 {
        (binding + 3, placeholder, 0, None)
    } else {
        (binding + 3, b, offset, Some(quad_bytes))
    };
    (whole, quads)
}

/// One chunk of a select's input: its bind groups, look-back state and tiles.
#[derive(Debug)]
struct SelectChunk {
    bind: wgpu::BindGroup,
    /// Partition: the count kernel's bind group, workgroups and parameters.
    count: Option<(wgpu::BindGroup, u32, wgpu::Buffer)>,
    state: wgpu::Buffer,
    _params: wgpu::Buffer,
    tiles: u32,
}

/// A select bound to its buffers and scratch.
#[derive(Debug)]
pub struct BoundSelect {
    select: Kernel,
    count_kernel: Option<Kernel>,
    chunks: Vec<SelectChunk>,
    clears: Vec<BoundClear>,
    counts: wgpu::Buffer,
    counted: bool,
    _placeholders: [wgpu::Buffer; 2],
}

impl BoundSelect {
    /// What the look-back did in the last run (after the commands completed), summed over
    /// chunks.
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<LookbackStats> {
        let mut all = LookbackStats::default();
        for c in &self.chunks {
            let s = crate::tiling::lookback_stats(ctx, &c.state, self.counted)?;
            all.waited_windows += s.waited_windows;
            all.fallbacks += s.fallbacks;
            all.windows += s.windows;
        }
        Ok(all)
    }

    /// Record the select: one compute pass, its count and look-back state cleared by a
    /// dispatch first (ADR-0081), or by the select itself as it ends (small inputs,
    /// [`SelectPolicy::self_clear_tiles`], ADR-0089).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = record::compute_pass(enc, "wavekit.select");
        for c in &self.clears {
            c.dispatch(&mut pass);
        }
        if self.chunks.iter().all(|c| c.tiles == 0) {
            return;
        }
        // Partition: every chunk's survivors are counted before any is placed.
        if let Some(k) = &self.count_kernel {
            for c in &self.chunks {
                if let Some((b, groups, _)) = &c.count {
                    k.dispatch(&mut pass, b, *groups);
                }
            }
        }
        for c in &self.chunks {
            self.select.dispatch(&mut pass, &c.bind, c.tiles);
        }
    }

    /// The buffer whose first `u32` is the number of elements kept.
    pub fn count(&self) -> &wgpu::Buffer {
        &self.counts
    }

    /// Indirect dispatch arguments over the survivors, `(buffer, offset)` for
    /// `ComputePass::dispatch_workgroups_indirect`: `ceil(survivors / items), 1, 1` (items from
    /// [`Select::with_indirect_items`]). Written by the same recorded commands; zero groups
    /// when nothing survives.
    pub fn indirect_args(&self) -> (&wgpu::Buffer, u64) {
        (&self.counts, 8)
    }
}

/// Keep `data[i]` where `flags[i] != 0`, in order (one-call convenience).
pub fn select_slice<T: Element>(ctx: &GpuContext, data: &[T], flags: &[u32]) -> Result<Vec<T>> {
    let (out, kept) = run_slice(ctx, data, flags, false)?;
    Ok(out[..kept].to_vec())
}

/// Kept elements first, then the rest, both in order; and the kept count.
pub fn partition_slice<T: Element>(
    ctx: &GpuContext,
    data: &[T],
    flags: &[u32],
) -> Result<(Vec<T>, usize)> {
    run_slice(ctx, data, flags, true)
}

fn run_slice<T: Element>(
    ctx: &GpuContext,
    data: &[T],
    flags: &[u32],
    partition: bool,
) -> Result<(Vec<T>, usize)> {
    if flags.len() != data.len() {
        return Err(Error::InvalidArgument(format!(
            "{} flags for {} elements: give one flag per element",
            flags.len(),
            data.len()
        )));
    }
    let s = Select::new(ctx, &SelectConfig::new(T::SCALAR, Keep::Flags, partition))?;
    let src = ctx.storage_from("select input", data)?;
    let f = ctx.storage_from("select flags", flags)?;
    let dst = ctx.storage_uninit("select output", std::mem::size_of_val(data) as u64)?;
    let bound = s.bind(ctx, &src, Some(&f), &dst, data.len() as u64)?;
    ctx.submit_checked("a select", |enc| bound.record(enc))?;
    let kept = ctx.read_back::<u32>("select count", bound.count(), 1)?[0] as usize;
    let out = ctx.read_back("select output", &dst, data.len())?;
    Ok((out, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_validates() {
        let p = SelectPolicy::default();
        let keeps = [
            Keep::Flags,
            Keep::Predicate("fn keep(x: f32, i: u32) -> bool { return x > 0.0; }".into()),
        ];
        let mut variants = Vec::new();
        for sg in [true, false] {
            for keep in &keeps {
                for partition in [false, true] {
                    let c = composed(Scalar::F32, keep, partition, &p, sg).unwrap();
                    variants.push((c, sg));
                }
                variants.push((composed_count(Scalar::F32, keep, &p, sg).unwrap(), sg));
            }
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
    }

    #[test]
    fn staging_that_does_not_divide_the_lane_stores_from_registers() {
        let p = SelectPolicy {
            select_stage_steps: 5,
            ..Default::default()
        };
        assert_eq!(p.stage_steps(false, 52), 0);
        assert_eq!(p.stage_steps(true, 64), PARTITION_STAGE_STEPS);
        assert_eq!(SelectPolicy::default().stage_steps(false, 52), 13);
        let bad = SelectPolicy {
            count_workgroups: 0,
            ..Default::default()
        };
        assert!(bad.check().is_err());
    }
}
