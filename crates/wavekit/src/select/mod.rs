//! Stream compaction: select (keep the elements whose flag is set or whose predicate holds,
//! in order) and partition (kept elements first, then the rest, both in their original order
//! — CUB's partition reverses the rejected side; this one does not). The number kept is left
//! on the GPU (a `u32` usable for an indirect dispatch) and can be read by the host.

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, Range};
use crate::monoid::{Element, Monoid, Op, Scalar};
use crate::primitive::{
    SELECT_VEC, check_len, lookback_consts, params, params4, select_steps, select_tile,
    state_buffer, subgroup_api, with_steps,
};
use crate::shader::{Composed, ConstValue, compose};
use crate::tuning::REDUCE_MAX_WORKGROUPS;

/// Bytes of the counts buffer: survivors, the partition total, three indirect arguments.
const COUNTS_BYTES: u64 = 20;

/// A binding of the first `quad_bytes` of `b` (its whole quads), or of `placeholder` when
/// there are none.
fn quad_view<'a>(
    binding: u32,
    b: &'a wgpu::Buffer,
    placeholder: &'a wgpu::Buffer,
    quad_bytes: u64,
) -> Range<'a> {
    if quad_bytes == 0 {
        (binding, placeholder, 0, None)
    } else {
        (binding, b, 0, Some(quad_bytes))
    }
}

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
             fn keep_at(i: u32) -> bool {\n    return keep(src[i], i);\n}\n\
             fn keep_value(x: D, i: u32) -> bool {\n    return keep(x, i);\n}\n\
             fn keep_quad(x: vec4<D>, q: u32) -> vec4<bool> {\n\
             \x20   let i = q * 4u;\n\
             \x20   return vec4<bool>(keep(x.x, i), keep(x.y, i + 1u), keep(x.z, i + 2u), keep(x.w, i + 3u));\n}\n",
        ),
    }
    s
}

fn compose_kernel(
    name: &str,
    scalar: Scalar,
    keep: &Keep,
    partition: bool,
    subgroups: bool,
) -> Result<Composed> {
    let mut consts = with_steps(lookback_consts(subgroups, 1), select_steps(), SELECT_VEC);
    consts.push(("PARTITION", ConstValue::Bool(partition)));
    consts.push(("SPLIT_REGIONS", ConstValue::Bool(false)));
    let monoid = Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups);
    let io = io_piece(scalar, keep);
    let predicate = match keep {
        Keep::Predicate(p) => p.as_str(),
        Keep::Flags => "",
    };
    compose(
        name,
        &consts,
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            ("monoid", &monoid),
            ("select/io", &io),
            ("select/predicate", predicate),
        ],
    )
}

/// Elements per tile of select and partition (their tile boundaries are worth testing).
pub fn tile_elements() -> u32 {
    select_tile()
}

/// The select kernel's WGSL.
pub fn composed(scalar: Scalar, keep: &Keep, partition: bool, subgroups: bool) -> Result<Composed> {
    compose_kernel("select/select", scalar, keep, partition, subgroups)
}

/// A kernel that compacts, in every workgroup, the local indices whose flag is set (in
/// order) with `workgroup/compact.wgsl`: `out[wg * WG_SIZE + slot] = local index`,
/// `totals[wg] = survivors`. It exists to test the workgroup-level function other kernels
/// (the UI compositor's tile lists, the sort) build on.
pub fn composed_workgroup_compact(subgroups: bool) -> Result<Composed> {
    compose(
        "select/workgroup_compact",
        &lookback_consts(subgroups, 1),
        &[
            ("subgroup/api", subgroup_api(subgroups)),
            (
                "monoid",
                &Monoid::builtin(Scalar::U32, Op::Add).wgsl(subgroups),
            ),
        ],
    )
}

/// The partition count kernel's WGSL.
pub fn composed_count(scalar: Scalar, keep: &Keep, subgroups: bool) -> Result<Composed> {
    compose_kernel("select/count", scalar, keep, false, subgroups)
}

/// A select or partition, built once.
///
/// ```
/// use wavekit::{GpuContext, monoid::Scalar, select::{Keep, Select}};
/// let ctx = GpuContext::from_env()?;
/// let odd = Select::new(&ctx, Scalar::U32,
///     &Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return (x & 1u) == 1u; }".into()),
///     false)?;
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
    indirect_items: u32,
    select: Kernel,
    count: Option<Kernel>,
}

