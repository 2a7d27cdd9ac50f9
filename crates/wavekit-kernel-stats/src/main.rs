//! `kernel-stats`: what the Vulkan driver made of wavekit's kernels.
//!
//! Reads composed WGSL files (written by any wavekit run with `WAVEKIT_DUMP_WGSL=DIR`),
//! translates each to SPIR-V with naga (as wgpu does, without bounds checks), builds it as a
//! compute pipeline with `VK_KHR_pipeline_executable_properties`' statistics captured, and
//! prints the driver's statistics for it: on NVIDIA the registers per invocation and the
//! spills, which decide how many workgroups an SM holds at once (occupancy was a reading
//! until now: ADR-0024, ADR-0025). A developer tool, not part of the library.
//!
//! Usage: `kernel-stats [--device NAME | --translate-only] [--consts NAME,...] FILE.wgsl|DIR ...`
//! — one line per kernel, `file  executable  subgroup=N  workgroup=X  Statistic=value ...`;
//! `--translate-only` stops after SPIR-V (for devices without the extension, e.g. lavapipe);
//! `--consts` adds the values of the named prepended constants (`VALUES=1u INLINE_BLOCKS=0u`), so
//! that the variants of one kernel, whose dumps differ only by a hash in the name, can be told
//! apart.

use std::ffi::CStr;
use std::path::{Path, PathBuf};

use ash::vk;

/// Everything that can go wrong; each message says what to do.
#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(
        "usage: kernel-stats [--device NAME | --translate-only] [--consts NAME,...] FILE.wgsl|DIR ... \
         (no kernel given)"
    )]
    Usage,
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid WGSL:\n{message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path} does not validate:\n{message}")]
    Validate { path: PathBuf, message: String },
    #[error("{path}: naga could not write SPIR-V: {message}")]
    Spirv { path: PathBuf, message: String },
    #[error("{path} has no compute entry point `main`")]
    NoEntry { path: PathBuf },
    #[error("cannot load the Vulkan loader ({0}): install libvulkan1")]
    Loader(String),
    #[error("{what} failed: {result:?}")]
    Vulkan {
        what: &'static str,
        result: vk::Result,
    },
    #[error("no Vulkan device{0}: install a GPU driver or mesa-vulkan-drivers")]
    NoDevice(String),
    #[error(
        "{0} lacks VK_KHR_pipeline_executable_properties (or its pipelineExecutableInfo \
         feature): it cannot report what it compiled; try another device with --device"
    )]
    NoStatistics(String),
}

type Result<T> = std::result::Result<T, Error>;

fn vkr<T>(what: &'static str, r: std::result::Result<T, vk::Result>) -> Result<T> {
    r.map_err(|result| Error::Vulkan { what, result })
}

/// A kernel translated for Vulkan: its WGSL, SPIR-V words, its descriptor bindings by group,
/// and its workgroup size.
struct Kernel {
    path: PathBuf,
    source: String,
    spirv: Vec<u32>,
    groups: Vec<Vec<(u32, vk::DescriptorType)>>,
    workgroup: [u32; 3],
}

fn translate(path: &Path) -> Result<Kernel> {
    let source = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.into(),
        source,
    })?;
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| Error::Parse {
        path: path.into(),
        message: e.emit_to_string(&source),
    })?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| Error::Validate {
        path: path.into(),
        message: e.emit_to_string(&source),
    })?;
    let entry = module
        .entry_points
        .iter()
        .find(|e| e.name == "main" && e.stage == naga::ShaderStage::Compute)
        .ok_or_else(|| Error::NoEntry { path: path.into() })?;
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        ..Default::default()
    };
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    let spirv =
        naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| {
            Error::Spirv {
                path: path.into(),
                message: e.to_string(),
            }
        })?;
    let mut groups: Vec<Vec<(u32, vk::DescriptorType)>> = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        let ty = match var.space {
            naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
            naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
            _ => continue,
        };
        let g = rb.group as usize;
        if groups.len() <= g {
            groups.resize(g + 1, Vec::new());
        }
        groups[g].push((rb.binding, ty));
    }
    Ok(Kernel {
        path: path.into(),
        source,
        spirv,
        groups,
        workgroup: entry.workgroup_size,
    })
}

