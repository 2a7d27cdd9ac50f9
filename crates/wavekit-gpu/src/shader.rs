//! WGSL composition, validation and module creation.
//!
//! Kernels are WGSL files in the source tree. A line `#import NAME` pulls in a shared piece
//! (each at most once, recursively); Rust-side constants (workgroup shape, tile sizes) are
//! prepended as WGSL `const` declarations so that each number has one source of truth;
//! `#unroll NAME COUNT` … `#end` repeats a block with `{NAME}` replaced by 0u, 1u, …;
//! `#unroll NAME COUNT by STEP` makes it a loop of COUNT / STEP rounds, each STEP copies of the
//! block (the same text as without `by` where STEP is COUNT).
//! Every composed shader is validated by naga before the driver sees it, and errors are
//! reported against the original file and line (see ADR-0002 in ARCHITECTURE.md).

use std::collections::HashSet;

use crate::context::GpuContext;
use crate::error::{Error, Result};

/// A WGSL file a kernel can import, by import name. Make one with [`crate::wgsl_source!`], which
/// records where the file lives so that errors name it.
#[derive(Clone, Copy, Debug)]
pub struct WgslSource {
    /// Import name, e.g. `shared/ballot` or `ui/fine`.
    pub name: &'static str,
    /// The file's text.
    pub text: &'static str,
    /// The Rust file that included it (`file!()`), or "" for text made at run time.
    pub at: &'static str,
    /// The WGSL file's path relative to `at`'s folder.
    pub rel: &'static str,
}

impl WgslSource {
    /// A source whose text was not read from a file (generated, or written inline).
    pub const fn inline(name: &'static str, text: &'static str) -> Self {
        Self {
            name,
            text,
            at: "",
            rel: "",
        }
    }

