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

use wavekit_harness::gpu;
use wavekit_spatial::reference::{NO_POINT, Tree, dist, knn_brute, radius_brute};
use wavekit_spatial::{KnnKernel, Spatial, SpatialConfig};

fn uniform(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(|_| [rng.f32(), rng.f32(), rng.f32()]).collect()
}

/// Gaussian blobs of very different sizes and populations, and a few far outliers.
fn clustered(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let gauss = |rng: &mut fastrand::Rng| {
        let (u, v) = (rng.f32().max(1e-7), rng.f32());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    };
    let blobs: Vec<([f32; 3], f32)> = (0..6)
        .map(|b| {
            (
                [rng.f32() * 10.0, rng.f32() * 10.0, rng.f32() * 10.0],
                0.001 * 10f32.powi(b % 4),
            )
        })
        .collect();
    (0..n)
        .map(|i| {
            if i % 97 == 0 {
                return [
                    rng.f32() * 100.0 - 50.0,
                    rng.f32() * 100.0,
                    -rng.f32() * 30.0,
                ];
            }
            // Blob b takes a share that falls with b: dense small blobs, sparse big ones.
            let b = (rng.f32().powi(2) * blobs.len() as f32) as usize;
            let (c, s) = blobs[b.min(blobs.len() - 1)];
            [
                c[0] + s * gauss(&mut rng),
                c[1] + s * gauss(&mut rng),
                c[2] + s * gauss(&mut rng),
            ]
        })
        .collect()
}

/// A lattice with every point twice: exact ties everywhere.
fn lattice(n: usize) -> Vec<[f32; 3]> {
    (0..n)
        .map(|i| {
            let j = i / 2;
            [(j % 7) as f32, (j / 7 % 7) as f32, (j / 49) as f32]
        })
        .collect()
}

fn close(a: f32, b: f32) -> bool {
    a == b || (a - b).abs() <= 1e-5 * a.abs().max(b.abs()) + 1e-30
}

/// `got` against brute force's `want` for one query (k entries each).
fn check_knn(
    points: &[[f32; 3]],
    q: [f32; 3],
    got: (&[u32], &[f32]),
    want: (&[u32], &[f32]),
    exact: bool,
    case: &str,
) {
    let k = want.0.len();
    for j in 0..k {
        let (gi, gd) = (got.0[j], got.1[j]);
        let (wi, wd) = (want.0[j], want.1[j]);
        if wi == NO_POINT {
            assert!(
                gi == NO_POINT && gd == f32::INFINITY,
                "{case}: slot {j} should be empty, got {gi} at {gd}"
            );
            continue;
        }
        assert!(
            gi != NO_POINT && (gi as usize) < points.len(),
            "{case}: slot {j}: {gi}"
        );
        if exact {
            assert_eq!((gi, gd), (wi, wd), "{case}: slot {j}");
            continue;
        }
        // The index's true distance is the slot's, within the fused-multiply-add tolerance.
        let true_d = dist(q, points[gi as usize]);
        assert!(
            close(gd, true_d),
            "{case}: slot {j}: {gi} at {gd}, truly {true_d}"
        );
        assert!(
            close(gd, wd),
            "{case}: slot {j}: {gi} at {gd}, brute force {wi} at {wd}"
        );
        if j > 0 {
            assert!(got.1[j - 1] <= gd, "{case}: not sorted at {j}");
            assert!(!got.0[..j].contains(&gi), "{case}: {gi} twice");
        }
    }
}

fn check_radius(points: &[[f32; 3]], q: [f32; 3], r2: f32, got: &[u32], want: &[u32], case: &str) {
    if got == want {
        return;
    }
    assert!(got.windows(2).all(|w| w[0] < w[1]), "{case}: not ascending");
    for &i in got.iter().filter(|i| !want.contains(i)) {
        assert!(
            close(dist(q, points[i as usize]), r2),
            "{case}: {i} is not within r"
        );
    }
    for &i in want.iter().filter(|i| !got.contains(i)) {
        assert!(
            close(dist(q, points[i as usize]), r2),
            "{case}: {i} missing"
        );
    }
}

/// A case: its name, points, queries, and whether distances are exact (ties checked exactly).
type Set = (String, Vec<[f32; 3]>, Vec<[f32; 3]>, bool);

