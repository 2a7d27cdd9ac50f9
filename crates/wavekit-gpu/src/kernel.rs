//! A compute kernel: a validated module, its pipeline, and the bindings it actually uses
//! (reflected by naga, so bind groups never list a binding the automatic layout dropped).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use crate::context::GpuContext;
use crate::error::{Error, Result};
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

/// Kernels a context built, by a 128-bit digest of their name and source (two SipHash keys):
/// a composed shader built again is found here instead of compiled again.
#[derive(Debug, Default)]
pub(crate) struct Built {
    kernels: HashMap<(u64, u64), Kernel>,
    /// Builds found here, for tests and tools.
    hits: u64,
}

fn digest(composed: &Composed) -> (u64, u64) {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let one = |salt: u64| {
        BuildHasherDefault::<DefaultHasher>::default().hash_one((
            salt,
            &composed.name,
            &composed.source,
        ))
    };
    (one(0x9e37_79b9_7f4a_7c15), one(0xc2b2_ae3d_27d4_eb4f))
}

impl Kernel {
    /// Validate, create and reflect `composed`; a kernel of the same name and source that this
    /// context built before is reused (`ContextOptions::kernel_cache_entries`). The context
    /// builds the form of `#unroll` blocks its options name ([`GpuContext::shader_module`]),
    /// always the same one, so the composed text keys either.
    pub fn new(ctx: &GpuContext, composed: &Composed) -> Result<Self> {
        let keep = ctx.options().kernel_cache_entries;
        let key = digest(composed);
        if keep > 0 {
            let mut built = ctx.kernels.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(k) = built.kernels.get(&key).cloned() {
                built.hits += 1;
                return Ok(k);
            }
        }
        let (module, bindings) = ctx.shader_module_validated(composed)?;
        let label = format!("wavekit.{}", composed.name);
        let pipeline = ctx.compute_pipeline(&label, &module, "main")?;
        let kernel = Self {
            label,
            pipeline,
            bindings,
        };
        if keep > 0 {
            let mut built = ctx.kernels.lock().unwrap_or_else(|e| e.into_inner());
            if built.kernels.len() >= keep {
                built.kernels.clear();
            }
            built.kernels.insert(key, kernel.clone());
        }
        Ok(kernel)
    }

    /// Kernels this context keeps, and how many builds were found among them.
    pub fn kept(ctx: &GpuContext) -> (usize, u64) {
        let built = ctx.kernels.lock().unwrap_or_else(|e| e.into_inner());
        (built.kernels.len(), built.hits)
    }

    /// Build several kernels at once, each on a thread of its own: drivers compile pipelines
    /// in parallel, which cuts a cold start (a process whose driver cache is empty) by about
    /// the number of kernels. Errors as [`Kernel::new`]'s, the first in `composed`'s order.
    pub fn build_parallel(ctx: &GpuContext, composed: &[Composed]) -> Result<Vec<Kernel>> {
        // A browser compiles in its own process, and wasm has no threads here.
        #[cfg(target_arch = "wasm32")]
        return composed.iter().map(|c| Kernel::new(ctx, c)).collect();
        #[cfg(not(target_arch = "wasm32"))]
        if composed.len() < 2 {
            return composed.iter().map(|c| Kernel::new(ctx, c)).collect();
        }
        #[cfg(not(target_arch = "wasm32"))]
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
        let resources: Vec<(u32, wgpu::BindingResource)> = entries
            .iter()
            .map(|&(b, buf, offset, size)| {
                let binding = wgpu::BufferBinding {
                    buffer: buf,
                    offset,
                    size: size.and_then(wgpu::BufferSize::new),
                };
                (b, wgpu::BindingResource::Buffer(binding))
            })
            .collect();
        self.bind_resources(ctx, &resources)
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
        crate::record::note_dispatch();
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
        crate::record::note_dispatch();
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
        crate::record::note_dispatch();
    }
}

/// A 2-D grid of at least `workgroups` groups with x at most 65535, and as few extra groups
/// as possible (each extra one still starts and exits).
pub fn grid(workgroups: u32) -> (u32, u32) {
    let y = workgroups.div_ceil(65535).max(1);
    (workgroups.div_ceil(y), y)
}

/// Kernels built on first use, by a key of the caller's (a variant, a tile shape, …): what a
/// primitive or an application needs when the kernels it binds depend on the input (the sort's
/// key windows, the wavelet's tile shape per level). Clones share the kernels: a resized plan
/// keeps what its original compiled. Safe to use from several threads.
#[derive(Debug)]
pub struct KernelCache<K> {
    built: Arc<Mutex<HashMap<K, Kernel>>>,
}

impl<K> Clone for KernelCache<K> {
    fn clone(&self) -> Self {
        Self {
            built: self.built.clone(),
        }
    }
}

impl<K> Default for KernelCache<K> {
    fn default() -> Self {
        Self {
            built: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

impl<K: Eq + Hash + Clone> KernelCache<K> {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Kernel>> {
        // A panic while holding the lock leaves a map that is still whole.
        self.built.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Kernels built so far.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is built yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kernel of `key`, composed by `compose` and built the first time it is asked for.
    pub fn get<E: From<Error>>(
        &self,
        ctx: &GpuContext,
        key: &K,
        compose: impl FnOnce(&K) -> std::result::Result<Composed, E>,
    ) -> std::result::Result<Kernel, E> {
        // Built under the lock, so that two threads asking for one kernel build it once.
        let mut built = self.lock();
        if let Some(k) = built.get(key) {
            return Ok(k.clone());
        }
        let k = Kernel::new(ctx, &compose(key)?)?;
        built.insert(key.clone(), k.clone());
        Ok(k)
    }

    /// Build every kernel of `keys` not built yet, together ([`Kernel::build_parallel`]: a cold
    /// start's time divided by about their number).
    pub fn prebuild<E: From<Error>>(
        &self,
        ctx: &GpuContext,
        keys: &[K],
        compose: impl Fn(&K) -> std::result::Result<Composed, E>,
    ) -> std::result::Result<(), E> {
        let mut missing: Vec<K> = Vec::new();
        {
            let built = self.lock();
            for k in keys {
                if !built.contains_key(k) && !missing.contains(k) {
                    missing.push(k.clone());
                }
            }
        }
        let composed = missing
            .iter()
            .map(&compose)
            .collect::<std::result::Result<Vec<_>, E>>()?;
        let kernels = Kernel::build_parallel(ctx, &composed)?;
        let mut built = self.lock();
        for (k, kernel) in missing.into_iter().zip(kernels) {
            built.entry(k).or_insert(kernel);
        }
        Ok(())
    }
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