    /// The file's path as errors print it (`crates/wavekit-gpu/src/shaders/shared/ballot.wgsl`),
    /// or `NAME.wgsl` for an inline source.
    pub fn path(&self) -> String {
        if self.at.is_empty() {
            return format!("{}.wgsl", self.name);
        }
        let dir = std::path::Path::new(self.at)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let mut parts: Vec<&str> = dir
            .to_str()
            .unwrap_or("")
            .split(['/', '\\'])
            .filter(|p| !p.is_empty())
            .collect();
        for p in self.rel.split(['/', '\\']) {
            match p {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        parts.join("/")
    }
}

/// A [`WgslSource`] for a WGSL file beside the calling Rust file: `wgsl_source!("ui/fine",
/// "fine.wgsl")` in `src/gpu/mod.rs` imports as `#import ui/fine` and reports errors as
/// `…/src/gpu/fine.wgsl:LINE`.
#[macro_export]
macro_rules! wgsl_source {
    ($name:literal, $path:literal) => {
        $crate::shader::WgslSource {
            name: $name,
            text: include_str!($path),
            at: file!(),
            rel: $path,
        }
    };
}

/// The shared pieces of the subgroup, workgroup and device layers: what every kernel, the
/// primitives' and an application crate's alike, may `#import` (see [`crate::prelude`]). Each
/// primitive and application keeps its own kernel files in a list of its own.
pub static PIECES: &[WgslSource] = &[
    crate::wgsl_source!("shared/ballot", "shaders/shared/ballot.wgsl"),
    crate::wgsl_source!("subgroup/hw", "shaders/subgroup/hw.wgsl"),
    crate::wgsl_source!("subgroup/emu", "shaders/subgroup/emu.wgsl"),
    crate::wgsl_source!("subgroup/lane", "shaders/subgroup/lane.wgsl"),
    crate::wgsl_source!("subgroup/compact", "shaders/subgroup/compact.wgsl"),
    crate::wgsl_source!("workgroup/scan", "shaders/workgroup/scan.wgsl"),
    crate::wgsl_source!("workgroup/tile", "shaders/workgroup/tile.wgsl"),
    crate::wgsl_source!("workgroup/compact", "shaders/workgroup/compact.wgsl"),
    crate::wgsl_source!("device/lookback", "shaders/device/lookback.wgsl"),
    crate::wgsl_source!("device/tile_range", "shaders/device/tile_range.wgsl"),
    crate::wgsl_source!("device/radix_tree", "shaders/device/radix_tree.wgsl"),
    crate::wgsl_source!("device/bounds", "shaders/device/bounds.wgsl"),
    crate::wgsl_source!("device/grid", "shaders/device/grid.wgsl"),
];

/// Checks a module's kernels as its tests should: every composed variant validates with naga
/// (`true`: with the subgroup capability, `false`: without), its `#unroll` blocks in full and
/// as loops ([`Composed::form`]), and every one of `sources` is
/// used by some variant (so no WGSL file is left behind unchecked). Errors name the file and
/// line.
pub fn check_kernels(sources: &[WgslSource], variants: &[(Composed, bool)]) -> Result<()> {
    for (k, subgroups) in variants {
        for in_full in [true, false] {
            validate(k.form(in_full), *subgroups)?;
        }
    }
    for s in sources {
        if !variants.iter().any(|(k, _)| k.files().contains(&s.name)) {
            return Err(Error::Shader {
                shader: s.name.to_string(),
                message: format!("{} is imported by none of the variants checked", s.path()),
            });
        }
    }
    Ok(())
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
    /// Per line: the import name it came from, and its line there.
    origin: Vec<(String, u32)>,
    /// Import name → the file's path as errors print it.
    paths: Vec<(String, String)>,
    /// The same kernel with its `#unroll` blocks as loops, where it has any (see
    /// [`Composed::form`]).
    looped: Option<Box<Composed>>,
}

impl Composed {
    /// This kernel with its `#unroll NAME COUNT` blocks expanded in full (`true`: the composed
    /// text, [`Composed::source`]) or as loops of one copy a round (`false`), the same text
    /// with `{NAME}` replaced by the loop's index. Both compute the same; the loops compile
    /// several times faster on a CPU driver (lavapipe: the wavelet's level kernel 2.2 → 0.4 s),
    /// the full form keeps private arrays in registers on a GPU (ADR-0009, ADR-0106).
    /// [`GpuContext`] builds the form its `ContextOptions::unroll_in_full`
    /// names.
    pub fn form(&self, in_full: bool) -> &Composed {
        match (&self.looped, in_full) {
            (Some(looped), false) => looped,
            _ => self,
        }
    }

    /// The import names of the WGSL files this shader was composed from, in order.
    pub fn files(&self) -> Vec<&str> {
        let mut f: Vec<&str> = self.origin.iter().map(|(n, _)| n.as_str()).collect();
        f.dedup();
        f
    }

    /// `file:line` of a 1-based line of the composed text (the file's path where it is known).
    pub fn origin_of(&self, line: u32) -> String {
        match self.origin.get(line.saturating_sub(1) as usize) {
            Some((file, l)) => {
                let path = self
                    .paths
                    .iter()
                    .find(|(n, _)| n == file)
                    .map_or_else(|| format!("{file}.wgsl"), |(_, p)| p.clone());
                format!("{path}:{l}")
            }
            None => format!("{}:{line}", self.name),
        }
    }

    /// The value of a prepended constant, as written in the WGSL (`256u`), if there is one.
    pub fn constant(&self, name: &str) -> Option<&str> {
        let prefix = format!("const {name}: ");
        self.source
            .lines()
            .take_while(|l| l.starts_with("const "))
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|rest| rest.split_once(" = "))
            .map(|(_, v)| v.trim_end_matches(';'))
    }
}

/// Where [`compose`] looks for an import: generated pieces first, then the caller's files,
/// then wavekit's shared [`PIECES`].
struct Lookup<'a> {
    sources: &'a [WgslSource],
    extra: &'a [(&'a str, &'a str)],
}

impl Lookup<'_> {
    /// The text and printable path of import `name`.
    fn find(&self, name: &str) -> Option<(&str, String)> {
        if let Some((_, t)) = self.extra.iter().find(|(n, _)| *n == name) {
            return Some((t, format!("{name}.wgsl")));
        }
        self.sources
            .iter()
            .chain(PIECES)
            .find(|s| s.name == name)
            .map(|s| (s.text, s.path()))
    }

    fn known(&self) -> String {
        let mut names: Vec<&str> = self.extra.iter().map(|(n, _)| *n).collect();
        names.extend(self.sources.iter().chain(PIECES).map(|s| s.name));
        names.join(", ")
    }
}

