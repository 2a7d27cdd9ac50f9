//! WGSL composition, validation and module creation.
//!
//! Kernels are WGSL files in the source tree. A line `#import NAME` pulls in a shared piece
//! (each at most once, recursively); Rust-side constants (workgroup shape, tile sizes) are
//! prepended as WGSL `const` declarations so that each number has one source of truth;
//! `#unroll NAME COUNT` … `#end` repeats a block with `{NAME}` replaced by 0u, 1u, ….
//! Every composed shader is validated by naga before the driver sees it, and errors are
//! reported against the original file and line (see ADR-002 in ARCHITECTURE.md).

use std::collections::HashSet;

use crate::context::GpuContext;
use crate::error::{Error, Result};

/// Environment variable that turns wgpu's injected bounds checks back on (`WAVEKIT_CHECKED=1`).
pub const CHECKED_ENV: &str = "WAVEKIT_CHECKED";

/// A WGSL file known to wavekit, by import name.
#[derive(Clone, Copy, Debug)]
pub struct WgslSource {
    /// Import name, e.g. `shared/ballot`.
    pub name: &'static str,
    /// The file's text.
    pub text: &'static str,
}

macro_rules! wgsl {
    ($name:literal, $path:literal) => {
        WgslSource {
            name: $name,
            text: include_str!($path),
        }
    };
}

/// Every WGSL file of the crate. Kernels are listed with the constants they need in
/// [`crate::kernels`]; shared pieces are only imported.
pub static SOURCES: &[WgslSource] = &[
    wgsl!("shared/ballot", "shaders/shared/ballot.wgsl"),
    wgsl!("selftest/subgroup_ops", "selftest/subgroup_ops.wgsl"),
    wgsl!("copy/copy", "copy/copy.wgsl"),
    wgsl!("bench/probe", "bench/probe.wgsl"),
    wgsl!("bench/occupancy", "bench/occupancy.wgsl"),
    wgsl!("bench/chain", "bench/chain.wgsl"),
    wgsl!("subgroup/hw", "shaders/subgroup/hw.wgsl"),
    wgsl!("subgroup/emu", "shaders/subgroup/emu.wgsl"),
    wgsl!("subgroup/lane", "shaders/subgroup/lane.wgsl"),
    wgsl!("workgroup/scan", "shaders/workgroup/scan.wgsl"),
    wgsl!("workgroup/tile", "shaders/workgroup/tile.wgsl"),
    wgsl!("workgroup/compact", "shaders/workgroup/compact.wgsl"),
    wgsl!("device/lookback", "shaders/device/lookback.wgsl"),
    wgsl!("device/tile_range", "shaders/device/tile_range.wgsl"),
    wgsl!("scan/scan", "scan/scan.wgsl"),
    wgsl!("scan/io_separate", "scan/io_separate.wgsl"),
    wgsl!("scan/io_inplace", "scan/io_inplace.wgsl"),
    wgsl!("reduce/reduce", "reduce/reduce.wgsl"),
    wgsl!("select/select", "select/select.wgsl"),
    wgsl!("select/count", "select/count.wgsl"),
    wgsl!("select/workgroup_compact", "select/workgroup_compact.wgsl"),
    wgsl!("sort/blocks", "sort/blocks.wgsl"),
    wgsl!("sort/count", "sort/count.wgsl"),
    wgsl!("sort/histograms", "sort/histograms.wgsl"),
    wgsl!("histogram/histogram", "histogram/histogram.wgsl"),
    wgsl!("histogram/sample_int", "histogram/sample_int.wgsl"),
    wgsl!("histogram/sample_float", "histogram/sample_float.wgsl"),
    wgsl!("sort/scatter", "sort/scatter.wgsl"),
];

