//! Device-wide reduce for any monoid: levels of contiguous-range partials until one value is
//! left (two levels up to 2^32 elements). Deterministic: the combine order is fixed by the
//! tile layout and the device's subgroup width.

use crate::context::GpuContext;
use crate::error::Error;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernel::Range;
use crate::monoid::{Element, Monoid, Op};
use crate::prelude::subgroup_api;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{TileShape, check_fits, chunk_elements, params, tile_consts};
use crate::tuning::{PRIMITIVE_VEC, PRIMITIVE_WORKGROUP, REDUCE_MAX_WORKGROUPS, REDUCE_STEPS};

/// The reduce's WGSL files.
pub static SOURCES: &[WgslSource] = &[crate::wgsl_source!("reduce/reduce", "reduce.wgsl")];

/// How a reduce is tiled (the measurements are in [`crate::tuning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReducePolicy {
    /// The tile.
    pub tile: TileShape,
    /// Most workgroups of a level (each takes a contiguous run of tiles), 1 to 65535.
    pub max_workgroups: u32,
}

impl Default for ReducePolicy {
    fn default() -> Self {
        Self {
            tile: TileShape {
                workgroup: PRIMITIVE_WORKGROUP,
                steps: REDUCE_STEPS,
                vec: PRIMITIVE_VEC,
            },
            max_workgroups: REDUCE_MAX_WORKGROUPS,
        }
    }
}

/// Which reduce.
#[derive(Clone, Debug)]
pub struct ReduceConfig {
    /// The operation.
    pub monoid: Monoid,
    /// The tiling; `None`: [`ReducePolicy::default`], measured on the H200.
    pub policy: Option<ReducePolicy>,
}

impl ReduceConfig {
    /// A reduce of `monoid` with the default policy.
    pub fn new(monoid: Monoid) -> Self {
        Self {
            monoid,
            policy: None,
        }
    }
}

impl ReducePolicy {
    /// Fails on a shape the kernel is not written for.
    pub fn check(&self) -> Result<()> {
        self.tile.check("reduce")?;
        if !(1..=65535).contains(&self.max_workgroups) {
            return Err(Error::InvalidArgument(format!(
                "reduce: max_workgroups {}: use 1 to 65535",
                self.max_workgroups
            )));
        }
        Ok(())
    }
}

/// Whether one-word elements are loaded as 16-byte quads (four to a lane and step).
fn quads(words: u32, tile: TileShape) -> bool {
    words == 1 && tile.vec == 4
}

/// The reduce kernel's WGSL for `monoid`.
pub fn composed(monoid: &Monoid, policy: &ReducePolicy, subgroups: bool) -> Result<Composed> {
    let mut consts = tile_consts(policy.tile, subgroups);
    consts.push(("COMMUTATIVE", ConstValue::Bool(monoid.commutative())));
    consts.push((
        "QUADS",
        ConstValue::Bool(quads(monoid.words(), policy.tile)),
    ));
    let m = monoid.wgsl(subgroups);
    compose(
        "reduce/reduce",
        &consts,
        SOURCES,
        &[("subgroup/api", subgroup_api(subgroups)), ("monoid", &m)],
    )
}

/// A reduce, built once for a monoid.
///
/// ```
/// use wavekit::{GpuContext, monoid::{Monoid, Op, Scalar}, reduce::{Reduce, ReduceConfig}};
/// let ctx = GpuContext::new(&Default::default())?;
/// let sum = Reduce::new(&ctx, &ReduceConfig::new(Monoid::builtin(Scalar::U32, Op::Add)))?;
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
    policy: ReducePolicy,
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
    /// Build the pipeline for `config` (its policy is checked here).
    pub fn new(ctx: &GpuContext, config: &ReduceConfig) -> Result<Self> {
        let policy = config.policy.unwrap_or_default();
        let monoid = &config.monoid;
        policy.check()?;
        let sg = ctx.caps.subgroups.supported;
        Ok(Self {
            kernel: Kernel::new(ctx, &composed(monoid, &policy, sg)?)?,
            words: monoid.words(),
            policy,
            placeholder: ctx.storage_uninit("reduce no quads", 16)?,
        })
    }

    /// Elements per tile (tile edges are worth testing).
    pub fn tile_elements(&self) -> u32 {
        self.policy.tile.elements()
    }

    /// Bind to the first `n` elements of `src`. The result (one element; the identity for
    /// `n == 0`) is in [`BoundReduce::result`] after the recorded commands run.
    pub fn bind(&self, ctx: &GpuContext, src: &wgpu::Buffer, n: u64) -> Result<BoundReduce> {
        check_fits("reduce input", src, n, self.words)?;
        let bytes = u64::from(self.words) * 4;
        let per_chunk = chunk_elements(ctx, self.words, self.tile_elements());
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
            let t = len.div_ceil(self.tile_elements()).max(1);
            let groups = t.min(self.policy.max_workgroups);
            let per_group = t.div_ceil(groups);
            let groups = t.div_ceil(per_group);
            let out = ctx.storage_uninit("reduce partials", u64::from(groups) * bytes_per)?;
            let p = params(ctx, len, t, per_group)?;
            let from = match buffers.last() {
                Some(b) => (1, b, 0, Some(u64::from(len) * bytes_per)),
                None => input,
            };
            // The quad view: the same range's whole quads (a placeholder without any).
            let quad_bytes = if quads(self.words, self.policy.tile) {
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
    let r = Reduce::new(ctx, &ReduceConfig::new(Monoid::builtin(T::SCALAR, op)))?;
    let src = ctx.storage_from("reduce input", data)?;
    let bound = r.bind(ctx, &src, data.len() as u64)?;
    ctx.submit(|enc| bound.record(enc));
    Ok(ctx.read_back::<T>("reduce result", bound.result(), 1)?[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monoid::Scalar;

    #[test]
    fn every_variant_validates() {
        let custom = Monoid::custom(
            "argmin",
            "vec2<u32>",
            "vec2<u32>(0xffffffffu)",
            "select(a, b, b.x < a.x)",
            false,
        )
        .unwrap();
        let p = ReducePolicy::default();
        let mut variants = Vec::new();
        for sg in [true, false] {
            for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
                for op in [Op::Add, Op::Min, Op::Max] {
                    let c = composed(&Monoid::builtin(scalar, op), &p, sg).unwrap();
                    variants.push((c, sg));
                }
            }
            variants.push((composed(&custom, &p, sg).unwrap(), sg));
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
        let bad = ReducePolicy {
            max_workgroups: 0,
            ..p
        };
        assert!(bad.check().is_err());
    }
}
