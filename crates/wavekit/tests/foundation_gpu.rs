//! The foundation on a real Vulkan driver: the self-test, the copy kernel, the timer, errors.

mod common;

use common::{gpu, on, run};
use wavekit::copy::CopyKernel;
use wavekit::{ContextOptions, Error, GpuContext, GpuTimer, POISON, TimingMethod};
use wavekit_selftest::{self as selftest, reference};

/// The context, which must have subgroup operations: the self-test and the lane-0 pitfall are
/// about subgroups (a device without them is refused by
/// `a_subgroup_path_on_a_subgroupless_device_is_a_clear_error`), so the test command skips
/// these two by name where it hides subgroups, and a run of them without subgroups fails.
fn with_subgroups(test: &str) -> &'static GpuContext {
    let ctx = gpu();
    assert!(
        ctx.caps.subgroups.supported,
        "{test} checks subgroup operations and ran on a device without them: skip it there \
         (--skip {test})"
    );
    ctx
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn selftest_passes_for_several_seeds() {
    let ctx = with_subgroups("selftest_passes_for_several_seeds");
    for seed in [1u64, 0x5eed, 0xdead_beef_cafe] {
        let report = selftest::run(ctx, seed).unwrap();
        for f in &report.families {
            assert!(
                f.ok(),
                "{} seed {seed}: {} failed: {:?}",
                on(ctx),
                f.family,
                f.first_failure
            );
        }
        assert!(report.shapes.iter().any(|s| s.skipped.is_none()));
    }
}

