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
    /// Rays (paths) left without a result: their traversal passed the adapter's loop budget
    /// ([`crate::TraceConfig::loop_budget`]; ADR-0091). No result of the call is whole.
    #[error(
        "{unanswered} of {rays} rays (paths) were not traced to the end ({given_up} needed more \
         loop iterations than the budget of {budget} allows in one dispatch; llvmpipe ends a \
         shader's loops after 65 535 iterations in all): trace on a hardware GPU, or with a \
         shallower BVH or fewer bounces"
    )]
    Unanswered {
        /// Rays asked.
        rays: u32,
        /// Rays without a result.
        unanswered: u32,
        /// Rays given up at the budget.
        given_up: u32,
        /// The budget in force.
        budget: String,
    },
}

/// Result with [`TraceError`].
pub type Result<T> = std::result::Result<T, TraceError>;