impl Select {
    /// Build the pipelines: elements of `scalar` type kept by `keep`; `partition` also
    /// writes the rejected elements after the kept ones.
    pub fn new(ctx: &GpuContext, scalar: Scalar, keep: &Keep, partition: bool) -> Result<Self> {
        let sg = ctx.caps.subgroups.supported;
        let count = if partition {
            Some(Kernel::new(ctx, &composed_count(scalar, keep, sg)?)?)
        } else {
            None
        };
        Ok(Self {
            keep: keep.clone(),
            indirect_items: 256,
            select: Kernel::new(ctx, &composed(scalar, keep, partition, sg)?)?,
            count,
        })
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
    /// writing to `dst`.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        flags: Option<&wgpu::Buffer>,
        dst: &wgpu::Buffer,
        n: u64,
    ) -> Result<BoundSelect> {
        let n = check_len(ctx, "select input", src, n, 1)?;
        check_len(ctx, "select output", dst, u64::from(n), 1)?;
        match (&self.keep, flags) {
            (Keep::Flags, Some(f)) => {
                check_len(ctx, "select flags", f, u64::from(n), 1)?;
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
        let t = n.div_ceil(select_tile());
        let state = state_buffer(ctx, t)?;
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
        let p = params4(ctx, n, t, self.indirect_items, 0)?;
        // The vector views cover the whole quads; fewer than four elements have none.
        let quad_bytes = u64::from(n) / 4 * 16;
        let placeholder = ctx.storage_uninit("select placeholder", 16)?;
        let mut entries: Vec<Range> = vec![
            (0, &p, 0, None),
            (1, &state, 0, None),
            (2, &counts, 0, None),
            (3, src, 0, None),
            (5, dst, 0, None),
            quad_view(6, src, &placeholder, quad_bytes),
        ];
        if let Some(f) = flags {
            entries.push((4, f, 0, None));
            entries.push(quad_view(7, f, &placeholder, quad_bytes));
        }
        let bind = self.select.bind_ranges(ctx, &entries)?;
        let count = match &self.count {
            Some(k) => {
                let groups = t.clamp(1, REDUCE_MAX_WORKGROUPS);
                let per_group = t.div_ceil(groups).max(1);
                let cp = params(ctx, n, t, per_group)?;
                let mut entries: Vec<Range> = vec![
                    (0, &cp, 0, None),
                    (2, &counts, 0, None),
                    (3, src, 0, None),
                    quad_view(6, src, &placeholder, quad_bytes),
                ];
                if let Some(f) = flags {
                    entries.push((4, f, 0, None));
                    entries.push(quad_view(7, f, &placeholder, quad_bytes));
                }
                let b = k.bind_ranges(ctx, &entries)?;
                Some((k.clone(), b, t.div_ceil(per_group), cp))
            }
            None => None,
        };
        Ok(BoundSelect {
            select: self.select.clone(),
            bind,
            count,
            state,
            counts,
            _params: p,
            tiles: t,
        })
    }
}

/// A select bound to its buffers and scratch.
#[derive(Debug)]
pub struct BoundSelect {
    select: Kernel,
    bind: wgpu::BindGroup,
    count: Option<(Kernel, wgpu::BindGroup, u32, wgpu::Buffer)>,
    state: wgpu::Buffer,
    counts: wgpu::Buffer,
    _params: wgpu::Buffer,
    tiles: u32,
}

impl BoundSelect {
    /// What the look-back did in the last run (after the commands completed).
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<crate::primitive::LookbackStats> {
        crate::primitive::lookback_stats(ctx, &self.state)
    }

    /// Record the select (clears its scratch and count first).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        enc.clear_buffer(&self.counts, 0, None);
        if self.tiles == 0 {
            return;
        }
        enc.clear_buffer(&self.state, 0, None);
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.select"),
            timestamp_writes: None,
        });
        if let Some((k, b, groups, _)) = &self.count {
            k.dispatch(&mut pass, b, *groups);
        }
        self.select.dispatch(&mut pass, &self.bind, self.tiles);
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
    let s = Select::new(ctx, T::SCALAR, &Keep::Flags, partition)?;
    let src = ctx.storage_from("select input", data)?;
    let f = ctx.storage_from("select flags", flags)?;
    let dst = ctx.storage_uninit("select output", std::mem::size_of_val(data) as u64)?;
    let bound = s.bind(ctx, &src, Some(&f), &dst, data.len() as u64)?;
    ctx.submit(|enc| bound.record(enc));
    let kept = ctx.read_back::<u32>("select count", bound.count(), 1)?[0] as usize;
    let out = ctx.read_back("select output", &dst, data.len())?;
    Ok((out, kept))
}
