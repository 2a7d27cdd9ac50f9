//! The one error type of the CLI.

/// What can stop a `wavekit` command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// An error from the library.
    #[error(transparent)]
    Wavekit(#[from] wavekit::Error),
    /// JSON output failed.
    #[error("could not write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// An environment knob (`WAVEKIT_*`) is set to a value it does not take.
    #[error(transparent)]
    Knob(#[from] wavekit_harness::KnobError),
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// A check the command makes failed (e.g. a round trip).
    #[error("check failed: {0}")]
    CheckFailed(String),
    /// The demo ran and some checks failed.
    #[error("demo failed: {failed} checks differ from the CPU reference")]
    DemoFailed {
        /// Checks that failed.
        failed: usize,
    },
    /// The self-test ran and some families failed.
    #[error(
        "selftest failed: {failed} of {total} operation families differ from the host reference"
    )]
    SelftestFailed {
        /// Families that failed.
        failed: usize,
        /// Families checked.
        total: usize,
    },
}

/// The wavelet library's errors: its GPU errors as the core library's, a plan it cannot make
/// (size, levels, samples of the other wavelet) as a usage error. Both exit with 2.
impl From<wavekit_dwt::DwtError> for CliError {
    fn from(e: wavekit_dwt::DwtError) -> Self {
        match e {
            wavekit_dwt::DwtError::Gpu(e) => CliError::Wavekit(e),
            wavekit_dwt::DwtError::InvalidArgument(m) => CliError::Usage(m),
        }
    }
}

/// A benchmark's errors, as the library's that it wraps; a bad argument is a usage error.
impl From<wavekit_bench::Error> for CliError {
    fn from(e: wavekit_bench::Error) -> Self {
        match e {
            wavekit_bench::Error::Gpu(e) => CliError::Wavekit(e),
            wavekit_bench::Error::Dwt(e) => e.into(),
            wavekit_bench::Error::Ui(e) => e.into(),
            wavekit_bench::Error::Trace(e) => e.into(),
            wavekit_bench::Error::File { path, message } => CliError::File { path, message },
            e => CliError::Usage(e.to_string()),
        }
    }
}

impl CliError {
    /// Process exit code: 1 for a failed check, 2 for anything that stopped the command.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::SelftestFailed { .. }
            | CliError::DemoFailed { .. }
            | CliError::CheckFailed(_) => 1,
            _ => 2,
        }
    }
}