/// Every kernel wavekit builds, composed in every variant it is built in, so that the tests
/// validate each with naga and check that no WGSL file is left unused.
/// Each comes with whether it is the subgroup variant (validated with the capability) or
/// the no-subgroup one (validated without).
pub fn all_kernels() -> Result<Vec<(Composed, bool)>> {
    use crate::monoid::{Monoid, Op, Scalar};
    use crate::select::Keep;
    let mut out = Vec::new();
    for shape in crate::tuning::WORKGROUP_SHAPES {
        out.push((crate::selftest::composed(shape[0])?, true));
    }
    out.push((crate::copy::CopyKernel::composed()?, false));
    out.push((crate::bench::chain::composed()?, false));
    out.push((
        crate::bench::occupancy::composed(crate::bench::occupancy::OccupancyCase {
            workgroup: 256,
            shared_bytes: 4096,
            streams: 4,
        })?,
        false,
    ));
    let custom = Monoid::custom(
        "argmin",
        "vec2<u32>",
        "vec2<u32>(0xffffffffu)",
        "select(a, b, b.x < a.x)",
        false,
    )?;
    let keeps = [
        Keep::Flags,
        Keep::Predicate("fn keep(x: f32, i: u32) -> bool { return x > 0.0; }".into()),
    ];
    for sg in [true, false] {
        for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
            for op in [Op::Add, Op::Min, Op::Max] {
                let m = Monoid::builtin(scalar, op);
                for (inclusive, in_place) in [(true, false), (false, false), (true, true)] {
                    let c = crate::scan::ScanConfig {
                        monoid: m.clone(),
                        inclusive,
                        in_place,
                    };
                    for pass in if in_place { vec![1, 2] } else { vec![0] } {
                        out.push((crate::scan::composed(&c, pass, sg)?, sg));
                    }
                }
                out.push((crate::scan::composed_segmented(scalar, op, false, sg)?, sg));
                out.push((crate::reduce::composed(&m, sg)?, sg));
            }
        }
        let c = crate::scan::ScanConfig {
            monoid: custom.clone(),
            inclusive: false,
            in_place: false,
        };
        out.push((crate::scan::composed(&c, 0, sg)?, sg));
        out.push((crate::reduce::composed(&custom, sg)?, sg));
        out.push((crate::select::composed_workgroup_compact(sg)?, sg));
        for keep in &keeps {
            out.push((crate::select::composed(Scalar::F32, keep, true, sg)?, sg));
            out.push((crate::select::composed_count(Scalar::F32, keep, sg)?, sg));
        }
        use crate::sort::{KeyType, SortConfig, Values};
        for key in [KeyType::U32, KeyType::I32, KeyType::F32, KeyType::U64] {
            for values in [Values::None, Values::U32, Values::Indices] {
                let c = SortConfig {
                    values,
                    ..SortConfig::keys(key)
                };
                // The narrowest subgroups wgpu reports (4) with lavapipe's 32 KiB, and the
                // H200's 32 lanes with 48 KiB and 1024 invocations.
                for (w, bytes, inv) in [(4, 32768, 256), (32, 49152, 1024)] {
                    for name in crate::sort::KERNELS {
                        out.push((
                            crate::sort::composed_kernel(name, &c, sg, w, bytes, inv)?,
                            sg,
                        ));
                    }
                }
            }
        }
        for scalar in [Scalar::U32, Scalar::I32, Scalar::F32] {
            out.push((crate::histogram::composed(scalar, sg)?, sg));
        }
        for case in crate::bench::probe::cases() {
            out.push((crate::bench::probe::composed(case, 4, sg)?, sg));
        }
    }
    Ok(out)
}

/// A value for a prepended WGSL constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    /// `u32`
    U32(u32),
    /// `i32`
    I32(i32),
    /// `f32`
    F32(f32),
    /// `bool`
    Bool(bool),
}

impl ConstValue {
    fn wgsl(self) -> (&'static str, String) {
        match self {
            ConstValue::U32(v) => ("u32", format!("{v}u")),
            ConstValue::I32(v) => ("i32", format!("{v}i")),
            ConstValue::F32(v) => ("f32", format!("{v:?}f")),
            ConstValue::Bool(v) => ("bool", v.to_string()),
        }
    }
}

/// A composed shader: one WGSL text, and where each of its lines came from.
#[derive(Clone, Debug)]
pub struct Composed {
    /// The kernel's name.
    pub name: String,
    /// The full WGSL text.
    pub source: String,
    origin: Vec<(String, u32)>,
}

impl Composed {
    /// The names of the WGSL files this shader was composed from.
    pub fn files(&self) -> Vec<&str> {
        let mut f: Vec<&str> = self.origin.iter().map(|(n, _)| n.as_str()).collect();
        f.dedup();
        f
    }

    /// `file:line` of a 1-based line of the composed text.
    pub fn origin_of(&self, line: u32) -> String {
        match self.origin.get(line.saturating_sub(1) as usize) {
            Some((file, l)) => format!("{file}.wgsl:{l}"),
            None => format!("{}:{line}", self.name),
        }
    }
}

