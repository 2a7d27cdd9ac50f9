//! The one error type of `wavekit-dwt`.

/// The crate's errors.
#[derive(Debug, thiserror::Error)]
pub enum DwtError {
    /// An error of the GPU layer.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// A size, level count or plane count that cannot be transformed.
    #[error("{0}")]
    InvalidArgument(String),
}

/// Result with [`DwtError`].
pub type Result<T> = std::result::Result<T, DwtError>;
