//! The traversal kernels on the GPU against the brute-force reference, ray by ray: every kernel,
//! closest and any hit, both BVH builders, on procedural scenes (and the Stanford bunny where
//! `scripts/fetch-meshes.sh` has put it in `.meshes/`, or `WAVEKIT_MESHES` says), at ray counts 0, 1, workgroup − 1,
//! workgroup, workgroup + 1, primes and a few thousand; rays with tmin/tmax limits and rays that
//! miss; outputs poisoned so that an unwritten record shows; a grid of rays through a
//! tessellated plane's shared edges and corners that must never slip through. Run at every
//! lavapipe width and without subgroups (`WAVEKIT_NO_SUBGROUPS=1`).
//!
//! Tolerances: t within 1e-4 relative (of t, or of 1 for t < 1), u and v within 1e-3. The
//! kernels compute what the reference computes, fused multiply-adds included, but WGSL does not
//! require correctly rounded divisions (the shear's Sx = dx / dz, and t = T / det), and the
//! long thin triangles amplify a last-bit difference in Sx about a thousandfold (seen: 2.3e-5 on
//! lavapipe). Where GPU and reference hit different triangles, both must be at the same t
//! within that tolerance (two triangles tie, e.g. at a shared edge); such ties are counted and
//! must stay under 1 %.

use wavekit::{GpuContext, POISON};
use wavekit_trace::lbvh::Lbvh;
use wavekit_trace::reference::brute_force;
use wavekit_trace::{Bvh, GpuBvh, Hit, KernelKind, Mesh, Ray, TraceConfig, Tracer};

/// t, relative (see above).
const T_TOL: f32 = 1e-4;
/// u and v, absolute.
const UV_TOL: f32 = 1e-3;

fn gpu() -> &'static GpuContext {
    wavekit_harness::gpu()
}

fn on(ctx: &GpuContext) -> String {
    format!(
        "{} (subgroup width {}{})",
        ctx.summary.name,
        ctx.caps.subgroups.max_size,
        if ctx.caps.subgroups.supported {
            ""
        } else {
            ", subgroups off"
        }
    )
}

/// Rays for `mesh`: most aimed at random points of its box from outside, some random in
/// direction, some with tmin/tmax cutting the interval, some pointing away (misses).
fn rays_for(mesh: &Mesh, n: usize, seed: u64) -> Vec<Ray> {
    let (lo, hi) = mesh.bounds();
    let ext = [0, 1, 2].map(|a| (hi[a] - lo[a]).max(1e-3));
    let mut r = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|i| {
            let o = [0, 1, 2].map(|a| lo[a] - 0.3 * ext[a] + 1.6 * ext[a] * r.f32());
            let t = [0, 1, 2].map(|a| lo[a] + ext[a] * r.f32());
            let mut d = [t[0] - o[0], t[1] - o[1], t[2] - o[2]];
            if i % 11 == 3 {
                d = d.map(|x| -x);
            }
            let (tmin, tmax) = match i % 9 {
                1 => (0.4, f32::INFINITY),
                2 => (0.0, 0.6),
                3 => (0.3, 0.9),
                _ => (0.0, f32::INFINITY),
            };
            Ray {
                origin: o,
                tmin,
                dir: d,
                tmax,
            }
        })
        .collect()
}

/// Compare closest hits with the reference; returns the number of ties (different triangle,
/// same t).
fn compare(got: &[Hit], want: &[Hit], what: &str) -> usize {
    assert_eq!(got.len(), want.len());
    let mut ties = 0;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_ne!(g.prim, POISON, "{what}: ray {i} never written");
        assert_eq!(g.is_hit(), w.is_hit(), "{what}: ray {i}: {g:?} vs {w:?}");
        if !w.is_hit() {
            assert_eq!(
                *g,
                Hit::NONE,
                "{what}: ray {i}: a miss is t = inf, prim = MISS"
            );
            continue;
        }
        let close = |a: f32, b: f32, tol: f32| (a - b).abs() <= tol * a.abs().max(1.0);
        assert!(close(g.t, w.t, T_TOL), "{what}: ray {i}: {g:?} vs {w:?}");
        if g.prim == w.prim {
            assert!(
                close(g.u, w.u, UV_TOL) && close(g.v, w.v, UV_TOL),
                "{what}: ray {i}: {g:?} vs {w:?}"
            );
        } else {
            ties += 1;
        }
    }
    ties
}

