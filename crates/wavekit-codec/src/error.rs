//! The one error type of `wavekit-codec`.

/// What can stop an encode or a decode. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The core or the wavelet transform failed.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// A frame size, format or budget the codec cannot take.
    #[error("{0}")]
    InvalidArgument(String),
    /// A byte string that is not a wavekit frame (its header is missing, of another version, or
    /// names an impossible size): nothing could be decoded.
    #[error("not a decodable wavekit frame: {0}")]
    Bitstream(String),
    /// A `.y4m` stream this codec cannot read: what is wrong with it, and what to do.
    #[error("not a usable YUV4MPEG2 stream: {0}")]
    Y4m(String),
    /// Reading or writing a stream failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<wavekit_dwt::DwtError> for CodecError {
    fn from(e: wavekit_dwt::DwtError) -> Self {
        match e {
            wavekit_dwt::DwtError::Gpu(e) => CodecError::Gpu(e),
            wavekit_dwt::DwtError::InvalidArgument(m) => CodecError::InvalidArgument(m),
        }
    }
}

/// `Result` with [`CodecError`].
pub type Result<T> = std::result::Result<T, CodecError>;
