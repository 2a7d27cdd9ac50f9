//! The GPU context: adapter choice, device creation with the adapter's real limits, and the
//! capabilities that the rest of wavekit branches on.

use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::error::{Error, Result};

/// How to build a [`GpuContext`]: plain values. The library reads no environment variable;
/// the CLI and the test harness turn theirs (`WAVEKIT_ADAPTER`, `WAVEKIT_NO_SUBGROUPS`, …)
/// into these fields.
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// An adapter index (as `wavekit probe --list` prints it) or a case-insensitive part of its
    /// name. `None`: the best adapter (discrete, then integrated, then virtual, then software).
    pub adapter: Option<String>,
    /// Do not enable subgroup operations even where the adapter has them, so that the
    /// no-subgroup paths (and their errors) can be exercised on any machine.
    pub disable_subgroups: bool,
    /// The graphics APIs to look for adapters on.
    pub backends: wgpu::Backends,
    /// Split work into storage bindings of at most this many bytes, below the device's limit
    /// (tests lower it to exercise the multi-chunk paths on small inputs).
    pub max_binding_bytes: Option<u64>,
    /// Keep wgpu's injected bounds checks in shader modules. Off by default: every wavekit
    /// kernel bounds its own accesses and is validated by naga (ADR-0006).
    pub checked_shaders: bool,
    /// Zero workgroup memory at the start of every workgroup, as WebGPU requires (default on;
    /// off gained at most 0.8 % on the H200 and needs every kernel to write what it reads).
    pub zero_workgroup_memory: bool,
    /// Write every kernel's composed WGSL into this folder as it is built (for inspection and
    /// for `kernel-stats`).
    pub dump_wgsl: Option<std::path::PathBuf>,
    /// Keep compiled pipelines in a cache file in this folder, read when the context is made
    /// and written by [`GpuContext::save_pipeline_cache`] (Vulkan; one file per adapter,
    /// named by wgpu's `pipeline_cache_key`). A process then starts without compiling what an
    /// earlier one compiled, even where the driver keeps no cache of its own. Off by default.
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// On a device wavekit makes ([`GpuContext::new`]): keep every error no error scope
    /// caught (the caller's own work on `ctx.device`, say) for [`GpuContext::check_health`]
    /// to return, instead of wgpu's default handler, which panics (default on; wavekit's own
    /// calls catch theirs in error scopes either way). [`GpuContext::from_wgpu`] never installs
    /// a handler: the caller's stays.
    pub store_uncaptured_errors: bool,
    /// Host-visible staging memory kept for the next transfers, in bytes each way (uploads,
    /// read-backs): the largest buffers up to this much (default 512 MiB; 0 keeps none, and
    /// every transfer allocates its own). See [`GpuContext::staging_kept`].
    pub staging_keep_bytes: u64,
    /// Kernels kept by their composed source (default 512): building a kernel this context
    /// built before (another plan of the same primitive, another size of a plan, another
    /// test) reuses its validated module and pipeline instead of compiling it again; past this
    /// many, the kept ones are dropped and the count starts again (0 keeps none).
    pub kernel_cache_entries: usize,
    /// Build kernels with their `#unroll` blocks expanded in full (`Some(true)`: private
    /// arrays indexed by constants, kept in registers on a GPU) or as loops (`Some(false)`:
    /// the same arithmetic, several times faster for a CPU driver to compile). `None` (the
    /// default): in full, except on a software adapter such as lavapipe (ADR-0106). See
    /// [`GpuContext::unrolls_in_full`].
    pub unroll_in_full: Option<bool>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            adapter: None,
            disable_subgroups: false,
            backends: wgpu::Backends::PRIMARY,
            max_binding_bytes: None,
            checked_shaders: false,
            zero_workgroup_memory: true,
            dump_wgsl: None,
            pipeline_cache: None,
            store_uncaptured_errors: true,
            staging_keep_bytes: 512 << 20,
            kernel_cache_entries: 512,
            unroll_in_full: None,
        }
    }
}

impl ContextOptions {
    /// These options with `adapter` replaced when `Some`.
    pub fn with_adapter(mut self, adapter: Option<String>) -> Self {
        if adapter.is_some() {
            self.adapter = adapter;
        }
        self
    }
}

