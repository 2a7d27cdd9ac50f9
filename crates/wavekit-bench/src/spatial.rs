//! `wavekit spatial bench`: the point queries' GPU time on the benchmark protocol — the tree's
//! build, k-NN (the queries' Morton sort included), radius search's count and scan, and its
//! write (keys, their sort, the indices) — on seeded point sets, with the results the peers
//! are checked against (`peer/python/spatial_peers.py`).

use serde::Serialize;

use wavekit::GpuContext;
use wavekit_spatial::{Spatial, SpatialConfig};

use crate::protocol::{Case, ClockReader, Protocol, clock_text, measure};
use crate::{Error, Result};

/// A seeded point set: `uniform` in the unit cube, or `clustered` (Gaussian blobs of very
/// different sizes and populations in a cube of side 1, and 1 % outliers); or real scan data,
/// `mesh:PATH` (a `.ply` or `.obj` file): its vertices, all of them whatever `n`, as points
/// and as queries alike (each vertex's neighbours among the others, as normal estimation
/// asks).
pub fn points(set: &str, n: usize, seed: u64) -> Result<Vec<[f32; 3]>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    if let Some(path) = set.strip_prefix("mesh:") {
        let mesh = wavekit_trace::mesh::Mesh::load(path)
            .map_err(|e| Error::InvalidArgument(format!("point set {set}: {e}")))?;
        return Ok(mesh.positions);
    }
    match set {
        "uniform" => Ok((0..n).map(|_| [rng.f32(), rng.f32(), rng.f32()]).collect()),
        "clustered" => {
            let mut gauss = || {
                let (u, v) = (rng.f32().max(1e-7), rng.f32());
                (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
            };
            // The blobs are the same for every seed (points and queries share them).
            let mut brng = fastrand::Rng::with_seed(0x5eed);
            let blobs: Vec<([f32; 3], f32)> = (0..16)
                .map(|b| {
                    (
                        [brng.f32(), brng.f32(), brng.f32()],
                        0.002 * 4f32.powi(b % 4),
                    )
                })
                .collect();
            let mut prng = fastrand::Rng::with_seed(seed ^ 0xb10b);
            Ok((0..n)
                .map(|i| {
                    if i % 100 == 0 {
                        return [prng.f32(), prng.f32(), prng.f32()];
                    }
                    let b = ((prng.f32().powi(2)) * blobs.len() as f32) as usize;
                    let (c, s) = blobs[b.min(blobs.len() - 1)];
                    [c[0] + s * gauss(), c[1] + s * gauss(), c[2] + s * gauss()]
                })
                .collect())
        }
        other => Err(Error::InvalidArgument(format!(
            "point set '{other}': give uniform, clustered or mesh:PATH (a .ply or .obj file)"
        ))),
    }
}

/// A set's name in tables and file names: the file's stem for `mesh:PATH`.
pub fn label(set: &str) -> String {
    match set.strip_prefix("mesh:") {
        Some(path) => std::path::Path::new(path)
            .file_stem()
            .map_or("mesh".into(), |s| s.to_string_lossy().into_owned()),
        None => set.to_string(),
    }
}

/// One measurement: the sizes, the GPU times (median µs), and the radius search's mean
/// neighbour count.
#[derive(Clone, Debug, Serialize)]
pub struct SpatialRow {
    /// The point set.
    pub set: String,
    /// Points.
    pub points: usize,
    /// Queries.
    pub queries: usize,
    /// Neighbours a k-NN query.
    pub k: u32,
    /// The radius.
    pub radius: f32,
    /// The tree (bvh, kd, octree).
    pub tree: String,
    /// Points a leaf.
    pub leaf: u32,
    /// Queries walked in Morton order.
    pub sort_queries: bool,
    /// The k-NN kernel.
    pub kernel: String,
    /// Share of the k-NN kernel's lane-steps at work (a separate run with diagnostics).
    pub utilisation: f64,
    /// The k-NN walk's steps a query, mean (the same run; its counter wraps past 2^32).
    pub steps_per_query: f64,
    /// The build, µs (median).
    pub build_us: f64,
    /// k-NN, µs (median).
    pub knn_us: f64,
    /// Radius search: counts and their scan, µs.
    pub radius_count_us: f64,
    /// Radius search: keys, their sort, the indices, µs.
    pub radius_write_us: f64,
    /// Neighbours within the radius, mean a query.
    pub mean_neighbours: f64,
    /// Spread across rounds, worst of the four.
    pub spread: f64,
    /// SM clock during the runs (lowest), and whether it was low.
    pub clock: String,
}

/// What the measured run computed (for the peers' equality checks).
pub struct SpatialResults {
    /// k indices a query.
    pub knn: Vec<u32>,
    /// k squared distances a query.
    pub knn_d2: Vec<f32>,
    /// Radius search offsets (queries + 1).
    pub offsets: Vec<u32>,
    /// Radius search indices.
    pub indices: Vec<u32>,
}

