//! `wavekit knn`, `wavekit radius` and `wavekit spatial bench`: point queries on the GPU
//! (`wavekit-spatial`) from and to `.npy` files.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use wavekit::GpuContext;
use wavekit_spatial::{Spatial, SpatialConfig, SpatialError};

use crate::error::CliError;
use crate::npy;
use crate::output::{check_output, write_atomic};

impl From<SpatialError> for CliError {
    fn from(e: SpatialError) -> Self {
        match e {
            SpatialError::Gpu(e) => CliError::Wavekit(e),
            e => CliError::Usage(e.to_string()),
        }
    }
}

/// How the tree is built and walked.
#[derive(Args, Clone, Debug)]
pub struct TreeArgs {
    /// The tree: bvh (fitted boxes over buckets of points in Morton order), kd (midpoint
    /// splits: the radix tree of 63-bit Morton codes), octree (sparse, compressed).
    #[arg(long, value_enum, default_value = "bvh")]
    pub tree: TreeArg,
    /// Points a leaf (a power of two, 4 to 256).
    #[arg(long, default_value_t = 8)]
    pub leaf: u32,
    /// Walk the queries in the order given instead of sorting them by Morton code first.
    #[arg(long)]
    pub unsorted_queries: bool,
    /// The k-NN kernel: baseline (a query an invocation), persistent (lanes refilled from
    /// their subgroup's pool one by one), compacted (refilled together: ballot, one atomic,
    /// shuffle, exclusive bit count).
    #[arg(long, value_enum, default_value = "baseline")]
    pub kernel: KernelArg,
    /// Queries a lane in a subgroup's pool (persistent, compacted).
    #[arg(long, default_value_t = 4)]
    pub pool: u32,
}

/// The tree on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum TreeArg {
    /// Bounding-volume hierarchy.
    Bvh,
    /// kd-tree.
    Kd,
    /// Octree.
    Octree,
}

/// The k-NN kernel on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum KernelArg {
    /// One query an invocation.
    Baseline,
    /// Lanes refilled one by one.
    Persistent,
    /// Lanes refilled together.
    Compacted,
}

impl TreeArgs {
    fn config(&self) -> SpatialConfig {
        SpatialConfig {
            tree: match self.tree {
                TreeArg::Bvh => wavekit_spatial::TreeKind::Bvh,
                TreeArg::Kd => wavekit_spatial::TreeKind::Kd,
                TreeArg::Octree => wavekit_spatial::TreeKind::Octree,
            },
            leaf: self.leaf,
            sort_queries: !self.unsorted_queries,
            kernel: match self.kernel {
                KernelArg::Baseline => wavekit_spatial::KnnKernel::Baseline,
                KernelArg::Persistent => wavekit_spatial::KnnKernel::Persistent,
                KernelArg::Compacted => wavekit_spatial::KnnKernel::Compacted,
            },
            pool: self.pool,
            radius_chunk: 0,
            diagnostics: false,
            loop_budget: None,
        }
    }
}

/// `wavekit knn`.
#[derive(Args, Debug)]
pub struct KnnArgs {
    /// Points: float32 `[N, 3]`.
    pub points: PathBuf,
    /// Queries: float32 `[Q, 3]`.
    pub queries: PathBuf,
    /// Neighbours a query (1 to 64).
    #[arg(short, allow_negative_numbers = true)]
    pub k: u32,
    /// Indices out: uint32 `[Q, K]`, nearest first, ties by lower index; 0xFFFFFFFF where
    /// fewer than K points are found.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Squared distances out: float32 `[Q, K]` (inf where missing).
    #[arg(long)]
    pub distances: Option<PathBuf>,
    /// Only neighbours within this distance.
    #[arg(long)]
    pub max_radius: Option<f32>,
    #[command(flatten)]
    pub tree: TreeArgs,
}

/// `wavekit radius`.
#[derive(Args, Debug)]
pub struct RadiusArgs {
    /// Points: float32 `[N, 3]`.
    pub points: PathBuf,
    /// Queries: float32 `[Q, 3]`.
    pub queries: PathBuf,
    /// The radius (points at distance ≤ r).
    #[arg(short, allow_negative_numbers = true)]
    pub r: f32,
    /// Offsets out: uint32 `[Q + 1]` (uint64 when there are 2^32 neighbours or more); query q's
    /// neighbours are `indices[O[q]..O[q+1]]`.
    #[arg(long)]
    pub offsets: PathBuf,
    /// Indices out: uint32, ascending a query.
    #[arg(long)]
    pub indices: PathBuf,
    #[command(flatten)]
    pub tree: TreeArgs,
}

/// `wavekit spatial …`.
#[derive(Subcommand, Debug)]
pub enum SpatialCommand {
    /// GPU time of the tree's build, k-NN and radius search on seeded points, on the benchmark
    /// protocol; with --out, the points, queries and results as .npy for the peers.
    Bench(BenchArgs),
}

