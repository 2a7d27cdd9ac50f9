//! wavekit: subgroup-accelerated GPU compute for Rust, on wgpu and WGSL.
//!
//! Layers, as CUB's: the subgroup and workgroup layers are WGSL pieces (`shaders/`), the
//! device-wide primitives are Rust types that build pipelines once and record into the
//! caller's encoder:
//! - the foundation: [`GpuContext`] (adapter choice, a device with the adapter's real limits
//!   and every feature wavekit can use, the [`Capabilities`] code branches on), [`shader`]
//!   (WGSL composed from shared pieces with `#import`, validated by naga), [`kernel`]
//!   (pipelines with reflected bindings), [`GpuTimer`] (GPU time on timestamp queries);
//! - [`prelude`]: how another crate composes its own kernels on the subgroup and workgroup
//!   pieces (`wg_compact`, ballots, the carry across subgroups);
//! - the primitives: [`scan`], [`reduce`], [`select`], [`sort`], [`histogram`], [`copy`], each
//!   with a typed policy (its tuning) that defaults per device;
//! - [`selftest`] (every subgroup operation family checked on the GPU against the host) and
//!   [`bench`] (the primitives' benchmark and the probes).
//!
//! The library reads no environment variable: configuration is a value the caller passes
//! ([`ContextOptions`], each primitive's policy).
//!
//! ```
//! use wavekit::{ContextOptions, GpuContext};
//!
//! let ctx = GpuContext::new(&ContextOptions::default())?;
//! println!("{}: subgroups {:?}", ctx.summary.label(), ctx.caps.subgroups);
//! let report = wavekit::selftest::run(&ctx, 1)?;
//! assert!(report.passed());
//! # Ok::<(), wavekit::Error>(())
//! ```

pub mod bench;
mod buffers;
pub mod context;
pub mod copy;
pub mod error;
pub mod histogram;
pub mod kernel;
pub mod monoid;
pub mod prelude;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod selftest;
pub mod shader;
pub mod sort;
pub mod tiling;
pub mod timer;
pub mod tuning;

pub use buffers::POISON;
pub use context::{
    AdapterSummary, Capabilities, ContextOptions, GpuContext, LimitsSummary, SubgroupCaps,
    TimestampSupport, list_adapters,
};
pub use error::{Error, Result};
pub use tiling::LookbackStats;
pub use timer::{GpuTimer, Timing, TimingMethod};

// The README's examples are compiled as doctests of `wavekit-dwt`, the crate that can see
// both libraries.
