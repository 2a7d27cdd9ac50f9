//! The one error type of the `wavekit` crate.

/// Everything that can go wrong in wavekit. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU adapter was found at all.
    #[error(
        "no GPU adapter found (backends tried: {backends}): install a GPU driver, or Mesa's \
         software Vulkan driver with `apt-get install mesa-vulkan-drivers libvulkan1`"
    )]
    NoAdapter {
        /// The wgpu backends that were searched.
        backends: String,
    },

    /// `WAVEKIT_ADAPTER` / `--adapter` matched no adapter.
    #[error(
        "no adapter matches '{query}' (give an index or a part of the name); available adapters:\n{available}"
    )]
    AdapterNotFound {
        /// What the user asked for.
        query: String,
        /// One line per available adapter: `index: name [backend, type]`.
        available: String,
    },

    /// The adapter lacks a feature the requested path needs.
    #[error("{feature} unavailable on adapter '{adapter}': {hint}")]
    MissingFeature {
        /// The missing capability, in words (e.g. "subgroup operations").
        feature: &'static str,
        /// The adapter's name.
        adapter: String,
        /// What the user can do about it.
        hint: &'static str,
    },

    /// The device could not be created.
    #[error("could not create a device on adapter '{adapter}': {message}")]
    DeviceRequest {
        /// The adapter's name.
        adapter: String,
        /// wgpu's explanation.
        message: String,
    },

    /// A buffer binding is larger than the device allows.
    #[error(
        "{what} needs a {bytes}-byte storage binding, over this device's limit of {limit} bytes: \
         split the input or use a device with a larger max_storage_buffer_binding_size"
    )]
    BindingTooLarge {
        /// Which buffer.
        what: String,
        /// Bytes requested.
        bytes: u64,
        /// The device's `max_storage_buffer_binding_size`.
        limit: u64,
    },

    /// A buffer is larger than the device allows.
    #[error(
        "{what} needs a {bytes}-byte buffer, over this device's max_buffer_size of {limit} bytes"
    )]
    BufferTooLarge {
        /// Which buffer.
        what: String,
        /// Bytes requested.
        bytes: u64,
        /// The device's `max_buffer_size`.
        limit: u64,
    },

    /// A workgroup shape is larger than the device allows.
    #[error(
        "workgroup {shape:?} ({invocations} invocations) exceeds this device's limits \
         (at most {max_invocations} invocations, {max_x}x{max_y}x{max_z})"
    )]
    WorkgroupTooLarge {
        /// The requested shape.
        shape: [u32; 3],
        /// Its invocation count.
        invocations: u32,
        /// The device's `max_compute_invocations_per_workgroup`.
        max_invocations: u32,
        /// The device's per-axis maxima.
        max_x: u32,
        /// The device's per-axis maxima.
        max_y: u32,
        /// The device's per-axis maxima.
        max_z: u32,
    },

    /// A kernel needs more workgroup memory than the device has (a tuning knob such as
    /// `WAVEKIT_TILE_STEPS` set too high, a wide custom element type, or a benchmark's size).
    #[error(
        "shader '{shader}' needs {bytes} bytes of workgroup memory, over this device's limit of \
         {limit}: use a smaller tile (lower WAVEKIT_TILE_STEPS, WAVEKIT_SORT_ITEMS or the size \
         asked for) or a narrower element type"
    )]
    WorkgroupMemoryTooLarge {
        /// The shader's name.
        shader: String,
        /// Bytes its entry point uses (each variable rounded up to 16).
        bytes: u64,
        /// The device's `max_compute_workgroup_storage_size`.
        limit: u64,
    },

    /// WGSL failed to compose, parse or validate. `message` names the file and line.
    #[error("shader '{shader}': {message}")]
    Shader {
        /// The shader's name.
        shader: String,
        /// The error, with file and line.
        message: String,
    },

    /// wgpu reported a validation or out-of-memory error for a GPU operation.
    #[error("GPU error during {operation}: {message}")]
    Gpu {
        /// What wavekit was doing.
        operation: String,
        /// wgpu's message.
        message: String,
    },

    /// The device was lost (driver reset, GPU removed, or a hung kernel).
    #[error(
        "GPU device lost: {reason}; create a new context (a hung kernel or a driver reset can cause this)"
    )]
    DeviceLost {
        /// The driver's reason.
        reason: String,
    },

    /// Reading results back from the GPU failed.
    #[error("could not read back {what} from the GPU: {message}")]
    Readback {
        /// Which buffer.
        what: String,
        /// The cause.
        message: String,
    },

    /// A blocking call was made where the GPU's results arrive only through the event loop
    /// (WebGPU in a browser): the blocking form cannot wait there.
    #[error(
        "{operation} cannot block on the web: the browser delivers GPU results only to a future; \
         use {instead} and await it"
    )]
    WouldBlock {
        /// What was asked for, e.g. "reading back scan output".
        operation: String,
        /// The async form to call instead.
        instead: &'static str,
    },

    /// An argument was out of range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// `Result` with wavekit's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
