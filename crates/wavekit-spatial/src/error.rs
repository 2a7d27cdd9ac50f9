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
    /// A query kernel left queries unanswered: their walks passed the adapter's loop budget
    /// ([`crate::SpatialConfig::loop_budget`]). No result of the call is returned.
    #[error(
        "{what}: {unanswered} of {queries} queries were not answered ({given_up} walks needed \
         more loop iterations than the budget of {budget} allows in one dispatch; llvmpipe ends \
         a shader's loops after 65 535 iterations in all): use a smaller leaf, fewer \
         neighbours or a smaller radius, or a hardware GPU"
    )]
    Unanswered {
        /// The query ("k-NN", "radius search").
        what: &'static str,
        /// Queries asked.
        queries: u32,
        /// Queries without a result.
        unanswered: u32,
        /// Walks given up at the budget.
        given_up: u32,
        /// The budget in force.
        budget: String,
    },
}

/// `Result` with [`SpatialError`].
pub type Result<T> = std::result::Result<T, SpatialError>;