/// One executable of a pipeline (a compute pipeline has one) and the driver's statistics
/// for it, as (name, value) pairs.
struct Executable {
    name: String,
    subgroup: u32,
    stats: Vec<(String, String)>,
}

/// A Vulkan device with pipeline statistics enabled.
struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    stats: ash::khr::pipeline_executable_properties::Device,
    name: String,
}

impl Gpu {
    fn new(want: Option<&str>) -> Result<Self> {
        // SAFETY: loading the system's Vulkan loader; nothing else is loaded in its place.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info; the instance is destroyed in Drop.
        let instance = vkr("vkCreateInstance", unsafe {
            entry.create_instance(&info, None)
        })?;
        // SAFETY: calls on a live instance with valid arguments.
        let devices = vkr("vkEnumeratePhysicalDevices", unsafe {
            instance.enumerate_physical_devices()
        })?;
        let named: Vec<(vk::PhysicalDevice, String, bool)> = devices
            .iter()
            .map(|&pd| {
                // SAFETY: pd comes from this instance.
                let p = unsafe { instance.get_physical_device_properties(pd) };
                let name = p
                    .device_name_as_c_str()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (pd, name, p.device_type == vk::PhysicalDeviceType::CPU)
            })
            .collect();
        let chosen = match want {
            Some(w) => named
                .iter()
                .find(|(_, n, _)| n.to_lowercase().contains(&w.to_lowercase())),
            None => named.iter().find(|d| !d.2).or(named.first()),
        };
        let Some((pd, name, _)) = chosen.cloned() else {
            let list: Vec<&str> = named.iter().map(|d| d.1.as_str()).collect();
            return Err(Error::NoDevice(match want {
                Some(w) => format!(" matches '{w}' (devices: {})", list.join(", ")),
                None => String::new(),
            }));
        };
        let ext = ash::khr::pipeline_executable_properties::NAME;
        // SAFETY: pd comes from this instance.
        let exts = vkr("vkEnumerateDeviceExtensionProperties", unsafe {
            instance.enumerate_device_extension_properties(pd)
        })?;
        if !exts
            .iter()
            .any(|e| e.extension_name_as_c_str().ok() == Some(ext))
        {
            return Err(Error::NoStatistics(name));
        }
        // Every feature the device has (the kernels may need subgroup or 64-bit ones), plus
        // the statistics.
        let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut features = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut pep)
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        // SAFETY: a well-formed chain of feature structs.
        unsafe { instance.get_physical_device_features2(pd, &mut features) };
        let has_stats = features_have_statistics(&features);
        if !has_stats {
            return Err(Error::NoStatistics(name));
        }
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let ext_names = [ext.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_names)
            .push_next(&mut features);
        // SAFETY: the features enabled are the ones the device reported.
        let device = vkr("vkCreateDevice", unsafe {
            instance.create_device(pd, &info, None)
        })?;
        let stats = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        Ok(Gpu {
            _entry: entry,
            instance,
            device,
            stats,
            name,
        })
    }

    /// The driver's statistics for `k`, per executable.
    fn statistics(&self, k: &Kernel) -> Result<Vec<Executable>> {
        let d = &self.device;
        let mut out = Vec::new();
        // SAFETY: every object is created from `d` with valid create infos and destroyed
        // before returning; the pipeline is only queried.
        unsafe {
            let module = vkr(
                "vkCreateShaderModule",
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&k.spirv), None),
            )?;
            let mut layouts = Vec::new();
            for group in &k.groups {
                let bindings: Vec<vk::DescriptorSetLayoutBinding> = group
                    .iter()
                    .map(|&(b, ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b)
                            .descriptor_type(ty)
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                layouts.push(vkr(
                    "vkCreateDescriptorSetLayout",
                    d.create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                        None,
                    ),
                )?);
            }
            let layout = vkr(
                "vkCreatePipelineLayout",
                d.create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                    None,
                ),
            )?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)
                .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
            let pipelines = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, result)| Error::Vulkan {
                    what: "vkCreateComputePipelines",
                    result,
                })?;
            let pipeline = pipelines[0];
            let executables = vkr(
                "vkGetPipelineExecutablePropertiesKHR",
                self.stats.get_pipeline_executable_properties(
                    &vk::PipelineInfoKHR::default().pipeline(pipeline),
                ),
            )?;
            for (i, e) in executables.iter().enumerate() {
                let stats = vkr(
                    "vkGetPipelineExecutableStatisticsKHR",
                    self.stats.get_pipeline_executable_statistics(
                        &vk::PipelineExecutableInfoKHR::default()
                            .pipeline(pipeline)
                            .executable_index(i as u32),
                    ),
                )?;
                let values = stats
                    .iter()
                    .map(|s| (c_str(s.name_as_c_str()), value(s)))
                    .collect();
                out.push(Executable {
                    name: c_str(e.name_as_c_str()),
                    subgroup: e.subgroup_size,
                    stats: values,
                });
            }
            d.destroy_pipeline(pipeline, None);
            d.destroy_pipeline_layout(layout, None);
            for l in layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            d.destroy_shader_module(module, None);
        }
        Ok(out)
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: nothing created from them is alive any more.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn features_have_statistics(f: &vk::PhysicalDeviceFeatures2) -> bool {
    // Walk the chain for the statistics feature struct.
    let mut p = f.p_next as *const vk::BaseOutStructure;
    while !p.is_null() {
        // SAFETY: every struct in the chain starts with sType and pNext.
        let base = unsafe { &*p };
        if base.s_type
            == vk::StructureType::PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR
        {
            // SAFETY: sType says what it is.
            let pep = unsafe {
                &*(p as *const vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR)
            };
            return pep.pipeline_executable_info == vk::TRUE;
        }
        p = base.p_next;
    }
    false
}

