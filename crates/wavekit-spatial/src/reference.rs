//! The CPU reference: brute force (every point against every query), and the tree the GPU
//! builds with the walk its kernels take, in plain Rust. Distances are squared, in f32, as
//! `dx·dx + dy·dy + dz·dz`; k-NN results are sorted by (distance, index), so equal distances go
//! to the lower index; radius results are in ascending index; "within r" is `d² ≤ r²`.

pub mod kd;
pub mod octree;

use wavekit::sim::device::grid_floor;

/// Index of a missing neighbour (fewer than k points, or none within the radius).
pub const NO_POINT: u32 = u32::MAX;

/// Squared distance, as the kernels compute it (up to the rounding of a fused multiply-add).
pub fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// Squared distance in a periodic box (SciPy's `boxsize`): `boxsize` is each axis's length,
/// 0 for an open axis; across a periodic axis the nearer image counts, min(|d|, L − |d|) (both
/// points in [0, L)). As the kernels compute it (query/common.wgsl's `dist`); with no periodic
/// axis, [`dist`].
pub fn dist_in(a: [f32; 3], b: [f32; 3], boxsize: [f32; 3]) -> f32 {
    let mut d = [
        (a[0] - b[0]).abs(),
        (a[1] - b[1]).abs(),
        (a[2] - b[2]).abs(),
    ];
    for (d, l) in d.iter_mut().zip(boxsize) {
        if l > 0.0 {
            *d = d.min(l - *d);
        }
    }
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// `p` wrapped into the periodic box: each periodic axis's coordinate taken modulo its length
/// into [0, L) (0 where rounding would give L), open axes unchanged. What the slice calls do to
/// queries in a periodic tree.
pub fn wrap(p: [f32; 3], boxsize: [f32; 3]) -> [f32; 3] {
    let mut out = p;
    for (c, l) in out.iter_mut().zip(boxsize) {
        if l > 0.0 {
            let w = *c - l * (*c / l).floor();
            *c = if (0.0..l).contains(&w) { w } else { 0.0 };
        }
    }
    out
}

/// The k nearest points of each query (brute force): `k` indices and squared distances a
/// query, sorted by (distance, index), [`NO_POINT`] and infinity past the last found; with
/// `max_d2`, only points at squared distance ≤ it.
pub fn knn_brute(
    points: &[[f32; 3]],
    queries: &[[f32; 3]],
    k: usize,
    max_d2: f32,
) -> (Vec<u32>, Vec<f32>) {
    knn_brute_in(points, queries, k, max_d2, [0.0; 3])
}

/// [`knn_brute`] in a periodic box ([`dist_in`]; queries are wrapped first, [`wrap`]).
pub fn knn_brute_in(
    points: &[[f32; 3]],
    queries: &[[f32; 3]],
    k: usize,
    max_d2: f32,
    boxsize: [f32; 3],
) -> (Vec<u32>, Vec<f32>) {
    let mut idx = Vec::with_capacity(queries.len() * k);
    let mut dst = Vec::with_capacity(queries.len() * k);
    let mut all: Vec<(f32, u32)> = Vec::with_capacity(points.len());
    for q in queries {
        let q = wrap(*q, boxsize);
        all.clear();
        all.extend(
            points
                .iter()
                .enumerate()
                .map(|(i, p)| (dist_in(q, *p, boxsize), i as u32))
                .filter(|(d, _)| *d <= max_d2),
        );
        let take = k.min(all.len());
        if take > 0 && take < all.len() {
            all.select_nth_unstable_by(take - 1, |a, b| a.partial_cmp(b).expect("no NaN"));
        }
        all[..take].sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
        for j in 0..k {
            let (d, i) = all
                .get(j)
                .filter(|_| j < take)
                .copied()
                .unwrap_or((f32::INFINITY, NO_POINT));
            idx.push(i);
            dst.push(d);
        }
    }
    (idx, dst)
}

/// Every point within `r2` (squared) of each query, as CSR: offsets (`queries + 1`) and
/// indices in ascending order per query.
pub fn radius_brute(points: &[[f32; 3]], queries: &[[f32; 3]], r2: f32) -> (Vec<u32>, Vec<u32>) {
    radius_brute_in(points, queries, r2, [0.0; 3])
}

/// [`radius_brute`] in a periodic box ([`dist_in`]; queries are wrapped first, [`wrap`]).
pub fn radius_brute_in(
    points: &[[f32; 3]],
    queries: &[[f32; 3]],
    r2: f32,
    boxsize: [f32; 3],
) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = Vec::with_capacity(queries.len() + 1);
    let mut indices = Vec::new();
    offsets.push(0u32);
    for q in queries {
        let q = wrap(*q, boxsize);
        indices.extend(
            points
                .iter()
                .enumerate()
                .filter(|(_, p)| dist_in(q, **p, boxsize) <= r2)
                .map(|(i, _)| i as u32),
        );
        offsets.push(indices.len() as u32);
    }
    (offsets, indices)
}

