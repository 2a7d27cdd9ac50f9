//! Point queries on the GPU (`wavekit-spatial`): 20 000 seeded points, a kd-tree built on the
//! GPU, the 8 nearest neighbours of 1 000 queries and every point within a radius, equal to
//! brute force.

use wavekit::GpuContext;
use wavekit_spatial::reference::{knn_brute, radius_brute};
use wavekit_spatial::{Spatial, SpatialConfig, TreeKind};

use crate::{Result, check};

/// Run it; returns a line saying what was checked.
pub fn run(ctx: &GpuContext, seed: u64) -> Result<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut point = || [rng.f32(), rng.f32(), rng.f32()];
    let points: Vec<[f32; 3]> = (0..20_000).map(|_| point()).collect();
    let queries: Vec<[f32; 3]> = (0..1_000).map(|_| point()).collect();
    let spatial = Spatial::new(
        ctx,
        &SpatialConfig {
            tree: TreeKind::Kd,
            ..Default::default()
        },
    )?;
    let tree = spatial.build(ctx, &points)?;
    let (k, r) = (8u32, 0.05f32);
    let (idx, d2) = spatial.knn(ctx, &tree, &queries, k, None)?;
    let (want, want_d2) = knn_brute(&points, &queries, k as usize, f32::INFINITY);
    // Random points in f32: no two at one distance from a query, so the indices match.
    let close = d2
        .iter()
        .zip(&want_d2)
        .all(|(a, b)| (a - b).abs() <= 1e-5 * b.abs() + 1e-30);
    check(idx == want && close, "spatial", || {
        "k-NN differs from brute force".into()
    })?;
    let (offsets, found) = spatial.radius(ctx, &tree, &queries, r)?;
    let (want_o, want_found) = radius_brute(&points, &queries, r * r);
    check(offsets == want_o && found == want_found, "spatial", || {
        "radius search differs from brute force".into()
    })?;
    Ok(format!(
        "kd-tree of {} points: {k} nearest of {} queries and {} neighbours within {r}, equal \
         to brute force",
        points.len(),
        queries.len(),
        found.len()
    ))
}
