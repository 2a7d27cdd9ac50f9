//! The traversal kernels' Rust side: configuration, building, binding to the caller's buffers,
//! recording into the caller's encoder, and the diagnostics' read-back.

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::prelude::KernelBuilder;

use crate::bvh::GpuBvh;
use crate::reference::{Hit, Ray};
use crate::{Result, SOURCES, TraceError};

/// Which traversal kernel.
///
/// Which to pick, from the H200's numbers (ADR-0056): `Baseline` for batches that do not fill
/// the persistent grid ([`TraceConfig::persistent_workgroups`] × [`TraceConfig::workgroup`]
/// lanes: no lane would get a second ray), `Persistent` or `Compacted` for larger incoherent
/// batches (1.07–1.16× the baseline with 16 rays a lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelKind {
    /// One ray per invocation, while-while traversal, the stack in the invocation's array.
    Baseline,
    /// A grid of invocations looping; idle lanes fetch new rays from a global counter when
    /// fewer than [`TraceConfig::refill_percent`] % of their subgroup's lanes are busy.
    Persistent,
    /// In rounds: after each, live tasks move to the front lanes of their subgroup and the rest
    /// take new rays; stacks in global memory, by slot.
    Compacted,
}

impl KernelKind {
    /// All three, in order.
    pub const ALL: [KernelKind; 3] = [
        KernelKind::Baseline,
        KernelKind::Persistent,
        KernelKind::Compacted,
    ];

    /// The name the CLI takes.
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Baseline => "baseline",
            KernelKind::Persistent => "persistent",
            KernelKind::Compacted => "compacted",
        }
    }

    fn entry(self) -> &'static str {
        match self {
            KernelKind::Baseline => "trace/baseline",
            KernelKind::Persistent => "trace/persistent",
            KernelKind::Compacted => "trace/compacted",
        }
    }
}

/// How rays are traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TraceConfig {
    /// Which kernel.
    pub kernel: KernelKind,
    /// Any hit (occlusion: one u32 per ray, 1 where something is hit) instead of the closest.
    pub any_hit: bool,
    /// Count active lanes per node and triangle test (compiled in; slower).
    pub diagnostics: bool,
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Traversal stack entries per ray: at least the BVH's depth.
    pub stack: u32,
    /// Workgroups of the persistent and compacted kernels' grid (at most this many; fewer when
    /// there are fewer rays), up to 65535.
    pub persistent_workgroups: u32,
    /// The persistent kernel refills a subgroup's idle lanes when fewer than this percentage of
    /// its lanes are busy (1 to 100; 100: as soon as one lane is idle).
    pub refill_percent: u32,
    /// The persistent and compacted kernels keep their traversal stacks in workgroup memory
    /// (`workgroup` × `stack` words, which must fit the device's) instead of global memory.
    pub workgroup_stacks: bool,
    /// Path tracing (bind with [`Tracer::bind_paths`]): a task is a path, which goes on in its
    /// lane from bounce to bounce (`trace/paths.wgsl`; CPU twin [`crate::paths`]).
    pub paths: bool,
    /// Rays a lane of the persistent and compacted kernels may fetch in all (its subgroup
    /// stops fetching past width × this; the grid's budgets together always cover every ray).
    /// `None`: no limit on hardware adapters; on software adapters (llvmpipe) twice the fair
    /// share plus one, because llvmpipe runs subgroups one after another and ends a loop after
    /// 65535 iterations in all, which cut off a subgroup that took every ray (ADR-0052).
    pub fetch_budget: Option<u32>,
    /// The persistent and compacted kernels claim rays from the global counter at least this
    /// many per lane at a time and keep the rest in their subgroup's pool (0: exactly what the
    /// idle lanes need, an atomic at every refill). 0 to 64.
    pub fetch_batch: u32,
    /// The loop iterations a subgroup may take in one dispatch, nested loops included
    /// (ADR-0091). `None`: none on a GPU, [`SOFTWARE_LOOP_BUDGET`] on a software adapter
    /// (llvmpipe ends every loop of a shader once it has taken 65 535 iterations in all). The
    /// persistent and compacted kernels hand the rays left at the budget to a second dispatch
    /// (the baseline kernel); one ray or path past it on its own fails [`BoundTrace::check`].
    pub loop_budget: Option<u32>,
}