/// Compose kernel `name` with `consts` prepended and its imports resolved (each once). Imports
/// are looked up in `extra` (`(name, text)`: generated pieces, such as `subgroup/api` and
/// `monoid`), then in `sources` (the caller's WGSL files), then in wavekit's shared
/// [`PIECES`]. Application crates use [`crate::prelude::KernelBuilder`], which supplies the
/// device's pieces and constants.
pub fn compose(
    name: &str,
    consts: &[(&str, ConstValue)],
    sources: &[WgslSource],
    extra: &[(&str, &str)],
) -> Result<Composed> {
    let lookup = Lookup { sources, extra };
    let mut full = compose_form(name, consts, &lookup, true)?;
    let looped = compose_form(name, consts, &lookup, false)?;
    if looped.source != full.source {
        full.looped = Some(Box::new(looped));
    }
    Ok(full)
}

/// [`compose`] with the `#unroll` blocks in full or as loops.
fn compose_form(
    name: &str,
    consts: &[(&str, ConstValue)],
    lookup: &Lookup<'_>,
    in_full: bool,
) -> Result<Composed> {
    let mut out = Composed {
        name: name.to_string(),
        source: String::new(),
        origin: Vec::new(),
        paths: Vec::new(),
        looped: None,
    };
    for (i, (cname, value)) in consts.iter().enumerate() {
        let (ty, v) = value.wgsl();
        out.source
            .push_str(&format!("const {cname}: {ty} = {v};\n"));
        out.origin.push(("<constants>".into(), i as u32 + 1));
    }
    let mut seen = HashSet::new();
    let mut stack = Vec::new();
    let form = Form { consts, in_full };
    include(name, lookup, form, &mut seen, &mut stack, &mut out)?;
    Ok(out)
}

/// How [`include`] expands `#unroll` blocks: the prepended constants their counts may name,
/// and in full or as loops.
#[derive(Clone, Copy)]
struct Form<'a> {
    consts: &'a [(&'a str, ConstValue)],
    in_full: bool,
}

