//! The point queries against brute force: the CPU tree's walk everywhere (no GPU), and the GPU
//! build and kernels (`*_gpu`, at every lavapipe width and without subgroups) on uniform
//! points, Gaussian blobs of very different densities, a lattice (exact ties) and duplicated
//! points, at sizes 0, 1, leaf − 1, leaf, leaf + 1, primes and larger.
//!
//! Distances: the GPU may fuse a multiply-add where the CPU does not, so a neighbour whose
//! distance is within 1e-5 (relative) of another's may be swapped with it, and a point within
//! that of the radius may fall either side; every other result must be equal. Exact
//! duplicates have bit-equal distances on both: there the tie rule (lower index first) is
//! checked exactly.

mod common;

use common::*;
use wavekit_spatial::reference::kd::KdTree;
use wavekit_spatial::reference::octree::{NO_NODE, Octree};
use wavekit_spatial::reference::{
    NO_POINT, Tree, Walk, cell_margin, common_digits, grid_cell, knn_brute, radius_brute,
};
use wavekit_spatial::{KnnKernel, SpatialConfig, TreeKind, kernel_builders};

#[test]
fn the_cpu_trees_walk_gives_brute_forces_answers() {
    for (name, points, queries, _) in sets() {
        // Two leaf sizes on the small sets, the default on the large (debug builds are slow).
        let leaves: &[usize] = if points.len() > 2000 { &[8] } else { &[4, 16] };
        for &leaf in leaves {
            let tree = Tree::build(&points, leaf);
            for (k, max_d2) in [
                (1usize, f32::INFINITY),
                (16, f32::INFINITY),
                (64, 0.01),
                (5, 0.0),
            ] {
                let (wi, wd) = knn_brute(&points, &queries, k, max_d2);
                for (qi, q) in queries.iter().enumerate() {
                    let got = tree.knn(*q, k, max_d2);
                    for j in 0..k {
                        let (d, i) = got.get(j).copied().unwrap_or((f32::INFINITY, NO_POINT));
                        assert_eq!(
                            (i, d),
                            (wi[qi * k + j], wd[qi * k + j]),
                            "{name} leaf {leaf} k {k} q {qi} slot {j}"
                        );
                    }
                }
            }
            for r2 in [0.0f32, 0.003, 1.0] {
                let (off, idx) = radius_brute(&points, &queries, r2);
                for (qi, q) in queries.iter().enumerate() {
                    let want = &idx[off[qi] as usize..off[qi + 1] as usize];
                    assert_eq!(
                        tree.radius(*q, r2),
                        want,
                        "{name} leaf {leaf} r2 {r2} q {qi}"
                    );
                }
            }
        }
    }
}

#[test]
fn brute_force_follows_the_tie_rule() {
    // Four copies of one point and one nearer: the nearer first, then the copies by index.
    let points = [
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
    ];
    let (i, d) = knn_brute(&points, &[[0.0; 3]], 6, f32::INFINITY);
    assert_eq!(i, vec![2, 0, 1, 3, 4, NO_POINT]);
    assert_eq!(d[..5], [0.25, 1.0, 1.0, 1.0, 1.0]);
    assert_eq!(d[5], f32::INFINITY);
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let e = SpatialConfig {
        leaf: 24,
        ..Default::default()
    }
    .check()
    .unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    let e = wavekit_spatial::flatten(&[[0.0, f32::NAN, 1.0]], "point").unwrap_err();
    assert!(e.to_string().contains("point 0"), "{e}");
}

/// A tree's k-NN and radius walks against brute force on every set.
fn walks_match_brute_force<T: Walk>(tree: &str, build: impl Fn(&[[f32; 3]], usize) -> T) {
    for (name, points, queries, _) in sets() {
        let leaf = if points.len() > 2000 { 8 } else { 4 };
        let t = build(&points, leaf);
        for (k, max_d2) in [(1usize, f32::INFINITY), (16, f32::INFINITY), (64, 0.01)] {
            let (wi, wd) = knn_brute(&points, &queries, k, max_d2);
            for (qi, q) in queries.iter().enumerate() {
                let got = t.knn(*q, k, max_d2);
                for j in 0..k {
                    let (d, i) = got.get(j).copied().unwrap_or((f32::INFINITY, NO_POINT));
                    assert_eq!(
                        (i, d),
                        (wi[qi * k + j], wd[qi * k + j]),
                        "{tree} {name} k {k} q {qi} slot {j}"
                    );
                }
            }
        }
        for r2 in [0.0f32, 0.003, 1.0] {
            let (off, idx) = radius_brute(&points, &queries, r2);
            for (qi, q) in queries.iter().enumerate() {
                let want = &idx[off[qi] as usize..off[qi + 1] as usize];
                assert_eq!(t.radius(*q, r2), want, "{tree} {name} r2 {r2} q {qi}");
            }
        }
    }
}

#[test]
fn the_cpu_kd_tree_walk_gives_brute_forces_answers() {
    walks_match_brute_force("kd", KdTree::build);
}

#[test]
fn the_cpu_octree_walk_gives_brute_forces_answers() {
    walks_match_brute_force("octree", Octree::build);
}