fn lookup<'a>(name: &str, extra: &'a [(&str, &str)]) -> Option<&'a str> {
    extra
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .or_else(|| SOURCES.iter().find(|s| s.name == name).map(|s| s.text))
}

/// Compose kernel `name` with `consts` prepended and its imports resolved. `extra` adds
/// `(name, text)` sources (generated pieces, a caller's own WGSL) that take precedence over
/// the built-in ones.
pub fn compose(
    name: &str,
    consts: &[(&str, ConstValue)],
    extra: &[(&str, &str)],
) -> Result<Composed> {
    let mut out = Composed {
        name: name.to_string(),
        source: String::new(),
        origin: Vec::new(),
    };
    for (i, (cname, value)) in consts.iter().enumerate() {
        let (ty, v) = value.wgsl();
        out.source
            .push_str(&format!("const {cname}: {ty} = {v};\n"));
        out.origin.push(("<constants>".into(), i as u32 + 1));
    }
    let mut seen = HashSet::new();
    let mut stack = Vec::new();
    include(name, extra, consts, &mut seen, &mut stack, &mut out)?;
    Ok(out)
}

fn include(
    name: &str,
    extra: &[(&str, &str)],
    consts: &[(&str, ConstValue)],
    seen: &mut HashSet<String>,
    stack: &mut Vec<String>,
    out: &mut Composed,
) -> Result<()> {
    if stack.iter().any(|s| s == name) {
        return Err(Error::Shader {
            shader: out.name.clone(),
            message: format!("import cycle: {} -> {name}", stack.join(" -> ")),
        });
    }
    if !seen.insert(name.to_string()) {
        return Ok(());
    }
    let text = lookup(name, extra).ok_or_else(|| Error::Shader {
        shader: out.name.clone(),
        message: format!(
            "unknown WGSL source '{name}'{}; known: {}",
            stack
                .last()
                .map(|s| format!(" (imported by {s})"))
                .unwrap_or_default(),
            SOURCES
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })?;
    stack.push(name.to_string());
    let lines: Vec<(u32, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l.to_string()))
        .collect();
    let lines = unroll(name, &lines, consts, &out.name)?;
    for (line_no, line) in lines {
        if let Some(import) = line.trim().strip_prefix("#import ") {
            include(import.trim(), extra, consts, seen, stack, out)?;
        } else {
            out.source.push_str(&line);
            out.source.push('\n');
            out.origin.push((name.to_string(), line_no));
        }
    }
    stack.pop();
    Ok(())
}

/// Expand `#unroll NAME COUNT` … `#end` blocks (nested too): the body is repeated COUNT times
/// (a number or a prepended constant) with `{NAME}` replaced by `0u`, `1u`, …, so that array
/// indices are constants and the driver keeps the arrays in registers (ADR-009).
fn unroll(
    file: &str,
    lines: &[(u32, String)],
    consts: &[(&str, ConstValue)],
    shader: &str,
) -> Result<Vec<(u32, String)>> {
    let err = |line: u32, msg: String| Error::Shader {
        shader: shader.to_string(),
        message: format!("{file}.wgsl:{line}: {msg}"),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (no, line) = &lines[i];
        let Some(args) = line.trim().strip_prefix("#unroll ") else {
            if line.trim() == "#end" {
                return Err(err(*no, "#end without #unroll".into()));
            }
            out.push((*no, line.clone()));
            i += 1;
            continue;
        };
        let mut words = args.split_whitespace();
        let (Some(var), Some(count), None) = (words.next(), words.next(), words.next()) else {
            return Err(err(*no, "expected `#unroll NAME COUNT`".into()));
        };
        let count: u32 = match count.parse() {
            Ok(c) => c,
            Err(_) => match consts.iter().find(|(n, _)| *n == count) {
                Some((_, ConstValue::U32(c))) => *c,
                _ => {
                    return Err(err(
                        *no,
                        format!("unroll count '{count}' is not a number or a u32 constant"),
                    ));
                }
            },
        };
        // Find the matching #end.
        let mut depth = 1;
        let mut j = i + 1;
        while j < lines.len() {
            let t = lines[j].1.trim();
            if t.starts_with("#unroll ") {
                depth += 1;
            } else if t == "#end" {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        if depth != 0 {
            return Err(err(*no, "#unroll without #end".into()));
        }
        let pattern = format!("{{{var}}}");
        for k in 0..count {
            let body: Vec<(u32, String)> = lines[i + 1..j]
                .iter()
                .map(|(n, l)| (*n, l.replace(&pattern, &format!("{k}u"))))
                .collect();
            out.extend(unroll(file, &body, consts, shader)?);
        }
        i = j + 1;
    }
    Ok(out)
}

/// Parse and validate composed WGSL with naga, as the device would (`subgroups` enables the
/// subgroup capability). Errors name the original file and line.
pub fn validate(
    composed: &Composed,
    subgroups: bool,
) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let src = &composed.source;
    let err = |line: Option<u32>, msg: String| {
        let at = line
            .map(|l| format!("{}: ", composed.origin_of(l)))
            .unwrap_or_default();
        let text = line
            .and_then(|l| src.lines().nth(l as usize - 1))
            .map(|t| format!("\n    {}", t.trim()))
            .unwrap_or_default();
        Error::Shader {
            shader: composed.name.clone(),
            message: format!("{at}{}{text}", msg.trim_end()),
        }
    };
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        err(
            e.location(src).map(|l| l.line_number),
            e.emit_to_string(src),
        )
    })?;
    let mut caps = naga::valid::Capabilities::all();
    if !subgroups {
        caps.remove(naga::valid::Capabilities::SUBGROUP);
    }
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| {
            err(
                e.location(src).map(|l| l.line_number),
                e.emit_to_string(src),
            )
        })?;
    Ok((module, info))
}

