//! The kernel prelude: how another crate composes a compute kernel on wavekit's WGSL pieces (the same
//! module as `wavekit::prelude`: the examples name this crate, `wavekit_gpu`, where the
//! foundation is tested alone).
//!
//! An application crate (the wavelet transform, the UI compositor, the ray tracer) keeps its
//! kernels as `.wgsl` files beside its Rust code, lists them with [`crate::wgsl_source!`], and
//! builds each with a [`KernelBuilder`]. The builder supplies what depends on the device:
//!
//! | import | what it gives | needs |
//! |---|---|---|
//! | `subgroup/api` | `Invocation` (the entry point's builtins), `lane_info(inv) -> Lane` (`local`, `lane`, `size`, `sg`), `sg_ballot`, `sg_shuffle_u32/_f32/_bool`, `sg_broadcast_first_u32`, `sg_add_u32`, `sg_exclusive_add_u32`, `sg_max_u32`, `sg_min_u32`, `sg_any`, `sg_all`, and the monoid's scans; the hardware's subgroup operations, or a one-lane emulation where the device has none | the `monoid` piece |
//! | `monoid` | `T`, `identity()`, `combine(a, b)`, `sg_inclusive`, `sg_exclusive`, `sg_exclusive_scan`, `sg_reduce` (u32 addition unless [`KernelBuilder::monoid`] says otherwise) | — |
//! | `shared/ballot` | `ballot_count`, `ballot_count_below`, `lanes_below`, `ballot_first`, `ballot_last` (all four words: any width up to 128) | — |
//! | `subgroup/compact` | `ballot_select(b, r)` (the lane of the r-th set bit), `compact_source(alive, valid, lane, k)` (the lane whose live task, lane < k, or free slot, lane ≥ k, a lane takes when a subgroup packs its live tasks to the front): task compaction for kernels that refill finished lanes | `shared/ballot` |
//! | `workgroup/scan` | `wg_exclusive_of_subgroups(total, l)`: the carry across subgroups (has barriers) | `subgroup/api` |
//! | `device/radix_tree` | `radix_node(i) -> vec3<u32>` (first, split, last): inner node i of the binary radix tree over sorted keys (Karras 2012), for BVH and kd-tree builds | the importer's `delta(i, j) -> i32` |
//! | `device/bounds` | `bounds_add(l, valid, p)`: a point a lane folded into a bounding box of six atomic words (a subgroup's maximum, then one atomicMax a word), for tree builds | `subgroup/api`; the importer's `bounds: array<atomic<u32>>` and `ordered(f32) -> u32` |
//! | `device/grid` | `grid_floor(d, e, bits)`: ⌊d·2^bits / e⌋ of the real numbers, clamped to the grid, computed exactly without float division (the same cell on every device; twin `sim::device::grid_floor`), for Morton codes and cells | — |
//! | `workgroup/compact` | `wg_compact(keep, l) -> Slot { index, total }`: ordered compaction of one item per invocation (has barriers; monoid u32 addition) | `subgroup/api` |
//!
//! Prepended constants: `WG_SIZE` (the workgroup size, [`KernelBuilder::workgroup_size`]),
//! `MIN_WIDTH` (the narrowest subgroup the kernel must be right for: 4 with subgroups, 1
//! without; size workgroup arrays by `WG_SIZE / MIN_WIDTH`), `SUBGROUPS` (whether the hardware
//! path was composed), and every [`KernelBuilder::constant`].
//!
//! A subgroup operation must be reached by every lane that needs its result: one called inside
//! `if (lane == 0)` silently returns a one-lane answer. The workgroup functions have barriers:
//! every invocation of the workgroup calls them.
//!
//! # Example: a kernel of one's own on `wg_compact`
//!
//! Each workgroup writes the local indices whose flag is set, in order, to the front of its
//! block of the output, and its count of survivors to `totals`:
//!
//! ```
//! use wavekit_gpu::prelude::{KernelBuilder, WgslSource};
//! use wavekit_gpu::{ContextOptions, GpuContext};
//!
//! // In the application crate: wavekit::wgsl_source!("example/compact", "compact_flags.wgsl").
//! const COMPACT: WgslSource = WgslSource::inline(
//!     "example/compact",
//!     include_str!("../tests/kernels/compact_flags.wgsl"),
//! );
//!
//! let builder = KernelBuilder::new("example/compact", &[COMPACT]).workgroup_size(64);
//! builder.check()?; // what a crate's own tests do: naga, with subgroups and without
//! let ctx = GpuContext::new(&ContextOptions::default())?;
//! let kernel = builder.build(&ctx)?;
//! let flags: Vec<u32> = (0..64u32).map(|i| u32::from(i % 3 == 0)).collect();
//! let flags = ctx.storage_from("flags", &flags)?;
//! let out = ctx.storage_poisoned("out", 64)?;
//! let totals = ctx.storage_poisoned("totals", 1)?;
//! let bind = kernel.bind(&ctx, &[(0, &flags), (1, &out), (2, &totals)])?;
//! ctx.submit(|enc| {
//!     let mut pass = enc.begin_compute_pass(&Default::default());
//!     kernel.dispatch(&mut pass, &bind, 1);
//! });
//! assert_eq!(ctx.read_back::<u32>("totals", &totals, 1)?, [22]);
//! let out = ctx.read_back::<u32>("out", &out, 22)?;
//! assert_eq!(out, (0..64).step_by(3).collect::<Vec<u32>>());
//! # Ok::<(), wavekit_gpu::Error>(())
//! ```