fn scenes() -> Vec<(String, Mesh)> {
    let mut s: Vec<(String, Mesh)> = [
        "proc:soup:2000:3",
        "proc:thin:1000:5",
        "proc:grid:5",
        "proc:plane:16",
    ]
    .iter()
    .map(|n| (n.to_string(), Mesh::load(n).unwrap()))
    .collect();
    s.push(("single triangle".into(), Mesh::load("proc:soup:1").unwrap()));
    s.push(("empty mesh".into(), Mesh::default()));
    let bunny = wavekit_harness::meshes_dir().join("bunny.obj");
    let bunny = bunny.to_string_lossy();
    match Mesh::load(&bunny) {
        Ok(m) => s.push(("bunny".into(), m)),
        Err(_) => eprintln!(
            "[wavekit-trace tests] bunny skipped: {bunny} is absent (scripts/fetch-meshes.sh \
             .meshes fetches it)"
        ),
    }
    s
}

/// Every kernel from `base`, and the two refilling ones again with their stacks in workgroup
/// memory.
fn every_kernel(base: fn(KernelKind) -> TraceConfig) -> Vec<TraceConfig> {
    let mut v = KernelKind::ALL.map(base).to_vec();
    v.extend(
        [KernelKind::Persistent, KernelKind::Compacted].map(|k| TraceConfig {
            workgroup_stacks: true,
            ..base(k)
        }),
    );
    v
}

fn check_all_kernels(ctx: &GpuContext, name: &str, mesh: &Mesh, bvh: &GpuBvh, sizes: &[usize]) {
    let most = *sizes.iter().max().unwrap();
    let rays = rays_for(mesh, most, 17 + mesh.len() as u64);
    let want = brute_force(mesh, &rays);
    for config in every_kernel(TraceConfig::new) {
        let kernel = config.kernel;
        let closest = Tracer::new(ctx, config).unwrap();
        let any = Tracer::new(
            ctx,
            TraceConfig {
                any_hit: true,
                ..config
            },
        )
        .unwrap();
        for &n in sizes {
            let what = format!(
                "{}: {name}, {} kernel{}, {n} rays",
                on(ctx),
                kernel.name(),
                if config.workgroup_stacks {
                    ", workgroup stacks"
                } else {
                    ""
                }
            );
            let got = closest.trace_slice(ctx, bvh, &rays[..n]).unwrap();
            let ties = compare(&got, &want[..n], &what);
            assert!(ties * 100 <= n.max(100), "{what}: {ties} ties");
            let (words, _) = any.run_slice(ctx, bvh, &rays[..n], 1).unwrap();
            for (i, &w) in words.iter().enumerate() {
                assert!(
                    w == 0 || w == 1,
                    "{what}: any hit {i} is {w:#x} (unwritten?)"
                );
                assert_eq!(w == 1, want[i].is_hit(), "{what}: any hit {i}");
            }
        }
    }
}

