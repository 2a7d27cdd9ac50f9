//! Device layer: setting scratch buffers to zero with one dispatch inside a primitive's
//! compute pass. On the H200 a `clear_buffer` between dispatches cost about 8 µs (it ends the
//! pass, and the transfer waits for the work before it and holds up the work after), a
//! dependent dispatch about 2 µs: the look-back state of the scan, select and sort and the
//! histogram's counters are cleared this way (ADR-0081). The CPU twin is `fill(0)`.

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::shader::{Composed, ConstValue, WgslSource, compose};

/// The WGSL file of this kernel.
pub static SOURCES: &[WgslSource] = &[crate::wgsl_source!("clear/clear", "clear.wgsl")];

/// Invocations per workgroup.
const WORKGROUP: u32 = 256;
/// Most workgroups of a clear (each invocation then clears several words).
const MAX_WORKGROUPS: u32 = 1024;
/// Buffers one clear takes.
pub const MAX_BUFFERS: usize = 4;

/// The clear kernel; bind it to the buffers to clear with [`ClearKernel::bind`].
///
/// ```
/// use wavekit::{GpuContext, clear::ClearKernel};
/// let ctx = GpuContext::new(&Default::default())?;
/// let a = ctx.storage_from("a", &[7u32; 1000])?;
/// let b = ctx.storage_from("b", &[9u32; 5])?;
/// let clear = ClearKernel::new(&ctx)?.bind(&ctx, &[&a, &b])?;
/// ctx.submit(|enc| {
///     let mut pass = enc.begin_compute_pass(&Default::default());
///     clear.dispatch(&mut pass);
/// });
/// assert_eq!(ctx.read_back::<u32>("a", &a, 1000)?, vec![0; 1000]);
/// assert_eq!(ctx.read_back::<u32>("b", &b, 5)?, vec![0; 5]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ClearKernel {
    kernel: Kernel,
}

impl ClearKernel {
    /// The kernel's WGSL.
    pub fn composed() -> Result<Composed> {
        compose(
            "clear/clear",
            &[("WG_SIZE", ConstValue::U32(WORKGROUP))],
            SOURCES,
            &[],
        )
    }

    /// Build the pipeline.
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        Ok(Self {
            kernel: Kernel::new(ctx, &Self::composed()?)?,
        })
    }

    /// Bind 1 to [`MAX_BUFFERS`] distinct whole buffers (each a multiple of 4 bytes, within one
    /// storage binding) to be set to zero by one dispatch.
    pub fn bind(&self, ctx: &GpuContext, buffers: &[&wgpu::Buffer]) -> Result<BoundClear> {
        if buffers.is_empty() || buffers.len() > MAX_BUFFERS {
            return Err(Error::InvalidArgument(format!(
                "clear: {} buffers: give 1 to {MAX_BUFFERS}",
                buffers.len()
            )));
        }
        for (i, a) in buffers.iter().enumerate() {
            if buffers[..i].contains(a) {
                let j = buffers[..i].iter().position(|b| b == a).unwrap_or(0);
                return Err(Error::InvalidArgument(format!(
                    "clear: one buffer ({} bytes) is given twice, at {j} and {i}: give each \
                     buffer once",
                    a.size()
                )));
            }
        }
        let limit = ctx.binding_limit();
        let mut words = [0u32; 4];
        for (w, b) in words.iter_mut().zip(buffers) {
            if b.size() > limit || !b.size().is_multiple_of(4) {
                return Err(Error::InvalidArgument(format!(
                    "clear: a buffer of {} bytes: it must be a multiple of 4 bytes within one \
                     storage binding ({limit} bytes)",
                    b.size()
                )));
            }
            *w = (b.size() / 4) as u32;
        }
        let most = words.iter().copied().max().unwrap_or(0);
        let workgroups = most.div_ceil(WORKGROUP).clamp(1, MAX_WORKGROUPS);
        let params = ctx.uniform_from(
            "clear params",
            &[
                words[0],
                words[1],
                words[2],
                words[3],
                workgroups * WORKGROUP,
                0,
                0,
                0,
            ],
        )?;
        // A placeholder of its own for each unused binding: WebGPU forbids one buffer in two
        // writable bindings of a dispatch.
        let placeholders = (buffers.len()..MAX_BUFFERS)
            .map(|_| ctx.storage_uninit("clear placeholder", 16))
            .collect::<Result<Vec<_>>>()?;
        let mut entries = vec![(0, &params, 0, None)];
        for (i, b) in buffers.iter().copied().chain(&placeholders).enumerate() {
            entries.push((i as u32 + 1, b, 0, None));
        }
        let bind = self.kernel.bind_ranges(ctx, &entries)?;
        Ok(BoundClear {
            kernel: self.kernel.clone(),
            bind,
            workgroups,
            _params: params,
            _placeholders: placeholders,
        })
    }
}

/// A clear bound to its buffers.
#[derive(Debug)]
pub struct BoundClear {
    kernel: Kernel,
    bind: wgpu::BindGroup,
    workgroups: u32,
    _params: wgpu::Buffer,
    _placeholders: Vec<wgpu::Buffer>,
}

impl BoundClear {
    /// Record the clear as a dispatch in `pass` (the dispatches after it that use the buffers
    /// see zeros: wgpu puts a barrier between).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.kernel.dispatch(pass, &self.bind, self.workgroups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_validates() {
        crate::shader::check_kernels(SOURCES, &[(ClearKernel::composed().unwrap(), false)])
            .unwrap();
    }
}
