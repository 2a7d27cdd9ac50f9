//! wavekit's foundation: what every primitive and every application crate stands on, and
//! nothing else. It is a crate of its own so that the compiler keeps the layers apart: this
//! crate cannot name a primitive (scan, sort, …), since it does not depend on the crate that
//! holds them. `wavekit` re-exports every module here; users name them as `wavekit::…`.
//!
//! - [`GpuContext`] (adapter choice, a device with the adapter's real limits and every feature
//!   wavekit can use, the [`Capabilities`] code branches on);
//! - [`shader`] (WGSL composed from shared pieces with `#import`, validated by naga) and the
//!   WGSL layers under `shaders/`: `subgroup/` (the hardware's subgroup operations or their
//!   one-lane emulation, and subgroup compaction), `workgroup/` (the carry across subgroups,
//!   `wg_compact`, tiles), `device/` (look-back, tile ranges), `shared/` (ballot arithmetic);
//! - [`sim`]: CPU ports of those layers, written to read like the WGSL, for any subgroup width
//!   from 1 to 128, which the primitives' and applications' simulations are built from;
//! - [`kernel`] (pipelines with reflected bindings, [`kernel::KernelCache`]), [`prelude`] (how
//!   another crate composes its own kernels on the pieces), [`GpuTimer`] (GPU time on
//!   timestamp queries), [`tiling`] (the look-back tile shape), [`monoid`], [`tuning`].
//!
//! The crate reads no environment variable: configuration is a value the caller passes
//! ([`ContextOptions`], each primitive's policy).

#![warn(missing_docs)]
pub mod buffers;
pub mod context;
pub mod error;
pub mod kernel;
pub mod monoid;
pub mod prelude;
pub mod record;
pub mod shader;
pub mod sim;
mod staging;
pub mod tiling;
pub mod timer;
pub mod tuning;
#[cfg(all(target_arch = "wasm32", feature = "webgpu"))]
mod web;

pub use buffers::{MappedRead, POISON, ReadBack};
#[cfg(not(target_arch = "wasm32"))]
pub use context::list_adapters;
pub use context::{
    AdapterSummary, Capabilities, ContextOptions, GpuContext, LimitsSummary, SubgroupCaps,
    TimestampSupport, list_adapters_async,
};
pub use error::{Error, Result};
pub use staging::copy_bytes;
pub use tiling::LookbackStats;
pub use timer::{GpuTimer, Timing, TimingMethod};