pub use crate::kernel::Kernel;
pub use crate::monoid::{Monoid, Op, Scalar};
pub use crate::shader::{Composed, ConstValue, WgslSource, check_kernels, compose, validate};

use crate::context::GpuContext;
use crate::error::{Error, Result};

/// The `subgroup/api` piece: the hardware's subgroup operations, or their one-lane emulation
/// (both generic over the `monoid` piece's `T`, which they import).
pub fn subgroup_api(subgroups: bool) -> &'static str {
    if subgroups {
        "#import monoid\n#import subgroup/hw"
    } else {
        "#import monoid\n#import subgroup/emu"
    }
}

/// The constants every kernel on the prelude gets: `WG_SIZE`, `MIN_WIDTH` (4, or 1 without
/// subgroups) and `SUBGROUPS`.
pub fn device_consts(workgroup: u32, subgroups: bool) -> Vec<(&'static str, ConstValue)> {
    vec![
        ("WG_SIZE", ConstValue::U32(workgroup)),
        // Workgroup memory is sized for the narrowest subgroup: 4 lanes (wgpu's minimum
        // reported width), or 1 on the no-subgroup path.
        ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
        ("SUBGROUPS", ConstValue::Bool(subgroups)),
    ]
}

/// Composes, checks and builds one kernel of an application crate on wavekit's WGSL pieces.
///
/// The kernel's entry point is `main`; its workgroup size should be written
/// `@workgroup_size(WG_SIZE)` (1-D: the subgroup layer's lane arithmetic assumes it).
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    entry: String,
    sources: Vec<WgslSource>,
    generated: Vec<(String, String)>,
    consts: Vec<(String, ConstValue)>,
    workgroup: u32,
    monoid: Monoid,
}

impl KernelBuilder {
    /// A kernel whose entry file is import `entry`, one of `sources` (the crate's own WGSL
    /// files; they may import each other and wavekit's pieces). Workgroups of 256 and the u32
    /// addition monoid unless changed.
    pub fn new(entry: &str, sources: &[WgslSource]) -> Self {
        Self {
            entry: entry.to_string(),
            sources: sources.to_vec(),
            generated: Vec::new(),
            consts: Vec::new(),
            workgroup: 256,
            monoid: Monoid::builtin(Scalar::U32, Op::Add),
        }
    }

    /// Invocations per workgroup (`WG_SIZE`), 1 to 1024 (the device may allow fewer; a
    /// multiple of the subgroup width keeps every subgroup full).
    pub fn workgroup_size(mut self, invocations: u32) -> Self {
        self.workgroup = invocations;
        self
    }

    /// A prepended constant `const NAME: type = value;` (`u32`, `i32`, `f32` or `bool`).
    pub fn constant(mut self, name: &str, value: impl Into<ConstValue>) -> Self {
        let value = value.into();
        match self.consts.iter_mut().find(|(n, _)| n == name) {
            Some(c) => c.1 = value,
            None => self.consts.push((name.to_string(), value)),
        }
        self
    }

    /// The `monoid` piece's monoid (default: u32 addition, which `workgroup/compact` needs).
    pub fn monoid(mut self, monoid: Monoid) -> Self {
        self.monoid = monoid;
        self
    }

    /// A piece of WGSL made at run time, imported as `name` (it wins over a file of that name).
    pub fn generated(mut self, name: &str, text: impl Into<String>) -> Self {
        let text = text.into();
        match self.generated.iter_mut().find(|(n, _)| n == name) {
            Some(g) => g.1 = text,
            None => self.generated.push((name.to_string(), text)),
        }
        self
    }

    /// Invocations per workgroup.
    pub fn invocations(&self) -> u32 {
        self.workgroup
    }

    /// The kernel's WGSL for the hardware subgroup path (`true`) or the emulated one.
    pub fn compose(&self, subgroups: bool) -> Result<Composed> {
        if !(1..=1024).contains(&self.workgroup) {
            return Err(Error::InvalidArgument(format!(
                "kernel '{}': a workgroup of {} invocations; use 1 to 1024",
                self.entry, self.workgroup
            )));
        }
        let mut consts = device_consts(self.workgroup, subgroups);
        for (name, value) in &self.consts {
            if consts.iter().any(|(n, _)| n == name) {
                return Err(Error::InvalidArgument(format!(
                    "kernel '{}': constant {name} is the prelude's; set it through the builder",
                    self.entry
                )));
            }
            consts.push((name.as_str(), *value));
        }
        let monoid = self.monoid.wgsl(subgroups);
        let mut extra: Vec<(&str, &str)> = self
            .generated
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        extra.push(("subgroup/api", subgroup_api(subgroups)));
        extra.push(("monoid", &monoid));
        compose(&self.entry, &consts, &self.sources, &extra)
    }