fn sets() -> Vec<Set> {
    let mut v = Vec::new();
    for n in [0usize, 1, 15, 16, 17, 31, 257, 1009] {
        v.push((
            format!("uniform {n}"),
            uniform(n, n as u64),
            uniform(67, 5),
            false,
        ));
    }
    v.push((
        "uniform 6007".into(),
        uniform(6007, 3),
        uniform(2003, 4),
        false,
    ));
    v.push((
        "clustered 5003".into(),
        clustered(5003, 7),
        clustered(1501, 8),
        false,
    ));
    v.push(("lattice 2 x 686".into(), lattice(1372), lattice(300), true));
    v
}

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

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_tree_and_queries_equal_brute_force() {
    let ctx = gpu();
    for config in [
        SpatialConfig::default(),
        SpatialConfig {
            leaf: 4,
            sort_queries: false,
            kernel: KnnKernel::Persistent,
            pool: 3,
            ..Default::default()
        },
        SpatialConfig {
            kernel: KnnKernel::Compacted,
            diagnostics: true,
            ..Default::default()
        },
    ] {
        let spatial = Spatial::new(ctx, &config).unwrap();
        for (name, points, queries, exact) in sets() {
            // The other configurations on the smaller sets only (lavapipe is slow).
            if config != SpatialConfig::default() && points.len() > 2000 && !exact {
                continue;
            }
            let case = format!("{name} leaf {} sorted {}", config.leaf, config.sort_queries);
            let tree = spatial.build(ctx, &points).unwrap();
            // The tree: every point once, each leaf's box its points', each node's its
            // children's union.
            let (sorted, boxes) = tree.read(ctx).unwrap();
            let mut seen: Vec<u32> = sorted.iter().map(|p| p.1).collect();
            seen.sort_unstable();
            assert!(
                seen.iter().copied().eq(0..points.len() as u32),
                "{case}: not a permutation"
            );
            for (p, i) in &sorted {
                assert_eq!(*p, points[*i as usize], "{case}");
            }
            let (l, leaf) = (tree.leaves as usize, config.leaf as usize);
            for (node, b) in boxes.iter().enumerate().skip(1) {
                let (lo, hi) = if node >= l {
                    let pts = sorted.iter().skip((node - l) * leaf).take(leaf);
                    pts.fold(
                        ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]),
                        |(lo, hi), (p, _)| {
                            (
                                [0, 1, 2].map(|a| lo[a].min(p[a])),
                                [0, 1, 2].map(|a| hi[a].max(p[a])),
                            )
                        },
                    )
                } else {
                    let (x, y) = (boxes[2 * node], boxes[2 * node + 1]);
                    (
                        [0, 1, 2].map(|a| x.0[a].min(y.0[a])),
                        [0, 1, 2].map(|a| x.1[a].max(y.1[a])),
                    )
                };
                assert_eq!(*b, (lo, hi), "{case}: node {node}");
            }
            for (k, max_dist) in [(1u32, None), (16, None), (64, None), (8, Some(0.05f32))] {
                let max_d2 = max_dist.map_or(f32::INFINITY, |r| r * r);
                let (gi, gd) = spatial.knn(ctx, &tree, &queries, k, max_dist).unwrap();
                let (wi, wd) = knn_brute(&points, &queries, k as usize, max_d2);
                let k = k as usize;
                for (qi, q) in queries.iter().enumerate() {
                    let s = qi * k..(qi + 1) * k;
                    check_knn(
                        &points,
                        *q,
                        (&gi[s.clone()], &gd[s.clone()]),
                        (&wi[s.clone()], &wd[s]),
                        exact,
                        &format!("{case} k {k} query {qi}"),
                    );
                }
            }
            for r in [0.0f32, 0.05, 1.5] {
                let (go, gi) = spatial.radius(ctx, &tree, &queries, r).unwrap();
                let (wo, wi) = radius_brute(&points, &queries, r * r);
                assert_eq!(go.len(), queries.len() + 1);
                assert_eq!(go[queries.len()] as usize, gi.len(), "{case}");
                let counts = spatial.count(ctx, &tree, &queries, r).unwrap();
                for (qi, q) in queries.iter().enumerate() {
                    let got = &gi[go[qi] as usize..go[qi + 1] as usize];
                    let want = &wi[wo[qi] as usize..wo[qi + 1] as usize];
                    assert_eq!(counts[qi] as usize, got.len(), "{case}");
                    check_radius(
                        &points,
                        *q,
                        r * r,
                        got,
                        want,
                        &format!("{case} r {r} query {qi}"),
                    );
                }
            }
        }
    }
}

