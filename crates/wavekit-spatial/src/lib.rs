//! wavekit-spatial: point queries on the GPU — k nearest neighbours, radius search (CSR out)
//! and counts within a radius — on a tree built on the GPU from Morton codes sorted by
//! wavekit's radix sort.
//!
//! ```text
//! points [N, 3] ──► tree.rs: bounds → Morton codes → wavekit's radix sort → points in leaf
//!                   order → leaf boxes → the boxes up, a level a dispatch ──► PointTree
//! queries [Q, 3] ─► query.rs: Morton order (sorted) → one query an invocation walks the tree
//!                   ──► k-NN (indices, squared distances) | counts → exclusive scan → indices
//! ```
//!
//! The tree is a bounding-volume hierarchy over buckets: leaves of [`SpatialConfig::leaf`]
//! consecutive points in Morton order, an implicit complete binary tree above them (node k's
//! children are 2k and 2k + 1), each node's box fitted to its points. Every kernel has its CPU
//! twin in [`reference`](mod@reference) ([`reference::Tree`] builds the same tree and walks it the same way),
//! and brute force checks both.
//!
//! ```
//! use wavekit::GpuContext;
//! use wavekit_spatial::{Spatial, SpatialConfig, reference};
//! let ctx = GpuContext::new(&Default::default())?;
//! let points: Vec<[f32; 3]> = (0..1000).map(|i| [(i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32]).collect();
//! let queries = vec![[4.2, 4.9, 5.1], [-3.0, 0.0, 0.0]];
//! let spatial = Spatial::new(&ctx, &SpatialConfig::default())?;
//! let tree = spatial.build(&ctx, &points)?;
//! let (idx, d2) = spatial.knn(&ctx, &tree, &queries, 4, None)?;
//! let (want_idx, _) = reference::knn_brute(&points, &queries, 4, f32::INFINITY);
//! assert_eq!(idx, want_idx);
//! let (offsets, within) = spatial.radius(&ctx, &tree, &queries, 1.0)?;
//! assert_eq!(offsets.len(), 3);
//! # let _ = (d2, within);
//! # Ok::<(), wavekit_spatial::SpatialError>(())
//! ```

#![warn(missing_docs)]
mod error;
mod many;
pub mod query;
pub mod reference;
pub mod tree;

pub use error::{Result, SpatialError};
pub use query::BoundWrite;
pub use query::{BoundKnn, BoundRadius};
pub use tree::{BoundBuild, PointTree};

use std::collections::HashMap;
use std::sync::Mutex;

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::prelude::{KernelBuilder, WgslSource};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::sort::{KeyType, RadixSort, SortConfig, Values};

/// The crate's WGSL files (on wavekit's kernel prelude).
pub static SOURCES: &[WgslSource] = &[
    wavekit::wgsl_source!("spatial/codes", "codes.wgsl"),
    wavekit::wgsl_source!("spatial/tree_common", "tree/common.wgsl"),
    wavekit::wgsl_source!("spatial/bounds", "tree/bounds.wgsl"),
    wavekit::wgsl_source!("spatial/morton", "tree/morton.wgsl"),
    wavekit::wgsl_source!("spatial/gather", "tree/gather.wgsl"),
    wavekit::wgsl_source!("spatial/leaves", "tree/leaves.wgsl"),
    wavekit::wgsl_source!("spatial/up", "tree/up.wgsl"),
    wavekit::wgsl_source!("spatial/nodes", "tree/nodes.wgsl"),
    wavekit::wgsl_source!("spatial/morton63", "tree/morton63.wgsl"),
    wavekit::wgsl_source!("spatial/kd", "tree/kd.wgsl"),
    wavekit::wgsl_source!("spatial/octree", "tree/octree.wgsl"),
    wavekit::wgsl_source!("spatial/query_common", "query/common.wgsl"),
    wavekit::wgsl_source!("spatial/keys", "query/keys.wgsl"),
    wavekit::wgsl_source!("spatial/leaf_cursor", "query/leaf_cursor.wgsl"),
    wavekit::wgsl_source!("spatial/walk_bvh", "query/walk_bvh.wgsl"),
    wavekit::wgsl_source!("spatial/walk_kd", "query/walk_kd.wgsl"),
    wavekit::wgsl_source!("spatial/walk_octree", "query/walk_octree.wgsl"),
    wavekit::wgsl_source!("spatial/knn_walk", "query/knn_walk.wgsl"),
    wavekit::wgsl_source!("spatial/knn", "query/knn.wgsl"),
    wavekit::wgsl_source!("spatial/knn_pool", "query/knn_pool.wgsl"),
    wavekit::wgsl_source!("spatial/radius", "query/radius.wgsl"),
    wavekit::wgsl_source!("spatial/extract", "query/extract.wgsl"),
];

