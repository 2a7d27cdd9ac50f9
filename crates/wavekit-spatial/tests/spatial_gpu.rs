//! The GPU build and kernels against brute force, at every lavapipe width and without
//! subgroups (the CPU tree's own tests are in spatial.rs; the sets and checks in common/).

mod common;

use common::*;
use wavekit_harness::gpu;
use wavekit_spatial::reference::kd::KdTree;
use wavekit_spatial::reference::octree::Octree;
use wavekit_spatial::reference::{
    NO_POINT, knn_brute, knn_brute_in, radius_brute, radius_brute_in, wrap,
};
use wavekit_spatial::{KnnKernel, Spatial, SpatialConfig, TreeKind};

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_tree_and_queries_equal_brute_force() {
    let ctx = gpu();
    // The sweep splits by configuration (ADR-0101): the default at every width; the persistent
    // kernel at the first width, the compacted one after it and without subgroups, each with
    // every set (the kernels cost lavapipe's compile, the sets little).
    let sweep_part = wavekit_harness::sweep();
    for (i, (config, in_short)) in [
        (SpatialConfig::default(), true),
        (
            SpatialConfig {
                leaf: 4,
                sort_queries: false,
                kernel: KnnKernel::Persistent,
                pool: 3,
                ..Default::default()
            },
            false,
        ),
        (
            SpatialConfig {
                kernel: KnnKernel::Compacted,
                diagnostics: true,
                ..Default::default()
            },
            true,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if !sweep_part.takes(in_short, i == 0) {
            continue;
        }
        let spatial = Spatial::new(ctx, &config).unwrap();
        // The default configuration's sets halve in the short part (it runs whole at the first
        // width); a split configuration takes every set where it runs.
        let sets = if i == 0 { sweep(sets()) } else { sets() };
        for (name, points, queries, exact) in sets {
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
            check_queries(ctx, &spatial, &tree, &points, &queries, exact, &case);
        }
    }
}

/// The kd-tree and the octree: built on the GPU as their CPU twins build them (the kd-tree
/// node for node; the octree's nodes as a depth-first list, its numbering depending on the
/// order the workgroups ran), and their queries against brute force, with the baseline
/// kernel and the compacted one.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_kd_tree_and_octree_equal_their_twins_and_brute_force() {
    let ctx = gpu();
    // The sweep splits by configuration (ADR-0101): the kd-tree's baseline at every width; its
    // compacted kernel and the octree's baseline after the first width and without subgroups,
    // the octree's compacted kernel at the first width; each with every set where it runs.
    let sweep_part = wavekit_harness::sweep();
    for tree_kind in [TreeKind::Kd, TreeKind::Octree] {
        for config in [
            SpatialConfig {
                tree: tree_kind,
                ..Default::default()
            },
            SpatialConfig {
                tree: tree_kind,
                leaf: 4,
                kernel: KnnKernel::Compacted,
                ..Default::default()
            },
        ] {
            let compacted = config.kernel == KnnKernel::Compacted;
            let first = tree_kind == TreeKind::Kd && !compacted;
            let in_short = tree_kind == TreeKind::Kd || !compacted;
            if !sweep_part.takes(in_short, first) {
                continue;
            }
            let spatial = Spatial::new(ctx, &config).unwrap();
            let sets = if first { sweep(sets()) } else { sets() };
            for (name, points, queries, exact) in sets {
                // The large uniform set is the BVH test's; the second configuration takes the
                // small sets only (CI time on lavapipe).
                if points.len() > 2000
                    && !exact
                    && (config.leaf == 4 || name.starts_with("uniform"))
                {
                    continue;
                }
                let case = format!("{} {name} leaf {}", tree_kind.name(), config.leaf);
                let tree = spatial.build(ctx, &points).unwrap();
                let (nodes, codes) = tree.read_nodes(ctx).unwrap();
                let sorted = tree.read_points(ctx).unwrap();
                let leaf = config.leaf as usize;
                match tree_kind {
                    TreeKind::Kd => {
                        let want = KdTree::build(&points, leaf);
                        assert_eq!(codes, want.codes, "{case}: codes");
                        assert_eq!(sorted, want.sorted, "{case}: points");
                        assert_eq!(nodes.len(), want.nodes.len(), "{case}");
                        for (k, (g, w)) in nodes.iter().zip(&want.nodes).enumerate() {
                            assert_eq!(g[1..], w[1..], "{case}: node {k}");
                            // The plane: a multiply-add the GPU may fuse.
                            let (a, b) = (f32::from_bits(g[0]), f32::from_bits(w[0]));
                            assert!(
                                close(a, b) || (a - b).abs() < 1e-6,
                                "{case}: node {k} plane {a} vs {b}"
                            );
                        }
                    }
                    _ => {
                        let want = Octree::build(&points, leaf);
                        assert_eq!(codes, want.codes, "{case}: codes");
                        assert_eq!(sorted, want.sorted, "{case}: points");
                        assert_eq!(
                            Octree::canonical(&nodes),
                            Octree::canonical(&want.nodes),
                            "{case}: nodes"
                        );
                    }
                }
                check_queries(ctx, &spatial, &tree, &points, &queries, exact, &case);
            }
        }
    }
}