/// The tree the GPU builds (tree.rs), built the same way on the CPU: points ordered by a
/// 30-bit Morton code within their bounds (stable: equal codes keep index order), leaves of
/// `leaf` consecutive points, an implicit complete binary tree over the leaves (padded to a
/// power of two with empty leaves), each node's box the union of its children's.
#[derive(Clone, Debug)]
pub struct Tree {
    /// The points in leaf order, with their indices.
    pub sorted: Vec<Indexed>,
    /// Leaves, a power of two.
    pub leaves: usize,
    /// Points a leaf.
    pub leaf: usize,
    /// Node k's box (low, high); index 0 unused.
    pub boxes: Vec<Aabb>,
    /// The points' bounds.
    pub bounds: ([f32; 3], [f32; 3]),
    /// The points' Morton codes in leaf order.
    pub codes: Vec<u32>,
}

fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    x = (x | (x << 2)) & 0x0924_9249;
    x
}

/// The 30-bit Morton code of `p` within `(lo, hi)`, clamped (the kernels' `morton`).
pub fn morton(p: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> u32 {
    let q = [0, 1, 2].map(|a| grid_floor(p[a] - lo[a], (hi[a] - lo[a]).max(1e-30), 10));
    (spread(q[0]) << 2) | (spread(q[1]) << 1) | spread(q[2])
}

/// A point's cell on the 63-bit codes' finest grid (21 bits an axis; the kernels'
/// `grid_cell`).
pub fn grid_cell(p: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|a| grid_floor(p[a] - lo[a], (hi[a] - lo[a]).max(1e-30), 21))
}

/// The 63-bit Morton code of `p` within `(lo, hi)`, clamped (the kernels' `morton63`): bit i
/// of x's cell at code bit 3i + 2, of y's at 3i + 1, of z's at 3i.
pub fn morton63(p: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> u64 {
    let q = grid_cell(p, lo, hi);
    let mut c = 0u64;
    for i in 0..21 {
        c |= u64::from(q[0] >> i & 1) << (3 * i + 2)
            | u64::from(q[1] >> i & 1) << (3 * i + 1)
            | u64::from(q[2] >> i & 1) << (3 * i);
    }
    c
}

/// Octal digits (from the top) two 63-bit codes share, 0 to 21 (the kernels'
/// `common_digits`).
pub fn common_digits(a: u64, b: u64) -> u32 {
    if a == b {
        21
    } else {
        ((a ^ b).leading_zeros() - 1) / 3
    }
}

/// Digit `d` of a 63-bit code (0 the top): the octant, x in bit 2.
pub fn digit(c: u64, d: u32) -> u32 {
    (c >> (60 - 3 * d) & 7) as u32
}

/// The margin by which a cell of the 63-bit grid is widened on each side, per axis, so that
/// it holds every point whose code lies in it whatever the rounding (the kernels' own).
pub fn cell_margin(lo: [f32; 3], hi: [f32; 3]) -> [f32; 3] {
    [0, 1, 2]
        .map(|a| (lo[a].abs() + hi[a].abs() + (hi[a] - lo[a]).max(1e-30)) * (1.0 / 1_048_576.0))
}

/// The points' bounds (low, high corners).
pub fn bounds(points: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (lo, hi)
}

/// The points in the order of their 63-bit codes (stable), with their indices and codes.
pub fn sort63(points: &[[f32; 3]]) -> (Vec<Indexed>, Vec<u64>, Aabb) {
    let (lo, hi) = bounds(points);
    let mut order: Vec<(u64, u32)> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (morton63(*p, lo, hi), i as u32))
        .collect();
    order.sort();
    (
        order
            .iter()
            .map(|&(_, i)| (points[i as usize], i))
            .collect(),
        order.iter().map(|&(c, _)| c).collect(),
        (lo, hi),
    )
}