/// The group-0 bindings entry point `entry` uses.
fn used_bindings(module: &naga::Module, info: &naga::valid::ModuleInfo, entry: &str) -> Vec<u32> {
    let Some(index) = module.entry_points.iter().position(|e| e.name == entry) else {
        return Vec::new();
    };
    let ep = info.get_entry_point(index);
    let mut out: Vec<u32> = module
        .global_variables
        .iter()
        .filter(|(h, _)| !ep[*h].is_empty())
        .filter_map(|(_, g)| g.binding.as_ref())
        .filter(|b| b.group == 0)
        .map(|b| b.binding)
        .collect();
    out.sort_unstable();
    out
}

/// Bytes of workgroup memory entry point `entry` uses, as WebGPU counts them: each variable
/// it uses, rounded up to 16 bytes.
pub fn workgroup_bytes(module: &naga::Module, info: &naga::valid::ModuleInfo, entry: &str) -> u64 {
    let Some(index) = module.entry_points.iter().position(|e| e.name == entry) else {
        return 0;
    };
    let ep = info.get_entry_point(index);
    module
        .global_variables
        .iter()
        .filter(|(h, g)| g.space == naga::AddressSpace::WorkGroup && !ep[*h].is_empty())
        .map(|(_, g)| {
            u64::from(module.types[g.ty].inner.size(module.to_ctx())).next_multiple_of(16)
        })
        .sum()
}

/// Environment variable naming a folder into which every kernel's composed WGSL is written
/// as it is built (for inspection, and for `kernel-stats`, which reports what the driver
/// made of it).
pub const DUMP_ENV: &str = "WAVEKIT_DUMP_WGSL";

/// Writes `composed` to `$WAVEKIT_DUMP_WGSL/<name>-<hash>.wgsl` when that is set (the hash of
/// the source tells variants of one kernel apart). A debugging aid: a failed write is reported
/// on stderr and otherwise ignored.
fn dump_wgsl(composed: &Composed) {
    let Some(dir) = std::env::var_os(DUMP_ENV) else {
        return;
    };
    if let Err(e) = dump_wgsl_to(std::path::Path::new(&dir), composed) {
        eprintln!(
            "{DUMP_ENV}: cannot write into {}: {e}",
            dir.to_string_lossy()
        );
    }
}

/// Writes `composed` to `dir/<name>-<hash>.wgsl` (slashes in the name become `_`) and
/// returns the path.
fn dump_wgsl_to(dir: &std::path::Path, composed: &Composed) -> std::io::Result<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    composed.source.hash(&mut h);
    let name = composed.name.replace(['/', '\\', ' '], "_");
    let path = dir.join(format!("{name}-{:08x}.wgsl", h.finish() as u32));
    std::fs::create_dir_all(dir)?;
    std::fs::write(&path, &composed.source)?;
    Ok(path)
}

/// Whether `WAVEKIT_CHECKED=1` asks for bounds-checked shaders.
pub fn checked_from_env() -> bool {
    std::env::var(CHECKED_ENV).is_ok_and(|v| v == "1")
}

