//! Device-wide reduce for any monoid: levels of contiguous-range partials until one value is
//! left (two levels up to 2^32 elements). Deterministic: the combine order is fixed by the
//! tile layout and the device's subgroup width.

use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernel::Range;
use crate::monoid::{Element, Monoid, Op};
use crate::primitive::{
    check_fits, chunk_elements, params, reduce_steps, reduce_tile, subgroup_api, tile_consts, vec,
    with_steps,
};
use crate::shader::{Composed, ConstValue, compose};
use crate::tuning::REDUCE_MAX_WORKGROUPS;

/// [`REDUCE_MAX_WORKGROUPS`] unless `WAVEKIT_REDUCE_GROUPS` (a tuning knob) says otherwise.
fn max_groups() -> u32 {
    crate::primitive::env_u32("WAVEKIT_REDUCE_GROUPS")
        .filter(|g| (1..=65535).contains(g))
        .unwrap_or(REDUCE_MAX_WORKGROUPS)
}

/// Whether one-word elements are loaded as 16-byte quads (four to a lane and step).
fn quads(words: u32) -> bool {
    words == 1 && vec() == 4
}

/// Elements per tile of reduce (its tile boundaries are worth testing).
pub fn tile_elements() -> u32 {
    reduce_tile()
}

/// The reduce kernel's WGSL for `monoid`.
pub fn composed(monoid: &Monoid, subgroups: bool) -> Result<Composed> {
    let mut consts = with_steps(tile_consts(subgroups), reduce_steps(), vec());
    consts.push(("COMMUTATIVE", ConstValue::Bool(monoid.commutative())));
    consts.push(("QUADS", ConstValue::Bool(quads(monoid.words()))));
    let m = monoid.wgsl(subgroups);
    compose(
        "reduce/reduce",
        &consts,
        &[("subgroup/api", subgroup_api(subgroups)), ("monoid", &m)],
    )
}

/// A reduce, built once for a monoid.
///
/// ```
/// use wavekit::{GpuContext, monoid::{Monoid, Op, Scalar}, reduce::Reduce};
/// let ctx = GpuContext::from_env()?;
/// let sum = Reduce::new(&ctx, &Monoid::builtin(Scalar::U32, Op::Add))?;
/// let input = ctx.storage_from("in", &[3u32, 1, 4, 1, 5])?;
/// let bound = sum.bind(&ctx, &input, 5)?;
/// let mut enc = ctx.device.create_command_encoder(&Default::default());
/// bound.record(&mut enc);
/// ctx.queue.submit([enc.finish()]);
/// assert_eq!(ctx.read_back::<u32>("sum", bound.result(), 1)?, [14]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct Reduce {
    kernel: Kernel,
    words: u32,
    placeholder: wgpu::Buffer,
}

/// One level: `n` inputs to `groups` partials.
#[derive(Debug)]
struct Level {
    bind: wgpu::BindGroup,
    groups: u32,
    _params: wgpu::Buffer,
}

impl Reduce {
    /// Build the pipeline.
    pub fn new(ctx: &GpuContext, monoid: &Monoid) -> Result<Self> {
        Ok(Self {
            kernel: Kernel::new(ctx, &composed(monoid, ctx.caps.subgroups.supported)?)?,
            words: monoid.words(),
            placeholder: ctx.storage_uninit("reduce no quads", 16)?,
        })
    }

    /// Bind to the first `n` elements of `src`. The result (one element; the identity for
    /// `n == 0`) is in [`BoundReduce::result`] after the recorded commands run.
    pub fn bind(&self, ctx: &GpuContext, src: &wgpu::Buffer, n: u64) -> Result<BoundReduce> {
        check_fits("reduce input", src, n, self.words)?;
        let bytes = u64::from(self.words) * 4;
        let per_chunk = chunk_elements(ctx, self.words, reduce_tile());
        if n <= per_chunk {
            let last = self.levels(ctx, (1, src, 0, None), n as u32)?;
            return Ok(BoundReduce {
                kernel: self.kernel.clone(),
                chunks: Vec::new(),
                totals: None,
                element_bytes: bytes,
                last,
            });
        }
        // Larger than one binding: reduce each chunk, gather the chunk results in order, and
        // reduce those.
        let count = n.div_ceil(per_chunk);
        let totals = ctx.storage_uninit("reduce chunk totals", count * bytes)?;
        let mut chunks = Vec::new();
        for c in 0..count {
            let start = c * per_chunk;
            let len = (n - start).min(per_chunk);
            chunks.push(self.levels(
                ctx,
                (1, src, start * bytes, Some(len * bytes)),
                len as u32,
            )?);
        }
        let last = self.levels(ctx, (1, &totals, 0, None), count as u32)?;
        Ok(BoundReduce {
            kernel: self.kernel.clone(),
            chunks,
            totals: Some(totals),
            element_bytes: bytes,
            last,
        })
    }