/// What an adapter is, in words a report can print.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    /// Index in enumeration order (what `--adapter N` takes).
    pub index: usize,
    /// The adapter's name.
    pub name: String,
    /// Graphics API backend, e.g. "Vulkan".
    pub backend: String,
    /// Driver name.
    pub driver: String,
    /// Driver version details.
    pub driver_info: String,
    /// "discrete GPU", "integrated GPU", "virtual GPU", "software (CPU)" or "other".
    pub device_type: String,
    /// True for a CPU implementation such as Mesa lavapipe (llvmpipe).
    pub software: bool,
    /// PCI vendor id.
    pub vendor: u32,
    /// PCI device id.
    pub device: u32,
}

impl AdapterSummary {
    fn new(index: usize, info: &wgpu::AdapterInfo) -> Self {
        let (device_type, software) = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => ("discrete GPU", false),
            wgpu::DeviceType::IntegratedGpu => ("integrated GPU", false),
            wgpu::DeviceType::VirtualGpu => ("virtual GPU", false),
            wgpu::DeviceType::Cpu => ("software (CPU)", true),
            wgpu::DeviceType::Other => ("other", false),
        };
        Self {
            index,
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            device_type: device_type.to_string(),
            software,
            vendor: info.vendor,
            device: info.device,
        }
    }

    /// One line: `name [Vulkan, discrete GPU]`, with "software" spelled out for CPU drivers.
    pub fn label(&self) -> String {
        let kind = if self.software {
            "software rasterizer on the CPU, not a GPU".to_string()
        } else {
            self.device_type.clone()
        };
        format!("{} [{}, {}]", self.name, self.backend, kind)
    }
}

/// Subgroup support of the device as created.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct SubgroupCaps {
    /// Whether subgroup operations are enabled on this device.
    pub supported: bool,
    /// Smallest subgroup width the adapter may use.
    pub min_size: u32,
    /// Largest subgroup width the adapter may use.
    pub max_size: u32,
}

/// How GPU time can be measured on this device.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimestampSupport {
    /// No timestamp queries: timings fall back to wall-clock time around a submission.
    None,
    /// Timestamps at compute-pass boundaries (WebGPU's `timestamp-query`).
    Passes,
    /// Also `write_timestamp` between passes of an encoder.
    InsideEncoders,
}

/// The limits wavekit sizes its work by (the adapter's real ones, requested in full).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LimitsSummary {
    /// Largest buffer, in bytes.
    pub max_buffer_size: u64,
    /// Largest storage-buffer binding, in bytes.
    pub max_storage_buffer_binding_size: u64,
    /// Workgroup memory per workgroup, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// Invocations per workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Workgroup size along x.
    pub max_compute_workgroup_size_x: u32,
    /// Workgroup size along y.
    pub max_compute_workgroup_size_y: u32,
    /// Workgroup size along z.
    pub max_compute_workgroup_size_z: u32,
    /// Workgroups per dispatch dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// Storage buffers per shader stage.
    pub max_storage_buffers_per_shader_stage: u32,
    /// Alignment of storage-buffer binding offsets.
    pub min_storage_buffer_offset_alignment: u32,
}

impl LimitsSummary {
    fn new(l: &wgpu::Limits) -> Self {
        Self {
            max_buffer_size: l.max_buffer_size,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_compute_workgroup_size_y: l.max_compute_workgroup_size_y,
            max_compute_workgroup_size_z: l.max_compute_workgroup_size_z,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
            min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
        }
    }
}

/// Everything later code branches on.
#[derive(Clone, Debug, Serialize)]
pub struct Capabilities {
    /// Subgroup operations and widths.
    pub subgroups: SubgroupCaps,
    /// Timestamp queries.
    pub timestamps: TimestampSupport,
    /// 64-bit integers in shaders.
    pub shader_int64: bool,
    /// 16-bit floats in shaders.
    pub shader_f16: bool,
    /// The browser's WebGPU: a bind group may not bind one buffer range twice where either
    /// binding is writable (Vulkan allows it; policies that do so are fitted to this), and
    /// nothing can block on the GPU (use the async forms).
    pub browser: bool,
    /// The device limits.
    pub limits: LimitsSummary,
}