impl GpuContext {
    /// Validate `composed` with naga, then create the module. Fast path: no injected runtime
    /// checks (every wavekit kernel bounds its own accesses); `WAVEKIT_CHECKED=1` restores them.
    pub fn shader_module(&self, composed: &Composed) -> Result<wgpu::ShaderModule> {
        self.shader_module_validated(composed)
            .map(|(module, _)| module)
    }

    /// As [`GpuContext::shader_module`], also returning the `@binding`s of group 0 that entry
    /// point `main` uses (what an automatic pipeline layout contains).
    pub fn shader_module_validated(
        &self,
        composed: &Composed,
    ) -> Result<(wgpu::ShaderModule, Vec<u32>)> {
        let (module, info) = validate(composed, self.caps.subgroups.supported)?;
        let used = used_bindings(&module, &info, "main");
        // wgpu 30 does not check this limit (gfx-rs/wgpu#8946); a driver given a kernel over
        // it may lose the device instead of failing the pipeline.
        let bytes = workgroup_bytes(&module, &info, "main");
        let limit = u64::from(self.device.limits().max_compute_workgroup_storage_size);
        if bytes > limit {
            return Err(Error::WorkgroupMemoryTooLarge {
                shader: composed.name.clone(),
                bytes,
                limit,
            });
        }
        dump_wgsl(composed);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&composed.name),
            source: wgpu::ShaderSource::Wgsl(composed.source.as_str().into()),
        };
        let module = self.scoped(&format!("creating shader '{}'", composed.name), || {
            if checked_from_env() {
                self.device.create_shader_module(desc)
            } else {
                // SAFETY: wavekit's kernels guard every buffer index against the array length
                // and were validated by naga above; the checked variant is one env var away.
                unsafe {
                    self.device
                        .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            }
        })?;
        Ok((module, used))
    }

    /// A compute pipeline with an automatic layout for `entry` of `module`.
    pub fn compute_pipeline(
        &self,
        label: &str,
        module: &wgpu::ShaderModule,
        entry: &str,
    ) -> Result<wgpu::ComputePipeline> {
        self.scoped(&format!("creating pipeline '{label}'"), || {
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: None,
                    module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        zero_initialize_workgroup_memory: zero_workgroup_memory(),
                        ..Default::default()
                    },
                    cache: None,
                })
        })
    }
}

/// Environment variable for measurement only: `0` compiles kernels without WebGPU's zeroing of
/// workgroup memory at the start of every workgroup. Not every kernel has been checked to
/// write all the workgroup memory it reads; on the H200 it gained at most 0.8 % (ADR-038).
pub const ZERO_WORKGROUP_MEMORY_ENV: &str = "WAVEKIT_ZERO_WORKGROUP_MEMORY";

