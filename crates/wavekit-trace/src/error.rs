//! The one error type of `wavekit-trace`.

/// The crate's errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// An error of the GPU layer.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// A mesh that cannot be read or used (the message names the file and element).
    #[error("{0}")]
    Mesh(String),
    /// A size, buffer or setting that cannot be traced.
    #[error("{0}")]
    InvalidArgument(String),
}

/// Result with [`TraceError`].
pub type Result<T> = std::result::Result<T, TraceError>;
