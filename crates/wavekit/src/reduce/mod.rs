//! Device-wide reduce for any monoid: levels of contiguous-range partials until one value is
//! left (two levels up to 2^32 elements). Deterministic: the combine order is fixed by the
//! tile layout and the device's subgroup width.

use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::monoid::{Element, Monoid, Op};
use crate::primitive::{check_len, params, subgroup_api, tile_consts, tiles};
use crate::shader::{Composed, ConstValue, compose};
use crate::tuning::REDUCE_MAX_WORKGROUPS;

/// The reduce kernel's WGSL for `monoid`.
pub fn composed(monoid: &Monoid, subgroups: bool) -> Result<Composed> {
    let mut consts = tile_consts(subgroups);
    consts.push(("COMMUTATIVE", ConstValue::Bool(monoid.commutative())));
    let m = monoid.wgsl(subgroups);
    compose(
        "reduce/reduce",
        &consts,
        &[("subgroup/api", subgroup_api(subgroups)), ("monoid", &m)],
    )
}

/// A reduce, built once for a monoid.
///
/// ```no_run
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
        })
    }

    /// Bind to the first `n` elements of `src`. The result (one element; the identity for
    /// `n == 0`) is in [`BoundReduce::result`] after the recorded commands run.
    pub fn bind(&self, ctx: &GpuContext, src: &wgpu::Buffer, n: u64) -> Result<BoundReduce> {
        let n = check_len(ctx, "reduce input", src, n, self.words)?;
        let bytes_per = u64::from(self.words) * 4;
        let mut levels = Vec::new();
        let mut buffers = Vec::new();
        let mut len = n;
        loop {
            let t = tiles(len, 1).max(1);
            let groups = t.min(REDUCE_MAX_WORKGROUPS);
            let per_group = t.div_ceil(groups);
            let groups = t.div_ceil(per_group);
            let out = ctx.storage_uninit("reduce partials", u64::from(groups) * bytes_per)?;
            let p = params(ctx, len, t, per_group)?;
            let input = buffers.last().unwrap_or(src);
            let bind = self.kernel.bind(ctx, &[(0, &p), (1, input), (2, &out)])?;
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
        Ok(BoundReduce {
            kernel: self.kernel.clone(),
            levels,
            buffers,
        })
    }
}

/// A reduce bound to its input and scratch.
#[derive(Debug)]
pub struct BoundReduce {
    kernel: Kernel,
    levels: Vec<Level>,
    buffers: Vec<wgpu::Buffer>,
}

impl BoundReduce {
    /// Record the reduction.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.reduce"),
            timestamp_writes: None,
        });
        for l in &self.levels {
            self.kernel.dispatch(&mut pass, &l.bind, l.groups);
        }
    }

    /// The buffer whose first element is the result.
    pub fn result(&self) -> &wgpu::Buffer {
        self.buffers.last().expect("at least one level")
    }
}

/// Reduce a slice on the GPU (one-call convenience).
pub fn reduce_slice<T: Element>(ctx: &GpuContext, data: &[T], op: Op) -> Result<T> {
    let r = Reduce::new(ctx, &Monoid::builtin(T::SCALAR, op))?;
    let src = ctx.storage_from("reduce input", data)?;
    let bound = r.bind(ctx, &src, data.len() as u64)?;
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    bound.record(&mut enc);
    ctx.queue.submit([enc.finish()]);
    Ok(ctx.read_back::<T>("reduce result", bound.result(), 1)?[0])
}