/// Measure the build and the queries on the protocol.
#[allow(clippy::too_many_arguments)]
pub fn run(
    ctx: &GpuContext,
    config: &SpatialConfig,
    (set, points, queries): (&str, &[[f32; 3]], &[[f32; 3]]),
    k: u32,
    radius: f32,
    protocol: &Protocol,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<(SpatialRow, SpatialResults)> {
    let spatial = Spatial::new(ctx, config)?;
    let pb = wavekit_spatial::upload_points(ctx, points, "point")?;
    let qb = wavekit_spatial::upload_points(ctx, queries, "query")?;
    let (n, nq) = (points.len() as u32, queries.len() as u32);
    progress(format!("building the tree of {n} points"));
    let build = spatial.bind_build(ctx, &pb, n)?;
    ctx.submit(|e| build.record(e));
    let tree = build.tree();
    let knn = spatial.bind_knn(ctx, tree, &qb, nq, k, None)?;
    let rad = spatial.bind_radius(ctx, tree, &qb, nq, radius)?;
    ctx.submit(|e| {
        knn.record(e);
        rad.record_count(e);
    });
    knn.check(ctx)?;
    rad.check(ctx)?;
    // The counts summed in 64 bits: one timed write pass takes at most 2^32 - 1 neighbours
    // (32-bit offsets) in one buffer; a larger result is refused here, before the write, with
    // its size (the Rust API's radius_pieces, the CLI and Python take any size, in pieces).
    let counts: Vec<u32> = ctx.read_back("counts", &rad.counts, nq as usize)?;
    let whole: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let most = u64::from(u32::MAX).min(ctx.caps.limits.max_buffer_size / 4);
    if whole > most {
        return Err(crate::Error::InvalidArgument(format!(
            "radius {radius} finds {whole} neighbours ({} bytes of indices): the benchmark's one \
             write pass takes at most {most}; give a smaller --radius",
            whole * 4
        )));
    }
    let offsets: Vec<u32> = ctx.read_back("offsets", &rad.offsets, nq as usize + 1)?;
    let total = offsets[nq as usize];
    let out = ctx.storage_uninit("radius indices", u64::from(total.max(1)) * 4)?;
    let write = rad.bind_write(ctx, &spatial, &out, &offsets)?;
    ctx.submit(|e| rad.record_write(e, &write));
    rad.check_write(ctx)?;
    let results = SpatialResults {
        knn: ctx.read_back("knn", &knn.indices, (nq * k) as usize)?,
        knn_d2: ctx.read_back("knn d2", &knn.distances, (nq * k) as usize)?,
        offsets: offsets.clone(),
        indices: ctx.read_back("indices", &out, total as usize)?,
    };
    let mut cases = vec![
        Case::new("build", |e| build.record(e)),
        Case::new("knn", |e| knn.record(e)),
        Case::new("radius count", |e| rad.record_count(e)),
        Case::new("radius write", |e| rad.record_write(e, &write)),
    ];
    let m = measure(ctx, &mut cases, protocol, clock, progress)?;
    let us = |i: usize| m[i].timing.median_ns / 1000.0;
    // The lanes at work, from a run with the diagnostics (not timed: they cost atomics).
    let diag = Spatial::new(
        ctx,
        &SpatialConfig {
            diagnostics: true,
            ..*config
        },
    )?;
    let counted = diag.bind_knn(ctx, tree, &qb, nq, k, None)?;
    ctx.submit(|e| counted.record(e));
    counted.check(ctx)?;
    let utilisation = counted.utilisation(ctx)?.unwrap_or(0.0);
    let steps = counted
        .lane_steps(ctx)?
        .map_or(0.0, |(busy, _)| busy as f64);
    let worst = m.iter().map(|x| x.spread).fold(0.0, f64::max);
    let low = m.iter().find(|x| x.clock_low).or(m.first());
    Ok((
        SpatialRow {
            set: set.into(),
            points: points.len(),
            queries: queries.len(),
            k,
            radius,
            tree: config.tree.name().into(),
            leaf: config.leaf,
            sort_queries: config.sort_queries,
            kernel: format!("{:?}", config.kernel).to_lowercase(),
            utilisation,
            steps_per_query: steps / f64::from(nq.max(1)),
            build_us: us(0),
            knn_us: us(1),
            radius_count_us: us(2),
            radius_write_us: us(3),
            mean_neighbours: f64::from(total) / f64::from(nq.max(1)),
            spread: worst,
            clock: low.map_or("-".into(), |x| clock_text(x.clock, x.clock_low)),
        },
        results,
    ))
}
