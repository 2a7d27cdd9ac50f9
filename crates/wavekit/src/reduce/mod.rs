//! Device-wide reduce for any monoid in one dispatch: each workgroup reduces a contiguous run
//! of tiles to a partial, and the last workgroup to finish combines the partials (ADR-0080).
//! Deterministic: the combine order is fixed by the tile layout and the device's subgroup
//! width.

use crate::context::GpuContext;
use crate::error::Error;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernel::Range;
use crate::monoid::{Element, Monoid, Op};
use crate::prelude::subgroup_api;
use crate::record;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tiling::{SmallInputs, TileShape, check_fits, chunk_elements, params, tile_consts};
use crate::tuning::{
    PRIMITIVE_VEC, PRIMITIVE_WORKGROUP, REDUCE_MAX_WORKGROUPS, REDUCE_STEPS, SMALL_STEPS,
    SMALL_UP_TO,
};

/// The reduce's WGSL files.
pub static SOURCES: &[WgslSource] = &[crate::wgsl_source!("reduce/reduce", "reduce.wgsl")];

/// How a reduce is tiled (the measurements are in [`crate::tuning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReducePolicy {
    /// The tile.
    pub tile: TileShape,
    /// Most workgroups (each takes a contiguous run of tiles), 1 to 65535.
    pub max_workgroups: u32,
    /// Small inputs' tiles (their steps), `None`: the policy's tiles for every size.
    pub small: Option<SmallInputs>,
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
            small: Some(SmallInputs {
                up_to: SMALL_UP_TO,
                steps: SMALL_STEPS,
            }),
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
        SmallInputs::check(self.small, "reduce")
    }

    /// The policy small inputs take (the same where it has no rule for them).
    pub fn for_small(&self) -> Self {
        match self.small {
            Some(r) => Self {
                tile: self.tile.with_steps(r.steps),
                small: None,
                ..*self
            },
            None => *self,
        }
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
    let q = quads(monoid.words(), policy.tile);
    consts.push(("QUADS", ConstValue::Bool(q)));
    consts.push(("QUAD_LOADS", ConstValue::U32(u32::from(q))));
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
    monoid: Monoid,
    /// The variant for small inputs (`policy.small`), built when a bind first needs it.
    small: std::sync::OnceLock<Box<Reduce>>,
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
            monoid: monoid.clone(),
            small: std::sync::OnceLock::new(),
        })
    }

    /// The reduce that binds `n` elements: this one, or its variant for small inputs.
    fn for_size(&self, ctx: &GpuContext, n: u64) -> Result<&Reduce> {
        if !SmallInputs::applies(self.policy.small, n, self.policy.tile.steps) {
            return Ok(self);
        }
        SmallInputs::variant(&self.small, || {
            let config = ReduceConfig {
                monoid: self.monoid.clone(),
                policy: Some(self.policy.for_small()),
            };
            Reduce::new(ctx, &config)
        })
    }

    /// Elements per tile for an input of `n` elements (small inputs may take smaller tiles).
    pub fn tile_elements_for(&self, ctx: &GpuContext, n: u64) -> Result<u32> {
        Ok(self.for_size(ctx, n)?.tile_elements())
    }

    /// Elements per tile (tile edges are worth testing).
    pub fn tile_elements(&self) -> u32 {
        self.policy.tile.elements()
    }

    /// Bind to the first `n` elements of `src`. The result (one element; the identity for
    /// `n == 0`) is in [`BoundReduce::result`] after the recorded commands run. One dispatch
    /// within one binding; inputs past one binding take one a chunk, a copy of each chunk's
    /// result, and one more over those.
    pub fn bind(&self, ctx: &GpuContext, src: &wgpu::Buffer, n: u64) -> Result<BoundReduce> {
        let this = self.for_size(ctx, n)?;
        if !std::ptr::eq(this, self) {
            return this.bind(ctx, src, n);
        }
        check_fits("reduce input", src, n, self.words)?;
        let bytes = u64::from(self.words) * 4;
        let per_chunk = chunk_elements(ctx, self.words, self.tile_elements());
        let count = n.div_ceil(per_chunk);
        // Scratch shared by every dispatch (they run one after another): the partials of the
        // largest, and the count of finished workgroups (zeroed once here; each run's last
        // workgroup sets it back to 0).
        let most = (n.min(per_chunk) as u32).max(count as u32);
        let partials =
            ctx.storage_uninit("reduce partials", u64::from(self.groups(most)) * bytes)?;
        let finished = ctx.storage_from("reduce finished workgroups", &[0u32; 4])?;
        let scratch = Scratch {
            partials: &partials,
            finished: &finished,
        };
        let result = ctx.storage_uninit("reduce result", bytes)?;
        if count <= 1 {
            let last = self.pass(ctx, &scratch, (1, src, 0, None), n as u32, &result)?;
            return Ok(BoundReduce {
                kernel: self.kernel.clone(),
                chunks: Vec::new(),
                totals: None,
                element_bytes: bytes,
                last,
                result,
                _scratch: [partials, finished],
            });
        }
        // Larger than one binding: reduce each chunk, gather the chunk results in order, and
        // reduce those.
        let totals = ctx.storage_uninit("reduce chunk totals", count * bytes)?;
        let mut chunks = Vec::new();
        for c in 0..count {
            let start = c * per_chunk;
            let len = (n - start).min(per_chunk);
            let out = ctx.storage_uninit("reduce chunk result", bytes)?;
            let pass = self.pass(
                ctx,
                &scratch,
                (1, src, start * bytes, Some(len * bytes)),
                len as u32,
                &out,
            )?;
            chunks.push((pass, out));
        }
        let last = self.pass(ctx, &scratch, (1, &totals, 0, None), count as u32, &result)?;
        Ok(BoundReduce {
            kernel: self.kernel.clone(),
            chunks,
            totals: Some(totals),
            element_bytes: bytes,
            last,
            result,
            _scratch: [partials, finished],
        })
    }

    /// Workgroups of a dispatch over `len` elements.
    fn groups(&self, len: u32) -> u32 {
        let (_, groups) = self.split(len);
        groups
    }

    /// Tiles per workgroup and workgroups for `len` elements.
    fn split(&self, len: u32) -> (u32, u32) {
        let t = len.div_ceil(self.tile_elements()).max(1);
        let per_group = t.div_ceil(t.min(self.policy.max_workgroups));
        (per_group, t.div_ceil(per_group))
    }

    /// The dispatch reducing `len` elements bound at `input` into `out`'s first element.
    fn pass(
        &self,
        ctx: &GpuContext,
        scratch: &Scratch<'_>,
        input: Range<'_>,
        len: u32,
        out: &wgpu::Buffer,
    ) -> Result<Pass> {
        let bytes_per = u64::from(self.words) * 4;
        let t = len.div_ceil(self.tile_elements()).max(1);
        let (per_group, groups) = self.split(len);
        let p = params(ctx, len, t, per_group)?;
        // The quad view: the same range's whole quads (a placeholder without any).
        let quad_bytes = if quads(self.words, self.policy.tile) {
            u64::from(len) / 4 * 16
        } else {
            0
        };
        let quad = if quad_bytes == 0 {
            (3, &self.placeholder, 0, None)
        } else {
            (3, input.1, input.2, Some(quad_bytes))
        };
        let partial_bytes = u64::from(groups) * bytes_per;
        let bind = self.kernel.bind_ranges(
            ctx,
            &[
                (0, &p, 0, None),
                input,
                (2, scratch.partials, 0, Some(partial_bytes)),
                quad,
                (4, scratch.finished, 0, None),
                (5, out, 0, None),
            ],
        )?;
        Ok(Pass {
            bind,
            groups,
            _params: p,
        })
    }
}

