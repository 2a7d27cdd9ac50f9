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
use wavekit_spatial::SpatialConfig;
use wavekit_spatial::reference::{NO_POINT, Tree, knn_brute, radius_brute};

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
