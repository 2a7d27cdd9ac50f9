//! k-NN past the kernels' [`MAX_K`] (SciPy's `query` takes any k): the slower path behind
//! [`Spatial::knn_any`]. The kernel finds each query's first `MAX_K` neighbours; the distance of
//! the last one, scaled by (k / `MAX_K`)^(1/3) as a uniform density would, guesses the radius
//! that holds k; queries are grouped by that radius (rounded up to a power of 2^(1/4)) and each
//! group takes one radius search ([`Spatial::radius_pieces`]). A query with k or more points
//! within its radius keeps the k nearest of them (its distances taken on the host as the
//! kernels take them, [`crate::reference::dist_in`]); the others try again at 1.5 times the
//! radius, until every point, or `max_dist`, is within it.

use std::collections::BTreeMap;

use wavekit::GpuContext;

use crate::reference::{NO_POINT, dist_in};
use crate::tree::PointTree;
use crate::{MAX_K, Result, Spatial};

/// Radii past this are taken as the last round (their squares stay finite in f32).
const CEILING: f32 = 1.0e18;

pub(crate) fn knn_many(
    spatial: &Spatial,
    ctx: &GpuContext,
    tree: &PointTree,
    queries: &[[f32; 3]],
    k: u32,
    max_dist: Option<f32>,
) -> Result<(Vec<u32>, Vec<f32>)> {
    let (fi, fd) = spatial.knn(ctx, tree, queries, MAX_K, max_dist)?;
    let cap = max_dist.unwrap_or(f32::INFINITY).min(CEILING);
    let (k, m, nq) = (k as usize, MAX_K as usize, queries.len());
    let mut idx = vec![NO_POINT; nq * k];
    let mut d2 = vec![f32::INFINITY; nq * k];
    let wrapped = tree.wrap_queries(queries);
    let mut pending = Vec::new();
    for q in 0..nq {
        let last = fd[q * m + m - 1];
        if last == f32::INFINITY {
            // Fewer than MAX_K within reach: the kernel found them all.
            idx[q * k..q * k + m].copy_from_slice(&fi[q * m..(q + 1) * m]);
            d2[q * k..q * k + m].copy_from_slice(&fd[q * m..(q + 1) * m]);
            continue;
        }
        let guess = last.sqrt() * (k as f32 / m as f32).cbrt() * 1.1;
        pending.push((q, guess.min(cap)));
    }
    if pending.is_empty() {
        return Ok((idx, d2));
    }
    // The points by index, as the walks read them.
    let mut points = vec![[0.0f32; 3]; tree.points as usize];
    for (p, i) in tree.read_points(ctx)? {
        points[i as usize] = p;
    }
    let n = points.len();
    while !pending.is_empty() {
        let mut groups: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
        for (q, r) in pending.drain(..) {
            let step = if r > 0.0 {
                (r.log2() * 4.0).ceil() as i32
            } else {
                i32::MIN
            };
            groups.entry(step).or_default().push(q);
        }
        let mut retry = Vec::new();
        for (step, qs) in groups {
            let r = if step == i32::MIN {
                0.0
            } else {
                (step as f32 / 4.0).exp2()
            }
            .min(cap);
            let last_round = r >= cap;
            let sub: Vec<[f32; 3]> = qs.iter().map(|&q| wrapped[q]).collect();
            spatial.radius_pieces(ctx, tree, &sub, r, u64::MAX, |first, off, ind| {
                for (j, w) in off.windows(2).enumerate() {
                    let q = qs[first + j];
                    let found = &ind[w[0] as usize..w[1] as usize];
                    if found.len() < k && found.len() < n && !last_round {
                        retry.push((q, (r * 1.5).max(f32::MIN_POSITIVE).min(cap)));
                        continue;
                    }
                    let mut near: Vec<(f32, u32)> = found
                        .iter()
                        .map(|&i| (dist_in(wrapped[q], points[i as usize], tree.boxsize), i))
                        .collect();
                    let take = k.min(near.len());
                    let order =
                        |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                    if take > 0 && take < near.len() {
                        near.select_nth_unstable_by(take - 1, order);
                    }
                    near[..take].sort_by(order);
                    for (s, (d, i)) in near[..take].iter().enumerate() {
                        idx[q * k + s] = *i;
                        d2[q * k + s] = *d;
                    }
                }
                Ok(())
            })?;
        }
        pending = retry;
    }
    Ok((idx, d2))
}