    /// Both paths composed and validated with naga (with the subgroup capability and without),
    /// each with its `#unroll` blocks in full and as loops ([`Composed::form`]): what a crate's
    /// tests call for each of its kernels. Errors name the file and line.
    pub fn check(&self) -> Result<()> {
        for subgroups in [true, false] {
            let composed = self.compose(subgroups)?;
            for in_full in [true, false] {
                validate(composed.form(in_full), subgroups)?;
            }
        }
        Ok(())
    }

    /// Compose for `ctx`'s subgroup path, validate, and build the pipeline. Fails with a typed
    /// error when the workgroup or its workgroup memory is beyond the device's limits.
    pub fn build(&self, ctx: &GpuContext) -> Result<Kernel> {
        ctx.check_workgroup([self.workgroup, 1, 1])?;
        Kernel::new(ctx, &self.compose(ctx.caps.subgroups.supported)?)
    }
}

impl From<u32> for ConstValue {
    fn from(v: u32) -> Self {
        ConstValue::U32(v)
    }
}

impl From<i32> for ConstValue {
    fn from(v: i32) -> Self {
        ConstValue::I32(v)
    }
}

impl From<f32> for ConstValue {
    fn from(v: f32) -> Self {
        ConstValue::F32(v)
    }
}

impl From<bool> for ConstValue {
    fn from(v: bool) -> Self {
        ConstValue::Bool(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USES_EVERYTHING: WgslSource = WgslSource::inline(
        "t/all",
        "#import subgroup/api\n#import workgroup/compact\n#import subgroup/compact\n\
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(WG_SIZE)\n\
         fn main(inv: Invocation) {\n    let l = lane_info(inv);\n\
         let s = wg_compact(l.local % 2u == 0u, l);\n\
         let f = sg_shuffle_f32(1.5, 0u);\n\
         let b = sg_broadcast_first_u32(l.local) + sg_add_u32(1u) + sg_exclusive_add_u32(1u) \
         + sg_max_u32(l.local) + sg_min_u32(l.local) + u32(sg_any(true)) + u32(sg_all(true));\n\
         let alive = sg_ballot(l.local % 3u == 0u);\n\
         let src = compact_source(alive, lanes_below(l.size), l.lane, ballot_count(alive));\n\
         out[l.local] = s.index + u32(f) + b + K + src;\n}\n",
    );

    #[test]
    fn both_paths_validate_and_carry_the_device_constants() {
        let b = KernelBuilder::new("t/all", &[USES_EVERYTHING])
            .workgroup_size(128)
            .constant("K", 3u32);
        b.check().unwrap();
        let hw = b.compose(true).unwrap();
        assert_eq!(hw.constant("WG_SIZE"), Some("128u"));
        assert_eq!(hw.constant("MIN_WIDTH"), Some("4u"));
        assert_eq!(hw.constant("K"), Some("3u"));
        assert!(hw.files().contains(&"subgroup/hw"));
        assert!(hw.files().contains(&"subgroup/compact"));
        let emu = b.compose(false).unwrap();
        assert_eq!(emu.constant("MIN_WIDTH"), Some("1u"));
        assert_eq!(emu.constant("SUBGROUPS"), Some("false"));
        assert!(emu.files().contains(&"subgroup/emu"));
        assert!(!emu.files().contains(&"subgroup/hw"));
    }

    #[test]
    fn errors_name_the_application_file_and_line() {
        let bad = WgslSource {
            name: "t/bad",
            text: "#import subgroup/api\nfn f() -> u32 {\n    return 1.5;\n}\n",
            at: "crates/app/src/lib.rs",
            rel: "kernels/bad.wgsl",
        };
        let e = KernelBuilder::new("t/bad", &[bad])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("crates/app/src/kernels/bad.wgsl:3"), "{e}");
    }

    #[test]
    fn bad_builders_are_errors_not_panics() {
        let e = KernelBuilder::new("t/all", &[USES_EVERYTHING])
            .workgroup_size(0)
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("use 1 to 1024"), "{e}");
        let e = KernelBuilder::new("t/all", &[USES_EVERYTHING])
            .constant("WG_SIZE", 3u32)
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("WG_SIZE is the prelude's"), "{e}");
        let e = KernelBuilder::new("t/missing", &[USES_EVERYTHING])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown WGSL source 't/missing'"), "{e}");
    }

    #[test]
    fn check_kernels_finds_an_unused_file() {
        let unused = WgslSource::inline("t/unused", "fn nothing() {}\n");
        let b = KernelBuilder::new("t/all", &[USES_EVERYTHING, unused]).constant("K", 1u32);
        let variants = vec![(b.compose(true).unwrap(), true)];
        let e = check_kernels(&[USES_EVERYTHING, unused], &variants)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t/unused.wgsl is imported by none"), "{e}");
        check_kernels(&[USES_EVERYTHING], &variants).unwrap();
    }
}
