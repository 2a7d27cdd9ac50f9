//! The one error type of `wavekit-bench`: a benchmark fails where the library it measures
//! fails, on a file it cannot read or write, or on an argument that would time nothing.

/// Everything that can stop a benchmark. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The core or the foundation failed (device, buffers, kernels).
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// The wavelet transform failed.
    #[error(transparent)]
    Dwt(#[from] wavekit_dwt::DwtError),
    /// The UI compositor failed.
    #[error(transparent)]
    Ui(#[from] wavekit_ui::error::UiError),
    /// The tracer failed.
    #[error(transparent)]
    Trace(#[from] wavekit_trace::TraceError),
    /// The codec failed.
    #[error(transparent)]
    Codec(#[from] wavekit_codec::CodecError),
    /// The point queries failed.
    #[error(transparent)]
    Spatial(#[from] wavekit_spatial::SpatialError),
    /// A file could not be read, written or parsed.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong, and where in the file.
        message: String,
    },
    /// An argument that would measure nothing, or is out of range.
    #[error("{0}")]
    InvalidArgument(String),
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A file error naming `path`.
    pub fn file(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        Error::File {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}