/// The traversal kernels' loop budget on software adapters: under llvmpipe's 65 535 loop
/// iterations a shader invocation, with room to spare (ADR-0091).
pub const SOFTWARE_LOOP_BUDGET: u32 = 65_000;

/// Inner nodes a round of the traversal visits at most (the WGSL's NODE_STEPS).
const NODE_STEPS: u32 = 64;
/// Loop iterations a round may take at most (the WGSL's ROUND_COST): NODE_STEPS nodes, a
/// leaf's 16 triangles, the compaction's five and the loops around them, with room to spare.
const ROUND_COST: u32 = NODE_STEPS + 32;

impl TraceConfig {
    /// The defaults for `kernel`: closest hit, no diagnostics, workgroups of 128, a stack of 64,
    /// 2048 persistent workgroups, refills below 50 % busy, rays claimed four a lane at a time.
    pub fn new(kernel: KernelKind) -> Self {
        Self {
            kernel,
            any_hit: false,
            diagnostics: false,
            workgroup: 128,
            stack: 64,
            persistent_workgroups: 2048,
            refill_percent: 50,
            fetch_budget: None,
            fetch_batch: 4,
            paths: false,
            workgroup_stacks: false,
            loop_budget: None,
        }
    }

    /// The defaults for `kernel`, tracing paths.
    pub fn paths(kernel: KernelKind) -> Self {
        Self {
            paths: true,
            ..Self::new(kernel)
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |m: String| Err(TraceError::InvalidArgument(m));
        if !(1..=1024).contains(&self.workgroup) {
            return bad(format!(
                "a workgroup of {} invocations; use 1 to 1024 (a multiple of the subgroup width)",
                self.workgroup
            ));
        }
        if !(1..=256).contains(&self.stack) {
            return bad(format!("a stack of {} entries; use 1 to 256", self.stack));
        }
        if !(1..=65535).contains(&self.persistent_workgroups) {
            return bad(format!(
                "{} persistent workgroups; use 1 to 65535",
                self.persistent_workgroups
            ));
        }
        if self.fetch_batch > 64 {
            return bad(format!(
                "a fetch batch of {} rays a lane; use 0 to 64",
                self.fetch_batch
            ));
        }
        if self.workgroup_stacks && u64::from(self.workgroup) * u64::from(self.stack) * 4 > 49152 {
            return bad(format!(
                "workgroup stacks of {} invocations × {} entries need {} bytes of workgroup \
                 memory; at most 49152: make the workgroup or the stack smaller",
                self.workgroup,
                self.stack,
                u64::from(self.workgroup) * u64::from(self.stack) * 4
            ));
        }
        if self.paths && self.any_hit {
            return bad("path tracing needs closest hits: any_hit must be off".into());
        }
        if !(1..=100).contains(&self.refill_percent) {
            return bad(format!(
                "refill below {} % busy; use 1 to 100",
                self.refill_percent
            ));
        }
        Ok(())
    }
}

/// The kernel for `config` (what [`Tracer::new`] builds; tests `check()` every variant).
pub fn builder(config: &TraceConfig) -> KernelBuilder {
    KernelBuilder::new(config.kernel.entry(), SOURCES)
        .workgroup_size(config.workgroup)
        .constant("STACK", config.stack)
        .constant("ANY_HIT", config.any_hit)
        .constant("DIAGNOSTICS", config.diagnostics)
        .constant("REFILL_PERCENT", config.refill_percent)
        .constant("FETCH_BATCH", config.fetch_batch)
        .constant("PATHS", config.paths)
        .constant("NODE_STEPS", NODE_STEPS)
        .constant("ROUND_COST", ROUND_COST)
        .generated(
            "trace/stack",
            if config.workgroup_stacks {
                "#import trace/workgroup_stack\n"
            } else {
                "#import trace/global_stack\n"
            },
        )
}

/// A traversal kernel, built once; bind it to buffers with [`Tracer::bind`].
#[derive(Debug)]
pub struct Tracer {
    config: TraceConfig,
    kernel: Kernel,
    /// The baseline kernel of the same configuration, for the rest pass (built on first use).
    rest_kernel: std::sync::Mutex<Option<Kernel>>,
}

/// Subgroup utilisation counted by the diagnostics: of the lanes of a subgroup, how many were
/// active when it ran a node test (both children's boxes) or a triangle test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Utilisation {
    /// Subgroup width.
    pub width: u32,
    /// Node tests done (active lanes summed over steps).
    pub node_tests: u64,
    /// Steps in which a subgroup ran node tests.
    pub node_steps: u64,
    /// Triangle tests done.
    pub tri_tests: u64,
    /// Steps in which a subgroup ran triangle tests.
    pub tri_steps: u64,
}

