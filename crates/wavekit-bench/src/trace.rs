//! `wavekit trace bench`: build times of both builders (CPU wall clock, GPU timestamps) with
//! their SAH costs, and rays/s of every kernel on primary, shadow and diffuse rays of a
//! camera framing the mesh and on random rays, with each kernel's subgroup utilisation (a
//! second run with diagnostics on) and its hits checked against the baseline kernel's.
//!
//! Timing: the one protocol ([`crate::protocol`]): each case warmed up by time with its own
//! load, timed in rounds, the spread and the SM clock reported.

use std::time::Instant;

use wavekit::GpuContext;

use crate::error::Result;
use crate::protocol::{Case, ClockReader, ClockWindow, Measured, Protocol, measure};

use wavekit_trace::lbvh::{Lbvh, soup_words};
use wavekit_trace::rays::{Camera, RayKind};
use wavekit_trace::reference::{Hit, Ray};
use wavekit_trace::{Bvh, BvhStats, GpuBvh, KernelKind, Mesh, TraceConfig, Tracer, Utilisation};

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Image width of the primary, shadow and diffuse rays.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Random rays.
    pub random_rays: usize,
    /// How each case is measured.
    pub protocol: Protocol,
    /// The kernels.
    pub kernels: Vec<KernelKind>,
    /// The ray kinds.
    pub kinds: Vec<RayKind>,
    /// The persistent and compacted kernels' stacks in workgroup memory.
    pub workgroup_stacks: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
            random_rays: 4 << 20,
            protocol: Protocol::default(),
            kernels: KernelKind::ALL.to_vec(),
            kinds: vec![
                RayKind::Primary,
                RayKind::Shadow,
                RayKind::Diffuse,
                RayKind::Random,
            ],
            workgroup_stacks: false,
        }
    }
}

/// Build times and costs of both builders on one mesh.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildBench {
    /// Mesh name.
    pub mesh: String,
    /// Triangles.
    pub triangles: usize,
    /// Binned SAH on the CPU (one thread), wall clock, milliseconds.
    pub cpu_ms: f64,
    /// The SAH build's shape and cost.
    pub cpu: BvhStats,
    /// LBVH on the GPU, median GPU time (bounds, codes, sort, hierarchy, refit, layout), ms.
    pub gpu_ms: f64,
    /// The LBVH's shape and cost.
    pub gpu: BvhStats,
    /// The SM clock while the GPU build was timed, where it can be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
}

/// One kernel on one set of rays.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceBench {
    /// Mesh name.
    pub mesh: String,
    /// Ray kind.
    pub rays: RayKind,
    /// Number of rays.
    pub count: usize,
    /// Kernel.
    pub kernel: KernelKind,
    /// Any hit (shadow rays) or closest hit.
    pub any_hit: bool,
    /// The stacks in workgroup memory (persistent, compacted).
    pub workgroup_stacks: bool,
    /// Median GPU time, ns.
    pub median_ns: f64,
    /// 10th percentile.
    pub p10_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// Rays per second at the median.
    pub rays_per_s: f64,
    /// GPU time of the case's own load before each timing, ms.
    pub warm_up_ms: f64,
    /// (largest − smallest round median) / median.
    pub spread: f64,
    /// The SM clock during the timed runs (worst round), where it can be read.
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    pub clock_low: bool,
    /// Subgroup utilisation counted by the diagnostics run.
    pub utilisation: Option<Utilisation>,
    /// Rays whose hit differs from the baseline kernel's (other triangle and t beyond 1e-4
    /// relative, or another hit/miss); must be 0.
    pub mismatches: usize,
}

/// The rays of one kind and the baseline kernel's answers (what the peer is checked against).
#[derive(Clone, Debug)]
pub struct RaySet {
    /// Kind.
    pub kind: RayKind,
    /// Rays.
    pub rays: Vec<Ray>,
    /// Closest hits (empty for shadow rays).
    pub hits: Vec<Hit>,
    /// Any hit per ray (shadow rays; empty otherwise).
    pub occluded: Vec<bool>,
}

/// Time the build of `mesh` both ways.
pub fn builds(
    ctx: &GpuContext,
    name: &str,
    mesh: &Mesh,
    cfg: &BenchConfig,
    clock: &dyn ClockReader,
) -> Result<(BuildBench, Bvh)> {
    let start = Instant::now();
    let bvh = Bvh::build_cpu(mesh);
    let cpu_ms = start.elapsed().as_secs_f64() * 1e3;
    let lbvh = Lbvh::new(ctx)?;
    let soup = ctx.storage_from("lbvh input", &soup_words(mesh))?;
    let bound = lbvh.bind(ctx, &soup, mesh.len() as u32)?;
    let timing = timed(ctx, "lbvh build", cfg, clock, |e| bound.record(e))?;
    bound.check(ctx)?;
    let gpu = Bvh::read_back(ctx, bound.bvh())?.stats();
    Ok((
        BuildBench {
            mesh: name.into(),
            triangles: mesh.len(),
            cpu_ms,
            cpu: bvh.stats(),
            gpu_ms: timing.timing.median_ns / 1e6,
            gpu,
            clock: timing.clock,
            clock_low: timing.clock_low,
        },
        bvh,
    ))
}