fn include(
    name: &str,
    lookup: &Lookup<'_>,
    form: Form<'_>,
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
    let (text, path) = lookup.find(name).ok_or_else(|| Error::Shader {
        shader: out.name.clone(),
        message: format!(
            "unknown WGSL source '{name}'{}; known: {}",
            stack
                .last()
                .map(|s| format!(" (imported by {s})"))
                .unwrap_or_default(),
            lookup.known()
        ),
    })?;
    out.paths.push((name.to_string(), path.clone()));
    stack.push(name.to_string());
    let lines: Vec<(u32, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l.to_string()))
        .collect();
    let lines = unroll(&path, &lines, form, &out.name)?;
    for (line_no, line) in lines {
        if let Some(import) = line.trim().strip_prefix("#import ") {
            include(import.trim(), lookup, form, seen, stack, out)?;
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
/// indices are constants and the driver keeps the arrays in registers (ADR-0009). With `by
/// STEP` (a divisor of COUNT) and STEP below COUNT, a loop `for (var unroll_NAME = 0u; … +=
/// STEPu)` whose body is STEP copies with `{NAME}` replaced by `(unroll_NAME + 0u)`, … : for
/// compilers that take too long over a full unroll (SwiftShader's, ADR-0077). Where `form`
/// is not in full, a block without `by` is such a loop of one copy a round (ADR-0106).
fn unroll(
    file: &str,
    lines: &[(u32, String)],
    form: Form<'_>,
    shader: &str,
) -> Result<Vec<(u32, String)>> {
    let consts = form.consts;
    let err = |line: u32, msg: String| Error::Shader {
        shader: shader.to_string(),
        message: format!("{file}:{line}: {msg}"),
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
        let (var, count, step) = match (
            words.next(),
            words.next(),
            words.next(),
            words.next(),
            words.next(),
        ) {
            (Some(var), Some(count), None, _, _) => (var, count, None),
            (Some(var), Some(count), Some("by"), Some(step), None) => (var, count, Some(step)),
            _ => return Err(err(*no, "expected `#unroll NAME COUNT [by STEP]`".into())),
        };
        let number = |what: &str, text: &str| -> Result<u32> {
            match text.parse() {
                Ok(c) => Ok(c),
                Err(_) => match consts.iter().find(|(n, _)| *n == text) {
                    Some((_, ConstValue::U32(c))) => Ok(*c),
                    _ => Err(err(
                        *no,
                        format!("unroll {what} '{text}' is not a number or a u32 constant"),
                    )),
                },
            }
        };
        let count = number("count", count)?;
        let step = match step {
            None if form.in_full => count,
            None => 1,
            Some(s) => number("step", s)?,
        };
        if count > 0 && (step == 0 || !count.is_multiple_of(step)) {
            return Err(err(
                *no,
                format!("unroll step {step} does not divide the count {count}"),
            ));
        }
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
        let looped = step < count;
        let index = format!("unroll_{var}");
        if looped {
            let text = format!("for (var {index} = 0u; {index} < {count}u; {index} += {step}u) {{");
            out.push((*no, text));
        }
        for k in 0..step.min(count) {
            let value = if looped {
                format!("({index} + {k}u)")
            } else {
                format!("{k}u")
            };
            let body: Vec<(u32, String)> = lines[i + 1..j]
                .iter()
                .map(|(n, l)| (*n, l.replace(&pattern, &value)))
                .collect();
            out.extend(unroll(file, &body, form, shader)?);
        }
        if looped {
            out.push((lines[j].0, "}".into()));
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
        // naga's report points into the composed text (`wgsl:LINE:COL`); map every such
        // reference to the original file and line, and lead with the first.
        let (msg, first) = map_locations(composed, &msg);
        let line = first.or(line);
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

/// One member of a uniform as naga lays it out (WGSL's uniform layout rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformMember {
    /// The member's name (empty where the uniform is not a struct).
    pub name: String,
    /// Byte offset.
    pub offset: u32,
    /// Byte size.
    pub size: u32,
}

/// The uniform at `@group(group) @binding(binding)` of a composed kernel as naga lays it out:
/// its byte size and its members (one unnamed member where it is not a struct).
pub fn uniform_layout(
    composed: &Composed,
    group: u32,
    binding: u32,
) -> Result<(u32, Vec<UniformMember>)> {
    let (module, _) = validate(composed, true).or_else(|_| validate(composed, false))?;
    let var = module
        .global_variables
        .iter()
        .map(|(_, v)| v)
        .find(|v| {
            v.space == naga::AddressSpace::Uniform
                && v.binding
                    .as_ref()
                    .is_some_and(|b| b.group == group && b.binding == binding)
        })
        .ok_or_else(|| Error::Shader {
            shader: composed.name.clone(),
            message: format!("no uniform at @group({group}) @binding({binding})"),
        })?;
    let ty = &module.types[var.ty];
    let size = ty.inner.size(module.to_ctx());
    let members = match &ty.inner {
        naga::TypeInner::Struct { members, .. } => members
            .iter()
            .map(|m| UniformMember {
                name: m.name.clone().unwrap_or_default(),
                offset: m.offset,
                size: module.types[m.ty].inner.size(module.to_ctx()),
            })
            .collect(),
        _ => vec![UniformMember {
            name: String::new(),
            offset: 0,
            size,
        }],
    };
    Ok((size, members))
}

/// Fails unless the uniform at `@group(group) @binding(binding)` of `composed` has exactly the
/// layout of a Rust struct of `size` bytes whose fields are `fields` (name, offset, size: what
/// [`crate::uniform_fields!`] lists), so that a uniform written by hand on both sides cannot
/// drift apart. The error names the first member that differs.
pub fn check_uniform(
    composed: &Composed,
    group: u32,
    binding: u32,
    size: usize,
    fields: &[(&str, usize, usize)],
) -> Result<()> {
    let (wgsl_size, members) = uniform_layout(composed, group, binding)?;
    let fail = |what: String| {
        Err(Error::Shader {
            shader: composed.name.clone(),
            message: format!(
                "the uniform at @group({group}) @binding({binding}) and its Rust struct differ: \
                 {what}; make the two declarations agree"
            ),
        })
    };
    if wgsl_size as usize != size {
        return fail(format!("{wgsl_size} bytes in WGSL, {size} in Rust"));
    }
    if members.len() != fields.len() {
        return fail(format!(
            "{} members in WGSL, {} fields in Rust",
            members.len(),
            fields.len()
        ));
    }
    for (m, &(name, offset, bytes)) in members.iter().zip(fields) {
        if m.name != name || m.offset as usize != offset || m.size as usize != bytes {
            return fail(format!(
                "WGSL `{}` at byte {} ({} bytes), Rust `{name}` at byte {offset} ({bytes} bytes)",
                m.name, m.offset, m.size
            ));
        }
    }
    Ok(())
}

/// `(name, offset, size)` of each named field of a `#[repr(C)]` struct, for
/// [`shader::check_uniform`](crate::shader::check_uniform):
/// `uniform_fields!(Params, width, height, background)`.
#[macro_export]
macro_rules! uniform_fields {
    ($ty:ty, $($field:ident),+ $(,)?) => {
        [$((
            stringify!($field),
            ::std::mem::offset_of!($ty, $field),
            $crate::shader::field_size(|v: &$ty| &v.$field),
        )),+]
    };
}

/// The size of the field `f` picks (for [`crate::uniform_fields!`]).
pub fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// `msg` with every `wgsl:LINE:COL` (a place in the composed text) replaced by the original
/// `file.wgsl:LINE:COL`, and the first such line.
fn map_locations(composed: &Composed, msg: &str) -> (String, Option<u32>) {
    let mut out = String::new();
    let mut first = None;
    let mut rest = msg;
    while let Some(at) = rest.find("wgsl:") {
        let after = &rest[at + 5..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let (Ok(line), Some(':')) = (
            after[..digits].parse::<u32>(),
            after[digits..].chars().next(),
        ) else {
            out.push_str(&rest[..at + 5]);
            rest = after;
            continue;
        };
        first.get_or_insert(line);
        out.push_str(&rest[..at]);
        out.push_str(&composed.origin_of(line));
        rest = &after[digits..];
    }
    out.push_str(rest);
    (out, first)
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

/// `source` as the browser must see it: with `enable subgroups;` where the device has them
/// (naga, which validated it, neither needs nor accepts the directive: gfx-rs/wgpu#8180), and
/// with the subgroup-uniformity diagnostic off. WGSL's uniformity analysis cannot see that
/// every lane of a subgroup reaches wavekit's subgroup operations (a rule the kernels keep by
/// design and the tests check at every width); Vulkan, where they were written, has no such
/// analysis. The directives go on the first line, so that line numbers in the browser's
/// messages are the composed source's (ADR-0077).
pub fn browser_source(source: &str, subgroups: bool) -> String {
    if subgroups {
        format!("enable subgroups; diagnostic(off, subgroup_uniformity); {source}")
    } else {
        source.to_string()
    }
}

impl GpuContext {
    /// Validate `composed` (in the form [`GpuContext::unrolls_in_full`] names) with naga,
    /// then create the module. Fast path: no injected runtime
    /// checks (every wavekit kernel bounds its own accesses); [`crate::ContextOptions`]'s
    /// `checked_shaders` restores them.
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
        // The form this context builds: `#unroll` blocks in full or as loops.
        let composed = composed.form(self.unrolls_in_full());
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
        if let Some(dir) = &self.options().dump_wgsl
            && let Err(e) = dump_wgsl_to(dir, composed)
        {
            // A debugging aid: a failed write is reported and otherwise ignored.
            eprintln!("wavekit: cannot write WGSL into {}: {e}", dir.display());
        }
        #[cfg(all(target_arch = "wasm32", feature = "webgpu"))]
        let source: std::borrow::Cow<str> =
            browser_source(&composed.source, self.caps.subgroups.supported).into();
        #[cfg(not(all(target_arch = "wasm32", feature = "webgpu")))]
        let source: std::borrow::Cow<str> = composed.source.as_str().into();
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(&composed.name),
            source: wgpu::ShaderSource::Wgsl(source),
        };
        let module = self.scoped(&format!("creating shader '{}'", composed.name), || {
            if self.options().checked_shaders {
                self.device.create_shader_module(desc)
            } else {
                // SAFETY: wavekit's kernels guard every buffer index against the array length
                // and were validated by naga above; the checked variant is one option away.
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
                        zero_initialize_workgroup_memory: self.options().zero_workgroup_memory,
                        ..Default::default()
                    },
                    cache: self.pipeline_cache(),
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(name: &'static str, text: &'static str) -> (&'static str, &'static str) {
        (name, text)
    }

    #[test]
    fn the_browser_sees_the_directives_on_the_first_line_only_with_subgroups() {
        let c = compose(
            "t/x",
            &[],
            &[],
            &[src("t/x", "fn x() -> u32 {\n return 1u;\n}")],
        )
        .unwrap();
        let web = browser_source(&c.source, true);
        assert!(web.starts_with("enable subgroups; diagnostic(off, subgroup_uniformity); "));
        assert_eq!(
            web.lines().count(),
            c.source.lines().count(),
            "line numbers move"
        );
        assert!(web.ends_with(&c.source));
        assert_eq!(browser_source(&c.source, false), c.source);
        // naga (which validated the source) refuses the directive: it must not reach it.
        assert!(naga::front::wgsl::parse_str(&web).is_err());
        assert!(naga::front::wgsl::parse_str(&c.source).is_ok());
    }

    #[test]
    fn dumped_wgsl_is_the_composed_source_under_its_name() {
        let extra = [
            src("t/x", "fn x() -> u32 { return 1u; }"),
            src("t/y", "fn y() {}"),
        ];
        let a = compose("t/x", &[], &[], &extra).unwrap();
        let b = compose("t/y", &[], &[], &extra).unwrap();
        let temp = tempfile::Builder::new()
            .prefix("wavekit-dump-")
            .tempdir()
            .unwrap();
        let dir = temp.path().join("dump");
        let pa = dump_wgsl_to(&dir, &a).unwrap();
        let pb = dump_wgsl_to(&dir, &b).unwrap();
        assert_eq!(std::fs::read_to_string(&pa).unwrap(), a.source);
        let file = pa.file_name().unwrap().to_string_lossy().into_owned();
        assert!(file.starts_with(&a.name.replace('/', "_")), "{file}");
        assert!(file.ends_with(".wgsl") && !file.contains('/'), "{file}");
        // Two kernels (or variants of one) never overwrite each other.
        assert_ne!(pa, pb);
    }

    #[test]
    fn every_shared_piece_lives_under_the_foundations_shaders() {
        // The pieces are validated where they are used (the prelude's tests, each primitive's
        // and application's kernel test); here only that each lives in the foundation under
        // its layer's folder.
        for p in PIECES {
            assert!(p.path().ends_with(".wgsl"), "{}", p.path());
            let layer = p.name.split('/').next().unwrap();
            assert!(
                p.path()
                    .starts_with(&format!("crates/wavekit-gpu/src/shaders/{layer}/")),
                "{}",
                p.path()
            );
        }
    }

    #[test]
    fn a_uniform_and_its_rust_struct_must_agree_member_by_member() {
        #[repr(C)]
        struct P {
            n: u32,
            pad: u32,
            scale: [f32; 2],
            colour: [f32; 4],
        }
        let wgsl = |body: &str| {
            let text = format!(
                "struct P {{ {body} }}\n@group(0) @binding(0) var<uniform> params: P;\n\
                 @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
                 @compute @workgroup_size(1)\nfn main() {{ out[0] = params.n; }}\n"
            );
            compose("t/u", &[], &[], &[("t/u", &text)]).unwrap()
        };
        let fields = crate::uniform_fields!(P, n, pad, scale, colour);
        let size = std::mem::size_of::<P>();
        let good = wgsl("n: u32, pad: u32, scale: vec2<f32>, colour: vec4<f32>,");
        check_uniform(&good, 0, 0, size, &fields).unwrap();
        let (bytes, members) = uniform_layout(&good, 0, 0).unwrap();
        assert_eq!((bytes, members.len(), members[3].offset), (32, 4, 16));
        // A renamed padding field, a missing one (vec4 then aligns to 16 anyway, but the
        // offsets move), a wrong type, and a binding with no uniform all fail.
        for body in [
            "n: u32, pad1: u32, scale: vec2<f32>, colour: vec4<f32>,",
            "n: u32, scale: vec2<f32>, colour: vec4<f32>,",
            "n: u32, pad: u32, scale: vec2<f32>, colour: vec3<f32>, x: f32,",
        ] {
            let e = check_uniform(&wgsl(body), 0, 0, size, &fields).unwrap_err();
            assert!(e.to_string().contains("differ"), "{body}: {e}");
        }
        assert!(check_uniform(&good, 0, 1, size, &fields).is_err());
    }

    #[test]
    fn subgroup_kernels_fail_validation_without_the_capability() {
        let extra = [src(
            "t/ballot",
            "@compute @workgroup_size(64)\nfn main() {\n    let b = subgroupBallot(true);\n}\n",
        )];
        let k = compose("t/ballot", &[], &[], &extra).unwrap();
        validate(&k, true).unwrap();
        let e = validate(&k, false).unwrap_err().to_string();
        assert!(e.contains("t/ballot.wgsl:3"), "{e}");
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
        let c = compose("t/a", &[("K", ConstValue::U32(7))], &[], &extra).unwrap();
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
        let c = compose("t/w", &[], &[], &extra).unwrap();
        let (module, info) = validate(&c, false).unwrap();
        // 20 bytes round to 32, 12 to 16; `unused` is not counted.
        assert_eq!(workgroup_bytes(&module, &info, "main"), 48);
        assert_eq!(workgroup_bytes(&module, &info, "other"), 0);
    }

    /// `file:line` of the first composed line containing `needle`.
    fn origin_of_text(c: &Composed, needle: &str) -> String {
        let line = c.source.lines().position(|l| l.contains(needle)).unwrap();
        c.origin_of(line as u32 + 1)
    }

    #[test]
    fn unroll_repeats_blocks_with_constant_indices() {
        let extra = [src(
            "t/u",
            "fn f() -> u32 {\n    var a: array<u32, 6>;\n#unroll k N\n#unroll j 2\n    a[{k} * 2u + {j}] = {k};\n#end\n#end\n    return a[5];\n}",
        )];
        let c = compose("t/u", &[("N", ConstValue::U32(3))], &[], &extra).unwrap();
        assert!(c.source.contains("a[0u * 2u + 1u] = 0u;"), "{}", c.source);
        assert!(c.source.contains("a[2u * 2u + 1u] = 2u;"), "{}", c.source);
        assert_eq!(c.source.matches("a[").count(), 7);
        validate(&c, true).unwrap();
        // Every emitted line maps back to the source line it came from.
        assert_eq!(origin_of_text(&c, "a[1u * 2u + 0u]"), "t/u.wgsl:5");
        for bad in [
            "#unroll k\n#end",
            "#unroll k 2\nx",
            "#end",
            "#unroll k M\n#end",
            "#unroll k 6 by 4\n#end",
            "#unroll k 6 by 0\n#end",
            "#unroll k 6 by\n#end",
            "#unroll k 6 to 2\n#end",
            "#unroll k 6 by 2 3\n#end",
        ] {
            let extra = [("t/bad", bad)];
            let e = compose("t/bad", &[], &[], &extra).unwrap_err().to_string();
            assert!(e.contains("t/bad.wgsl:"), "{e}");
        }
    }

    #[test]
    fn unroll_by_a_step_is_a_loop_of_unrolled_steps() {
        let text = "fn f() -> u32 {\n    var a: array<u32, 6>;\n#unroll k 6 by S\n    a[{k}] = {k} * 3u;\n#end\n    return a[5] + a[0];\n}";
        let extra = [src("t/s", text)];
        // A step of the whole count: the plain unroll's text, constant indices.
        let whole = compose("t/s", &[("S", ConstValue::U32(6))], &[], &extra).unwrap();
        let plain = compose(
            "t/s",
            &[("S", ConstValue::U32(6))],
            &[],
            &[src("t/s", text.replace(" by S", "").leak())],
        )
        .unwrap();
        assert_eq!(whole.source, plain.source);
        assert!(
            whole.source.contains("a[5u] = 5u * 3u;"),
            "{}",
            whole.source
        );
        assert!(!whole.source.contains("for ("), "{}", whole.source);
        // Steps of 2: a loop of three rounds, each two copies.
        let c = compose("t/s", &[("S", ConstValue::U32(2))], &[], &extra).unwrap();
        assert!(
            c.source
                .contains("for (var unroll_k = 0u; unroll_k < 6u; unroll_k += 2u) {"),
            "{}",
            c.source
        );
        assert!(
            c.source
                .contains("a[(unroll_k + 1u)] = (unroll_k + 1u) * 3u;")
        );
        assert_eq!(c.source.matches("a[(unroll_k").count(), 2);
        validate(&c, false).unwrap();
        // The loop's lines map to the directive's and the #end's lines.
        let at = |needle: &str| {
            let line = c.source.lines().position(|l| l.contains(needle)).unwrap();
            c.origin_of(line as u32 + 1)
        };
        assert_eq!(at("for (var unroll_k"), "t/s.wgsl:3");
        assert_eq!(at("a[(unroll_k + 0u)]"), "t/s.wgsl:4");
        // A count of 0 emits nothing, whatever the step.
        let none = compose(
            "t/s",
            &[("S", ConstValue::U32(1))],
            &[],
            &[src("t/s", text.replace("6 by S", "0 by S").leak())],
        )
        .unwrap();
        assert!(!none.source.contains("a[0u]") && !none.source.contains("for ("));
    }

    #[test]
    fn the_looped_form_has_each_block_as_a_loop_of_one_copy() {
        let text = "fn f() -> u32 {\n    var a: array<u32, 6>;\n#unroll k N\n#unroll j 2\n    a[{k} * 2u + {j}] = {k};\n#end\n#end\n#unroll i 6 by 3\n    a[{i}] += 1u;\n#end\n#unroll z 1\n    a[{z}] += 2u;\n#end\n    return a[5];\n}";
        let c = compose(
            "t/l",
            &[("N", ConstValue::U32(3))],
            &[],
            &[src("t/l", text)],
        )
        .unwrap();
        assert!(std::ptr::eq(c.form(true), &c));
        let l = c.form(false);
        assert_eq!(l.name, c.name);
        // Nested blocks: two loops, one copy each, the names replaced by the loops' indices.
        assert!(
            l.source
                .contains("for (var unroll_k = 0u; unroll_k < 3u; unroll_k += 1u) {"),
            "{}",
            l.source
        );
        assert!(
            l.source
                .contains("a[(unroll_k + 0u) * 2u + (unroll_j + 0u)] = (unroll_k + 0u);"),
            "{}",
            l.source
        );
        assert_eq!(l.source.matches("= (unroll_k + 0u);").count(), 1);
        // A block with its own step keeps it; a count of one is its one copy.
        assert!(l.source.contains("unroll_i += 3u"), "{}", l.source);
        assert!(l.source.contains("a[0u] += 2u;"), "{}", l.source);
        validate(l, true).unwrap();
        validate(l, false).unwrap();
        // Lines map back to the file in this form too.
        assert_eq!(origin_of_text(l, "unroll_j + 0u"), "t/l.wgsl:5");
        // Text without a block in full has no second form.
        let plain = compose("t/p", &[], &[], &[src("t/p", "fn g() {}")]).unwrap();
        assert!(std::ptr::eq(plain.form(false), &plain));
    }

    #[test]
    fn import_cycles_and_unknown_imports_are_errors() {
        let extra = [src("t/x", "#import t/y"), src("t/y", "#import t/x")];
        let e = compose("t/x", &[], &[], &extra).unwrap_err().to_string();
        assert!(e.contains("import cycle: t/x -> t/y -> t/x"), "{e}");
        let extra = [src("t/z", "#import t/nothing")];
        let e = compose("t/z", &[], &[], &extra).unwrap_err().to_string();
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
        let c = compose("t/main", &[("A", ConstValue::U32(1))], &[], &extra).unwrap();
        let e = validate(&c, true).unwrap_err().to_string();
        // The missing semicolon is reported where the parser notices it: t/helper line 3.
        assert!(e.contains("t/helper.wgsl:3"), "{e}");
        let extra = [src("t/bad", "fn f() -> u32 {\n    return 1.5;\n}")];
        let c = compose("t/bad", &[("A", ConstValue::U32(1))], &[], &extra).unwrap();
        let e = validate(&c, true).unwrap_err().to_string();
        // A type error: the line of the `return`, and naga's pointer mapped to it too.
        assert!(e.starts_with("shader 't/bad': t/bad.wgsl:2: "), "{e}");
        assert!(e.contains("t/bad.wgsl:2:12"), "{e}");
        assert!(!e.contains(" wgsl:"), "{e}");
    }
}