impl Utilisation {
    /// Active lanes over width × steps, node tests.
    pub fn nodes(&self) -> f64 {
        self.node_tests as f64 / (self.node_steps as f64 * f64::from(self.width)).max(1.0)
    }

    /// Active lanes over width × steps, triangle tests.
    pub fn tris(&self) -> f64 {
        self.tri_tests as f64 / (self.tri_steps as f64 * f64::from(self.width)).max(1.0)
    }

    /// Both together.
    pub fn all(&self) -> f64 {
        (self.node_tests + self.tri_tests) as f64
            / ((self.node_steps + self.tri_steps) as f64 * f64::from(self.width)).max(1.0)
    }
}

impl Tracer {
    /// Build the kernel `config` names.
    pub fn new(ctx: &GpuContext, config: TraceConfig) -> Result<Self> {
        config.check()?;
        Ok(Self {
            config,
            kernel: builder(&config).build(ctx)?,
            rest_kernel: std::sync::Mutex::new(None),
        })
    }

    /// The loop budget on this adapter ([`TraceConfig::loop_budget`]); `None`: unbounded.
    pub fn loop_budget(&self, ctx: &GpuContext) -> Option<u32> {
        self.config
            .loop_budget
            .or(ctx.summary.software.then_some(SOFTWARE_LOOP_BUDGET))
    }

    fn rest_kernel(&self, ctx: &GpuContext) -> Result<Kernel> {
        let mut k = self.rest_kernel.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = &*k {
            return Ok(k.clone());
        }
        let built = builder(&TraceConfig {
            kernel: KernelKind::Baseline,
            ..self.config
        })
        .build(ctx)?;
        *k = Some(built.clone());
        Ok(built)
    }

    /// Its configuration.
    pub fn config(&self) -> &TraceConfig {
        &self.config
    }