/// `wavekit spatial bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Point sets: uniform (the unit cube), clustered (Gaussian blobs of very different
    /// densities), mesh:PATH (a .ply or .obj scan's vertices as points and as queries; the
    /// counts below do not apply).
    #[arg(long, value_delimiter = ',', default_value = "uniform,clustered")]
    pub sets: Vec<String>,
    /// Points.
    #[arg(long, default_value_t = 1 << 20)]
    pub points: usize,
    /// Queries (seeded points of the same set).
    #[arg(long, default_value_t = 1 << 20)]
    pub queries: usize,
    /// Neighbours a k-NN query.
    #[arg(short, default_value_t = 16)]
    pub k: u32,
    /// Radius of the radius search.
    #[arg(long, default_value_t = 0.02)]
    pub radius: f32,
    /// Write points, queries and results of each set here (for peer/python/spatial_peers.py).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub tree: TreeArgs,
    #[command(flatten)]
    pub protocol: crate::bench::ProtocolArgs,
    /// JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Points, three f32 each.
type Points = Vec<[f32; 3]>;

fn read_both(points: &Path, queries: &Path) -> Result<(Points, Points), CliError> {
    Ok((npy::read_points(points)?, npy::read_points(queries)?))
}

/// `wavekit knn`.
pub fn knn(ctx: &GpuContext, a: &KnnArgs) -> Result<(), CliError> {
    if !(1..=wavekit_spatial::MAX_K).contains(&a.k) {
        return Err(CliError::Usage(format!(
            "-k {}: give 1 to {} neighbours",
            a.k,
            wavekit_spatial::MAX_K
        )));
    }
    for input in [&a.points, &a.queries] {
        check_output(input, &a.output)?;
        if let Some(d) = &a.distances {
            check_output(input, d)?;
        }
    }
    let mut outs = vec![("the indices (-o)", a.output.as_path())];
    if let Some(d) = &a.distances {
        outs.push(("the distances (--distances)", d.as_path()));
    }
    crate::output::check_outputs(&outs)?;
    let (points, queries) = read_both(&a.points, &a.queries)?;
    let spatial = Spatial::new(ctx, &a.tree.config())?;
    let tree = spatial.build(ctx, &points)?;
    let (idx, d2) = spatial.knn(ctx, &tree, &queries, a.k, a.max_radius)?;
    let k = a.k as usize;
    write_atomic(&a.output, |t| npy::write_2d(t, &idx, queries.len(), k))?;
    if let Some(d) = &a.distances {
        write_atomic(d, |t| npy::write_2d(t, &d2, queries.len(), k))?;
    }
    let missing = idx.iter().filter(|&&i| i == u32::MAX).count();
    println!(
        "{}: {} queries x {k} neighbours among {} points{}",
        a.output.display(),
        queries.len(),
        points.len(),
        if missing > 0 {
            format!(" ({missing} slots empty: fewer points in range)")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// `wavekit radius`.
pub fn radius(ctx: &GpuContext, a: &RadiusArgs) -> Result<(), CliError> {
    if !(a.r.is_finite() && a.r >= 0.0) {
        return Err(CliError::Usage(format!(
            "-r {}: give a non-negative finite radius",
            a.r
        )));
    }
    for input in [&a.points, &a.queries] {
        check_output(input, &a.offsets)?;
        check_output(input, &a.indices)?;
    }
    crate::output::check_outputs(&[
        ("the offsets (--offsets)", a.offsets.as_path()),
        ("the indices (--indices)", a.indices.as_path()),
    ])?;
    let (points, queries) = read_both(&a.points, &a.queries)?;
    let spatial = Spatial::new(ctx, &a.tree.config())?;
    let tree = spatial.build(ctx, &points)?;
    // In pieces of consecutive queries, so that a result past one call's (2^32 neighbours, or
    // a buffer) still comes back whole; offsets past u32 are written as uint64.
    let (offsets, indices) = spatial.radius_whole(ctx, &tree, &queries, a.r)?;
    let offsets = match u32::try_from(indices.len()) {
        Ok(_) => npy::Array::U32(offsets.into_iter().map(|o| o as u32).collect()),
        Err(_) => npy::Array::U64(offsets),
    };
    write_atomic(&a.offsets, |t| npy::write(t, &offsets))?;
    let total = indices.len();
    write_atomic(&a.indices, |t| npy::write(t, &npy::Array::U32(indices)))?;
    println!(
        "{}: {total} neighbours within {} of {} queries ({:.2} a query) among {} points",
        a.indices.display(),
        a.r,
        queries.len(),
        total as f64 / queries.len().max(1) as f64,
        points.len()
    );
    Ok(())
}

/// `wavekit spatial bench`.
pub fn bench(ctx: &GpuContext, a: &BenchArgs) -> Result<(), CliError> {
    let protocol = a.protocol.protocol()?;
    let clock = crate::bench::clock_reader(ctx);
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| CliError::File {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
    }
    if !a.json {
        println!(
            "{:<10} {:>6} {:>9} {:>9} {:>3} {:>6} {:>4} {:>10} {:>10} {:>11} {:>11} {:>7} {:>6} {:>6}",
            "set",
            "tree",
            "points",
            "queries",
            "k",
            "r",
            "leaf",
            "build µs",
            "knn µs",
            "r count µs",
            "r write µs",
            "r nbrs",
            "spread",
            "clock"
        );
    }
    for set in &a.sets {
        let points = wavekit_bench::spatial::points(set, a.points, 1)?;
        let queries = wavekit_bench::spatial::points(set, a.queries, 2)?;
        let label = wavekit_bench::spatial::label(set);
        let (row, res) = wavekit_bench::spatial::run(
            ctx,
            &a.tree.config(),
            (&label, &points, &queries),
            a.k,
            a.radius,
            &protocol,
            &*clock,
            &mut |m| eprintln!("{m}"),
        )?;
        if let Some(dir) = &a.out {
            let flat = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
            let k = a.k as usize;
            let f = |name: &str| dir.join(format!("{label}-{name}.npy"));
            npy::write_2d(&f("points"), &flat(&points), points.len(), 3)?;
            npy::write_2d(&f("queries"), &flat(&queries), queries.len(), 3)?;
            npy::write_2d(&f("knn"), &res.knn, queries.len(), k)?;
            npy::write_2d(&f("knn-d2"), &res.knn_d2, queries.len(), k)?;
            npy::write(&f("offsets"), &npy::Array::U32(res.offsets))?;
            npy::write(&f("indices"), &npy::Array::U32(res.indices))?;
        }
        if a.json {
            println!("{}", serde_json::to_string(&row).expect("rows serialize"));
        } else {
            println!(
                "{:<10} {:>6} {:>9} {:>9} {:>3} {:>6} {:>4} {:>10} {:>10.1} {:>10.1} {:>5.2} {:>11.1} {:>11.1} {:>7.1} {:>6.3} {:>6}",
                row.set,
                row.tree,
                row.points,
                row.queries,
                row.k,
                row.radius,
                row.leaf,
                row.kernel,
                row.build_us,
                row.knn_us,
                row.utilisation,
                row.radius_count_us,
                row.radius_write_us,
                row.mean_neighbours,
                row.spread,
                row.clock
            );
        }
    }
    Ok(())
}

/// `wavekit demo`'s point queries: 20 000 clustered points and 2 000 queries (half far from
/// every blob), k-NN (k = 16) on each tree with the compacted kernel and radius search on the
/// kd-tree, each checked against brute force, with the time each took (tree build and queries,
/// read-back included). Names and verdicts.
pub fn demo(ctx: &GpuContext) -> Result<Vec<(String, bool)>, CliError> {
    use wavekit_spatial::reference::{knn_brute, radius_brute};
    let points = wavekit_bench::spatial::points("clustered", 20_000, 52)?;
    let mut queries = wavekit_bench::spatial::points("clustered", 1_000, 53)?;
    queries.extend(wavekit_bench::spatial::points("uniform", 1_000, 54)?);
    let (k, r) = (16u32, 0.005f32);
    let (want_i, want_d) = knn_brute(&points, &queries, k as usize, f32::INFINITY);
    let (want_o, want_r) = radius_brute(&points, &queries, r * r);
    let mut checks = Vec::new();
    for tree in [
        wavekit_spatial::TreeKind::Bvh,
        wavekit_spatial::TreeKind::Kd,
        wavekit_spatial::TreeKind::Octree,
    ] {
        let spatial = Spatial::new(
            ctx,
            &SpatialConfig {
                tree,
                kernel: wavekit_spatial::KnnKernel::Compacted,
                ..Default::default()
            },
        )?;
        let t0 = std::time::Instant::now();
        let built = spatial.build(ctx, &points)?;
        let (gi, gd) = spatial.knn(ctx, &built, &queries, k, None)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        // Equal to brute force: the same squared distances slot by slot, within the fused
        // multiply-add's rounding (1e-5 relative), and the same indices but where two points
        // tie at a distance.
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(b.abs()) + 1e-30;
        let ok = gd.len() == want_d.len()
            && gd.iter().zip(&want_d).all(|(a, b)| close(*a, *b))
            && gi.iter().zip(&want_i).enumerate().all(|(s, (a, b))| {
                let q = queries[s / k as usize];
                a == b
                    || (*a as usize) < points.len()
                        && close(
                            wavekit_spatial::reference::dist(q, points[*a as usize]),
                            want_d[s],
                        )
            });
        checks.push((
            format!(
                "k-NN, {} queries among {} clustered points, k = {k}, the {}, compacted kernel: \
                 {ms:.1} ms (build, queries, read-back), equal to brute force",
                queries.len(),
                points.len(),
                match tree {
                    wavekit_spatial::TreeKind::Bvh => "BVH",
                    wavekit_spatial::TreeKind::Kd => "kd-tree",
                    _ => "octree",
                }
            ),
            ok,
        ));
        if tree == wavekit_spatial::TreeKind::Kd {
            let t0 = std::time::Instant::now();
            let (o, idx) = spatial.radius(ctx, &built, &queries, r)?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            checks.push((
                format!(
                    "radius search, r = {r}, kd-tree: {} neighbours in {ms:.1} ms, equal to \
                     brute force",
                    idx.len()
                ),
                o == want_o && idx == want_r,
            ));
        }
    }
    Ok(checks)
}