/// A best-k list of (squared distance, index), kept sorted, ties to the lower index: what
/// the kernels' `insert` keeps.
pub(crate) fn offer(best: &mut Vec<(f32, u32)>, k: usize, max_d2: f32, c: (f32, u32)) {
    if c.0 > max_d2 || (best.len() == k && c >= best[k - 1]) {
        return;
    }
    let at = best.partition_point(|b| *b < c);
    best.insert(at, c);
    best.truncate(k);
}

/// A tree's walk as its kernel takes it, and the two queries on it (the kd-tree's and the
/// octree's twins).
pub trait Walk {
    /// Walk from the root for query `q`: `bound()` is the squared distance past which a node
    /// is skipped (read afresh at each), `visit` gets each leaf's points.
    fn walk(&self, q: [f32; 3], bound: &mut dyn FnMut() -> f32, visit: &mut dyn FnMut(&[Indexed]));

    /// The k nearest points of `q` (squared distance ≤ `max_d2`) by the kernels' walk.
    fn knn(&self, q: [f32; 3], k: usize, max_d2: f32) -> Vec<(f32, u32)> {
        if k == 0 {
            return Vec::new();
        }
        let best = std::cell::RefCell::new(Vec::with_capacity(k + 1));
        self.walk(
            q,
            &mut || knn_bound(&best.borrow(), k, max_d2),
            &mut |pts| {
                let mut b = best.borrow_mut();
                for &(p, i) in pts {
                    offer(&mut b, k, max_d2, (dist(q, p), i));
                }
            },
        );
        best.into_inner()
    }

    /// The indices within `r2` of `q` by the kernels' walk, ascending.
    fn radius(&self, q: [f32; 3], r2: f32) -> Vec<u32> {
        let mut out = Vec::new();
        self.walk(q, &mut || r2, &mut |pts| {
            out.extend(pts.iter().filter(|(p, _)| dist(q, *p) <= r2).map(|e| e.1))
        });
        out.sort_unstable();
        out
    }
}

/// The bound past which a k-NN walk skips a node.
pub(crate) fn knn_bound(best: &[(f32, u32)], k: usize, max_d2: f32) -> f32 {
    if best.len() == k {
        max_d2.min(best[k - 1].0)
    } else {
        max_d2
    }
}

/// Leaves for `n` points of `leaf` a leaf: a power of two, at least one.
pub fn leaf_count(n: usize, leaf: usize) -> usize {
    n.div_ceil(leaf).max(1).next_power_of_two()
}

/// A box: low and high corners.
pub type Aabb = ([f32; 3], [f32; 3]);

/// A point and its index.
pub type Indexed = ([f32; 3], u32);