const SIZES: [usize; 8] = [0, 1, 127, 128, 129, 257, 997, 3001];

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn every_kernel_equals_brute_force_on_the_sah_bvh() {
    let ctx = gpu();
    for (name, mesh) in scenes() {
        let sizes: &[usize] = if name == "bunny" { &[1500] } else { &SIZES };
        let bvh = Bvh::build_cpu(&mesh).upload(ctx).unwrap();
        check_all_kernels(ctx, &format!("{name} (SAH)"), &mesh, &bvh, sizes);
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn every_kernel_equals_brute_force_on_the_gpu_lbvh() {
    let ctx = gpu();
    let lbvh = Lbvh::new(ctx).unwrap();
    for (name, mesh) in scenes() {
        let sizes: &[usize] = if name == "bunny" {
            &[1500]
        } else {
            &[0, 1, 129, 1001]
        };
        let g = lbvh.build(ctx, &mesh).unwrap();
        // The tree read back: every triangle once, boxes nested, a finite SAH cost.
        let host = Bvh::read_back(ctx, &g).unwrap();
        host.validate(&mesh)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let stats = host.stats();
        assert!(
            stats.sah.is_finite() && stats.depth <= 64,
            "{name}: {stats:?}"
        );
        check_all_kernels(ctx, &format!("{name} (LBVH)"), &mesh, &g, sizes);
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_lbvh_steps_equal_their_cpu_ports() {
    let ctx = gpu();
    let lbvh = Lbvh::new(ctx).unwrap();
    for spec in ["proc:soup:3001:2", "proc:plane:20", "proc:grid:6"] {
        let mesh = Mesh::load(spec).unwrap();
        let soup = ctx
            .storage_from("soup", &wavekit_trace::lbvh::soup_words(&mesh))
            .unwrap();
        let bound = lbvh.bind(ctx, &soup, mesh.len() as u32).unwrap();
        ctx.submit(|e| bound.record(e));
        bound.check(ctx).unwrap();
        let (keys, perm) = bound.codes(ctx).unwrap();
        // The sort: ascending, stable (equal codes keep the triangles' order).
        for j in 1..keys.len() {
            assert!(
                keys[j - 1] < keys[j] || (keys[j - 1] == keys[j] && perm[j - 1] < perm[j]),
                "{spec}: sorted position {j}"
            );
        }
        // The codes: each triangle's equals the CPU port's (the quantisation divides; a
        // last-bit difference may move a centroid on a cell boundary: at most 0.1 %).
        let want = wavekit_trace::lbvh::morton_codes(&mesh);
        let off = (0..keys.len())
            .filter(|&j| want[perm[j] as usize] != keys[j])
            .count();
        assert!(off * 1000 <= keys.len(), "{spec}: {off} codes differ");
        // The hierarchy over the GPU's sorted codes: exactly the CPU port's.
        let host = Bvh::read_back(ctx, bound.bvh()).unwrap();
        let h = wavekit_trace::lbvh::hierarchy(&keys);
        for (i, c) in h.iter().enumerate() {
            assert_eq!(host.nodes[i].child, *c, "{spec}: node {i}");
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_tessellated_plane_never_lets_a_ray_through() {
    let ctx = gpu();
    let k = 24u32;
    let mesh = Mesh::load(&format!("proc:plane:{k}")).unwrap();
    // Rays at every corner, along every edge (quarters) and through every diagonal's middle,
    // straight down and slanted in eight directions.
    let mut rays = Vec::new();
    for y in 1..4 * k {
        for x in 1..4 * k {
            let (px, py) = (x as f32 / 4.0, y as f32 / 4.0);
            let on_edge = x % 4 == 0 || y % 4 == 0 || x % 4 == y % 4 || (x + y) % 4 == 0;
            if !on_edge {
                continue;
            }
            let s = [
                (0.0, 0.0),
                (0.3, 0.0),
                (0.0, -0.3),
                (0.2, 0.2),
                (-0.25, 0.1),
            ][((x + y) % 5) as usize];
            let d = [s.0, s.1, -1.0];
            rays.push(Ray {
                origin: [px - d[0], py - d[1], 1.0],
                tmin: 0.0,
                dir: d,
                tmax: f32::INFINITY,
            });
        }
    }
    assert!(rays.len() > 5_000, "{}", rays.len());
    for build in ["SAH", "LBVH"] {
        let bvh = if build == "SAH" {
            Bvh::build_cpu(&mesh).upload(ctx).unwrap()
        } else {
            Lbvh::new(ctx).unwrap().build(ctx, &mesh).unwrap()
        };
        for kernel in KernelKind::ALL {
            let t = Tracer::new(ctx, TraceConfig::new(kernel)).unwrap();
            let hits = t.trace_slice(ctx, &bvh, &rays).unwrap();
            let leaks: Vec<usize> = (0..rays.len()).filter(|&i| !hits[i].is_hit()).collect();
            assert!(
                leaks.is_empty(),
                "{}: {build}, {}: {} rays slipped through, e.g. {:?}",
                on(ctx),
                kernel.name(),
                leaks.len(),
                rays[leaks[0]]
            );
            for h in &hits {
                assert!((h.t - 1.0).abs() < 1e-5, "{h:?}");
            }
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn diagnostics_count_utilisation_and_leave_hits_alone() {
    let ctx = gpu();
    let mesh = Mesh::load("proc:soup:3000:9").unwrap();
    let bvh = Bvh::build_cpu(&mesh).upload(ctx).unwrap();
    let rays = rays_for(&mesh, 2000, 3);
    let want = brute_force(&mesh, &rays);
    for kernel in KernelKind::ALL {
        let t = Tracer::new(
            ctx,
            TraceConfig {
                diagnostics: true,
                ..TraceConfig::new(kernel)
            },
        )
        .unwrap();
        let (words, bound) = t.run_slice(ctx, &bvh, &rays, 4).unwrap();
        let got: Vec<Hit> = bytemuck::cast_slice(&words).to_vec();
        compare(
            &got,
            &want,
            &format!("{}: diagnostics {}", on(ctx), kernel.name()),
        );
        let u = bound.utilisation(ctx).unwrap().unwrap();
        // Every ray visits the root: at least one node test each.
        assert!(u.node_tests >= rays.len() as u64, "{u:?}");
        assert!(
            u.tri_tests > 0 && u.node_steps > 0 && u.tri_steps > 0,
            "{u:?}"
        );
        for x in [u.nodes(), u.tris()] {
            assert!(x > 0.0 && x <= 1.0, "{}: {u:?}", kernel.name());
        }
        if u.width == 1 {
            assert_eq!((u.nodes(), u.tris()), (1.0, 1.0));
        }
        eprintln!(
            "[wavekit-trace tests] {} utilisation at width {}: nodes {:.2}, triangles {:.2}",
            kernel.name(),
            u.width,
            u.nodes(),
            u.tris()
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_stack_too_short_is_an_error_not_a_wrong_answer() {
    let ctx = gpu();
    let mesh = Mesh::load("proc:soup:2000:1").unwrap();
    let host = Bvh::build_cpu(&mesh);
    let depth = host.stats().depth;
    let mut bvh = host.upload(ctx).unwrap();
    let rays = rays_for(&mesh, 300, 1);
    for kernel in KernelKind::ALL {
        let config = TraceConfig {
            stack: 2,
            ..TraceConfig::new(kernel)
        };
        let t = Tracer::new(ctx, config).unwrap();
        let e = t.trace_slice(ctx, &bvh, &rays).unwrap_err().to_string();
        assert!(e.contains(&format!("{depth} nodes deep")), "{e}");
        // Depth unknown (as for a GPU build not read back): the kernel's guard reports it.
        bvh.depth = None;
        let e = t.trace_slice(ctx, &bvh, &rays).unwrap_err().to_string();
        assert!(e.contains("overflowed"), "{e}");
        bvh.depth = Some(depth);
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn wrong_buffers_are_errors() {
    let ctx = gpu();
    let mesh = Mesh::load("proc:soup:10").unwrap();
    let bvh = Bvh::build_cpu(&mesh).upload(ctx).unwrap();
    let t = Tracer::new(ctx, TraceConfig::new(KernelKind::Baseline)).unwrap();
    let rays = ctx.storage_uninit("rays", 32 * 10).unwrap();
    let small = ctx.storage_uninit("hits", 16 * 9).unwrap();
    let e = t
        .bind(ctx, &bvh, &rays, &small, 10)
        .unwrap_err()
        .to_string();
    assert!(e.contains("16 bytes a ray"), "{e}");
    assert!(t.occluded_slice(ctx, &bvh, &[]).is_err());
}

/// Path tracing: every kernel's paths against the CPU twin's (the same paths from the same
/// seeds; `wavekit_trace::paths`), poisoned outputs all written, on a procedural scene whose
/// paths end at very different depths. The GPU's cos, sin and sqrt may differ from the CPU's
/// in the last bits, so a path's next direction can differ a little and, rarely, meet another
/// triangle: a path's radiance must equal the twin's within 1e-3 (and its bounce count
/// exactly) for at least 97 % of the paths, and the image's mean within 1 %.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn path_tracing_equals_its_cpu_twin() {
    use wavekit_trace::paths::{PathSettings, trace_path};
    use wavekit_trace::rays::epsilon;
    let ctx = gpu();
    // A box open at the top (y = 1) with triangles floating inside, seen from within: paths
    // bounce until they leave through the top or roulette ends them.
    let mut corners: Vec<[[f32; 3]; 3]> = Vec::new();
    let quad = |c: &mut Vec<[[f32; 3]; 3]>, p: [[f32; 3]; 4]| {
        c.push([p[0], p[1], p[2]]);
        c.push([p[0], p[2], p[3]]);
    };
    let v = |x: f32, y: f32, z: f32| [x, y, z];
    quad(
        &mut corners,
        [v(0., 0., 0.), v(1., 0., 0.), v(1., 0., 1.), v(0., 0., 1.)],
    );
    quad(
        &mut corners,
        [v(0., 0., 0.), v(0., 1., 0.), v(0., 1., 1.), v(0., 0., 1.)],
    );
    quad(
        &mut corners,
        [v(1., 0., 0.), v(1., 1., 0.), v(1., 1., 1.), v(1., 0., 1.)],
    );
    quad(
        &mut corners,
        [v(0., 0., 0.), v(1., 0., 0.), v(1., 1., 0.), v(0., 1., 0.)],
    );
    quad(
        &mut corners,
        [v(0., 0., 1.), v(1., 0., 1.), v(1., 1., 1.), v(0., 1., 1.)],
    );
    let inside = Mesh::load("proc:soup:300:5").unwrap();
    for t in &inside.triangles {
        corners.push(t.map(|i| inside.positions[i as usize].map(|c| 0.2 + 0.6 * c)));
    }
    let mesh = Mesh::from_soup(&corners).unwrap();
    let bvh = Bvh::build_cpu(&mesh);
    let gbvh = bvh.upload(ctx).unwrap();
    let (w, h) = (23u32, 17u32);
    let mut rng = fastrand::Rng::with_seed(3);
    let primary: Vec<Ray> = (0..w * h)
        .map(|_| Ray {
            origin: [0.5, 0.15, 0.5],
            tmin: 0.0,
            dir: [rng.f32() - 0.5, rng.f32() - 0.3, rng.f32() - 0.5],
            tmax: f32::INFINITY,
        })
        .collect();
    let settings = PathSettings {
        spp: 3,
        bounces: 8,
        seed: 7,
        epsilon: epsilon(&mesh),
    };
    let n = (w * h * settings.spp) as usize;
    let want: Vec<([f32; 3], u32)> = (0..n)
        .map(|p| {
            trace_path(
                &bvh,
                &primary[p / settings.spp as usize],
                p as u32,
                &settings,
            )
        })
        .collect();
    // The scene makes paths of many lengths.
    let mut lengths = [0usize; 9];
    for (_, b) in &want {
        lengths[*b as usize] += 1;
    }
    assert!(
        lengths.iter().filter(|&&c| c > 0).count() >= 4,
        "{lengths:?}"
    );
    let rb = ctx.storage_from("primary", &primary).unwrap();
    for config in every_kernel(TraceConfig::paths) {
        let kernel = config.kernel;
        let tracer = Tracer::new(ctx, config).unwrap();
        let out = ctx.storage_poisoned("paths", 4 * n).unwrap();
        let bound = tracer
            .bind_paths(ctx, &gbvh, &rb, &out, w * h, &settings)
            .unwrap();
        ctx.submit(|e| bound.record(e));
        bound.check(ctx).unwrap();
        let got: Vec<u32> = ctx.read_back("paths", &out, 4 * n).unwrap();
        assert!(!got.contains(&POISON), "{kernel:?}: a path was not written");
        let mut off = 0;
        let (mut mean_got, mut mean_want) = (0.0f64, 0.0f64);
        for (p, (rad, bounces)) in want.iter().enumerate() {
            let g = [0, 1, 2].map(|c| f32::from_bits(got[4 * p + c]));
            let same = got[4 * p + 3] == *bounces
                && (0..3).all(|c| (g[c] - rad[c]).abs() <= 1e-3 * (1.0 + rad[c].abs()));
            off += usize::from(!same);
            mean_got += f64::from(g[0] + g[1] + g[2]);
            mean_want += f64::from(rad[0] + rad[1] + rad[2]);
        }
        eprintln!("{kernel:?}: {off} of {n} paths differ from the twin; lengths {lengths:?}");
        assert!(
            off * 100 <= 3 * n,
            "{kernel:?} on {}: {off} of {n} paths differ",
            on(ctx)
        );
        assert!(
            (mean_got - mean_want).abs() <= 0.01 * mean_want,
            "{kernel:?}: image mean {mean_got} against {mean_want}"
        );
    }
}
