//! wavekit: subgroup-accelerated GPU compute for Rust, on wgpu and WGSL.
//!
//! This crate holds the foundation every primitive stands on:
//! - [`GpuContext`]: adapter choice (`WAVEKIT_ADAPTER`), a device with the adapter's real
//!   limits and every feature wavekit can use, and the [`Capabilities`] code branches on;
//! - [`shader`]: WGSL kernels composed from shared pieces (`#import`), validated by naga;
//! - [`GpuTimer`]: GPU time on timestamp queries (median and spread of many runs);
//! - [`selftest`]: every subgroup operation family, checked on the GPU against the host;
//! - [`bench`]: the copy kernel that is every benchmark's 100 % line.
//!
//! ```
//! use wavekit::{ContextOptions, GpuContext};
//!
//! let ctx = GpuContext::new(&ContextOptions::from_env())?;
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
mod primitive;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod selftest;
pub mod shader;
pub mod sort;
pub mod timer;
pub mod tuning;

pub use buffers::POISON;
pub use context::{
    AdapterSummary, Capabilities, ContextOptions, GpuContext, LimitsSummary, SubgroupCaps,
    TimestampSupport, list_adapters,
};
pub use error::{Error, Result};
pub use primitive::{LookbackStats, tile as tile_elements};
pub use timer::{GpuTimer, Timing, TimingMethod};

// The README's examples are compiled as doctests of `wavekit-dwt`, the crate that can see
// both libraries.
