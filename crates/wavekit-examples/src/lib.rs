//! Small examples of wavekit, one module per crate, each a function that does the job on the
//! caller's device and checks it against the CPU: [`primitives`] (scan, select, sort and a
//! histogram on the core), [`wavelet`] (a lossless 5/3 round trip with `wavekit-dwt`),
//! [`compositor`] (the demo panel with `wavekit-ui`), [`tracer`] (rays through a BVH with
//! `wavekit-trace`), [`codec`] (a frame coded and decoded on the GPU with `wavekit-codec`),
//! [`spatial`] (k-NN and radius search with `wavekit-spatial`). `examples/` runs each from the command line (`cargo run -p
//! wavekit-examples --example primitives`), and the panel in a window (`--example panel`);
//! `tests/examples_gpu.rs` runs each on every test device. The README's code blocks are this
//! crate's doctests, so that they stay true.

#![warn(missing_docs)]
pub mod codec;
pub mod compositor;
mod error;
pub mod primitives;
pub mod spatial;
pub mod tracer;
pub mod wavelet;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use error::{Error, Result};

/// A `Mismatch` of `example` unless `ok`.
fn check(ok: bool, example: &'static str, what: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Mismatch {
            example,
            what: what(),
        })
    }
}