/// wgpu does not check a kernel's workgroup memory against the device's limit, and a driver
/// given one over it may lose the device: wavekit refuses it with an error instead.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_kernel_over_the_workgroup_memory_limit_is_an_error() {
    let ctx = gpu();
    let limit = ctx.device.limits().max_compute_workgroup_storage_size;
    let kernel = |words: u32| {
        let text = format!(
            "var<workgroup> big: array<u32, {words}>;\n\
             @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32) {{\n\
             \x20   big[i] = i;\n    workgroupBarrier();\n    out[i] = big[63u - i];\n}}"
        );
        let c = wavekit::shader::compose("t/big", &[], &[], &[("t/big", &text)]).unwrap();
        wavekit::kernel::Kernel::new(ctx, &c)
    };
    kernel(limit / 4).unwrap_or_else(|e| panic!("{}: at the limit: {e}", on(ctx)));
    match kernel(limit / 4 + 4) {
        Err(Error::WorkgroupMemoryTooLarge {
            bytes, limit: l, ..
        }) => {
            assert_eq!((bytes, l), (u64::from(limit) + 16, u64::from(limit)));
        }
        other => panic!("{}: 16 bytes over the limit gave {other:?}", on(ctx)),
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_subgroup_op_inside_a_lane_zero_branch_sees_one_lane() {
    let ctx = with_subgroups("a_subgroup_op_inside_a_lane_zero_branch_sees_one_lane");
    let width = ctx.caps.subgroups.max_size;
    assert!(width > 1, "the pitfall needs more than one lane");
    let input = reference::make_input(11, 4, 64);
    let out = selftest::run_shape(ctx, [64, 1, 1], &input).unwrap();
    let fields = reference::FIELDS as usize;
    for (i, rec) in out.chunks_exact(fields).enumerate() {
        let (lane, lane0_add, uniform_add) = (rec[1], rec[35], rec[36]);
        assert_eq!(uniform_add, width.min(64), "{}: invocation {i}", on(ctx));
        if lane == 0 {
            // The tempting code `if (lane == 0) { total = subgroupAdd(x); }` sums one lane.
            assert_eq!(lane0_add, 1, "{}: invocation {i}", on(ctx));
        } else {
            assert_eq!(lane0_add, u32::MAX, "{}: invocation {i}", on(ctx));
        }
    }
}

/// Copy sizes in bytes: whole 16-byte words (one, around a workgroup of 256, primes, past the
/// grid-stride limit of one pass) and the same with a 4-, 8- or 12-byte remainder.
const COPY_SIZES: [u64; 14] = [
    4,
    8,
    12,
    16,
    20,
    255 * 16,
    256 * 16 + 4,
    257 * 16 + 8,
    8191 * 16 + 12,
    65_537 * 16,
    (1 << 20) * 16,
    (1 << 20) * 16 + 12,
    ((1 << 21) + 13) * 16,
    ((1 << 21) + 13) * 16 + 4,
];

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_copy_kernel_copies_every_byte_and_nothing_more() {
    let ctx = gpu();
    let kernel = CopyKernel::new(ctx).unwrap();
    let mut rng = fastrand::Rng::with_seed(42);
    for bytes in COPY_SIZES {
        let words = (bytes / 4) as usize;
        let data: Vec<u32> = (0..words).map(|_| rng.u32(..)).collect();
        let src = ctx.storage_from("src", &data).unwrap();
        // Four spare words after the end must stay poisoned.
        let dst = ctx.storage_poisoned("dst", words + 4).unwrap();
        let bound = kernel.bind(ctx, &src, &dst, bytes).unwrap();
        run(ctx, |e| bound.record(e));
        let got: Vec<u32> = ctx.read_back("dst", &dst, words + 4).unwrap();
        assert!(
            got[..words] == data[..],
            "{}: copy of {bytes} bytes differs",
            on(ctx)
        );
        assert_eq!(
            &got[words..],
            &[POISON; 4],
            "{}: copy of {bytes} bytes wrote past the end",
            on(ctx)
        );
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn copy_rejects_bad_sizes_without_panicking() {
    let ctx = gpu();
    let kernel = CopyKernel::new(ctx).unwrap();
    let a = ctx.storage_poisoned("a", 64).unwrap();
    let b = ctx.storage_poisoned("b", 64).unwrap();
    // Not a multiple of 4, or past the end of the buffers.
    for bytes in [2u64, 15, 17, 260] {
        let e = kernel.bind(ctx, &a, &b, bytes).expect_err("must fail");
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    // A remainder past whole 16-byte words needs a buffer copy, which needs COPY_DST.
    let storage_only = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("storage only"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let e = kernel
        .bind(ctx, &a, &storage_only, 20)
        .expect_err("must fail");
    assert!(e.to_string().contains("COPY_DST"), "{e}");
    // Whole words need nothing but storage.
    kernel.bind(ctx, &a, &storage_only, 32).unwrap();
    // Nothing to copy is not an error, and records nothing.
    assert_eq!(kernel.bind(ctx, &a, &b, 0).unwrap().chunks(), 0);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_timer_measures_the_copy_kernel() {
    let ctx = gpu();
    let kernel = CopyKernel::new(ctx).unwrap();
    let src = ctx.storage_uninit("src", 1 << 20).unwrap();
    let dst = ctx.storage_uninit("dst", 1 << 20).unwrap();
    let bound = kernel.bind(ctx, &src, &dst, 1 << 20).unwrap();
    let want = if ctx.caps.timestamps == wavekit::TimestampSupport::None {
        TimingMethod::WallClock
    } else {
        TimingMethod::GpuTimestamps
    };
    // Both ways of bracketing a run: timestamps between passes where the device can write them,
    // and the empty marker passes.
    let inside = ctx.caps.timestamps == wavekit::TimestampSupport::InsideEncoders;
    let timers = [
        GpuTimer::new(ctx, 8),
        GpuTimer::new(ctx, 8).with_marker_passes(),
    ];
    assert_eq!(
        timers
            .iter()
            .map(GpuTimer::uses_marker_passes)
            .collect::<Vec<_>>(),
        [
            want == TimingMethod::GpuTimestamps && !inside,
            want == TimingMethod::GpuTimestamps,
        ]
    );
    for timer in &timers {
        let t = timer.measure(ctx, 1, 8, |enc| bound.record(enc)).unwrap();
        assert_eq!(t.method, want);
        assert_eq!(t.samples_ns.len(), 8);
        // Not a speed assertion: a missing or unresolved timestamp reads as 0 or garbage (a
        // difference that wrapped around reads as centuries; a 1 MiB copy takes far under 10 s).
        assert!(
            t.samples_ns
                .iter()
                .all(|s| s.is_finite() && *s > 0.0 && *s < 1e10),
            "{:?}",
            t.samples_ns
        );
        assert!(t.min_ns <= t.median_ns && t.median_ns <= t.max_ns);
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn an_unknown_adapter_name_is_a_clear_error() {
    gpu();
    let opts = ContextOptions {
        adapter: Some("no-such-adapter-xyz".into()),
        ..Default::default()
    };
    let e = GpuContext::new(&opts).unwrap_err();
    assert!(matches!(e, Error::AdapterNotFound { .. }), "{e}");
    assert!(e.to_string().contains("available adapters"), "{e}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_subgroup_path_on_a_subgroupless_device_is_a_clear_error() {
    let opts = ContextOptions {
        disable_subgroups: true,
        ..gpu().options().clone()
    };
    let ctx = GpuContext::new(&opts).unwrap();
    assert!(!ctx.caps.subgroups.supported);
    let e = selftest::run(&ctx, 1).unwrap_err();
    assert!(matches!(e, Error::MissingFeature { .. }), "{e}");
    assert!(e.to_string().contains("disable_subgroups"), "{e}");
    // Building the kernel directly is refused by validation, not by a driver crash.
    let e = selftest::run_shape(&ctx, [64, 1, 1], &[0; 64]).unwrap_err();
    assert!(matches!(e, Error::Shader { .. }), "{e}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn oversized_buffers_and_workgroups_are_refused_with_the_limit() {
    let ctx = gpu();
    let limit = ctx.caps.limits.max_storage_buffer_binding_size;
    let e = ctx.check_binding("input", limit + 4).unwrap_err();
    assert!(e.to_string().contains(&limit.to_string()), "{e}");
    let max = ctx.caps.limits.max_buffer_size;
    let e = ctx.storage_uninit("huge", max + 4).unwrap_err();
    assert!(matches!(e, Error::BufferTooLarge { .. }), "{e}");
    let e = ctx.check_workgroup([4096, 1, 1]).unwrap_err();
    assert!(matches!(e, Error::WorkgroupTooLarge { .. }), "{e}");
    let e = selftest::run_shape(ctx, [16, 16, 1], &[0; 256]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_wgpu_validation_error_becomes_an_error_value() {
    let ctx = gpu();
    let buf = ctx.storage_poisoned("small", 4).unwrap();
    // Binding past the end of a buffer is a validation error in wgpu.
    let layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
    let r = ctx.scoped("a deliberately bad bind group", || {
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buf,
                    offset: 0,
                    size: wgpu::BufferSize::new(1 << 20),
                }),
            }],
        })
    });
    let e = r.expect_err("must be an error");
    assert!(matches!(e, Error::Gpu { .. }), "{e}");
    assert!(
        e.to_string().contains("a deliberately bad bind group"),
        "{e}"
    );
    // The context stays usable afterwards.
    ctx.check_health().unwrap();
}

/// The occupancy probe: every workgroup it counts in is counted out, the peak lies between one
/// and the dispatch (more workgroups resident than dispatched, or none, would be a broken
/// counter), and cases a user can get wrong are refused before anything runs.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn occupancy_probe_counts_resident_workgroups() {
    use wavekit_bench::occupancy::{OccupancyCase, OccupancyConfig, occupancy};
    use wavekit_bench::protocol::NoClock;
    let ctx = gpu();
    let config = OccupancyConfig {
        workgroups: 24,
        spin: 200,
        runs: 2,
    };
    let cases = [
        OccupancyCase {
            workgroup: 64,
            shared_bytes: 4,
            streams: 1,
        },
        OccupancyCase {
            workgroup: 128,
            shared_bytes: 8192,
            streams: 16,
        },
    ];
    let mut seen = Vec::new();
    let results = occupancy(ctx, &cases, &config, &NoClock, |i, n, c| {
        seen.push((i, n, *c))
    })
    .unwrap();
    assert_eq!(seen.len(), 2, "{}", on(ctx));
    for (r, case) in results.iter().zip(cases) {
        assert_eq!(r.case, case);
        assert!(
            (1..=24).contains(&r.peak),
            "{}: peak {} of 24 dispatched",
            on(ctx),
            r.peak
        );
        assert_eq!(
            r.peak_invocations,
            u64::from(r.peak) * u64::from(case.workgroup)
        );
    }
    for (bad, what) in [
        ((0, 4, 1), "at least one invocation"),
        ((64, 6, 1), "multiple of 4"),
        ((64, 0, 1), "multiple of 4"),
        ((64, 4, 0), "1 to 256"),
        ((64, 4, 257), "1 to 256"),
    ] {
        let case = OccupancyCase {
            workgroup: bad.0,
            shared_bytes: bad.1,
            streams: bad.2,
        };
        match occupancy(ctx, &[case], &config, &NoClock, |_, _, _| {}) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(what), "{m}"),
            other => panic!("{case:?}: expected an invalid-argument error, got {other:?}"),
        }
    }
    let over = OccupancyCase {
        workgroup: 64,
        shared_bytes: ctx.device.limits().max_compute_workgroup_storage_size + 4,
        streams: 1,
    };
    // Checked before any case runs: a good case first must not run either.
    let good = cases[0];
    let mut ran = 0;
    assert!(matches!(
        occupancy(ctx, &[good, over], &config, &NoClock, |_, _, _| ran += 1),
        Err(Error::WorkgroupMemoryTooLarge { .. })
    ));
    let wide = OccupancyCase {
        workgroup: ctx.device.limits().max_compute_invocations_per_workgroup + 1,
        shared_bytes: 4,
        streams: 1,
    };
    assert!(matches!(
        occupancy(ctx, &[good, wide], &config, &NoClock, |_, _, _| ran += 1),
        Err(Error::WorkgroupTooLarge { .. })
    ));
    assert_eq!(ran, 0, "no case runs when one is over the device's limits");
}

/// The dispatch-chain probe times every chain length for every size, and checks on the host
/// that each recorded dispatch stepped every word once (a dispatch left out, or a wrong step,
/// is an error); sizes out of range are refused.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn dispatch_chain_probe_times_every_length_and_checks_every_step() {
    use wavekit_bench::chain::{MAX_DISPATCHES, chain};
    use wavekit_bench::protocol::{NoClock, Protocol};
    // No warm-up on lavapipe: the probe's checks, not its times, are under test.
    let quick = |runs| Protocol {
        runs,
        rounds: 1,
        warm_up: std::time::Duration::ZERO,
        marker_passes: false,
    };
    let ctx = gpu();
    let results = chain(ctx, &[1, 5], 3, &quick(2), &NoClock, |_, _, _, _| {}).unwrap();
    let shape: Vec<(u32, u32)> = results
        .iter()
        .map(|r| (r.workgroups, r.dispatches))
        .collect();
    assert_eq!(
        shape,
        [
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (5, 0),
            (5, 1),
            (5, 2),
            (5, 3)
        ],
        "{}",
        on(ctx)
    );
    assert!(results.iter().all(|r| r.median_ns > 0.0));
    for (workgroups, dispatches, what) in [
        (vec![0], 1, "1 to"),
        (vec![1 << 21], 1, "1 to"),
        (vec![1], MAX_DISPATCHES + 1, "at most"),
    ] {
        match chain(
            ctx,
            &workgroups,
            dispatches,
            &quick(1),
            &NoClock,
            |_, _, _, _| {},
        ) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(what), "{m}"),
            other => panic!("{workgroups:?} × {dispatches}: expected an error, got {other:?}"),
        }
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_kernel_cache_builds_each_key_once_and_reports_errors() {
    use wavekit::kernel::KernelCache;
    let ctx = gpu();
    let cache: KernelCache<u32> = KernelCache::new();
    let composed = |k: &u32| -> wavekit::Result<wavekit::shader::Composed> {
        let text = format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n\
             out[g.x] = {k}u;\n}}\n"
        );
        wavekit::shader::compose("t/cache", &[], &[], &[("t/cache", &text)])
    };
    let mut builds = 0;
    for _ in 0..3 {
        cache
            .get(ctx, &7, |k| {
                builds += 1;
                composed(k)
            })
            .unwrap();
    }
    assert_eq!((builds, cache.len()), (1, 1));
    cache.prebuild(ctx, &[7, 8, 9, 8], composed).unwrap();
    assert_eq!(cache.len(), 3);
    // A clone shares the kernels.
    assert_eq!(cache.clone().len(), 3);
    // A kernel that does not compose is an error, and nothing is cached for it.
    let bad = |_: &u32| wavekit::shader::compose("t/bad", &[], &[], &[("t/bad", "fn f( {")]);
    assert!(cache.get(ctx, &10, bad).is_err());
    assert!(cache.prebuild(ctx, &[11], bad).is_err());
    assert_eq!(cache.len(), 3);
    // The cached kernel runs.
    let out = ctx.storage_poisoned("out", 64).unwrap();
    let k = cache.get(ctx, &9, composed).unwrap();
    let bind = k.bind(ctx, &[(0, &out)]).unwrap();
    ctx.submit(|enc| {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.dispatch(&mut pass, &bind, 1);
    });
    assert_eq!(ctx.read_back::<u32>("out", &out, 64).unwrap(), vec![9; 64]);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn read_back_async_gives_what_read_back_gives_and_the_same_errors() {
    let body = || -> wavekit::Result<()> {
        let ctx = gpu();
        let mut rng = fastrand::Rng::with_seed(0x0a5c);
        for n in [0usize, 1, 3, 4, 5, 1023, 65_537] {
            let data: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
            // Poisoned, then overwritten by a copy recorded before the read-back.
            let src = ctx.storage_from("data", &data)?;
            let dst = ctx.storage_poisoned("copy", n.max(1))?;
            ctx.submit(|enc| enc.copy_buffer_to_buffer(&src, 0, &dst, 0, (4 * n) as u64));
            // On a native device the future polls the device itself.
            let got: Vec<u32> = pollster::block_on(ctx.read_back_async("copy", &dst, n))?;
            assert_eq!(got, data, "n = {n}: the async read-back");
            let blocking: Vec<u32> = ctx.read_back("copy", &dst, n)?;
            assert_eq!(blocking, data, "n = {n}: the blocking read-back");
        }
        let small = ctx.storage_poisoned("small", 4)?;
        let e = pollster::block_on(ctx.read_back_async::<u32>("small", &small, 5)).unwrap_err();
        assert!(e.to_string().contains("from a 16-byte buffer"), "{e}");
        assert!(ctx.read_back::<u32>("small", &small, 5).is_err());
        // The self-test's async form gives the blocking form's verdict.
        if ctx.caps.subgroups.supported {
            let a = pollster::block_on(selftest::run_async(ctx, 7))?;
            let b = selftest::run(ctx, 7)?;
            assert!(a.passed() && b.passed());
            assert_eq!(a.families.len(), b.families.len());
        }
        Ok(())
    };
    body().unwrap();
}

