//! Small examples of wavekit, one module per crate, each a function that does the job on the
//! caller's device and checks it against the CPU: [`primitives`] (scan, select, sort and a
//! histogram on the core), [`wavelet`] (a lossless 5/3 round trip with `wavekit-dwt`),
//! [`compositor`] (the demo panel with `wavekit-ui`), [`tracer`] (rays through a BVH with
//! `wavekit-trace`). `examples/` runs each from the command line (`cargo run -p
//! wavekit-examples --example primitives`), and the panel in a window (`--example panel`);
//! `tests/examples_gpu.rs` runs each on every test device. The README's code blocks are this
//! crate's doctests, so that they stay true.

pub mod compositor;
pub mod primitives;
pub mod tracer;
pub mod wavelet;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// What can stop an example: the library it shows failed, or its result differs from the CPU.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The core.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// The wavelet transform.
    #[error(transparent)]
    Dwt(#[from] wavekit_dwt::DwtError),
    /// The compositor.
    #[error(transparent)]
    Ui(#[from] wavekit_ui::UiError),
    /// The tracer.
    #[error(transparent)]
    Trace(#[from] wavekit_trace::TraceError),
    /// The GPU's answer is not the CPU's.
    #[error("{example}: the GPU's result differs from the CPU's: {what}")]
    Mismatch {
        /// Which example.
        example: &'static str,
        /// Where.
        what: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

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