/// Every reachable inner node's plane has its left side's points below it and its right
/// side's above (within the cells' rounding margin); every point sits in exactly one leaf.
#[test]
fn kd_tree_planes_separate_their_sides() {
    for (name, points, _, _) in sets() {
        for leaf in [4usize, 8] {
            let t = KdTree::build(&points, leaf);
            let margin = cell_margin(t.bounds.0, t.bounds.1);
            let mut covered = vec![0u32; points.len()];
            let n = points.len();
            let mut stack = vec![];
            if n > 0 {
                if n <= leaf || t.codes[0] == t.codes[n - 1] {
                    covered.iter_mut().for_each(|c| *c += 1);
                } else {
                    stack.push((0usize, 0usize, n - 1));
                }
            }
            while let Some((k, first, last)) = stack.pop() {
                let [split, f, g, l] = t.nodes[k];
                let (split, gamma, axis) = (
                    f32::from_bits(split),
                    (g & 0x1fff_ffff) as usize,
                    (g >> 29) as usize,
                );
                assert_eq!(
                    ((f & 0x7fff_ffff) as usize, (l & 0x7fff_ffff) as usize),
                    (first, last),
                    "{name}: node {k}"
                );
                assert!(first <= gamma && gamma < last, "{name}: node {k}");
                for (j, (p, _)) in t.sorted[first..=last].iter().enumerate() {
                    if first + j <= gamma {
                        assert!(p[axis] <= split + margin[axis], "{name}: node {k} left {j}");
                    } else {
                        assert!(
                            p[axis] >= split - margin[axis],
                            "{name}: node {k} right {j}"
                        );
                    }
                }
                for (leafy, a, b, child) in [
                    (f >> 31 != 0, first, gamma, gamma),
                    (l >> 31 != 0, gamma + 1, last, gamma + 1),
                ] {
                    if leafy {
                        assert!(
                            b + 1 - a <= leaf || t.codes[a] == t.codes[b],
                            "{name}: leaf too big"
                        );
                        covered[a..=b].iter_mut().for_each(|c| *c += 1);
                    } else {
                        assert!(
                            b + 1 - a > leaf,
                            "{name}: inner node {child} of {} points",
                            b + 1 - a
                        );
                        stack.push((child, a, b));
                    }
                }
            }
            assert!(
                covered.iter().all(|&c| c == 1),
                "{name} leaf {leaf}: points not in exactly one leaf"
            );
        }
    }
}

/// Every node's points share its level's digits and lie in its (widened) cell; an inner
/// node's children split its points by the next digit, in octant order; leaves hold at most
/// `leaf` points unless their codes are all equal; every point is in one leaf.
#[test]
fn octree_cells_hold_their_points() {
    for (name, points, _, _) in sets() {
        for leaf in [4usize, 8] {
            let t = Octree::build(&points, leaf);
            let (lo, hi) = t.bounds;
            let mut covered = vec![0u32; points.len()];
            for (k, &[first, count, child, w]) in t.nodes.iter().enumerate() {
                let (first, count, level) = (first as usize, count as usize, w & 0xff);
                let codes = &t.codes[first..first + count];
                assert!(count > 0, "{name}: empty node {k}");
                assert_eq!(
                    common_digits(codes[0], codes[count - 1]),
                    level,
                    "{name}: node {k}"
                );
                let cell = grid_cell(t.sorted[first].0, lo, hi).map(|c| c >> (21 - level));
                for (p, _) in &t.sorted[first..first + count] {
                    assert_eq!(
                        grid_cell(*p, lo, hi).map(|c| c >> (21 - level)),
                        cell,
                        "{name}: node {k}"
                    );
                }
                if child == NO_NODE {
                    assert!(count <= leaf || level == 21, "{name}: leaf {k} of {count}");
                    covered[first..first + count]
                        .iter_mut()
                        .for_each(|c| *c += 1);
                    continue;
                }
                let mask = w >> 8;
                let kids = &t.nodes[child as usize..(child + mask.count_ones()) as usize];
                assert!(kids.len() >= 2, "{name}: node {k} has one child");
                let mut at = first as u32;
                for (o, kid) in (0..8).filter(|o| mask >> o & 1 != 0).zip(kids) {
                    assert_eq!(kid[0], at, "{name}: node {k} octant {o}");
                    assert!((kid[3] & 0xff) > level);
                    at += kid[1];
                }
                assert_eq!(at as usize, first + count, "{name}: node {k}");
            }
            assert!(
                covered.iter().all(|&c| c == 1),
                "{name} leaf {leaf}: points not in exactly one leaf"
            );
            assert!(
                t.nodes.len() < 2 * points.len().max(1),
                "{name}: {} nodes",
                t.nodes.len()
            );
        }
    }
}

/// Every kernel of every tree and k-NN kernel composes and passes naga's validation, with
/// subgroups and without (no GPU needed).
#[test]
fn every_kernel_validates() {
    for tree in [TreeKind::Bvh, TreeKind::Kd, TreeKind::Octree] {
        for kernel in [KnnKernel::Baseline, KnnKernel::Compacted] {
            let config = SpatialConfig {
                tree,
                kernel,
                ..Default::default()
            };
            for (name, b) in kernel_builders(&config, 3) {
                b.check()
                    .unwrap_or_else(|e| panic!("{tree:?} {kernel:?} {name}: {e}"));
            }
        }
    }
}