/// k-NN (k 1, 16, 64, and 8 within a radius), radius search and counts (r 0, 0.05, 1.5) on a
/// built tree against brute force.
fn check_queries(
    ctx: &wavekit::GpuContext,
    spatial: &Spatial,
    tree: &wavekit_spatial::PointTree,
    points: &[[f32; 3]],
    queries: &[[f32; 3]],
    exact: bool,
    case: &str,
) {
    for (k, max_dist) in [(1u32, None), (16, None), (64, None), (8, Some(0.05f32))] {
        let max_d2 = max_dist.map_or(f32::INFINITY, |r| r * r);
        let (gi, gd) = spatial.knn(ctx, tree, queries, k, max_dist).unwrap();
        let (wi, wd) = knn_brute(points, queries, k as usize, max_d2);
        let k = k as usize;
        for (qi, q) in queries.iter().enumerate() {
            let s = qi * k..(qi + 1) * k;
            check_knn(
                points,
                *q,
                (&gi[s.clone()], &gd[s.clone()]),
                (&wi[s.clone()], &wd[s]),
                exact,
                &format!("{case} k {k} query {qi}"),
            );
        }
    }
    for r in [0.0f32, 0.05, 1.5] {
        let (go, gi) = spatial.radius(ctx, tree, queries, r).unwrap();
        let (wo, wi) = radius_brute(points, queries, r * r);
        assert_eq!(go.len(), queries.len() + 1);
        assert_eq!(go[queries.len()] as usize, gi.len(), "{case}");
        let counts = spatial.count(ctx, tree, queries, r).unwrap();
        for (qi, q) in queries.iter().enumerate() {
            let got = &gi[go[qi] as usize..go[qi + 1] as usize];
            let want = &wi[wo[qi] as usize..wo[qi + 1] as usize];
            assert_eq!(counts[qi] as usize, got.len(), "{case}");
            check_radius(
                points,
                *q,
                r * r,
                got,
                want,
                &format!("{case} r {r} query {qi}"),
            );
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
    let bound = spatial
        .bind_knn(ctx, &tree, &qb, 777, 40, Some(0.5))
        .unwrap();
    let poison = vec![wavekit::POISON; 777 * 40];
    ctx.queue
        .write_buffer(&bound.indices, 0, bytemuck::cast_slice(&poison));
    ctx.queue
        .write_buffer(&bound.distances, 0, bytemuck::cast_slice(&poison));
    ctx.submit(|e| bound.record(e));
    let i: Vec<u32> = ctx.read_back("i", &bound.indices, 777 * 40).unwrap();
    let d: Vec<u32> = ctx.read_back("d", &bound.distances, 777 * 40).unwrap();
    assert!(!i.contains(&wavekit::POISON) && !d.contains(&wavekit::POISON));
    let (wi, _) = knn_brute(&points, &queries, 40, 0.25);
    assert_eq!(
        i.iter().filter(|&&x| x == NO_POINT).count(),
        wi.iter().filter(|&&x| x == NO_POINT).count()
    );
    let radius = spatial.bind_radius(ctx, &tree, &qb, 777, 0.1).unwrap();
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
        let bound = spatial.bind_knn(ctx, &tree, &qb, 1999, 8, None).unwrap();
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
    let bound = spatial.bind_knn(ctx, &tree, &qb, 1, 4, None).unwrap();
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

/// The point sets, every other one in a short sweep (ADR-0084): sizes 0, 7, 9, 16, 31, 1009,
/// the clustered set, and so on.
fn sweep(sets: Vec<Set>) -> Vec<Set> {
    if !wavekit_harness::short_sweep() {
        return sets;
    }
    sets.into_iter().step_by(2).collect()
}

/// Points in a periodic box, a tenth of them within 10^-3 of a face, an edge or a corner.
fn periodic_points(n: usize, boxsize: [f32; 3], seed: u64) -> Vec<[f32; 3]> {
    let mut r = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|i| {
            [0, 1, 2].map(|a| {
                let l = boxsize[a];
                let l = if l > 0.0 { l } else { 1.0 };
                let x = if i % 10 == 0 && r.bool() {
                    // Near the low or the high face.
                    if r.bool() {
                        r.f32() * 1e-3
                    } else {
                        l - r.f32() * 1e-3
                    }
                } else {
                    r.f32() * l
                };
                if x < l { x } else { 0.0 }
            })
        })
        .collect()
}

/// A periodic box (SciPy's boxsize) in the BVH's walk: k-NN and radius search against brute
/// force with the nearer image across each periodic axis; 3-D boxes, a 2-D one (z flat and
/// open), one periodic axis only; queries near every corner, and outside the box (wrapped).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_periodic_box_queries_equal_brute_force() {
    let ctx = gpu();
    let spatial = Spatial::new(ctx, &SpatialConfig::default()).unwrap();
    for (bi, boxsize) in [[1.0f32, 2.0, 0.5], [1.0, 1.0, 0.0], [3.0, 0.0, 0.0]]
        .into_iter()
        .enumerate()
    {
        // The short sweep (widths after the first, no subgroups): the largest set only.
        let sizes: &[usize] = if wavekit_harness::short_sweep() {
            &[3001]
        } else {
            &[0, 1, 9, 257, 3001]
        };
        for &n in sizes {
            let mut points = periodic_points(n, boxsize, 60 + n as u64);
            if boxsize[2] == 0.0 && boxsize[1] > 0.0 {
                points.iter_mut().for_each(|p| p[2] = 0.0);
            }
            let mut queries = periodic_points(97, boxsize, 61);
            // Every corner (and just inside it), and points outside the box.
            for c in 0..8u32 {
                let corner = [0, 1, 2].map(|a| if c >> a & 1 == 1 { boxsize[a] } else { 0.0 });
                queries.push(corner);
                queries.push(corner.map(|x| if x > 0.0 { x - 1e-4 } else { 1e-4 }));
            }
            queries.push([-0.25, 2.5, 7.0]);
            queries.push([1.75, -3.1, -0.01]);
            let tree = spatial.build_periodic(ctx, &points, boxsize).unwrap();
            let wrapped: Vec<[f32; 3]> = queries.iter().map(|q| wrap(*q, boxsize)).collect();
            let case = format!("box {bi} {boxsize:?} n {n}");
            for (k, max_dist) in [(1u32, None), (16, None), (64, None), (8, Some(0.2f32))] {
                let max_d2 = max_dist.map_or(f32::INFINITY, |r| r * r);
                let (gi, gd) = spatial.knn(ctx, &tree, &queries, k, max_dist).unwrap();
                let (wi, wd) = knn_brute_in(&points, &queries, k as usize, max_d2, boxsize);
                let k = k as usize;
                for (qi, q) in wrapped.iter().enumerate() {
                    let s = qi * k..(qi + 1) * k;
                    check_knn_in(
                        &points,
                        *q,
                        (&gi[s.clone()], &gd[s.clone()]),
                        (&wi[s.clone()], &wd[s]),
                        false,
                        &format!("{case} k {k} query {qi}"),
                        boxsize,
                    );
                }
            }
            for r in [0.05f32, 0.3] {
                let (go, gi) = spatial.radius(ctx, &tree, &queries, r).unwrap();
                let (wo, wi) = radius_brute_in(&points, &queries, r * r, boxsize);
                let counts = spatial.count(ctx, &tree, &queries, r).unwrap();
                for (qi, q) in wrapped.iter().enumerate() {
                    let got = &gi[go[qi] as usize..go[qi + 1] as usize];
                    let want = &wi[wo[qi] as usize..wo[qi + 1] as usize];
                    assert_eq!(counts[qi] as usize, got.len(), "{case}");
                    check_radius_in(
                        &points,
                        *q,
                        r * r,
                        got,
                        want,
                        &format!("{case} r {r} query {qi}"),
                        boxsize,
                    );
                }
            }
        }
    }
    // The wrap matters: a corner query's nearest point in the open tree is not its nearest
    // across the faces.
    let points = vec![[0.01f32, 0.01, 0.01], [0.6, 0.6, 0.6]];
    let open = spatial.build(ctx, &points).unwrap();
    let torus = spatial.build_periodic(ctx, &points, [1.0; 3]).unwrap();
    let q = [[0.99f32, 0.99, 0.99]];
    assert_eq!(spatial.knn(ctx, &open, &q, 1, None).unwrap().0, [1]);
    assert_eq!(spatial.knn(ctx, &torus, &q, 1, None).unwrap().0, [0]);
    // Refused: a point outside the box, a negative or infinite length, another tree.
    let e = spatial
        .build_periodic(ctx, &[[1.0, 0.5, 0.5]], [1.0; 3])
        .unwrap_err();
    assert!(e.to_string().contains("[0, L)"), "{e}");
    assert!(
        spatial
            .build_periodic(ctx, &points, [-1.0, 1.0, 1.0])
            .is_err()
    );
    assert!(
        spatial
            .build_periodic(ctx, &points, [f32::INFINITY, 1.0, 1.0])
            .is_err()
    );
    let kd = Spatial::new(
        ctx,
        &SpatialConfig {
            tree: TreeKind::Kd,
            ..Default::default()
        },
    )
    .unwrap();
    let e = kd.build_periodic(ctx, &points, [1.0; 3]).unwrap_err();
    assert!(e.to_string().contains("only the BVH"), "{e}");
}

/// k past the kernels' MAX_K (Spatial::knn_any's slower path) against brute force: k > n,
/// a largest distance, a periodic box (and k = 16 in one kernel); `knn_with` equal to
/// `knn_any`; and radius search in pieces equal to one call.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn gpu_knn_past_max_k_and_radius_in_pieces_equal_brute_force() {
    let ctx = gpu();
    let spatial = Spatial::new(ctx, &SpatialConfig::default()).unwrap();
    let boxsize = [1.0f32, 1.0, 1.0];
    // The short sweep (widths after the first, no subgroups): the retry set and one other.
    let sizes: &[usize] = if wavekit_harness::short_sweep() {
        &[65, 2000]
    } else {
        &[0, 1, 65, 1009, 2000]
    };
    for &n in sizes {
        let mut points = periodic_points(n, boxsize, 70 + n as u64);
        let mut queries = clustered(61, 71);
        queries.push([0.999, 0.001, 0.5]);
        if n == 2000 {
            // A tight cluster of 80 around a query: its 64th neighbour is close and the rest
            // far, so the first radius guess holds too few and the slower path tries again.
            for (j, p) in points.iter_mut().take(80).enumerate() {
                let t = j as f32 * 1e-5;
                *p = [0.5 + t, 0.5 - t, 0.5 + t / 2.0];
            }
            queries.push([0.5, 0.5, 0.5]);
        }
        for periodic in [false, true] {
            let tree = if periodic {
                spatial.build_periodic(ctx, &points, boxsize).unwrap()
            } else {
                spatial.build(ctx, &points).unwrap()
            };
            let b = if periodic { boxsize } else { [0.0; 3] };
            let wrapped: Vec<[f32; 3]> = queries.iter().map(|q| wrap(*q, b)).collect();
            for (k, max_dist) in [
                (16u32, None),
                (65, None),
                (100, None),
                (300, None),
                (200, Some(0.15f32)),
            ] {
                let case = format!("n {n} periodic {periodic} k {k} max {max_dist:?}");
                let (gi, gd) = spatial.knn_any(ctx, &tree, &queries, k, max_dist).unwrap();
                // The in-place form (the mapped read-back handed over) gives the same.
                let handed = spatial
                    .knn_with(ctx, &tree, &queries, k, max_dist, |i, d| {
                        (i.to_vec(), d.to_vec())
                    })
                    .unwrap();
                assert!(handed == (gi.clone(), gd.clone()), "{case}: knn_with");
                let max_d2 = max_dist.map_or(f32::INFINITY, |r| r * r);
                let (wi, wd) = knn_brute_in(&points, &queries, k as usize, max_d2, b);
                let k = k as usize;
                assert_eq!(gi.len(), queries.len() * k, "{case}");
                for (qi, q) in wrapped.iter().enumerate() {
                    let s = qi * k..(qi + 1) * k;
                    check_knn_in(
                        &points,
                        *q,
                        (&gi[s.clone()], &gd[s.clone()]),
                        (&wi[s.clone()], &wd[s]),
                        false,
                        &format!("{case} query {qi}"),
                        b,
                    );
                }
            }
            // Pieces of at most 40 neighbours (a query with more is a piece of its own),
            // concatenated: the one call's CSR.
            let r = 0.2;
            let (wo, wi) = spatial.radius(ctx, &tree, &queries, r).unwrap();
            let (mut po, mut pi) = (vec![0u32], Vec::new());
            let mut next = 0;
            spatial
                .radius_pieces(ctx, &tree, &queries, r, 40, |first, off, ind| {
                    assert_eq!(first, next, "pieces in order");
                    assert!(off.len() == 2 || u64::from(off[off.len() - 1]) <= 40);
                    next = first + off.len() - 1;
                    let base = pi.len() as u32;
                    po.extend(off[1..].iter().map(|o| base + o));
                    pi.extend_from_slice(ind);
                    Ok(())
                })
                .unwrap();
            assert_eq!(next, queries.len());
            assert_eq!((&po, &pi), (&wo, &wi), "n {n} periodic {periodic}: pieces");
            // No limit of the caller's: the one call, as one piece.
            let mut pieces = 0;
            spatial
                .radius_pieces(ctx, &tree, &queries, r, u64::MAX, |first, off, ind| {
                    pieces += 1;
                    assert_eq!((first, off, ind), (0, &wo[..], &wi[..]));
                    Ok(())
                })
                .unwrap();
            assert_eq!(pieces, 1);
            // And gathered whole, with 64-bit offsets.
            let (ho, hi) = spatial.radius_whole(ctx, &tree, &queries, r).unwrap();
            assert!(ho.iter().map(|&o| o as u32).eq(wo.iter().copied()) && hi == wi);
        }
    }
    assert!(
        spatial
            .knn_any(
                ctx,
                &spatial.build(ctx, &[[0.0; 3]]).unwrap(),
                &[[0.0; 3]],
                0,
                None
            )
            .is_err()
    );
}