/// The scratch every dispatch of one bound reduce shares.
struct Scratch<'a> {
    partials: &'a wgpu::Buffer,
    finished: &'a wgpu::Buffer,
}

/// One dispatch: `groups` workgroups, the last of which writes the result.
#[derive(Debug)]
struct Pass {
    bind: wgpu::BindGroup,
    groups: u32,
    _params: wgpu::Buffer,
}

/// A reduce bound to its input and scratch.
#[derive(Debug)]
pub struct BoundReduce {
    kernel: Kernel,
    /// Inputs larger than one binding: a dispatch per chunk, each result copied into `totals`.
    chunks: Vec<(Pass, wgpu::Buffer)>,
    totals: Option<wgpu::Buffer>,
    element_bytes: u64,
    last: Pass,
    result: wgpu::Buffer,
    _scratch: [wgpu::Buffer; 2],
}

impl BoundReduce {
    /// Record the reduction: one dispatch within one binding.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        for (c, (pass, out)) in self.chunks.iter().enumerate() {
            {
                let mut cp = record::compute_pass(enc, "wavekit.reduce");
                self.kernel.dispatch(&mut cp, &pass.bind, pass.groups);
            }
            if let Some(totals) = &self.totals {
                let bytes = self.element_bytes;
                record::copy(enc, out, 0, totals, c as u64 * bytes, Some(bytes));
            }
        }
        let mut cp = record::compute_pass(enc, "wavekit.reduce");
        self.kernel
            .dispatch(&mut cp, &self.last.bind, self.last.groups);
    }

    /// The buffer whose first element is the result.
    pub fn result(&self) -> &wgpu::Buffer {
        &self.result
    }

    /// Workgroups of the (last) dispatch.
    pub fn workgroups(&self) -> u32 {
        self.last.groups
    }
}

/// Reduce a slice on the GPU (one-call convenience).
pub fn reduce_slice<T: Element>(ctx: &GpuContext, data: &[T], op: Op) -> Result<T> {
    let r = Reduce::new(ctx, &ReduceConfig::new(Monoid::builtin(T::SCALAR, op)))?;
    let src = ctx.storage_from("reduce input", data)?;
    let bound = r.bind(ctx, &src, data.len() as u64)?;
    ctx.submit_checked("a reduce", |enc| bound.record(enc))?;
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
            // Every lane width a tile allows (1 and 2 failed validation before ADR-0080).
            for vec in [1, 2, 8] {
                let v = ReducePolicy {
                    tile: p.tile.with_vec(vec),
                    ..p
                };
                let add = Monoid::builtin(Scalar::U32, Op::Add);
                variants.push((composed(&add, &v, sg).unwrap(), sg));
            }
        }
        crate::shader::check_kernels(SOURCES, &variants).unwrap();
        let bad = ReducePolicy {
            max_workgroups: 0,
            ..p
        };
        assert!(bad.check().is_err());
    }
}
