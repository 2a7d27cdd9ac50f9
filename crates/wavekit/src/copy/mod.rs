//! Device layer: copying bytes between buffers with a compute kernel, several times faster
//! than `copy_buffer_to_buffer` on the H200 (DEVICE.md). It is also the benchmarks' 100 % line
//! (`bench::bench_copy`).

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::record;
use crate::shader::{Composed, ConstValue, WgslSource, compose};
use crate::tuning::{COPY_MAX_WORKGROUPS, COPY_WORKGROUP};

/// The WGSL file of this kernel.
pub static SOURCES: &[WgslSource] = &[crate::wgsl_source!("copy/copy", "copy.wgsl")];

/// A grid-stride `vec4<u32>` copy kernel; bind it to two buffers with [`CopyKernel::bind`].
///
/// ```
/// use wavekit::{GpuContext, copy::CopyKernel};
/// let ctx = GpuContext::new(&Default::default())?;
/// let src = ctx.storage_from("src", &[1u32, 2, 3, 4, 5])?;
/// let dst = ctx.storage_uninit("dst", 5 * 4)?;
/// let copy = CopyKernel::new(&ctx)?.bind(&ctx, &src, &dst, 5 * 4)?;
/// ctx.submit(|enc| copy.record(enc));
/// assert_eq!(ctx.read_back::<u32>("dst", &dst, 5)?, [1, 2, 3, 4, 5]);
/// # Ok::<(), wavekit::Error>(())
/// ```
#[derive(Debug)]
pub struct CopyKernel {
    pipeline: wgpu::ComputePipeline,
}

impl CopyKernel {
    /// The kernel's WGSL.
    pub fn composed() -> Result<Composed> {
        compose(
            "copy/copy",
            &[("WG_SIZE", ConstValue::U32(COPY_WORKGROUP))],
            SOURCES,
            &[],
        )
    }

    /// Build the pipeline.
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let module = ctx.shader_module(&Self::composed()?)?;
        Ok(Self {
            pipeline: ctx.compute_pipeline("wavekit.copy", &module, "main")?,
        })
    }

    /// Bind the first `bytes` bytes of `src` to be copied to the start of `dst`. `bytes` is a
    /// multiple of 4 (wgpu's copy alignment) within both buffers; any size up to the buffers'
    /// is taken, past one storage binding in chunks. Whole 16-byte words go through the
    /// kernel; a remainder of 4 to 12 bytes through `copy_buffer_to_buffer`, which needs
    /// `COPY_SRC` on `src` and `COPY_DST` on `dst` (wavekit's own buffers have both).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<BoundCopy> {
        if !bytes.is_multiple_of(4) || bytes > src.size() || bytes > dst.size() {
            return Err(Error::InvalidArgument(format!(
                "copy of {bytes} bytes: must be a multiple of 4 and fit both buffers ({} and {} \
                 bytes)",
                src.size(),
                dst.size()
            )));
        }
        let whole = bytes / 16 * 16;
        let tail = bytes - whole;
        if tail != 0
            && (!src.usage().contains(wgpu::BufferUsages::COPY_SRC)
                || !dst.usage().contains(wgpu::BufferUsages::COPY_DST))
        {
            return Err(Error::InvalidArgument(format!(
                "copy of {bytes} bytes: the last {tail} bytes (past whole 16-byte words) need \
                 COPY_SRC on the source and COPY_DST on the destination; create the buffers \
                 with those usages or copy a multiple of 16 bytes"
            )));
        }
        // Chunks of at most one binding, starting at offsets every binding accepts.
        let align = u64::from(ctx.caps.limits.min_storage_buffer_offset_alignment.max(16));
        let limit = ctx.binding_limit();
        let per_chunk = (limit / align * align).min(u64::from(u32::MAX) * 16);
        if per_chunk == 0 {
            return Err(Error::InvalidArgument(format!(
                "copy: storage bindings of {limit} bytes cannot hold one aligned chunk"
            )));
        }
        let mut chunks = Vec::new();
        let mut start = 0;
        while start < whole {
            let len = (whole - start).min(per_chunk);
            chunks.push(self.bind_chunk(ctx, src, dst, start, len)?);
            start += len;
        }
        Ok(BoundCopy {
            pipeline: self.pipeline.clone(),
            chunks,
            tail: (tail != 0).then(|| (src.clone(), dst.clone(), whole, tail)),
        })
    }

    fn bind_chunk(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
    ) -> Result<CopyChunk> {
        let len = (bytes / 16) as u32;
        let workgroups = len.div_ceil(COPY_WORKGROUP).clamp(1, COPY_MAX_WORKGROUPS);
        let params = ctx.uniform_from("copy params", &[len, workgroups * COPY_WORKGROUP])?;
        fn entry(
            binding: u32,
            buffer: &wgpu::Buffer,
            offset: u64,
            bytes: u64,
        ) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: wgpu::BufferSize::new(bytes),
                }),
            }
        }
        let bind = ctx.scoped("binding the copy kernel", || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wavekit.copy"),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &[
                    entry(0, src, offset, bytes),
                    entry(1, dst, offset, bytes),
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: params.as_entire_binding(),
                    },
                ],
            })
        })?;
        Ok(CopyChunk {
            bind,
            workgroups,
            _params: params,
        })
    }
}

/// One binding's worth of a copy.
#[derive(Debug)]
struct CopyChunk {
    bind: wgpu::BindGroup,
    workgroups: u32,
    _params: wgpu::Buffer,
}

/// A copy bound to its buffers, ready to record any number of times.
#[derive(Debug)]
pub struct BoundCopy {
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<CopyChunk>,
    /// The bytes past the whole 16-byte words: source, destination, offset, bytes.
    tail: Option<(wgpu::Buffer, wgpu::Buffer, u64, u64)>,
}

impl BoundCopy {
    /// Record the copy into `enc`.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if !self.chunks.is_empty() {
            let mut pass = record::compute_pass(enc, "wavekit.copy");
            pass.set_pipeline(&self.pipeline);
            for c in &self.chunks {
                pass.set_bind_group(0, &c.bind, &[]);
                pass.dispatch_workgroups(c.workgroups, 1, 1);
                record::note_dispatch();
            }
        }
        if let Some((from, to, offset, bytes)) = &self.tail {
            record::copy(enc, from, *offset, to, *offset, Some(*bytes));
        }
    }

    /// How many dispatches (bindings) the copy takes.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }
}
