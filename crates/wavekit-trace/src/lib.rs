//! wavekit-trace: BVH ray traversal on the GPU, three kernels compared.
//!
//! ```text
//! Mesh (OBJ, PLY, procedural) ──► Bvh::build_cpu (binned SAH) ──► Bvh::upload ─┐
//!                              └► lbvh::Lbvh::bind (Morton codes, wavekit's radix sort, ├► GpuBvh
//!                                 Karras hierarchy, atomic refit) ─────────────────────┘
//! rays (8 f32 each) + GpuBvh ──► Tracer::bind ──► BoundTrace::record(encoder) ──► hits
//! ```
//!
//! The traversal kernels share `trace/common.wgsl` (the watertight ray/triangle test, the slab
//! test, the while-while traversal step) and differ only in how work reaches the lanes:
//! [`KernelKind::Baseline`] one ray per invocation; [`KernelKind::Persistent`] invocations that
//! fetch new rays from a global counter when too few lanes of their subgroup are busy;
//! [`KernelKind::Compacted`] subgroups that, after every round of traversal, move their live
//! tasks to the front lanes (ballot, rank, shuffles) and fill the rest with new rays. Each has a
//! plain Rust reference: [`reference`](mod@reference) (the traversal) and [`sim`] (the compaction's lane
//! arithmetic). With [`TraceConfig::diagnostics`] the kernels count active lanes per node and
//! triangle test.
//!
//! ```
//! use wavekit::GpuContext;
//! use wavekit_trace::{Bvh, KernelKind, Mesh, Ray, TraceConfig, Tracer, reference};
//! let ctx = GpuContext::new(&Default::default())?;
//! let mesh = Mesh::load("proc:plane:8")?;
//! let bvh = Bvh::build_cpu(&mesh).upload(&ctx)?;
//! let rays = vec![Ray { origin: [2.5, 3.25, 1.0], tmin: 0.0, dir: [0.0, 0.0, -1.0], tmax: f32::INFINITY }];
//! let tracer = Tracer::new(&ctx, TraceConfig::new(KernelKind::Compacted))?;
//! let hits = tracer.trace_slice(&ctx, &bvh, &rays)?;
//! let want = reference::brute_force(&mesh, &rays);
//! assert_eq!((hits[0].prim, hits[0].t), (want[0].prim, 1.0));
//! # Ok::<(), wavekit_trace::TraceError>(())
//! ```

#![warn(missing_docs)]
pub mod bvh;
mod error;
pub mod lbvh;
pub mod mesh;
pub mod paths;
pub mod rays;
pub mod reference;
pub mod sim;
pub mod tracer;

pub use bvh::{Bvh, BvhStats, GpuBvh};
pub use error::{Result, TraceError};
pub use mesh::Mesh;
pub use reference::{Hit, MISS, Ray};
pub use tracer::{BoundTrace, KernelKind, SOFTWARE_LOOP_BUDGET, TraceConfig, Tracer, Utilisation};

use wavekit::prelude::WgslSource;

/// The crate's WGSL files (on wavekit's kernel prelude).
pub static SOURCES: &[WgslSource] = &[
    wavekit::wgsl_source!("trace/common", "trace/common.wgsl"),
    wavekit::wgsl_source!("trace/private_stack", "trace/private_stack.wgsl"),
    wavekit::wgsl_source!("trace/baseline", "trace/baseline.wgsl"),
    wavekit::wgsl_source!("trace/persistent", "trace/persistent.wgsl"),
    wavekit::wgsl_source!("trace/compacted", "trace/compacted.wgsl"),
    wavekit::wgsl_source!("trace/global_stack", "trace/global_stack.wgsl"),
    wavekit::wgsl_source!("trace/stack_ops", "trace/stack_ops.wgsl"),
    wavekit::wgsl_source!("trace/workgroup_stack", "trace/workgroup_stack.wgsl"),
    wavekit::wgsl_source!("trace/fetch", "trace/fetch.wgsl"),
    wavekit::wgsl_source!("trace/paths", "trace/paths.wgsl"),
    wavekit::wgsl_source!("lbvh/common", "lbvh/common.wgsl"),
    wavekit::wgsl_source!("lbvh/bounds", "lbvh/bounds.wgsl"),
    wavekit::wgsl_source!("lbvh/morton", "lbvh/morton.wgsl"),
    wavekit::wgsl_source!("lbvh/hierarchy", "lbvh/hierarchy.wgsl"),
    wavekit::wgsl_source!("lbvh/refit", "lbvh/refit.wgsl"),
    wavekit::wgsl_source!("lbvh/finish", "lbvh/finish.wgsl"),
];