    /// The levels reducing `len` elements bound at `input` to one.
    fn levels(&self, ctx: &GpuContext, input: Range<'_>, len: u32) -> Result<Levels> {
        let bytes_per = u64::from(self.words) * 4;
        let mut levels = Vec::new();
        let mut buffers: Vec<wgpu::Buffer> = Vec::new();
        let mut len = len;
        loop {
            let t = len.div_ceil(reduce_tile()).max(1);
            let groups = t.min(max_groups());
            let per_group = t.div_ceil(groups);
            let groups = t.div_ceil(per_group);
            let out = ctx.storage_uninit("reduce partials", u64::from(groups) * bytes_per)?;
            let p = params(ctx, len, t, per_group)?;
            let from = match buffers.last() {
                Some(b) => (1, b, 0, Some(u64::from(len) * bytes_per)),
                None => input,
            };
            // The quad view: the same range's whole quads (a placeholder without any).
            let quad_bytes = if quads(self.words) {
                u64::from(len) / 4 * 16
            } else {
                0
            };
            let quad = if quad_bytes == 0 {
                (3, &self.placeholder, 0, None)
            } else {
                (3, from.1, from.2, Some(quad_bytes))
            };
            let bind = self
                .kernel
                .bind_ranges(ctx, &[(0, &p, 0, None), from, (2, &out, 0, None), quad])?;
            levels.push(Level {
                bind,
                groups,
                _params: p,
            });
            buffers.push(out);
            if groups == 1 {
                break;
            }
            len = groups;
        }
        Ok(Levels { levels, buffers })
    }
}

/// Levels of partials down to one value.
#[derive(Debug)]
struct Levels {
    levels: Vec<Level>,
    buffers: Vec<wgpu::Buffer>,
}

impl Levels {
    fn record(&self, kernel: &Kernel, enc: &mut wgpu::CommandEncoder) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.reduce"),
            timestamp_writes: None,
        });
        for l in &self.levels {
            kernel.dispatch(&mut pass, &l.bind, l.groups);
        }
    }

    fn result(&self) -> &wgpu::Buffer {
        self.buffers.last().expect("at least one level")
    }
}

/// A reduce bound to its input and scratch.
#[derive(Debug)]
pub struct BoundReduce {
    kernel: Kernel,
    /// Inputs larger than one binding: one set of levels per chunk, gathered into `totals`.
    chunks: Vec<Levels>,
    totals: Option<wgpu::Buffer>,
    element_bytes: u64,
    last: Levels,
}

impl BoundReduce {
    /// Record the reduction.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        for (c, chunk) in self.chunks.iter().enumerate() {
            chunk.record(&self.kernel, enc);
            if let Some(totals) = &self.totals {
                let bytes = self.element_bytes;
                enc.copy_buffer_to_buffer(chunk.result(), 0, totals, c as u64 * bytes, bytes);
            }
        }
        self.last.record(&self.kernel, enc);
    }

    /// The buffer whose first element is the result.
    pub fn result(&self) -> &wgpu::Buffer {
        self.last.result()
    }
}

/// Reduce a slice on the GPU (one-call convenience).
pub fn reduce_slice<T: Element>(ctx: &GpuContext, data: &[T], op: Op) -> Result<T> {
    let r = Reduce::new(ctx, &Monoid::builtin(T::SCALAR, op))?;
    let src = ctx.storage_from("reduce input", data)?;
    let bound = r.bind(ctx, &src, data.len() as u64)?;
    ctx.submit(|enc| bound.record(enc));
    Ok(ctx.read_back::<T>("reduce result", bound.result(), 1)?[0])
}
