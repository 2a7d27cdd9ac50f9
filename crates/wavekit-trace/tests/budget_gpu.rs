//! Issue 52, the tracer: every ray traced to its end, or the call fails. llvmpipe ends every
//! loop of a shader once it has taken 65 535 loop iterations in all (nested loops included,
//! per subgroup); the persistent and compacted kernels, which walk several rays a lane, left
//! rays unwritten or wrote misses for rays cut short. Here: rays through a stack of slivers
//! whose boxes they cross but whose triangles they miss (every box is entered, none prunes),
//! to a blocker behind them; every kernel, outputs poisoned, at the adapter's budget, at one
//! that fits a ray but not a lane's several (the rest pass, on any adapter), and at one too
//! small for a single ray (an error, never a default). ADR-0091.

use wavekit::POISON;
use wavekit_trace::{Bvh, KernelKind, Mesh, Ray, TraceConfig, TraceError, Tracer};

/// `n` slivers, the lower-right half of the unit square at heights 0 .. 1, and a blocker, two
/// triangles (n and n + 1) covering [-1, 2]² at height 1.5.
fn slivers(n: usize) -> Mesh {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..n {
        let z = i as f32 / n as f32;
        let b = positions.len() as u32;
        positions.extend([[0.0, 0.0, z], [1.0, 0.0, z], [1.0, 1.0, z]]);
        triangles.push([b, b + 1, b + 2]);
    }
    let b = positions.len() as u32;
    positions.extend([
        [-1.0, -1.0, 1.5],
        [2.0, -1.0, 1.5],
        [2.0, 2.0, 1.5],
        [-1.0, 2.0, 1.5],
    ]);
    triangles.extend([[b, b + 1, b + 2], [b, b + 2, b + 3]]);
    Mesh::new(positions, triangles).unwrap()
}

/// Rays up the stack through its upper-left half (inside every sliver's box, off every
/// sliver): each hits the blocker at t = 2.5.
fn rays(n: usize, seed: u64) -> Vec<Ray> {
    let mut r = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|_| Ray {
            origin: [0.1 + 0.3 * r.f32(), 0.6 + 0.3 * r.f32(), -1.0],
            tmin: 0.0,
            dir: [0.0, 0.0, 1.0],
            tmax: f32::INFINITY,
        })
        .collect()
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn rays_through_a_stack_of_slivers_are_traced_by_every_kernel() {
    let ctx = wavekit_harness::gpu();
    // Without subgroups a lane cannot see what the lanes beside it in llvmpipe's vector spent,
    // so a round is counted at the most it can cost (ADR-0091), and a ray through 10 000
    // slivers passes even the software budget on its own: a thousand there.
    let n = if ctx.caps.subgroups.supported {
        10_000
    } else {
        1_000
    };
    let mesh = slivers(n);
    let bvh = Bvh::build_cpu(&mesh).upload(ctx).unwrap();
    let rays = rays(1024, 52);
    let (mut handed, mut refused) = (0, 0);
    for kernel in [
        KernelKind::Baseline,
        KernelKind::Persistent,
        KernelKind::Compacted,
    ] {
        // The adapter's budget (llvmpipe's on lavapipe, none on a GPU); budgets a ray fits but
        // a lane's four may not (a ray costs 5 000 to 15 000 here, by the rounds its 1 000 or
        // 10 000 slivers take and how the adapter counts them; on the H200 without subgroups
        // four rays fit 60 000); one no ray fits.
        for budget in [None, Some(60_000), Some(20_000), Some(10_000), Some(5_000)] {
            let case = format!("{kernel:?} budget {budget:?}");
            let tracer = Tracer::new(
                ctx,
                TraceConfig {
                    loop_budget: budget,
                    // Several rays a lane.
                    persistent_workgroups: 2,
                    ..TraceConfig::new(kernel)
                },
            )
            .unwrap();
            match tracer.run_slice(ctx, &bvh, &rays, 4) {
                Ok((words, bound)) => {
                    eprintln!("{case}: ok, handed on {}", bound.handed_on(ctx).unwrap());
                    for (i, h) in words.chunks(4).enumerate() {
                        assert_ne!(h[1], POISON, "{case}: ray {i} not written");
                        let t = f32::from_bits(h[0]);
                        assert!(
                            (t - 2.5).abs() < 1e-4 && (h[1] == n as u32 || h[1] == n as u32 + 1),
                            "{case}: ray {i} hit {} at {t}, not the blocker at 2.5",
                            h[1]
                        );
                    }
                    if budget.is_some() {
                        handed += bound.handed_on(ctx).unwrap();
                    }
                }
                Err(TraceError::Unanswered {
                    rays: r,
                    unanswered,
                    given_up,
                    ..
                }) if budget.is_some() => {
                    assert_eq!(r, rays.len() as u32, "{case}");
                    assert!(unanswered > 0 && given_up > 0, "{case}");
                    refused += 1;
                    eprintln!("{case}: refused, {unanswered} unanswered");
                }
                Err(e) => panic!("{case}: {e}"),
            }
        }
    }
    eprintln!("handed on {handed}, refused {refused}");
    assert!(handed > 0, "no ray was handed on to the rest pass");
    assert!(refused > 0, "no ray passed the smallest budget");
}