/// Invocations per workgroup of every kernel here.
pub const WORKGROUP: u32 = 256;
/// Most neighbours a k-NN query returns.
pub const MAX_K: u32 = 64;

/// How the k-NN queries reach the lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KnnKernel {
    /// One query an invocation, walked to its end.
    #[default]
    Baseline,
    /// Lanes take a new query from their subgroup's pool when theirs ends, each with its own
    /// atomic.
    Persistent,
    /// As persistent, but the free lanes are refilled together: a ballot, one atomic for all
    /// of them, a shuffle of the base and an exclusive bit count.
    Compacted,
}

/// Which tree the points go into (ADR-0074 compares them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeKind {
    /// A bounding-volume hierarchy over buckets: leaves of [`SpatialConfig::leaf`] points in
    /// the order of their 30-bit Morton codes, a complete binary tree of fitted boxes above.
    #[default]
    Bvh,
    /// A kd-tree of midpoint splits (not left-balanced): the binary radix tree of the points'
    /// 63-bit Morton codes, each inner node a plane across one axis at the middle of its
    /// cell, sides of [`SpatialConfig::leaf`] points or fewer leaves.
    Kd,
    /// A sparse octree, compressed (chains of one-child cells skipped) from the 63-bit Morton
    /// codes: a node of more than [`SpatialConfig::leaf`] points splits into the cells of
    /// their first differing octal digit.
    Octree,
}

impl TreeKind {
    /// Lower-case name (`bvh`, `kd`, `octree`).
    pub fn name(self) -> &'static str {
        match self {
            TreeKind::Bvh => "bvh",
            TreeKind::Kd => "kd",
            TreeKind::Octree => "octree",
        }
    }
}

/// How the tree is built and walked (the crate's tuning policy, passed in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpatialConfig {
    /// The tree (default: the BVH).
    pub tree: TreeKind,
    /// Points a leaf: a power of two from 4 to 256 (default 8, the fastest of 8, 16 and 32 on
    /// the H200; ADR-0073).
    pub leaf: u32,
    /// Walk the queries in Morton order (a sort of the queries first), so that neighbouring
    /// invocations walk the same nodes (default on).
    pub sort_queries: bool,
    /// The k-NN kernel.
    pub kernel: KnnKernel,
    /// Queries a lane in each subgroup's pool (persistent and compacted kernels; 1 to 64,
    /// default 4).
    pub pool: u32,
    /// Most neighbours radius search writes and sorts a pass; 0 (the default): as many as one
    /// storage binding of 64-bit keys holds. Larger results are written in chunks of queries.
    pub radius_chunk: u32,
    /// Count the lanes at work in the k-NN kernels ([`BoundKnn::utilisation`]); off by
    /// default (it costs two atomics an invocation).
    pub diagnostics: bool,
    /// The loop iterations a subgroup of a query kernel may take in one dispatch, nested
    /// loops included (ADR-0091). `None` (the default): none on a GPU,
    /// [`SOFTWARE_LOOP_BUDGET`] on a software adapter (llvmpipe ends every loop of a shader
    /// once it has taken 65 535 iterations in all). The pool kernels hand the queries left at
    /// the budget to a second dispatch; a single walk past it fails the call.
    pub loop_budget: Option<u32>,
}

/// The query kernels' loop budget on software adapters: under llvmpipe's 65 535 loop
/// iterations a shader invocation, with room to spare (ADR-0091).
pub const SOFTWARE_LOOP_BUDGET: u32 = 65_000;

impl Default for SpatialConfig {
    fn default() -> Self {
        Self {
            tree: TreeKind::Bvh,
            leaf: 8,
            sort_queries: true,
            kernel: KnnKernel::Baseline,
            pool: 4,
            radius_chunk: 0,
            diagnostics: false,
            loop_budget: None,
        }
    }
}

