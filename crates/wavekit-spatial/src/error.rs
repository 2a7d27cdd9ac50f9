//! The one error type of `wavekit-spatial`.

/// What can stop a build or a query. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpatialError {
    /// The core failed (a device error, a buffer past the device's limits).
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// Points, queries or parameters the library cannot take.
    #[error("{0}")]
    InvalidArgument(String),
}

/// `Result` with [`SpatialError`].
pub type Result<T> = std::result::Result<T, SpatialError>;