/// One case under the protocol.
pub fn timed(
    ctx: &GpuContext,
    name: &str,
    cfg: &BenchConfig,
    clock: &dyn ClockReader,
    record: impl FnMut(&mut wgpu::CommandEncoder),
) -> Result<Measured> {
    let mut cases = [Case::new(name, record)];
    let mut m = measure(ctx, &mut cases, &cfg.protocol, clock, &mut |_| {})?;
    Ok(m.remove(0))
}

/// The rays of every kind in `cfg` for `mesh` (primary hits traced with the baseline kernel
/// on `bvh` to start the shadow and diffuse rays).
pub fn ray_sets(
    ctx: &GpuContext,
    mesh: &Mesh,
    bvh: &GpuBvh,
    cfg: &BenchConfig,
) -> Result<Vec<RaySet>> {
    let cam = Camera::framing(mesh, cfg.width, cfg.height);
    let primary = cam.primary();
    let base = Tracer::new(ctx, TraceConfig::new(KernelKind::Baseline))?;
    let any = Tracer::new(
        ctx,
        TraceConfig {
            any_hit: true,
            ..TraceConfig::new(KernelKind::Baseline)
        },
    )?;
    let primary_hits = base.trace_slice(ctx, bvh, &primary)?;
    let mut out = Vec::new();
    for &kind in &cfg.kinds {
        let rays = match kind {
            RayKind::Primary => primary.clone(),
            RayKind::Shadow => wavekit_trace::rays::shadow(mesh, &primary, &primary_hits).0,
            RayKind::Diffuse => wavekit_trace::rays::diffuse(mesh, &primary, &primary_hits, 7).0,
            RayKind::Random => wavekit_trace::rays::random(mesh, cfg.random_rays, 11),
        };
        let (hits, occluded) = if kind == RayKind::Shadow {
            (Vec::new(), any.occluded_slice(ctx, bvh, &rays)?)
        } else {
            (base.trace_slice(ctx, bvh, &rays)?, Vec::new())
        };
        out.push(RaySet {
            kind,
            rays,
            hits,
            occluded,
        });
    }
    Ok(out)
}

/// Whether two closest hits agree: both miss, the same triangle, or the same t within 1e-4.
pub fn same_hit(a: &Hit, b: &Hit) -> bool {
    a.is_hit() == b.is_hit()
        && (!a.is_hit() || a.prim == b.prim || (a.t - b.t).abs() <= 1e-4 * a.t.abs().max(1.0))
}

/// Time every kernel of `cfg` on `set`.
pub fn trace_kernels(
    ctx: &GpuContext,
    name: &str,
    bvh: &GpuBvh,
    set: &RaySet,
    cfg: &BenchConfig,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<Vec<TraceBench>> {
    let n = set.rays.len();
    let any_hit = set.kind == RayKind::Shadow;
    let rays = ctx.storage_from("bench rays", &set.rays)?;
    let words = if any_hit { 1 } else { 4 };
    let out = ctx.storage_uninit("bench hits", (n * words * 4) as u64)?;
    let mut results = Vec::new();
    for &kernel in &cfg.kernels {
        progress(format!(
            "{name}: {} rays ({n}), {} kernel ...",
            set.kind.name(),
            kernel.name()
        ));
        let config = TraceConfig {
            any_hit,
            workgroup_stacks: cfg.workgroup_stacks,
            ..TraceConfig::new(kernel)
        };
        let tracer = Tracer::new(ctx, config)?;
        let bound = tracer.bind(ctx, bvh, &rays, &out, n as u32)?;
        let m = timed(ctx, kernel.name(), cfg, clock, |e| bound.record(e))?;
        let t = &m.timing;
        bound.check(ctx)?;
        let got: Vec<u32> = ctx.read_back("bench hits", &out, n * words)?;
        let mismatches = if any_hit {
            got.iter()
                .zip(&set.occluded)
                .filter(|(g, w)| (**g != 0) != **w)
                .count()
        } else {
            let got: &[Hit] = bytemuck::cast_slice(&got);
            got.iter()
                .zip(&set.hits)
                .filter(|(g, w)| !same_hit(g, w))
                .count()
        };
        let diag = Tracer::new(
            ctx,
            TraceConfig {
                diagnostics: true,
                ..config
            },
        )?;
        let db = diag.bind(ctx, bvh, &rays, &out, n as u32)?;
        ctx.submit(|e| db.record(e));
        results.push(TraceBench {
            mesh: name.into(),
            rays: set.kind,
            count: n,
            kernel,
            any_hit,
            workgroup_stacks: config.workgroup_stacks && kernel != KernelKind::Baseline,
            median_ns: t.median_ns,
            p10_ns: t.p10_ns,
            p90_ns: t.p90_ns,
            rays_per_s: n as f64 / t.median_ns * 1e9,
            warm_up_ms: m.warm_up_ms,
            spread: m.spread,
            clock: m.clock,
            clock_low: m.clock_low,
            utilisation: db.utilisation(ctx)?,
            mismatches,
        });
    }
    Ok(results)
}