impl SpatialConfig {
    /// Fails on a leaf size the kernels do not take.
    pub fn check(&self) -> Result<()> {
        if !(4..=256).contains(&self.leaf) || !self.leaf.is_power_of_two() {
            return Err(SpatialError::InvalidArgument(format!(
                "leaf size {}: give a power of two from 4 to 256",
                self.leaf
            )));
        }
        if !(1..=64).contains(&self.pool) {
            return Err(SpatialError::InvalidArgument(format!(
                "a pool of {} queries a lane: give 1 to 64",
                self.pool
            )));
        }
        Ok(())
    }
}

/// Kernel `name` with the configuration's constants.
pub fn builder(name: &str, config: &SpatialConfig) -> KernelBuilder {
    KernelBuilder::new(name, SOURCES)
        .workgroup_size(WORKGROUP)
        .constant("LEAF", config.leaf)
        .constant("SORTED", config.sort_queries)
        .constant("POOL", config.pool)
        .constant("DIAGNOSTICS", config.diagnostics)
        .constant("COMPACTED", config.kernel == KnnKernel::Compacted)
        .constant("K", 1u32)
        .constant(
            "STEP_COST",
            query::walk_costs(config.tree, config.leaf, 1).0,
        )
        .constant(
            "START_COST",
            query::walk_costs(config.tree, config.leaf, 1).1,
        )
        .generated(
            "spatial/walk",
            format!("#import spatial/walk_{}\n", config.tree.name()),
        )
}

/// A k-NN kernel (`spatial/knn` or `spatial/knn_pool`) for `k` neighbours: its best-k list and
/// the cost of a walk's start, which grows with k on the BVH.
fn knn_builder(name: &str, config: &SpatialConfig, k: u32) -> KernelBuilder {
    builder(name, config)
        .constant("K", k)
        .constant(
            "START_COST",
            query::walk_costs(config.tree, config.leaf, k).1,
        )
        .generated("spatial/insert", query::insert_wgsl(k))
}

/// Every kernel a [`Spatial`] of `config` builds (k-NN for `k`), named: what the tests
/// validate with naga on machines without a GPU.
pub fn kernel_builders(config: &SpatialConfig, k: u32) -> Vec<(String, KernelBuilder)> {
    let build: &[&str] = match config.tree {
        TreeKind::Bvh => &["bounds", "morton", "gather", "leaves", "up"],
        TreeKind::Kd => &["bounds", "morton63", "gather", "kd"],
        TreeKind::Octree => &["bounds", "morton63", "gather", "octree"],
    };
    let mut v: Vec<(String, KernelBuilder)> = build
        .iter()
        .chain(&["keys", "extract"])
        .map(|n| (n.to_string(), builder(&format!("spatial/{n}"), config)))
        .collect();
    for count in [true, false] {
        v.push((
            format!("radius count {count}"),
            builder("spatial/radius", config).constant("COUNT", count),
        ));
    }
    let knn = match config.kernel {
        KnnKernel::Baseline => "spatial/knn",
        _ => "spatial/knn_pool",
    };
    v.push((format!("k-NN {k}"), knn_builder(knn, config, k)));
    v
}

/// The builder and the queries, their kernels, sort and scan built once for a device.
#[derive(Debug)]
pub struct Spatial {
    config: SpatialConfig,
    build: Vec<Kernel>,
    keys: Kernel,
    count: Kernel,
    write: Kernel,
    extract: Kernel,
    knn: Mutex<HashMap<(u32, bool), Kernel>>,
    pair_sorts: Mutex<HashMap<u32, std::sync::Arc<RadixSort>>>,
    sort: RadixSort,
    sort63: Option<RadixSort>,
    scan: Scan,
}

