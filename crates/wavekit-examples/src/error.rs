//! The one error type of `wavekit-examples`.

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
    /// The codec.
    #[error(transparent)]
    Codec(#[from] wavekit_codec::CodecError),
    /// The point queries.
    #[error(transparent)]
    Spatial(#[from] wavekit_spatial::SpatialError),
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