/// The context keeps the kernels it built (`kernel_cache_entries`): the same name and source
/// built again is the kept kernel (and still runs), another source is built; past the count
/// the kept ones are dropped; with 0 none is kept; a kernel that fails to build is not kept.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn built_kernels_are_kept_and_bounded() {
    use wavekit::kernel::Kernel;
    let source = |add: u32| {
        let text = format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n\
             \x20   if g.x < arrayLength(&out) {{ out[g.x] = g.x * 3u + {add}u; }}\n}}"
        );
        wavekit::shader::compose("t/kept", &[], &[], &[("t/kept", &text)]).unwrap()
    };
    let run = |ctx: &GpuContext, k: &Kernel, add: u32| {
        let out = ctx.storage_poisoned("kept", 100).unwrap();
        let bind = k.bind(ctx, &[(0, &out)]).unwrap();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            k.dispatch(&mut pass, &bind, 2);
        }
        ctx.queue.submit([enc.finish()]);
        let got = ctx.read_back::<u32>("kept", &out, 100).unwrap();
        let want: Vec<u32> = (0..100).map(|i| i * 3 + add).collect();
        assert_eq!(got, want, "kernel adding {add}");
    };
    let ctx = GpuContext::new(&ContextOptions {
        kernel_cache_entries: 2,
        ..gpu().options().clone()
    })
    .unwrap();
    let a = Kernel::new(&ctx, &source(1)).unwrap();
    assert_eq!(Kernel::kept(&ctx), (1, 0));
    let again = Kernel::new(&ctx, &source(1)).unwrap();
    assert_eq!(Kernel::kept(&ctx), (1, 1), "the same source built twice");
    run(&ctx, &a, 1);
    run(&ctx, &again, 1);
    let b = Kernel::new(&ctx, &source(2)).unwrap();
    assert_eq!(Kernel::kept(&ctx), (2, 1));
    run(&ctx, &b, 2);
    Kernel::new(&ctx, &source(3)).unwrap();
    assert_eq!(Kernel::kept(&ctx), (1, 1), "past the count: started afresh");
    let bad = wavekit::shader::compose("t/bad", &[], &[], &[("t/bad", "fn main() {}")]).unwrap();
    assert!(Kernel::new(&ctx, &bad).is_err());
    assert!(Kernel::new(&ctx, &bad).is_err());
    assert_eq!(Kernel::kept(&ctx).0, 1, "a failed build kept");
    let none = GpuContext::new(&ContextOptions {
        kernel_cache_entries: 0,
        ..gpu().options().clone()
    })
    .unwrap();
    let k = Kernel::new(&none, &source(4)).unwrap();
    Kernel::new(&none, &source(4)).unwrap();
    assert_eq!(Kernel::kept(&none), (0, 0));
    run(&none, &k, 4);
}

