//! A compute kernel: a validated module, its pipeline, and the bindings it actually uses
//! (reflected by naga, so bind groups never list a binding the automatic layout dropped).

use crate::context::GpuContext;
use crate::error::Result;
use crate::shader::Composed;

/// A binding: (binding number, buffer, byte offset, byte size or `None` for the rest).
pub type Range<'a> = (u32, &'a wgpu::Buffer, u64, Option<u64>);

/// A pipeline for entry point `main` of a composed shader.
#[derive(Debug, Clone)]
pub struct Kernel {
    label: String,
    pipeline: wgpu::ComputePipeline,
    bindings: Vec<u32>,
}

impl Kernel {
    /// Validate, create and reflect `composed`.
    pub fn new(ctx: &GpuContext, composed: &Composed) -> Result<Self> {
        let (module, bindings) = ctx.shader_module_validated(composed)?;
        let label = format!("wavekit.{}", composed.name);
        let pipeline = ctx.compute_pipeline(&label, &module, "main")?;
        Ok(Self {
            label,
            pipeline,
            bindings,
        })
    }

    /// Build several kernels at once, each on a thread of its own: drivers compile pipelines
    /// in parallel, which cuts a cold start (a process whose driver cache is empty) by about
    /// the number of kernels. Errors as [`Kernel::new`]'s, the first in `composed`'s order.
    pub fn build_parallel(ctx: &GpuContext, composed: &[Composed]) -> Result<Vec<Kernel>> {
        if composed.len() < 2 {
            return composed.iter().map(|c| Kernel::new(ctx, c)).collect();
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = composed
                .iter()
                .map(|c| s.spawn(move || Kernel::new(ctx, c)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    }

    /// A bind group from `(binding, buffer)` pairs; bindings the kernel does not use are left
    /// out.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        entries: &[(u32, &wgpu::Buffer)],
    ) -> Result<wgpu::BindGroup> {
        let ranged: Vec<Range> = entries.iter().map(|&(b, buf)| (b, buf, 0, None)).collect();
        self.bind_ranges(ctx, &ranged)
    }

    /// A bind group from `(binding, buffer, offset, size)`: a part of a buffer (`None`: to the
    /// end), for inputs larger than one binding.
    pub fn bind_ranges(&self, ctx: &GpuContext, entries: &[Range<'_>]) -> Result<wgpu::BindGroup> {
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .filter(|(b, ..)| self.bindings.contains(b))
            .map(|&(b, buf, offset, size)| wgpu::BindGroupEntry {
                binding: b,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: buf,
                    offset,
                    size: size.and_then(wgpu::BufferSize::new),
                }),
            })
            .collect();
        ctx.scoped(&format!("binding {}", self.label), || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&self.label),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        })
    }

    /// A bind group from any resources (a storage texture's view, say): entries the kernel
    /// does not use are left out, as in [`Kernel::bind`].
    pub fn bind_resources(
        &self,
        ctx: &GpuContext,
        entries: &[(u32, wgpu::BindingResource<'_>)],
    ) -> Result<wgpu::BindGroup> {
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .filter(|(b, _)| self.bindings.contains(b))
            .map(|(b, r)| wgpu::BindGroupEntry {
                binding: *b,
                resource: r.clone(),
            })
            .collect();
        ctx.scoped(&format!("binding {}", self.label), || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&self.label),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        })
    }

    /// Record a dispatch of `workgroups` workgroups (a 2-D grid past 65535; kernels number
    /// their groups `x + y * num_workgroups.x` and ignore those past the end).
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bind: &wgpu::BindGroup,
        workgroups: u32,
    ) {
        if workgroups == 0 {
            return;
        }
        let (x, y) = grid(workgroups);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}

impl Kernel {
    /// Record a dispatch of an `x` × `y` grid of workgroups (kernels that number their work
    /// by two workgroup coordinates, e.g. line and plane).
    pub fn dispatch_grid(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bind: &wgpu::BindGroup,
        x: u32,
        y: u32,
    ) {
        if x == 0 || y == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Record an indirect dispatch: the workgroup counts are three `u32` at `args`
    /// (`(buffer, offset)`, e.g. the survivor count a select leaves on the GPU).
    pub fn dispatch_indirect(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bind: &wgpu::BindGroup,
        args: (&wgpu::Buffer, u64),
    ) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups_indirect(args.0, args.1);
    }
}

/// A 2-D grid of at least `workgroups` groups with x at most 65535, and as few extra groups
/// as possible (each extra one still starts and exits).
pub fn grid(workgroups: u32) -> (u32, u32) {
    let y = workgroups.div_ceil(65535).max(1);
    (workgroups.div_ceil(y), y)
}

#[cfg(test)]
mod tests {
    #[test]
    fn grids_cover_the_groups_with_little_waste() {
        for n in [
            1u32,
            2,
            65535,
            65536,
            65537,
            131_070,
            131_071,
            1 << 24,
            65535 * 65535,
        ] {
            let (x, y) = super::grid(n);
            assert!(x <= 65535 && y <= 65535, "{n}");
            let total = u64::from(x) * u64::from(y);
            assert!(
                total >= u64::from(n) && total - u64::from(n) < u64::from(y),
                "{n}: {x}x{y}"
            );
        }
    }
}