/// Squared distance from `p` to box `b` (infinite for an empty box).
fn d_box(p: [f32; 3], b: &Aabb) -> f32 {
    let d = [0, 1, 2].map(|a| (b.0[a] - p[a]).max(p[a] - b.1[a]).max(0.0));
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// The union of two boxes.
fn union(x: &Aabb, y: &Aabb) -> Aabb {
    (
        [0, 1, 2].map(|a| x.0[a].min(y.0[a])),
        [0, 1, 2].map(|a| x.1[a].max(y.1[a])),
    )
}

impl Tree {
    /// Build over `points` with `leaf` points a leaf.
    pub fn build(points: &[[f32; 3]], leaf: usize) -> Tree {
        let (lo, hi) = bounds(points);
        let mut order: Vec<(u32, u32)> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (morton(*p, lo, hi), i as u32))
            .collect();
        order.sort();
        let sorted: Vec<([f32; 3], u32)> = order
            .iter()
            .map(|&(_, i)| (points[i as usize], i))
            .collect();
        let leaves = leaf_count(points.len(), leaf);
        let empty = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut boxes = vec![empty; 2 * leaves];
        for l in 0..leaves {
            let mut b = empty;
            for (p, _) in sorted.iter().skip(l * leaf).take(leaf) {
                b = union(&b, &(*p, *p));
            }
            boxes[leaves + l] = b;
        }
        for k in (1..leaves).rev() {
            boxes[k] = union(&boxes[2 * k], &boxes[2 * k + 1]);
        }
        Tree {
            sorted,
            leaves,
            leaf,
            boxes,
            bounds: (lo, hi),
            codes: order.iter().map(|&(c, _)| c).collect(),
        }
    }

    /// The leaf-order points of node `k` when it is a leaf.
    fn leaf_points(&self, k: usize) -> &[([f32; 3], u32)] {
        let first = ((k - self.leaves) * self.leaf).min(self.sorted.len());
        let end = (first + self.leaf).min(self.sorted.len());
        &self.sorted[first..end]
    }

    /// k-NN by the kernels' walk (knn.wgsl): the same answers as [`knn_brute`].
    pub fn knn(&self, q: [f32; 3], k: usize, max_d2: f32) -> Vec<(f32, u32)> {
        let mut best: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
        if self.sorted.is_empty() || k == 0 {
            return best;
        }
        // A first list from the k points before and the k after the query's place in Morton
        // order; the walk skips them.
        let at = self
            .codes
            .partition_point(|&c| c < morton(q, self.bounds.0, self.bounds.1));
        let window = at.saturating_sub(k)..(at + k).min(self.sorted.len());
        let offer = |best: &mut Vec<(f32, u32)>, p: [f32; 3], i: u32| {
            offer(best, k, max_d2, (dist(q, p), i))
        };
        for &(p, i) in &self.sorted[window.clone()] {
            offer(&mut best, p, i);
        }
        let mut stack = vec![(1usize, d_box(q, &self.boxes[1]))];
        while let Some((node, d)) = stack.pop() {
            if d > knn_bound(&best, k, max_d2) {
                continue;
            }
            if node >= self.leaves {
                let first = (node - self.leaves) * self.leaf;
                for (j, &(p, i)) in self.leaf_points(node).iter().enumerate() {
                    if !window.contains(&(first + j)) {
                        offer(&mut best, p, i);
                    }
                }
                continue;
            }
            let (a, b) = (2 * node, 2 * node + 1);
            let (da, db) = (d_box(q, &self.boxes[a]), d_box(q, &self.boxes[b]));
            if da <= db {
                stack.push((b, db));
                stack.push((a, da));
            } else {
                stack.push((a, da));
                stack.push((b, db));
            }
        }
        best
    }

    /// The indices within `r2` of `q` by the kernels' walk (radius.wgsl), ascending.
    pub fn radius(&self, q: [f32; 3], r2: f32) -> Vec<u32> {
        let mut out = Vec::new();
        if self.sorted.is_empty() {
            return out;
        }
        let mut stack = vec![1usize];
        while let Some(node) = stack.pop() {
            if d_box(q, &self.boxes[node]) > r2 {
                continue;
            }
            if node >= self.leaves {
                out.extend(
                    self.leaf_points(node)
                        .iter()
                        .filter(|(p, _)| dist(q, *p) <= r2)
                        .map(|&(_, i)| i),
                );
                continue;
            }
            stack.push(2 * node + 1);
            stack.push(2 * node);
        }
        out.sort_unstable();
        out
    }
}