    /// Bind to `n` rays in `rays` (8 f32 each: origin, tmin, direction, tmax) and an output of
    /// `n` hits (4 words each: t, prim, u, v) or, for any hit, `n` u32. The BVH's depth, where
    /// known, must fit the stack.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        bvh: &GpuBvh,
        rays: &wgpu::Buffer,
        out: &wgpu::Buffer,
        n: u32,
    ) -> Result<BoundTrace> {
        if self.config.paths {
            return Err(TraceError::InvalidArgument(
                "this tracer traces paths: bind it with bind_paths".into(),
            ));
        }
        self.bind_inner(ctx, bvh, rays, out, n, n, [0; 4])
    }

    /// Bind a path tracer ([`TraceConfig::paths`]) to `pixels` primary rays in `primary`
    /// (one a pixel) and an output of `pixels × settings.spp` paths (4 words each: radiance
    /// r, g, b as f32 bits, bounces), path p from primary ray p / spp.
    pub fn bind_paths(
        &self,
        ctx: &GpuContext,
        bvh: &GpuBvh,
        primary: &wgpu::Buffer,
        out: &wgpu::Buffer,
        pixels: u32,
        settings: &crate::paths::PathSettings,
    ) -> Result<BoundTrace> {
        if !self.config.paths {
            return Err(TraceError::InvalidArgument(
                "bind_paths needs a tracer built with TraceConfig::paths".into(),
            ));
        }
        settings.check()?;
        let n = u64::from(pixels) * u64::from(settings.spp);
        if n >= 1 << 31 {
            return Err(TraceError::InvalidArgument(format!(
                "{pixels} pixels × {} samples: trace fewer than 2^31 paths at once",
                settings.spp
            )));
        }
        self.bind_inner(
            ctx,
            bvh,
            primary,
            out,
            n as u32,
            pixels,
            [
                settings.spp,
                settings.bounces,
                settings.seed,
                settings.epsilon.to_bits(),
            ],
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_inner(
        &self,
        ctx: &GpuContext,
        bvh: &GpuBvh,
        rays: &wgpu::Buffer,
        out: &wgpu::Buffer,
        n: u32,
        n_rays: u32,
        path: [u32; 4],
    ) -> Result<BoundTrace> {
        let c = &self.config;
        if n >= 1 << 31 {
            return Err(TraceError::InvalidArgument(format!(
                "{n} rays; trace fewer than 2^31 at once"
            )));
        }
        let need_rays = u64::from(n_rays) * 32;
        let per_hit = if c.any_hit { 4 } else { 16 };
        let need_out = u64::from(n) * per_hit;
        if rays.size() < need_rays || out.size() < need_out {
            return Err(TraceError::InvalidArgument(format!(
                "{n} rays need a ray buffer of {need_rays} bytes (8 f32 a ray) and an output of \
                 {need_out} ({per_hit} bytes a ray); got {} and {}",
                rays.size(),
                out.size()
            )));
        }
        if let Some(d) = bvh.depth
            && d > c.stack
        {
            return Err(TraceError::InvalidArgument(format!(
                "the BVH is {d} nodes deep but the traversal stack holds {}; set \
                     TraceConfig::stack to at least {d}",
                c.stack
            )));
        }
        ctx.check_binding("trace rays", need_rays)?;
        ctx.check_binding("trace hits", need_out)?;
        let groups = match c.kernel {
            KernelKind::Baseline => n.div_ceil(c.workgroup),
            _ => n.div_ceil(c.workgroup).min(c.persistent_workgroups),
        };
        let slots = groups * c.workgroup;
        let fair = n.div_ceil(slots.max(1));
        let budget = match c.fetch_budget {
            // At least the fair share: the grid's budgets must cover every ray.
            Some(b) => b.max(fair + 1),
            None if ctx.summary.software => 2 * fair + 1,
            None => u32::MAX,
        };
        let params = ctx.uniform_from("trace params", &[n, slots, budget, 0])?;
        let path = ctx.uniform_from("trace path settings", &path)?;
        let work = ctx.storage_uninit("trace work", 32)?;
        // The loop budget (ADR-0091), less what handing on costs the pool kernels.
        let pool = c.kernel != KernelKind::Baseline;
        let loop_budget = self.loop_budget(ctx);
        let reserve = if pool { c.fetch_batch + 16 } else { 0 };
        let net = match loop_budget {
            None => u32::MAX,
            Some(b) if b >= 2 * ROUND_COST + reserve => b - reserve,
            Some(b) => {
                return Err(TraceError::InvalidArgument(format!(
                    "a loop budget of {b}: a round of the traversal needs {}",
                    2 * ROUND_COST + reserve
                )));
            }
        };
        let limits = ctx.uniform_from("trace loop budget", &[net, 0, 0, 0])?;
        let rest_words = if pool && loop_budget.is_some() {
            1 + u64::from(n)
        } else {
            1
        };
        ctx.check_binding("trace rest list", rest_words * 4)?;
        let rest_list = ctx.storage_uninit("trace rest list", rest_words * 4)?;
        let stacks = if c.kernel != KernelKind::Baseline && !c.workgroup_stacks {
            let bytes = u64::from(slots) * u64::from(c.stack) * 4;
            ctx.check_binding("trace stacks", bytes)?;
            ctx.storage_uninit("trace stacks", bytes)?
        } else {
            ctx.storage_uninit("trace no stacks", 16)?
        };
        let placeholder = ctx.storage_uninit("trace no output", 16)?;
        let (hits, occluded) = if c.any_hit {
            (&placeholder, out)
        } else {
            (out, &placeholder)
        };
        let mut entries: Vec<(u32, &wgpu::Buffer)> = vec![
            (0, &params),
            (1, &bvh.nodes),
            (2, &bvh.tris),
            (3, rays),
            (4, hits),
            (5, occluded),
            (6, &work),
            (7, &stacks),
            (8, &path),
            (9, &rest_list),
            (10, &limits),
        ];
        let bind = self.kernel.bind(ctx, &entries)?;
        // The rest pass: the baseline kernel over the rays handed on and those no subgroup
        // claimed, the whole budget a ray (a grid for every ray; those past the count return).
        let mut rest = None;
        let mut rest_limits = None;
        if pool
            && n > 0
            && let Some(b) = loop_budget
        {
            let kernel = self.rest_kernel(ctx)?;
            let flag = ctx.uniform_from("trace loop budget, rest", &[b, 1, 0, 0])?;
            // The same buffers, the rest pass's budget and flag (the baseline kernel binds
            // no stacks: its own are private).
            entries.retain(|(b, _)| *b != 10);
            entries.push((10, &flag));
            let bind = kernel.bind(ctx, &entries)?;
            rest = Some((kernel, bind, n.div_ceil(c.workgroup)));
            rest_limits = Some(flag);
        }
        Ok(BoundTrace {
            kernel: self.kernel.clone(),
            config: *c,
            bind,
            groups,
            rays: n,
            rest,
            rest_list,
            loop_budget,
            _limits: (limits, rest_limits),
            work,
            width: if ctx.caps.subgroups.supported {
                ctx.caps.subgroups.max_size
            } else {
                1
            },
            _buffers: [params, stacks, placeholder, path],
        })
    }

    /// Trace `rays` against `bvh` and read the closest hits back (a one-call convenience).
    pub fn trace_slice(&self, ctx: &GpuContext, bvh: &GpuBvh, rays: &[Ray]) -> Result<Vec<Hit>> {
        if self.config.any_hit {
            return Err(TraceError::InvalidArgument(
                "trace_slice gives closest hits: build the tracer without any_hit, or call \
                 occluded_slice"
                    .into(),
            ));
        }
        let (words, _) = self.run_slice(ctx, bvh, rays, 4)?;
        Ok(bytemuck::cast_slice(&words).to_vec())
    }

    /// Trace `rays` for any hit and read back whether each hit something.
    pub fn occluded_slice(
        &self,
        ctx: &GpuContext,
        bvh: &GpuBvh,
        rays: &[Ray],
    ) -> Result<Vec<bool>> {
        if !self.config.any_hit {
            return Err(TraceError::InvalidArgument(
                "occluded_slice needs a tracer built with any_hit".into(),
            ));
        }
        let (words, _) = self.run_slice(ctx, bvh, rays, 1)?;
        Ok(words.iter().map(|&w| w != 0).collect())
    }

    /// Trace and read back the output words (poisoned beforehand) and the bound trace.
    pub fn run_slice(
        &self,
        ctx: &GpuContext,
        bvh: &GpuBvh,
        rays: &[Ray],
        words_per_ray: usize,
    ) -> Result<(Vec<u32>, BoundTrace)> {
        let n = rays.len();
        let rb = ctx.storage_from("trace rays", rays)?;
        let out = ctx.storage_poisoned("trace output", (n * words_per_ray).max(1))?;
        let bound = self.bind(ctx, bvh, &rb, &out, n as u32)?;
        ctx.submit_checked("tracing rays", |e| bound.record(e))?;
        bound.check(ctx)?;
        Ok((
            ctx.read_back("trace output", &out, n * words_per_ray)?,
            bound,
        ))
    }
}

/// A tracer bound to its buffers, ready to record any number of times.
#[derive(Debug)]
pub struct BoundTrace {
    kernel: Kernel,
    config: TraceConfig,
    bind: wgpu::BindGroup,
    groups: u32,
    /// Rays (paths) asked for.
    rays: u32,
    /// The rest pass (software adapters' persistent and compacted kernels; ADR-0091).
    rest: Option<(Kernel, wgpu::BindGroup, u32)>,
    rest_list: wgpu::Buffer,
    loop_budget: Option<u32>,
    _limits: (wgpu::Buffer, Option<wgpu::Buffer>),
    work: wgpu::Buffer,
    width: u32,
    _buffers: [wgpu::Buffer; 4],
}

impl BoundTrace {
    /// Record the trace: the counters cleared, then one dispatch (and on a software adapter,
    /// for the persistent and compacted kernels, the rest pass).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        enc.clear_buffer(&self.work, 0, None);
        enc.clear_buffer(&self.rest_list, 0, Some(4));
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wavekit.trace"),
            timestamp_writes: None,
        });
        self.kernel.dispatch(&mut pass, &self.bind, self.groups);
        if let Some((k, b, g)) = &self.rest {
            k.dispatch(&mut pass, b, *g);
        }
    }

    /// After a run: rays (paths) the persistent or compacted kernel handed on to the rest
    /// pass (0 on a GPU, where there is no loop budget).
    pub fn handed_on(&self, ctx: &GpuContext) -> Result<u32> {
        let w: Vec<u32> = ctx.read_back("trace rest list", &self.rest_list, 1)?;
        Ok(w[0])
    }

    /// Workgroups dispatched.
    pub fn workgroups(&self) -> u32 {
        self.groups
    }

    /// After a run: an error if a traversal stack overflowed (the BVH is deeper than
    /// [`TraceConfig::stack`]; the hits of such rays are incomplete).
    pub fn check(&self, ctx: &GpuContext) -> Result<()> {
        let w: Vec<u32> = ctx.read_back("trace work", &self.work, 8)?;
        if w[1] != 0 {
            return Err(TraceError::InvalidArgument(format!(
                "a traversal stack of {} entries overflowed: the BVH is deeper; set \
                 TraceConfig::stack higher",
                self.config.stack
            )));
        }
        if w[6] != self.rays || w[7] != 0 {
            return Err(TraceError::Unanswered {
                rays: self.rays,
                unanswered: self.rays.saturating_sub(w[6]),
                given_up: w[7],
                budget: self
                    .loop_budget
                    .map_or("none".to_string(), |b| b.to_string()),
            });
        }
        Ok(())
    }

    /// After a run with diagnostics: the utilisation it counted.
    pub fn utilisation(&self, ctx: &GpuContext) -> Result<Option<Utilisation>> {
        if !self.config.diagnostics {
            return Ok(None);
        }
        let w: Vec<u32> = ctx.read_back("trace work", &self.work, 6)?;
        Ok(Some(Utilisation {
            width: self.width,
            node_tests: w[2].into(),
            node_steps: w[3].into(),
            tri_tests: w[4].into(),
            tri_steps: w[5].into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_validates_with_naga() {
        for kernel in KernelKind::ALL {
            for (any_hit, paths) in [(false, false), (true, false), (false, true)] {
                for diagnostics in [false, true] {
                    for workgroup_stacks in [false, true] {
                        let c = TraceConfig {
                            any_hit,
                            diagnostics,
                            paths,
                            workgroup_stacks,
                            ..TraceConfig::new(kernel)
                        };
                        builder(&c).check().unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn bad_configurations_are_errors() {
        for c in [
            TraceConfig {
                stack: 0,
                ..TraceConfig::new(KernelKind::Baseline)
            },
            TraceConfig {
                refill_percent: 0,
                ..TraceConfig::new(KernelKind::Persistent)
            },
            TraceConfig {
                workgroup: 2048,
                ..TraceConfig::new(KernelKind::Compacted)
            },
        ] {
            assert!(c.check().is_err(), "{c:?}");
        }
    }
}