/// Uploads and read-backs through kept staging buffers (ADR-0100): sizes up and down around
/// the pool's grain reuse the same buffers and still move every byte; a buffer that served a
/// larger transfer leaves nothing of it in a smaller one's padding; chunks that do not add up
/// are refused; the pool keeps at most what `staging_keep_bytes` allows.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn kept_staging_buffers_move_every_byte_and_stay_bounded() {
    let ctx = gpu();
    let mut seed = 0x57a6_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let mib = 1usize << 18; // words in a mebibyte
    // 9 MiB and more: copied by several threads each way (`copy_bytes`).
    for words in [
        3 * mib + 1,
        mib,
        mib - 1,
        2 * mib + 7,
        3,
        mib + 3,
        5 * mib,
        9 * mib + 5,
    ] {
        let data: Vec<u32> = (0..words).map(|_| next()).collect();
        let buf = ctx.storage_from("staged", &data).unwrap();
        assert_eq!(
            ctx.read_back::<u32>("staged", &buf, words).unwrap(),
            data,
            "{words} words"
        );
        // Through the mapped form too.
        let m = ctx.read_back_mapped("staged", &buf, words * 4).unwrap();
        assert_eq!(m.len(), words * 4);
        let same = m
            .with(|b| b == bytemuck::cast_slice::<u32, u8>(&data))
            .unwrap();
        assert!(same, "{words} words, mapped");
        // Handed over as elements (read_back_with), and a prefix of them.
        let got = ctx
            .read_back_with("staged", &buf, words, <[u32]>::to_vec)
            .unwrap();
        assert_eq!(got, data, "{words} words, handed over");
        let few = ctx
            .read_back_with("staged", &buf, words / 2, |e: &[u32]| e.to_vec())
            .unwrap();
        assert_eq!(few, data[..words / 2], "{words} words, half handed over");
    }
    let none = ctx.storage_from("none", &[7u32]).unwrap();
    let n = ctx
        .read_back_with("none", &none, 0, |e: &[u32]| e.len())
        .unwrap();
    assert_eq!(n, 0, "nothing handed over");
    // Chunks converted on the way, odd lengths, and a size not a multiple of 4 (zero padding
    // after a larger transfer through the same staging buffer).
    let bytes: Vec<u8> = (0..(3 << 20) + 5).map(|_| next() as u8).collect();
    let buf = ctx
        .storage_from_chunks("chunks", bytes.len() as u64, bytes.chunks(1000))
        .unwrap();
    let back = ctx
        .read_back::<u8>("chunks", &buf, bytes.len() + 3)
        .unwrap();
    assert_eq!(&back[..bytes.len()], &bytes[..]);
    assert_eq!(&back[bytes.len()..], &[0, 0, 0]);
    let e = ctx
        .storage_from_chunks("short", 10, [&[1u8, 2, 3][..]])
        .unwrap_err();
    assert!(
        e.to_string().contains("3 bytes, not the 10 announced"),
        "{e}"
    );
    let e = ctx
        .storage_from_chunks("long", 2, [&[1u8, 2, 3][..]])
        .unwrap_err();
    assert!(e.to_string().contains("more than 2"), "{e}");
    // Into the caller's buffer: its start written, the rest left as it was; too much refused.
    let dst = ctx.storage_poisoned("caller's", 1 << 19).unwrap();
    let part: Vec<u8> = (0..(1 << 20) + 6).map(|_| next() as u8).collect();
    ctx.write_from_chunks("caller's", &dst, part.len() as u64, part.chunks(777))
        .unwrap();
    let back = ctx.read_back::<u8>("caller's", &dst, 1 << 21).unwrap();
    assert_eq!(&back[..part.len()], &part[..]);
    assert_eq!(&back[part.len()..part.len() + 2], &[0, 0]);
    let rest: Vec<u32> = bytemuck::pod_collect_to_vec(&back[part.len() + 2..]);
    assert!(rest.iter().all(|&w| w == POISON), "written past the end");
    let e = ctx
        .write_from_chunks("caller's", &dst, (1 << 21) + 1, [vec![0u8; (1 << 21) + 1]])
        .unwrap_err();
    assert!(e.to_string().contains("a buffer of 2097152"), "{e}");
    let (up, down) = ctx.staging_kept();
    let keep = ctx.options().staging_keep_bytes;
    assert!(
        up > 0 && down > 0 && up <= keep && down <= keep,
        "{up} {down}"
    );
    // A context that keeps nothing still moves the data.
    let none = GpuContext::new(&ContextOptions {
        staging_keep_bytes: 0,
        ..ctx.options().clone()
    })
    .unwrap();
    let data: Vec<u32> = (0..2 * mib).map(|_| next()).collect();
    let buf = none.storage_from("unkept", &data).unwrap();
    assert_eq!(
        none.read_back::<u32>("unkept", &buf, data.len()).unwrap(),
        data
    );
    assert_eq!(none.staging_kept(), (0, 0));
}