fn zero_workgroup_memory() -> bool {
    std::env::var(ZERO_WORKGROUP_MEMORY_ENV).map_or(true, |v| v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(name: &'static str, text: &'static str) -> (&'static str, &'static str) {
        (name, text)
    }

    #[test]
    fn every_kernel_validates_with_naga() {
        let kernels = all_kernels().unwrap();
        assert!(kernels.len() >= 2);
        for (k, subgroups) in &kernels {
            validate(k, *subgroups).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn dumped_wgsl_is_the_composed_source_under_its_name() {
        let kernels = all_kernels().unwrap();
        let dir = std::env::temp_dir().join(format!("wavekit-dump-{}", std::process::id()));
        let (a, b) = (&kernels[0].0, &kernels[1].0);
        let pa = dump_wgsl_to(&dir, a).unwrap();
        let pb = dump_wgsl_to(&dir, b).unwrap();
        assert_eq!(std::fs::read_to_string(&pa).unwrap(), a.source);
        let file = pa.file_name().unwrap().to_string_lossy().into_owned();
        assert!(file.starts_with(&a.name.replace('/', "_")), "{file}");
        assert!(file.ends_with(".wgsl") && !file.contains('/'), "{file}");
        // Variants of one kernel (or two kernels) never overwrite each other.
        assert!(a.source == b.source || pa != pb);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_wgsl_file_is_used_by_some_kernel() {
        let kernels = all_kernels().unwrap();
        for s in SOURCES {
            assert!(
                kernels.iter().any(|(k, _)| k.files().contains(&s.name)),
                "{} is used by no kernel",
                s.name
            );
        }
    }

    #[test]
    fn subgroup_kernels_fail_validation_without_the_capability() {
        let k = crate::selftest::composed(256).unwrap();
        let e = validate(&k, false).unwrap_err().to_string();
        assert!(e.contains("selftest/subgroup_ops"), "{e}");
    }

    #[test]
    fn imports_are_included_once_and_constants_prepended() {
        let extra = [
            src(
                "t/a",
                "#import t/b\n#import t/b\nfn a() -> u32 { return b() + K; }",
            ),
            src("t/b", "fn b() -> u32 { return 1u; }"),
        ];
        let c = compose("t/a", &[("K", ConstValue::U32(7))], &extra).unwrap();
        assert_eq!(c.source.matches("fn b()").count(), 1);
        assert!(c.source.starts_with("const K: u32 = 7u;\n"));
        assert_eq!(c.files(), vec!["<constants>", "t/b", "t/a"]);
        validate(&c, true).unwrap();
    }

    #[test]
    fn workgroup_bytes_counts_the_variables_main_uses_rounded_to_16() {
        let extra = [src(
            "t/w",
            "var<workgroup> a: array<u32, 5>;\nvar<workgroup> b: vec3<f32>;\n\
             var<workgroup> unused: array<u32, 1000>;\n\
             @compute @workgroup_size(1) fn main() { a[0] = 1u; b.x = 2.0; }",
        )];
        let c = compose("t/w", &[], &extra).unwrap();
        let (module, info) = validate(&c, false).unwrap();
        // 20 bytes round to 32, 12 to 16; `unused` is not counted.
        assert_eq!(workgroup_bytes(&module, &info, "main"), 48);
        assert_eq!(workgroup_bytes(&module, &info, "other"), 0);
    }

    #[test]
    fn unroll_repeats_blocks_with_constant_indices() {
        let extra = [src(
            "t/u",
            "fn f() -> u32 {\n    var a: array<u32, 6>;\n#unroll k N\n#unroll j 2\n    a[{k} * 2u + {j}] = {k};\n#end\n#end\n    return a[5];\n}",
        )];
        let c = compose("t/u", &[("N", ConstValue::U32(3))], &extra).unwrap();
        assert!(c.source.contains("a[0u * 2u + 1u] = 0u;"), "{}", c.source);
        assert!(c.source.contains("a[2u * 2u + 1u] = 2u;"), "{}", c.source);
        assert_eq!(c.source.matches("a[").count(), 7);
        validate(&c, true).unwrap();
        // Every emitted line maps back to the source line it came from.
        let line = c
            .source
            .lines()
            .position(|l| l.contains("a[1u * 2u + 0u]"))
            .unwrap();
        assert_eq!(c.origin_of(line as u32 + 1), "t/u.wgsl:5");
        for bad in [
            "#unroll k\n#end",
            "#unroll k 2\nx",
            "#end",
            "#unroll k M\n#end",
        ] {
            let extra = [("t/bad", bad)];
            let e = compose("t/bad", &[], &extra).unwrap_err().to_string();
            assert!(e.contains("t/bad.wgsl:"), "{e}");
        }
    }

    #[test]
    fn import_cycles_and_unknown_imports_are_errors() {
        let extra = [src("t/x", "#import t/y"), src("t/y", "#import t/x")];
        let e = compose("t/x", &[], &extra).unwrap_err().to_string();
        assert!(e.contains("import cycle: t/x -> t/y -> t/x"), "{e}");
        let extra = [src("t/z", "#import t/nothing")];
        let e = compose("t/z", &[], &extra).unwrap_err().to_string();
        assert!(
            e.contains("unknown WGSL source 't/nothing' (imported by t/z)"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_original_file_and_line() {
        let extra = [
            src(
                "t/main",
                "#import t/helper\nfn main_fn() -> u32 {\n    return helper();\n}",
            ),
            src("t/helper", "fn helper() -> u32 {\n    return 1u\n}"),
        ];
        let c = compose("t/main", &[("A", ConstValue::U32(1))], &extra).unwrap();
        let e = validate(&c, true).unwrap_err().to_string();
        // The missing semicolon is reported where the parser notices it: t/helper line 3.
        assert!(e.contains("t/helper.wgsl:3"), "{e}");
        let extra = [src("t/bad", "fn f() -> u32 {\n    return 1.5;\n}")];
        let c = compose("t/bad", &[], &extra).unwrap();
        let e = validate(&c, true).unwrap_err().to_string();
        assert!(e.contains("t/bad.wgsl:"), "{e}");
    }
}
