//! The Python package's one error enum; each becomes a Python exception (`ValueError` for a
//! caller's mistake, `RuntimeError` for the device's).

/// What went wrong in a call from Python.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A wavekit call failed.
    #[error(transparent)]
    Wavekit(#[from] wavekit::Error),
    /// A tree or a query failed.
    #[error(transparent)]
    Spatial(wavekit_spatial::SpatialError),
    /// No device could be used.
    #[error("no GPU device for wavekit: {0}")]
    Device(String),
    /// An element type the call does not take.
    #[error(
        "wavekit.{call} takes uint32, int32 or float32 arrays, not '{dtype}': convert with a.astype(...)"
    )]
    Dtype {
        /// The call.
        call: &'static str,
        /// The type it got.
        dtype: String,
    },
    /// A caller's mistake.
    #[error("{0}")]
    InvalidArgument(String),
}

impl Error {
    /// `call` got elements of `dtype`, which it does not take.
    pub fn dtype(call: &'static str, dtype: &str) -> Self {
        Error::Dtype {
            call,
            dtype: dtype.to_string(),
        }
    }
}

/// A result of the Python package.
pub type Result<T> = std::result::Result<T, Error>;