fn c_str(r: std::result::Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    r.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "?".into())
}

fn value(s: &vk::PipelineExecutableStatisticKHR) -> String {
    // SAFETY: `format` says which member of the union is set.
    unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 != 0).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => s.value.f64.to_string(),
            _ => "?".into(),
        }
    }
}

fn wgsl_files(arg: &Path) -> Result<Vec<PathBuf>> {
    if !arg.is_dir() {
        return Ok(vec![arg.into()]);
    }
    let read = std::fs::read_dir(arg).map_err(|source| Error::Io {
        path: arg.into(),
        source,
    })?;
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .collect();
    files.sort();
    Ok(files)
}

/// The values of the named constants among the `const NAME: TYPE = VALUE;` lines that a
/// composed kernel starts with (wavekit prepends its Rust-side constants so), in the order
/// asked, as `NAME=VALUE`; a name the file does not declare there shows as `NAME=?`.
fn consts_of(source: &str, names: &[String]) -> String {
    let declared: Vec<(&str, &str)> = source
        .lines()
        .map_while(|l| l.strip_prefix("const "))
        .filter_map(|rest| {
            let (name, rest) = rest.split_once(':')?;
            let (_, value) = rest.split_once('=')?;
            Some((name.trim(), value.trim().trim_end_matches(';').trim()))
        })
        .collect();
    names
        .iter()
        .map(|n| {
            let v = declared
                .iter()
                .find(|(d, _)| d == n)
                .map_or("?", |(_, v)| v);
            format!("{n}={v}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut device = None;
    let mut translate_only = false;
    let mut consts: Vec<String> = Vec::new();
    let mut inputs = Vec::new();
    while let Some(a) = args.next() {
        if a == "--device" {
            device = args.next();
        } else if a == "--translate-only" {
            translate_only = true;
        } else if a == "--consts" {
            let list = args.next().ok_or(Error::Usage)?;
            consts = list.split(',').map(|c| c.trim().to_string()).collect();
        } else {
            inputs.push(PathBuf::from(a));
        }
    }
    if inputs.is_empty() {
        return Err(Error::Usage);
    }
    let mut files = Vec::new();
    for i in &inputs {
        files.extend(wgsl_files(i)?);
    }
    // The named constants of a kernel, as a tab-led column (empty without --consts).
    let consts_column = |k: &Kernel| -> String {
        if consts.is_empty() {
            return String::new();
        }
        format!("\t{}", consts_of(&k.source, &consts))
    };
    if translate_only {
        let mut failed = false;
        for f in files {
            match translate(&f) {
                Ok(k) => println!(
                    "{}\tspirv_words={}\tgroups={:?}{}",
                    f.display(),
                    k.spirv.len(),
                    k.groups,
                    consts_column(&k)
                ),
                Err(e) => {
                    eprintln!("{e}");
                    failed = true;
                }
            }
        }
        if failed {
            std::process::exit(1);
        }
        return Ok(());
    }
    let gpu = Gpu::new(device.as_deref())?;
    println!("# device: {}", gpu.name);
    for f in files {
        // One bad file is reported and the rest still measured.
        let line = translate(&f).and_then(|k| {
            let execs = gpu.statistics(&k)?;
            let [x, y, z] = k.workgroup;
            Ok(execs
                .into_iter()
                .map(|e| {
                    let (name, sg) = (e.name, e.subgroup);
                    let vals: Vec<String> = e
                        .stats
                        .into_iter()
                        .map(|(n, v)| format!("{}={v}", n.replace(' ', "_")))
                        .collect();
                    format!(
                        "{}\t{name}\tsubgroup={sg}\tworkgroup={x}x{y}x{z}\t{}{}",
                        k.path.file_name().unwrap_or_default().to_string_lossy(),
                        vals.join(" "),
                        consts_column(&k)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"))
        });
        match line {
            Ok(l) => println!("{l}"),
            Err(e) => eprintln!("{}: {e}", f.display()),
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("kernel-stats: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_constants_are_read_from_the_prepended_lines_only() {
        let src = "const WG_SIZE: u32 = 256u;\nconst VALUES: u32 = 1u;\nconst SINGLE_PASS: bool = false;\n\
                   // body\nconst LATER: u32 = 7u;\n";
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            consts_of(src, &names(&["VALUES", "SINGLE_PASS", "WG_SIZE"])),
            "VALUES=1u SINGLE_PASS=false WG_SIZE=256u"
        );
        // A constant after the prepended block is the kernel's own, not a variant's.
        assert_eq!(
            consts_of(src, &names(&["LATER", "MISSING"])),
            "LATER=? MISSING=?"
        );
    }

    #[test]
    fn a_kernel_translates_with_its_bindings_and_workgroup() {
        let temp = tempfile::Builder::new()
            .prefix("kernel-stats-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        let path = dir.join("k.wgsl");
        std::fs::write(
            &path,
            "@group(0) @binding(0) var<uniform> n: u32;\n\
             @group(0) @binding(2) var<storage, read_write> a: array<u32>;\n\
             @group(1) @binding(1) var<storage, read> b: array<u32>;\n\
             @compute @workgroup_size(64, 2, 1)\n\
             fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < n) { a[g.x] = b[g.x]; } }\n",
        )
        .unwrap();
        let k = translate(&path).unwrap();
        assert_eq!(k.spirv[0], 0x0723_0203, "SPIR-V magic");
        assert_eq!(k.workgroup, [64, 2, 1]);
        let mut g0 = k.groups[0].clone();
        g0.sort_by_key(|b| b.0);
        assert_eq!(
            g0,
            vec![
                (0, vk::DescriptorType::UNIFORM_BUFFER),
                (2, vk::DescriptorType::STORAGE_BUFFER)
            ]
        );
        assert_eq!(k.groups[1], vec![(1, vk::DescriptorType::STORAGE_BUFFER)]);
        std::fs::write(&path, "fn main( {").unwrap();
        assert!(matches!(translate(&path), Err(Error::Parse { .. })));
    }
}
