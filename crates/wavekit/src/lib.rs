//! wavekit: subgroup-accelerated GPU compute for Rust, on wgpu and WGSL.
//!
//! Layers, as CUB's: the subgroup and workgroup layers are WGSL pieces (`shaders/`), the
//! device-wide primitives are Rust types that build pipelines once and record into the
//! caller's encoder:
//! - the foundation, a crate of its own (`wavekit-gpu`, re-exported here module by module) so
//!   that the compiler keeps it free of the primitives: [`GpuContext`] (adapter choice, a device
//!   with the adapter's real limits and every feature wavekit can use, the [`Capabilities`]
//!   code branches on), [`shader`] (WGSL composed from shared pieces with `#import`, validated
//!   by naga), [`kernel`] (pipelines with reflected bindings, one [`kernel::KernelCache`]),
//!   [`GpuTimer`] (GPU time on timestamp queries), [`sim`] (the layers' CPU ports);
//! - [`prelude`]: how another crate composes its own kernels on the subgroup and workgroup
//!   pieces (`wg_compact`, ballots, the carry across subgroups);
//! - the primitives: [`scan`], [`reduce`], [`select`], [`sort`], [`histogram`], [`copy`], each
//!   built as `X::new(ctx, &XConfig { policy, .. })` with a typed policy (its tuning);
//!   `None`: the defaults, measured on the H200 ([`tuning`]).
//!
//! Tools are crates beside the library, not layers in it: `wavekit-selftest` (every subgroup
//! operation family checked on the GPU against the host) and `wavekit-bench` (the one
//! benchmark protocol and every benchmark).
//!
//! The library reads no environment variable: configuration is a value the caller passes
//! ([`ContextOptions`], each primitive's policy).
//!
//! ```no_run
//! use wavekit::{ContextOptions, GpuContext};
//!
//! let ctx = GpuContext::new(&ContextOptions::default())?;
//! println!("{}: subgroups {:?}", ctx.summary.label(), ctx.caps.subgroups);
//! # Ok::<(), wavekit::Error>(())
//! ```

#![warn(missing_docs)]
/// The wgpu wavekit was built with: take its buffers, encoders and devices from here (or depend
/// on the same version), so that their types are the ones wavekit's calls take.
pub use wgpu;

pub mod clear;
pub mod copy;
pub mod histogram;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod sort;

pub use wavekit_gpu::{
    buffers, context, error, kernel, monoid, prelude, record, shader, sim, tiling, timer, tuning,
    uniform_fields, wgsl_source,
};

#[cfg(not(target_arch = "wasm32"))]
pub use wavekit_gpu::list_adapters;
pub use wavekit_gpu::{
    AdapterSummary, Capabilities, ContextOptions, Error, GpuContext, GpuTimer, LimitsSummary,
    LookbackStats, MappedRead, POISON, ReadBack, Result, SubgroupCaps, TimestampSupport, Timing,
    TimingMethod, copy_bytes, list_adapters_async,
};
