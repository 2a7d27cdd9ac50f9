//! Benchmark building blocks: the WGSL copy kernel that is every benchmark's 100 % line, and
//! the primitives' benchmark.

pub mod primitives;

use serde::Serialize;

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::shader::{Composed, ConstValue, compose};
use crate::timer::{GpuTimer, Timing};
use crate::tuning::{COPY_MAX_WORKGROUPS, COPY_WORKGROUP};

/// A grid-stride `vec4<u32>` copy: reads and writes each byte once (several times faster than
/// `copy_buffer_to_buffer` on the H200: see DEVICE.md).
#[derive(Debug)]
pub struct CopyKernel {
    pipeline: wgpu::ComputePipeline,
}

impl CopyKernel {
    /// The kernel's WGSL.
    pub fn composed() -> Result<Composed> {
        compose(
            "bench/copy",
            &[("WG_SIZE", ConstValue::U32(COPY_WORKGROUP))],
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

    /// Bind `src` and `dst` for copying `bytes` bytes (a multiple of 16, within both buffers).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<BoundCopy> {
        if !bytes.is_multiple_of(16) || bytes > src.size() || bytes > dst.size() {
            return Err(Error::InvalidArgument(format!(
                "copy of {bytes} bytes: must be a multiple of 16 and fit both buffers ({} and {} bytes)",
                src.size(),
                dst.size()
            )));
        }
        ctx.check_binding("copy source", bytes)?;
        let len = u32::try_from(bytes / 16).map_err(|_| {
            Error::InvalidArgument(format!("copy of {bytes} bytes exceeds 2^32 vec4 elements"))
        })?;
        let workgroups = len.div_ceil(COPY_WORKGROUP).clamp(1, COPY_MAX_WORKGROUPS);
        let params = ctx.uniform_from("copy params", &[len, workgroups * COPY_WORKGROUP])?;
        let bind = ctx.scoped("binding the copy kernel", || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wavekit.copy"),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: src,
                            offset: 0,
                            size: wgpu::BufferSize::new(bytes.max(16)),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: dst,
                            offset: 0,
                            size: wgpu::BufferSize::new(bytes.max(16)),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: params.as_entire_binding(),
                    },
                ],
            })
        })?;
        Ok(BoundCopy {
            pipeline: self.pipeline.clone(),
            bind,
            workgroups,
            _params: params,
        })
    }
}

/// A copy bound to its buffers, ready to record.
#[derive(Debug)]
pub struct BoundCopy {
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    workgroups: u32,
    _params: wgpu::Buffer,
}

impl BoundCopy {
    /// Record the copy into `enc`.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.copy"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind, &[]);
        pass.dispatch_workgroups(self.workgroups, 1, 1);
    }
}

/// One copy-bandwidth measurement.
#[derive(Clone, Debug, Serialize)]
pub struct CopyBench {
    /// Bytes copied per run.
    pub bytes: u64,
    /// Run-time statistics.
    pub timing: Timing,
    /// Read + write bandwidth at the median, in GB/s (10^9 bytes/s).
    pub gbps: f64,
}

/// Measure the copy kernel on `bytes` bytes: `warmup` unmeasured runs, then `runs`.
pub fn bench_copy(ctx: &GpuContext, bytes: u64, warmup: u32, runs: u32) -> Result<CopyBench> {
    let bytes = bytes.next_multiple_of(16).max(16);
    let src = ctx.storage_uninit("copy source", bytes)?;
    let dst = ctx.storage_uninit("copy destination", bytes)?;
    let copy = CopyKernel::new(ctx)?.bind(ctx, &src, &dst, bytes)?;
    let timer = GpuTimer::new(ctx, runs);
    let timing = timer.measure(ctx, warmup, runs, |enc| copy.record(enc))?;
    let gbps = 2.0 * bytes as f64 / timing.median_ns;
    Ok(CopyBench {
        bytes,
        timing,
        gbps,
    })
}
