//! The crate's one error type.

/// What can go wrong building, encoding or rendering a draw list.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UiError {
    /// An error of the GPU layer.
    #[error(transparent)]
    Gpu(#[from] wavekit::Error),
    /// A value the draw list cannot take (a negative size, NaN, an unknown font or image).
    #[error("{0}")]
    Invalid(String),
    /// A scene item is wrong: which one, and what.
    #[error("item {index} ({kind}): {message}")]
    Item {
        /// The item's index in the scene's `items`.
        index: usize,
        /// Its kind (`rect`, `push_clip`, …).
        kind: String,
        /// What is wrong.
        message: String,
    },
    /// A scene file is not valid JSON of the scene format.
    #[error("scene {path}: {message}")]
    Scene {
        /// The scene file.
        path: String,
        /// What is wrong, with the line and column where serde knows them.
        message: String,
    },
    /// A file could not be read.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A `push_clip` without its `pop_clip`, or a `pop_clip` without a `push_clip`.
    #[error("{0}")]
    Unbalanced(String),
    /// The GPU reported that a list outgrew its buffer (a bug: the builder's bound is
    /// conservative).
    #[error(
        "the bin lists outgrew their buffer ({needed} entries for {capacity}); please report this scene"
    )]
    Overflow {
        /// Entries written.
        needed: u32,
        /// Room.
        capacity: u32,
    },
}

/// Result with [`UiError`].
pub type Result<T> = std::result::Result<T, UiError>;