/// A device and queue on a chosen adapter, with its capabilities.
pub struct GpuContext {
    /// The adapter the device was created on.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Who the adapter is.
    pub summary: AdapterSummary,
    /// What it can do (as enabled on this device).
    pub caps: Capabilities,
    subgroups_disabled: bool,
    options: ContextOptions,
    /// The pipeline cache and its file, where one was asked for and the device has one.
    cache: Option<(wgpu::PipelineCache, std::path::PathBuf)>,
    lost: Arc<Mutex<Option<String>>>,
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// Staging buffers kept for the next upload or read-back.
    pub(crate) staging: Mutex<crate::staging::StagingPool>,
    /// Kernels built so far, by their name and source (`ContextOptions::kernel_cache_entries`).
    pub(crate) kernels: Mutex<crate::kernel::Built>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.summary.label())
            .field("caps", &self.caps)
            .finish()
    }
}

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

/// Every adapter wgpu can see on `backends`, in enumeration order (blocks until wgpu has
/// enumerated them; not on the web, where [`list_adapters_async`] is the form).
#[cfg(not(target_arch = "wasm32"))]
pub fn list_adapters(backends: wgpu::Backends) -> Vec<AdapterSummary> {
    pollster::block_on(list_adapters_async(backends))
}

/// Every adapter wgpu can see on `backends`, in enumeration order (in a browser, the one
/// adapter it offers).
pub async fn list_adapters_async(backends: wgpu::Backends) -> Vec<AdapterSummary> {
    let adapters = instance(backends).enumerate_adapters(backends).await;
    adapters
        .iter()
        .enumerate()
        .map(|(i, a)| AdapterSummary::new(i, &a.get_info()))
        .collect()
}