/// Outputs poisoned before the kernels run: every slot is written.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_queries_write_every_output_slot() {
    let ctx = gpu();
    let spatial = Spatial::new(ctx, &SpatialConfig::default()).unwrap();
    let points = clustered(3001, 11);
    // Queries near the points (a jitter of some of them), so that radius search finds some.
    let mut rng = fastrand::Rng::with_seed(12);
    let queries: Vec<[f32; 3]> = (0..777)
        .map(|i| points[i * 3].map(|c| c + 0.01 * (rng.f32() - 0.5)))
        .collect();
    let tree = spatial.build(ctx, &points).unwrap();
    let q: Vec<f32> = queries.iter().flatten().copied().collect();
    let qb = ctx.storage_from("q", &q).unwrap();
    // k = 40 with few points in range: many slots stay empty and must say so.
    let bound = spatial.bind_knn(ctx, &tree, &qb, 777, 40, 0.5).unwrap();
    let poison = vec![wavekit::POISON; 777 * 40];
    ctx.queue
        .write_buffer(&bound.indices, 0, bytemuck::cast_slice(&poison));
    ctx.queue
        .write_buffer(&bound.distances, 0, bytemuck::cast_slice(&poison));
    ctx.submit(|e| bound.record(e));
    let i: Vec<u32> = ctx.read_back("i", &bound.indices, 777 * 40).unwrap();
    let d: Vec<u32> = ctx.read_back("d", &bound.distances, 777 * 40).unwrap();
    assert!(!i.contains(&wavekit::POISON) && !d.contains(&wavekit::POISON));
    let (wi, _) = knn_brute(&points, &queries, 40, 0.5);
    assert_eq!(
        i.iter().filter(|&&x| x == NO_POINT).count(),
        wi.iter().filter(|&&x| x == NO_POINT).count()
    );
    let radius = spatial.bind_radius(ctx, &tree, &qb, 777, 0.01).unwrap();
    ctx.submit(|e| radius.record_count(e));
    let off: Vec<u32> = ctx.read_back("o", &radius.offsets, 778).unwrap();
    let total = off[777] as usize;
    assert!(total > 0);
    let out = ctx.storage_poisoned("indices", total).unwrap();
    let write = radius.bind_write(ctx, &spatial, &out, &off).unwrap();
    ctx.submit(|e| radius.record_write(e, &write));
    let got: Vec<u32> = ctx.read_back("i", &out, total).unwrap();
    assert!(!got.contains(&wavekit::POISON));
}

/// Every k-NN kernel gives the same answers, and reports how busy its lanes were.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_knn_kernels_agree_and_report_utilisation() {
    let ctx = gpu();
    let points = clustered(4001, 21);
    let queries = clustered(1999, 22);
    let mut first: Option<Vec<u32>> = None;
    for kernel in [
        KnnKernel::Baseline,
        KnnKernel::Persistent,
        KnnKernel::Compacted,
    ] {
        let config = SpatialConfig {
            kernel,
            diagnostics: true,
            ..Default::default()
        };
        let spatial = Spatial::new(ctx, &config).unwrap();
        let tree = spatial.build(ctx, &points).unwrap();
        let q: Vec<f32> = queries.iter().flatten().copied().collect();
        let qb = ctx.storage_from("q", &q).unwrap();
        let bound = spatial
            .bind_knn(ctx, &tree, &qb, 1999, 8, f32::INFINITY)
            .unwrap();
        ctx.submit(|e| bound.record(e));
        let got: Vec<u32> = ctx.read_back("i", &bound.indices, 1999 * 8).unwrap();
        let u = bound.utilisation(ctx).unwrap().expect("diagnostics on");
        assert!(u > 0.0 && u <= 1.0, "{kernel:?}: utilisation {u}");
        match &first {
            None => first = Some(got),
            Some(f) => assert!(*f == got, "{kernel:?} differs from the baseline"),
        }
    }
    // Without diagnostics, no figure.
    let spatial = Spatial::new(ctx, &SpatialConfig::default()).unwrap();
    let tree = spatial.build(ctx, &points).unwrap();
    let qb = ctx.storage_from("q", &[0.5f32; 3]).unwrap();
    let bound = spatial
        .bind_knn(ctx, &tree, &qb, 1, 4, f32::INFINITY)
        .unwrap();
    ctx.submit(|e| bound.record(e));
    assert_eq!(bound.utilisation(ctx).unwrap(), None);
}

/// Radius search written in many small chunks of queries gives what one pass gives.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_radius_search_in_chunks_equals_one_pass() {
    let ctx = gpu();
    let points = clustered(3001, 31);
    let queries: Vec<[f32; 3]> = points.iter().step_by(5).copied().collect();
    let (wo, wi) = radius_brute(&points, &queries, 0.02 * 0.02);
    // The largest query's neighbours: chunks of just that many, a few more, and the default.
    let most = wo.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    for chunk in [0u32, most, most + 13] {
        let config = SpatialConfig {
            radius_chunk: chunk,
            ..Default::default()
        };
        let spatial = Spatial::new(ctx, &config).unwrap();
        let tree = spatial.build(ctx, &points).unwrap();
        let (go, gi) = spatial.radius(ctx, &tree, &queries, 0.02).unwrap();
        assert_eq!(go.len(), wo.len());
        assert!(
            go[queries.len()] as usize > 3000,
            "too few neighbours to need chunks"
        );
        for (qi, q) in queries.iter().enumerate() {
            let got = &gi[go[qi] as usize..go[qi + 1] as usize];
            let want = &wi[wo[qi] as usize..wo[qi + 1] as usize];
            check_radius(
                &points,
                *q,
                0.0004,
                got,
                want,
                &format!("chunk {chunk} query {qi}"),
            );
        }
    }
    // A query with more neighbours than a chunk holds is an error, not a truncation.
    let spatial = Spatial::new(
        ctx,
        &SpatialConfig {
            radius_chunk: most - 1,
            ..Default::default()
        },
    )
    .unwrap();
    let tree = spatial.build(ctx, &points).unwrap();
    let e = spatial
        .radius(ctx, &tree, &queries, 0.02)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than one pass can sort"), "{e}");
}