impl Spatial {
    /// Build the kernels, the sort and the scan.
    pub fn new(ctx: &GpuContext, config: &SpatialConfig) -> Result<Self> {
        config.check()?;
        let k = |name: &str| builder(name, config).build(ctx);
        let build = match config.tree {
            TreeKind::Bvh => vec![
                k("spatial/bounds")?,
                k("spatial/morton")?,
                k("spatial/gather")?,
                k("spatial/leaves")?,
                k("spatial/up")?,
            ],
            TreeKind::Kd => vec![
                k("spatial/bounds")?,
                k("spatial/morton63")?,
                k("spatial/gather")?,
                k("spatial/kd")?,
            ],
            TreeKind::Octree => vec![
                k("spatial/bounds")?,
                k("spatial/morton63")?,
                k("spatial/gather")?,
                k("spatial/octree")?,
            ],
        };
        let radius = |count: bool| {
            builder("spatial/radius", config)
                .constant("COUNT", count)
                .build(ctx)
        };
        let sort = RadixSort::new(
            ctx,
            &SortConfig {
                values: Values::Indices,
                bits: Some((0, 30)),
                ..SortConfig::keys(KeyType::U32)
            },
        )?;
        let sort63 = match config.tree {
            TreeKind::Bvh => None,
            _ => Some(RadixSort::new(
                ctx,
                &SortConfig {
                    values: Values::Indices,
                    bits: Some((0, 63)),
                    ..SortConfig::keys(KeyType::U64)
                },
            )?),
        };
        let scan = Scan::new(
            ctx,
            &ScanConfig::exclusive(wavekit::monoid::Monoid::builtin(
                wavekit::monoid::Scalar::U32,
                wavekit::monoid::Op::Add,
            )),
        )?;
        Ok(Self {
            config: *config,
            build,
            keys: k("spatial/keys")?,
            count: radius(true)?,
            write: radius(false)?,
            extract: k("spatial/extract")?,
            knn: Mutex::new(HashMap::new()),
            pair_sorts: Mutex::new(HashMap::new()),
            sort,
            sort63,
            scan,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SpatialConfig {
        &self.config
    }

    /// The sort of radius search's 64-bit (query, index) keys on their low `bits` bits
    /// (built on first use).
    fn pair_sort(&self, ctx: &GpuContext, bits: u32) -> Result<std::sync::Arc<RadixSort>> {
        let mut map = self.pair_sorts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = map.get(&bits) {
            return Ok(s.clone());
        }
        let s = std::sync::Arc::new(RadixSort::new(
            ctx,
            &SortConfig {
                bits: Some((0, bits)),
                ..SortConfig::keys(KeyType::U64)
            },
        )?);
        map.insert(bits, s.clone());
        Ok(s)
    }

    /// The k-NN kernel for `k` (built on first use): the configuration's, or the baseline
    /// (`baseline`: the rest pass of the pool kernels).
    fn knn_kernel(&self, ctx: &GpuContext, k: u32, baseline: bool) -> Result<Kernel> {
        let mut map = self.knn.lock().unwrap_or_else(|e| e.into_inner());
        let pool = !baseline && self.config.kernel != KnnKernel::Baseline;
        if let Some(kernel) = map.get(&(k, pool)) {
            return Ok(kernel.clone());
        }
        let name = if pool {
            "spatial/knn_pool"
        } else {
            "spatial/knn"
        };
        let kernel = knn_builder(name, &self.config, k).build(ctx)?;
        map.insert((k, pool), kernel.clone());
        Ok(kernel)
    }

    /// The loop budget on this adapter ([`SpatialConfig::loop_budget`]); `None`: unbounded.
    pub fn loop_budget(&self, ctx: &GpuContext) -> Option<u32> {
        self.config
            .loop_budget
            .or(ctx.summary.software.then_some(SOFTWARE_LOOP_BUDGET))
    }
}

/// Points as the kernels read them (three f32 each), checked: finite coordinates, at most
/// 2^31 points.
pub fn flatten(points: &[[f32; 3]], what: &str) -> Result<Vec<f32>> {
    check_points(points, what)?;
    Ok(points.iter().flatten().copied().collect())
}

/// The checks of [`flatten`] without its copy: fewer than 2^31 points, every coordinate finite.
fn check_points(points: &[[f32; 3]], what: &str) -> Result<()> {
    if points.len() >= 1 << 31 {
        return Err(SpatialError::InvalidArgument(format!(
            "{} {what}: at most 2^31 - 1",
            points.len()
        )));
    }
    if let Some(i) = points.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
        return Err(SpatialError::InvalidArgument(format!(
            "{what} {i} is {:?}: every coordinate must be finite (no NaN or infinity)",
            points[i]
        )));
    }
    Ok(())
}

/// `points` checked ([`flatten`], whose errors name each one a `what`) in a new storage buffer
/// labelled "spatial {what}s" (one word when empty: a binding is never of size 0).
pub fn upload_points(ctx: &GpuContext, points: &[[f32; 3]], what: &str) -> Result<wgpu::Buffer> {
    check_points(points, what)?;
    let label = format!("spatial {what}s");
    if points.is_empty() {
        return Ok(ctx.storage_from(&label, &[0.0f32])?);
    }
    // Straight from the caller's points (through the kept staging buffer), no flat copy.
    Ok(ctx.storage_from(&label, bytemuck::cast_slice::<[f32; 3], f32>(points))?)
}