fn rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Pick an adapter index from summaries: by index, by name substring, or the best-ranked one.
/// Pure, so that the choice is testable without a GPU.
pub fn choose_adapter(
    adapters: &[AdapterSummary],
    query: Option<&str>,
    backends: wgpu::Backends,
) -> Result<usize> {
    if adapters.is_empty() {
        return Err(Error::NoAdapter {
            backends: format!("{backends:?}"),
        });
    }
    let Some(query) = query.map(str::trim) else {
        let best = adapters
            .iter()
            .min_by_key(|a| {
                let t = match (a.software, a.device_type.as_str()) {
                    (true, _) => wgpu::DeviceType::Cpu,
                    (_, "discrete GPU") => wgpu::DeviceType::DiscreteGpu,
                    (_, "integrated GPU") => wgpu::DeviceType::IntegratedGpu,
                    (_, "virtual GPU") => wgpu::DeviceType::VirtualGpu,
                    _ => wgpu::DeviceType::Other,
                };
                // Prefer Vulkan among equals: it is the backend wavekit is tested on.
                (rank(t), a.backend != "Vulkan", a.index)
            })
            .expect("non-empty");
        return Ok(best.index);
    };
    let not_found = || Error::AdapterNotFound {
        query: query.to_string(),
        available: adapters
            .iter()
            .map(|a| format!("  {}: {}", a.index, a.label()))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    if let Ok(i) = query.parse::<usize>() {
        return adapters
            .iter()
            .find(|a| a.index == i)
            .map(|a| a.index)
            .ok_or_else(not_found);
    }
    let q = query.to_lowercase();
    adapters
        .iter()
        .filter(|a| a.name.to_lowercase().contains(&q))
        .min_by_key(|a| (a.backend != "Vulkan", a.index))
        .map(|a| a.index)
        .ok_or_else(not_found)
}

/// Features wavekit enables when the adapter has them.
/// The limits a device must have for wavekit's kernels: the storage buffers, uniforms,
/// workgroup size and workgroup memory its largest kernels bind and use. A device with more
/// gets work sized by them (bindings, tiles).
pub fn required_limits() -> wgpu::Limits {
    wgpu::Limits {
        max_storage_buffers_per_shader_stage: 12,
        max_uniform_buffers_per_shader_stage: 4,
        max_compute_invocations_per_workgroup: 256,
        max_compute_workgroup_size_x: 256,
        max_compute_workgroup_storage_size: 16384,
        ..wgpu::Limits::downlevel_defaults()
    }
}

/// The limits in `need` that `have` falls short of, each named with both values.
/// A limit's name and how to read it.
type LimitReader = (&'static str, fn(&wgpu::Limits) -> u64);

fn limits_short(have: &wgpu::Limits, need: &wgpu::Limits) -> Vec<String> {
    // Each limit wavekit needs at least so much of, read from both.
    let read: [LimitReader; 6] = [
        ("max_storage_buffers_per_shader_stage", |l| {
            l.max_storage_buffers_per_shader_stage.into()
        }),
        ("max_uniform_buffers_per_shader_stage", |l| {
            l.max_uniform_buffers_per_shader_stage.into()
        }),
        ("max_compute_invocations_per_workgroup", |l| {
            l.max_compute_invocations_per_workgroup.into()
        }),
        ("max_compute_workgroup_size_x", |l| {
            l.max_compute_workgroup_size_x.into()
        }),
        ("max_compute_workgroup_storage_size", |l| {
            l.max_compute_workgroup_storage_size.into()
        }),
        ("max_storage_buffer_binding_size", |l| {
            l.max_storage_buffer_binding_size
        }),
    ];
    read.iter()
        .filter(|(_, get)| get(have) < get(need))
        .map(|(name, get)| format!("{name} {} (needs {})", get(have), get(need)))
        .collect()
}

fn wanted_features(disable_subgroups: bool) -> wgpu::Features {
    let mut f = wgpu::Features::PIPELINE_CACHE
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::SHADER_F16;
    if !disable_subgroups {
        f |= wgpu::Features::SUBGROUP;
    }
    f
}

impl GpuContext {
    /// Create a context as `options` say. Blocks until the device exists (native only; on
    /// the web, await [`GpuContext::new_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(options: &ContextOptions) -> Result<Self> {
        pollster::block_on(Self::new_async(options))
    }

    /// Create a context as `options` say: a future of it, for the web (where a device arrives
    /// through the browser's event loop) or an async program.
    pub async fn new_async(options: &ContextOptions) -> Result<Self> {
        Self::on_instance_async(&instance(options.backends), options, None).await
    }

    /// A context on `instance` (a window's, made with its display handle), on an adapter that
    /// can present to `surface` where one is given; otherwise as [`GpuContext::new`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_instance(
        instance: &wgpu::Instance,
        options: &ContextOptions,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        pollster::block_on(Self::on_instance_async(instance, options, surface))
    }

    /// As [`GpuContext::on_instance`], a future of the context.
    pub async fn on_instance_async(
        instance: &wgpu::Instance,
        options: &ContextOptions,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        let adapters = instance.enumerate_adapters(options.backends).await;
        let adapters: Vec<wgpu::Adapter> = adapters
            .into_iter()
            .filter(|a| surface.is_none_or(|s| a.is_surface_supported(s)))
            .collect();
        let summaries: Vec<_> = adapters
            .iter()
            .enumerate()
            .map(|(i, a)| AdapterSummary::new(i, &a.get_info()))
            .collect();
        let index = choose_adapter(&summaries, options.adapter.as_deref(), options.backends)?;
        let adapter = adapters.into_iter().nth(index).expect("index from choose");
        let summary = summaries[index].clone();

        let features = adapter.features() & wanted_features(options.disable_subgroups);
        #[cfg(not(all(target_arch = "wasm32", feature = "webgpu")))]
        let subgroups_disabled =
            options.disable_subgroups && adapter.features().contains(wgpu::Features::SUBGROUP);
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("wavekit.device"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        // wgpu 30 cannot ask a browser for subgroups (ADR-0077): a contained shim adds the
        // feature to the device request where the adapter offers it.
        #[cfg(all(target_arch = "wasm32", feature = "webgpu"))]
        crate::web::request_subgroups(!options.disable_subgroups);
        let (device, queue) =
            adapter
                .request_device(&desc)
                .await
                .map_err(|e| Error::DeviceRequest {
                    adapter: summary.label(),
                    message: e.to_string(),
                })?;
        #[cfg(all(target_arch = "wasm32", feature = "webgpu"))]
        let (features, subgroups_disabled) = {
            let web = crate::web::device_has_subgroups(&device);
            let features = if web {
                features | wgpu::Features::SUBGROUP
            } else {
                features
            };
            let offered = crate::web::adapter_offers_subgroups();
            (features, options.disable_subgroups && offered)
        };

        let lost = Arc::new(Mutex::new(None));
        let lost_cb = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = lost_cb.lock() {
                *l = Some(format!("{reason:?}: {message}"));
            }
        });
        // wgpu's default handler panics; a context that made its own device turns these into
        // errors that check_health returns (ADR-0091's neighbour: errors where they happen).
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        if options.store_uncaptured_errors {
            let uncaptured_cb = uncaptured.clone();
            device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                if let Ok(mut u) = uncaptured_cb.lock() {
                    u.push(e.to_string());
                }
            }));
        }
        Ok(Self::assemble(
            (adapter, device, queue),
            summary,
            features,
            subgroups_disabled,
            options,
            (lost, uncaptured),
        ))
    }

    /// A context on the caller's own adapter, device and queue (a wgpu application's, a game
    /// engine's): wavekit's kernels run on that device beside the caller's work, and its
    /// calls take the caller's buffers. The device must have the limits
    /// [`required_limits`] gives (wavekit says which it lacks); the subgroup feature, where
    /// the device has it (and `options.disable_subgroups` is off), and the timestamp, int64
    /// and f16 features are used as the device has them. Only `options.disable_subgroups`,
    /// `options.pipeline_cache` and `options.staging_keep_bytes` are read (the adapter is the
    /// caller's).
    ///
    /// wavekit installs no handler on a device it did not make: the caller's uncaptured-error
    /// handler and device-lost callback stay theirs, and [`GpuContext::check_health`] reports
    /// only what wavekit's own error scopes caught.
    pub fn from_wgpu(
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: &ContextOptions,
    ) -> Result<Self> {
        let info = adapter.get_info();
        let summary = AdapterSummary::new(0, &info);
        let have = device.limits();
        let need = required_limits();
        let short = limits_short(&have, &need);
        if !short.is_empty() {
            return Err(Error::DeviceRequest {
                adapter: summary.label(),
                message: format!(
                    "the device was created with lower limits than wavekit's kernels need: {}; \
                     request at least wavekit::context::required_limits() (or the adapter's \
                     own, adapter.limits()) in the DeviceDescriptor",
                    short.join(", ")
                ),
            });
        }
        let features = device.features() & wanted_features(options.disable_subgroups);
        let subgroups_disabled =
            options.disable_subgroups && device.features().contains(wgpu::Features::SUBGROUP);
        Ok(Self::assemble(
            (adapter, device, queue),
            summary,
            features,
            subgroups_disabled,
            options,
            (Arc::new(Mutex::new(None)), Arc::new(Mutex::new(Vec::new()))),
        ))
    }

    #[allow(clippy::type_complexity)]
    fn assemble(
        (adapter, device, queue): (wgpu::Adapter, wgpu::Device, wgpu::Queue),
        summary: AdapterSummary,
        features: wgpu::Features,
        subgroups_disabled: bool,
        options: &ContextOptions,
        (lost, uncaptured): (Arc<Mutex<Option<String>>>, Arc<Mutex<Vec<String>>>),
    ) -> Self {
        let info = adapter.get_info();
        let cache = match (
            &options.pipeline_cache,
            wgpu::util::pipeline_cache_key(&info),
        ) {
            (Some(dir), Some(key)) if features.contains(wgpu::Features::PIPELINE_CACHE) => {
                let file = dir.join(key);
                // A missing or unreadable file is an empty cache; data from another driver
                // version is dropped by wgpu (fallback).
                let data = std::fs::read(&file).ok();
                // SAFETY: the data was written by `save_pipeline_cache` from
                // `PipelineCache::get_data` for an adapter of the same key (the file is named by
                // it); wgpu validates the header and falls back to an empty cache otherwise.
                let cache = unsafe {
                    device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                        label: Some("wavekit.pipeline_cache"),
                        data: data.as_deref(),
                        fallback: true,
                    })
                };
                Some((cache, file))
            }
            _ => None,
        };
        let timestamps = if features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS) {
            TimestampSupport::InsideEncoders
        } else if features.contains(wgpu::Features::TIMESTAMP_QUERY) {
            TimestampSupport::Passes
        } else {
            TimestampSupport::None
        };
        let device_limits = device.limits();
        let caps = Capabilities {
            subgroups: SubgroupCaps {
                supported: features.contains(wgpu::Features::SUBGROUP),
                min_size: info.subgroup_min_size,
                max_size: info.subgroup_max_size,
            },
            timestamps,
            shader_int64: features.contains(wgpu::Features::SHADER_INT64),
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            browser: info.backend == wgpu::Backend::BrowserWebGpu,
            limits: LimitsSummary::new(&device_limits),
        };
        Self {
            adapter,
            device,
            queue,
            summary,
            caps,
            subgroups_disabled,
            options: options.clone(),
            cache,
            lost,
            uncaptured,
            staging: crate::staging::StagingPool::new(options.staging_keep_bytes),
            kernels: Mutex::default(),
        }
    }

    /// The pipeline cache, where [`ContextOptions::pipeline_cache`] asked for one and the device
    /// has one (Vulkan).
    pub fn pipeline_cache(&self) -> Option<&wgpu::PipelineCache> {
        self.cache.as_ref().map(|(c, _)| c)
    }

    /// Write the pipeline cache to its file (atomically: a temporary file, then a rename), and
    /// return the file; `None` where there is no cache or no data yet. Call it after building
    /// the pipelines a program needs, e.g. before it exits.
    pub fn save_pipeline_cache(&self) -> Result<Option<std::path::PathBuf>> {
        let Some((cache, file)) = &self.cache else {
            return Ok(None);
        };
        let Some(data) = cache.get_data() else {
            return Ok(None);
        };
        let io = |e: std::io::Error| {
            Error::InvalidArgument(format!(
                "writing the pipeline cache {}: {e}; check the folder given as \
                 ContextOptions::pipeline_cache",
                file.display()
            ))
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &data).map_err(io)?;
        std::fs::rename(&tmp, file).map_err(io)?;
        Ok(Some(file.clone()))
    }

    /// The options this context was made with.
    pub fn options(&self) -> &ContextOptions {
        &self.options
    }

    /// Whether kernels are built with their `#unroll` blocks in full
    /// (`ContextOptions::unroll_in_full`; by default everywhere but on software adapters).
    pub fn unrolls_in_full(&self) -> bool {
        self.options
            .unroll_in_full
            .unwrap_or(!self.summary.software)
    }

    /// Fails with [`Error::MissingFeature`] unless subgroup operations are enabled.
    pub fn require_subgroups(&self) -> Result<()> {
        if self.caps.subgroups.supported {
            Ok(())
        } else if self.subgroups_disabled {
            Err(Error::MissingFeature {
                feature: "subgroup operations (disabled on purpose)",
                adapter: self.summary.label(),
                hint: "leave ContextOptions::disable_subgroups off (the CLI: unset \
                       WAVEKIT_NO_SUBGROUPS), or call the no-subgroup path",
            })
        } else {
            Err(Error::MissingFeature {
                feature: "subgroup operations",
                adapter: self.summary.label(),
                hint: "use a GPU and driver with subgroup support (Vulkan 1.1+), or call the \
                       no-subgroup path",
            })
        }
    }

    /// Fails if a workgroup shape is beyond this device's limits.
    pub fn check_workgroup(&self, shape: [u32; 3]) -> Result<()> {
        let l = &self.caps.limits;
        let invocations = shape.iter().product::<u32>();
        if invocations > l.max_compute_invocations_per_workgroup
            || shape[0] > l.max_compute_workgroup_size_x
            || shape[1] > l.max_compute_workgroup_size_y
            || shape[2] > l.max_compute_workgroup_size_z
        {
            return Err(Error::WorkgroupTooLarge {
                shape,
                invocations,
                max_invocations: l.max_compute_invocations_per_workgroup,
                max_x: l.max_compute_workgroup_size_x,
                max_y: l.max_compute_workgroup_size_y,
                max_z: l.max_compute_workgroup_size_z,
            });
        }
        Ok(())
    }

    /// The largest storage binding wavekit uses: the device's, or less where
    /// [`ContextOptions::max_binding_bytes`] says so.
    pub fn binding_limit(&self) -> u64 {
        let limit = self.caps.limits.max_storage_buffer_binding_size;
        self.options
            .max_binding_bytes
            .map_or(limit, |l| limit.min(l))
    }

    /// Fails with [`Error::BindingTooLarge`] if `bytes` cannot be bound as one storage buffer.
    pub fn check_binding(&self, what: &str, bytes: u64) -> Result<()> {
        let limit = self.binding_limit();
        if bytes > limit {
            return Err(Error::BindingTooLarge {
                what: what.to_string(),
                bytes,
                limit,
            });
        }
        Ok(())
    }

    /// Fails if the device was lost, or with every error wgpu reported that no error scope
    /// caught (oldest first; they are cleared, so each is reported once). A context that made
    /// its own device ([`GpuContext::new`]) installs an uncaptured-error handler on it that
    /// stores them (wgpu's own handler panics; [`ContextOptions::store_uncaptured_errors`]
    /// off keeps wgpu's); one made with [`GpuContext::from_wgpu`] installs none, and the
    /// caller's handler sees them.
    pub fn check_health(&self) -> Result<()> {
        if let Some(reason) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(Error::DeviceLost { reason });
        }
        let stored: Vec<String> = self
            .uncaptured
            .lock()
            .map(|mut u| std::mem::take(&mut *u))
            .unwrap_or_default();
        if !stored.is_empty() {
            return Err(Error::Gpu {
                operation: format!(
                    "an earlier GPU call outside wavekit's error scopes ({} error{})",
                    stored.len(),
                    if stored.len() == 1 { "" } else { "s" }
                ),
                message: stored.join("\n"),
            });
        }
        Ok(())
    }

    /// Run `f` inside validation and out-of-memory error scopes; a wgpu error becomes
    /// [`Error::Gpu`] naming `operation`.
    pub fn scoped<T>(&self, operation: &str, f: impl FnOnce() -> T) -> Result<T> {
        // On the web the scopes' answers would come through the event loop, after this
        // returns: wavekit opens none there, so that an error reaches the device's
        // uncaptured-error handler instead, and the next check reports it.
        #[cfg(target_arch = "wasm32")]
        {
            let _ = operation;
            let out = f();
            self.check_health()?;
            Ok(out)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let out = f();
            let v = pollster::block_on(validation.pop());
            let o = pollster::block_on(oom.pop());
            if let Some(e) = v.or(o) {
                return Err(Error::Gpu {
                    operation: operation.to_string(),
                    message: e.to_string(),
                });
            }
            self.check_health()?;
            Ok(out)
        }
    }

    /// Block until all submitted work is done.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu {
                operation: "waiting for the GPU".into(),
                message: e.to_string(),
            })?;
        self.check_health()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(index: usize, name: &str, device_type: &str, software: bool) -> AdapterSummary {
        AdapterSummary {
            index,
            name: name.into(),
            backend: "Vulkan".into(),
            driver: String::new(),
            driver_info: String::new(),
            device_type: device_type.into(),
            software,
            vendor: 0,
            device: 0,
        }
    }

    fn adapters() -> Vec<AdapterSummary> {
        vec![
            fake(
                0,
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                "software (CPU)",
                true,
            ),
            fake(1, "Intel(R) UHD Graphics", "integrated GPU", false),
            fake(2, "NVIDIA H200", "discrete GPU", false),
        ]
    }

    #[test]
    fn default_choice_prefers_a_discrete_gpu_then_integrated_then_software() {
        let mut a = adapters();
        assert_eq!(
            choose_adapter(&a, None, wgpu::Backends::PRIMARY).unwrap(),
            2
        );
        a.pop();
        assert_eq!(
            choose_adapter(&a, None, wgpu::Backends::PRIMARY).unwrap(),
            1
        );
        a.pop();
        assert_eq!(
            choose_adapter(&a, None, wgpu::Backends::PRIMARY).unwrap(),
            0
        );
    }

    #[test]
    fn choice_by_index_or_name_substring() {
        let a = adapters();
        assert_eq!(
            choose_adapter(&a, Some("0"), wgpu::Backends::PRIMARY).unwrap(),
            0
        );
        assert_eq!(
            choose_adapter(&a, Some("llvmpipe"), wgpu::Backends::PRIMARY).unwrap(),
            0
        );
        assert_eq!(
            choose_adapter(&a, Some(" h200 "), wgpu::Backends::PRIMARY).unwrap(),
            2
        );
    }

    #[test]
    fn unknown_adapters_list_the_available_ones() {
        let a = adapters();
        let e = choose_adapter(&a, Some("radeon"), wgpu::Backends::PRIMARY)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no adapter matches 'radeon'"), "{e}");
        assert!(e.contains("2: NVIDIA H200 [Vulkan, discrete GPU]"), "{e}");
        assert!(e.contains("software rasterizer on the CPU"), "{e}");
        let e = choose_adapter(&a, Some("7"), wgpu::Backends::PRIMARY).unwrap_err();
        assert!(matches!(e, Error::AdapterNotFound { .. }));
    }

    #[test]
    fn no_adapter_says_how_to_get_one() {
        let e = choose_adapter(&[], None, wgpu::Backends::PRIMARY)
            .unwrap_err()
            .to_string();
        assert!(e.contains("mesa-vulkan-drivers"), "{e}");
    }
}
