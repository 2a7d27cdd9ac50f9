//! Point sets and checks shared by the spatial tests.

#![allow(dead_code)]

use wavekit_spatial::reference::{NO_POINT, dist_in};

pub fn uniform(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(|_| [rng.f32(), rng.f32(), rng.f32()]).collect()
}

/// Gaussian blobs of very different sizes and populations, and a few far outliers.
pub fn clustered(n: usize, seed: u64) -> Vec<[f32; 3]> {
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
pub fn lattice(n: usize) -> Vec<[f32; 3]> {
    (0..n)
        .map(|i| {
            let j = i / 2;
            [(j % 7) as f32, (j / 7 % 7) as f32, (j / 49) as f32]
        })
        .collect()
}

pub fn close(a: f32, b: f32) -> bool {
    a == b || (a - b).abs() <= 1e-5 * a.abs().max(b.abs()) + 1e-30
}

/// `got` against brute force's `want` for one query (k entries each).
pub fn check_knn(
    points: &[[f32; 3]],
    q: [f32; 3],
    got: (&[u32], &[f32]),
    want: (&[u32], &[f32]),
    exact: bool,
    case: &str,
) {
    check_knn_in(points, q, got, want, exact, case, [0.0; 3]);
}

/// [`check_knn`] in a periodic box (`q` already wrapped into it).
pub fn check_knn_in(
    points: &[[f32; 3]],
    q: [f32; 3],
    got: (&[u32], &[f32]),
    want: (&[u32], &[f32]),
    exact: bool,
    case: &str,
    boxsize: [f32; 3],
) {
    let dist = |a, b| dist_in(a, b, boxsize);
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

pub fn check_radius(
    points: &[[f32; 3]],
    q: [f32; 3],
    r2: f32,
    got: &[u32],
    want: &[u32],
    case: &str,
) {
    check_radius_in(points, q, r2, got, want, case, [0.0; 3]);
}

/// [`check_radius`] in a periodic box (`q` already wrapped into it).
pub fn check_radius_in(
    points: &[[f32; 3]],
    q: [f32; 3],
    r2: f32,
    got: &[u32],
    want: &[u32],
    case: &str,
    boxsize: [f32; 3],
) {
    let dist = |a, b| dist_in(a, b, boxsize);
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
pub type Set = (String, Vec<[f32; 3]>, Vec<[f32; 3]>, bool);

pub fn sets() -> Vec<Set> {
    let mut v = Vec::new();
    // 0, 1, a leaf (8) and a leaf ± 1, the same for 16, primes.
    for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 257, 1009] {
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
        uniform(1009, 4),
        false,
    ));
    v.push((
        "clustered 5003".into(),
        clustered(5003, 7),
        clustered(701, 8),
        false,
    ));
    v.push(("lattice 2 x 686".into(), lattice(1372), lattice(300), true));
    if let Some(set) = dragon() {
        v.push(set);
    }
    v
}

/// Real scan data: every 80th vertex of the Stanford dragon (about 5 500 points), and queries
/// near every 700th (a seeded jitter), where `scripts/fetch-meshes.sh` has put the dragon in
/// `.meshes/` (or `WAVEKIT_MESHES` says where); absent, the set is skipped with a note.
pub fn dragon() -> Option<Set> {
    let path = wavekit_harness::meshes_dir().join("dragon.ply");
    let mesh = match wavekit_trace::Mesh::load(&path.to_string_lossy()) {
        Ok(m) => m,
        Err(_) => {
            eprintln!(
                "[wavekit-spatial tests] the dragon skipped: {} is absent \
                 (scripts/fetch-meshes.sh .meshes fetches it)",
                path.display()
            );
            return None;
        }
    };
    let points: Vec<[f32; 3]> = mesh.positions.iter().step_by(80).copied().collect();
    let mut rng = fastrand::Rng::with_seed(80);
    let queries = mesh
        .positions
        .iter()
        .step_by(700)
        .map(|p| p.map(|c| c + 0.002 * (rng.f32() - 0.5)))
        .collect();
    Some(("dragon's vertices".into(), points, queries, false))
}

/// Twelve Gaussian blobs of very different widths (0.01 to 15) in a 100-unit cube, seeded: the
/// densities of issue 52's reproduction. Queries from a second call (other centres) fall far
/// from every blob of the first.
pub fn blobs(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let gauss = |rng: &mut fastrand::Rng| {
        let (u, v) = (rng.f32().max(1e-7), rng.f32());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    };
    let widths = [
        0.05f32, 0.3, 2.0, 8.0, 0.01, 1.0, 4.0, 0.2, 15.0, 0.5, 3.0, 0.08,
    ];
    let centres: Vec<[f32; 3]> = (0..12)
        .map(|_| [rng.f32() * 100.0, rng.f32() * 100.0, rng.f32() * 100.0])
        .collect();
    (0..n)
        .map(|_| {
            let b = rng.usize(..12);
            let (c, s) = (centres[b], widths[b]);
            [0, 1, 2].map(|a| c[a] + s * gauss(&mut rng))
        })
        .collect()
}
