//! Primary rays of a camera framing a procedural scene of 2 000 triangles, traced on the GPU
//! through a SAH BVH with each kernel, and by brute force on the CPU.

use wavekit::GpuContext;
use wavekit_trace::rays::Camera;
use wavekit_trace::reference::brute_force;
use wavekit_trace::{Bvh, KernelKind, TraceConfig, Tracer};

use crate::{Result, check};

/// Run it; returns a line saying what was checked.
pub fn run(ctx: &GpuContext) -> Result<String> {
    let mesh = wavekit_trace::mesh::procedural("proc:soup:2000:9")?;
    let rays = Camera::framing(&mesh, 64, 48).primary();
    let want = brute_force(&mesh, &rays);
    let bvh = Bvh::build_cpu(&mesh).upload(ctx)?;
    let mut hits = 0;
    for kernel in KernelKind::ALL {
        let tracer = Tracer::new(ctx, TraceConfig::new(kernel))?;
        let got = tracer.trace_slice(ctx, &bvh, &rays)?;
        // The closest triangle, or the same distance where two triangles tie within 1e-4.
        let differ = got
            .iter()
            .zip(&want)
            .filter(|(g, w)| {
                g.is_hit() != w.is_hit()
                    || (g.is_hit() && g.prim != w.prim && (g.t - w.t).abs() > 1e-4 * w.t.abs())
            })
            .count();
        check(differ == 0, "tracer", || {
            format!("{} kernel: {differ} of {} rays", kernel.name(), rays.len())
        })?;
        hits = got.iter().filter(|h| h.is_hit()).count();
    }
    Ok(format!(
        "{} primary rays ({hits} hits) of {} triangles agree with brute force, every kernel",
        rays.len(),
        mesh.len()
    ))
}