/// `#unroll` blocks build in full or as loops as `ContextOptions::unroll_in_full` says (by
/// default loops on a software adapter only, ADR-0106), and both forms compute the same: a
/// small kernel whose private array is indexed by the unrolled name, and the core's
/// primitives (scan, reduce, select, partition, sort, histogram: the kernels with the most
/// `#unroll` blocks) on several tiles of random input against the CPU. The WGSL each context
/// built is dumped and read back, so a context that built the other form fails here.
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn unroll_blocks_build_in_full_or_as_loops_and_compute_the_same() {
    use wavekit::kernel::Kernel;
    use wavekit::monoid::Op;
    let text = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n\
        var a: array<u32, 6>;\n\
        #unroll j 6\n\
        a[{j}] = g.x * ({j} + 1u) + {j};\n\
        #end\n\
        var s = 0u;\n\
        #unroll j 6\n\
        s = s * 3u + a[5u - {j}];\n\
        #end\n\
        if g.x < arrayLength(&out) { out[g.x] = s; }\n}";
    let composed = wavekit::shader::compose("t/unroll", &[], &[], &[("t/unroll", text)]).unwrap();
    assert!(composed.form(false).source.contains("for (var unroll_j"));
    assert!(!composed.form(true).source.contains("for (var unroll_"));
    let want_one = |x: u32| {
        let a: Vec<u32> = (0..6).map(|j| x * (j + 1) + j).collect();
        (0..6).fold(0u32, |s, j| s.wrapping_mul(3).wrapping_add(a[5 - j]))
    };
    let mut seed = 0x0071_u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let n = 70_001;
    let data: Vec<u32> = (0..n).map(|_| next() >> 8).collect();
    let flags: Vec<u32> = (0..n).map(|_| next() & 1).collect();
    // The full form (what GPUs build) at every width; the loops asked for and the default at
    // the first (the sweep's rest, ADR-0101): every other test there builds loops.
    let sweep = wavekit_harness::sweep();
    for (i, in_full) in [Some(true), Some(false), None].into_iter().enumerate() {
        if !sweep.takes(false, i == 0) {
            continue;
        }
        let temp = tempfile::Builder::new()
            .prefix("wavekit-unroll-")
            .tempdir()
            .unwrap();
        let dump = temp.path().join("dump");
        let ctx = GpuContext::new(&ContextOptions {
            unroll_in_full: in_full,
            dump_wgsl: Some(dump.clone()),
            ..gpu().options().clone()
        })
        .unwrap();
        let full = in_full.unwrap_or(!ctx.summary.software);
        assert_eq!(ctx.unrolls_in_full(), full, "{in_full:?}");
        let case = format!("unroll_in_full {in_full:?}");

        let k = Kernel::new(&ctx, &composed).unwrap();
        let out = ctx.storage_poisoned("unroll", 200).unwrap();
        let bind = k.bind(&ctx, &[(0, &out)]).unwrap();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            k.dispatch(&mut pass, &bind, 4);
        }
        ctx.queue.submit([enc.finish()]);
        let got = ctx.read_back::<u32>("unroll", &out, 200).unwrap();
        let want: Vec<u32> = (0..200).map(want_one).collect();
        assert_eq!(got, want, "{case}");

        let mut sum = 0u32;
        let scanned: Vec<u32> = data
            .iter()
            .map(|&x| {
                let before = sum;
                sum = sum.wrapping_add(x);
                before
            })
            .collect();
        assert_eq!(
            wavekit::scan::scan_slice(&ctx, &data, Op::Add, false).unwrap(),
            scanned,
            "{case}: scan"
        );
        assert_eq!(
            wavekit::reduce::reduce_slice(&ctx, &data, Op::Max).unwrap(),
            *data.iter().max().unwrap(),
            "{case}: reduce"
        );
        let kept: Vec<u32> = data
            .iter()
            .zip(&flags)
            .filter(|(_, f)| **f != 0)
            .map(|(x, _)| *x)
            .collect();
        let rest: Vec<u32> = data
            .iter()
            .zip(&flags)
            .filter(|(_, f)| **f == 0)
            .map(|(x, _)| *x)
            .collect();
        assert_eq!(
            wavekit::select::select_slice(&ctx, &data, &flags).unwrap(),
            kept,
            "{case}: select"
        );
        let (parted, count) = wavekit::select::partition_slice(&ctx, &data, &flags).unwrap();
        assert_eq!(count, kept.len(), "{case}: partition");
        assert_eq!(parted, [kept.clone(), rest].concat(), "{case}: partition");
        let mut sorted = data.clone();
        sorted.sort_unstable();
        assert_eq!(
            wavekit::sort::sort_slice(&ctx, &data, false, None).unwrap(),
            sorted,
            "{case}: sort"
        );
        let counts =
            wavekit::histogram::histogram_slice(&ctx, &data, 37, 1000u32, 15_000_000u32).unwrap();
        let mut bins = vec![0u32; 37];
        for &x in &data {
            if (1000..15_000_000).contains(&x) {
                bins[((u64::from(x - 1000) * 37) / (15_000_000 - 1000)) as usize] += 1;
            }
        }
        assert_eq!(counts.bins, bins, "{case}: histogram");

        // The kernels this context built are in the form it names: the small one's text is
        // that form's, and where loops were asked for the primitives' kernels have them too.
        let mut small = 0;
        let mut looped = 0;
        for entry in std::fs::read_dir(&dump).unwrap() {
            let path = entry.unwrap().path();
            let wgsl = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("t_unroll-") {
                assert_eq!(
                    wgsl,
                    composed.form(full).source,
                    "{case}: the small kernel's form"
                );
                small += 1;
            } else {
                looped += usize::from(wgsl.contains("for (var unroll_"));
            }
        }
        assert_eq!(small, 1, "{case}: the small kernel's WGSL dumped once");
        if !full {
            assert!(
                looped >= 5,
                "{case}: {looped} primitives' kernels built as loops"
            );
        }
    }
}
