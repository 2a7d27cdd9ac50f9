//! Issue 51: a wgpu program brings its own adapter, device and queue. This test is such a
//! program: it makes them with wgpu alone (wavekit's harness only names the adapter, as
//! `WAVEKIT_ADAPTER` asks), makes wavekit's context from them with `GpuContext::from_wgpu`,
//! and records a scan and a sort into its own encoder beside a pass of its own; then a codec
//! round trip and a k-NN query on the same device. A device made with wgpu's low default
//! limits is refused with the limits named. Errors in the caller's own work reach the
//! caller's handler, never a later wavekit call.

use std::sync::{Arc, Mutex};

use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::sort::{KeyType, RadixSort, SortConfig};
use wavekit::{ContextOptions, GpuContext, wgpu};

/// The caller's adapter (the one `WAVEKIT_ADAPTER` names, else the first), device (the
/// adapter's own limits, its subgroups unless `WAVEKIT_NO_SUBGROUPS=1`) and queue.
fn own_device(limits: Option<wgpu::Limits>) -> (wgpu::Adapter, wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let want = std::env::var("WAVEKIT_ADAPTER")
        .unwrap_or_default()
        .to_lowercase();
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().name.to_lowercase().contains(&want))
        .expect("a Vulkan adapter (lavapipe counts)");
    let no_sg = std::env::var("WAVEKIT_NO_SUBGROUPS").is_ok_and(|v| v == "1");
    let features = if no_sg {
        wgpu::Features::empty()
    } else {
        adapter.features() & wgpu::Features::SUBGROUP
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the caller's device"),
        required_features: features,
        required_limits: limits.unwrap_or_else(|| adapter.limits()),
        ..Default::default()
    }))
    .expect("a device");
    (adapter, device, queue)
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_wgpu_program_records_wavekit_into_its_own_encoder() {
    let (adapter, device, queue) = own_device(None);
    // The caller's own uncaptured-error handler, which wavekit must leave in place.
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen_cb = seen.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        seen_cb.lock().unwrap().push(e.to_string());
    }));
    let ctx = GpuContext::from_wgpu(
        adapter,
        device.clone(),
        queue.clone(),
        &ContextOptions::default(),
    )
    .unwrap();

    // The caller's buffers, made with wgpu, and a scan and a sort recorded into the caller's
    // encoder after a pass of the caller's own (a clear of the scan's input's first word).
    let n = 100_003usize;
    let mut rng = fastrand::Rng::with_seed(51);
    let values: Vec<u32> = (0..n).map(|_| rng.u32(..1000)).collect();
    let keys: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
    let storage = |label: &str, data: &[u32]| {
        use wgpu::util::DeviceExt;
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        })
    };
    let input = storage("caller's input", &values);
    let output = storage("caller's output", &vec![0; n]);
    let key_buf = storage("caller's keys", &keys);
    let scan = Scan::new(
        &ctx,
        &ScanConfig::exclusive(Monoid::builtin(Scalar::U32, Op::Add)),
    )
    .unwrap();
    let bound_scan = scan.bind(&ctx, &input, Some(&output), n as u64).unwrap();
    let sort = RadixSort::new(&ctx, &SortConfig::keys(KeyType::U32)).unwrap();
    let bound_sort = sort.bind(&ctx, &key_buf, None, n as u64).unwrap();
    let mut enc = device.create_command_encoder(&Default::default());
    enc.clear_buffer(&input, 0, Some(4));
    bound_scan.record(&mut enc);
    bound_sort.record(&mut enc);
    queue.submit([enc.finish()]);

    let mut want_values = values.clone();
    want_values[0] = 0;
    let want_scan: Vec<u32> = want_values
        .iter()
        .scan(0u32, |acc, &v| {
            let out = *acc;
            *acc = acc.wrapping_add(v);
            Some(out)
        })
        .collect();
    let got: Vec<u32> = ctx.read_back("scan", &output, n).unwrap();
    assert_eq!(
        got, want_scan,
        "the exclusive scan after the caller's clear"
    );
    let mut want_keys = keys.clone();
    want_keys.sort_unstable();
    let got: Vec<u32> = ctx.read_back("sort", &key_buf, n).unwrap();
    assert_eq!(got, want_keys, "the sort");

    // A k-NN query and a codec round trip on the same device.
    let points: Vec<[f32; 3]> = (0..5000)
        .map(|_| [rng.f32(), rng.f32(), rng.f32()])
        .collect();
    let queries: Vec<[f32; 3]> = (0..300)
        .map(|_| [rng.f32(), rng.f32(), rng.f32()])
        .collect();
    let spatial =
        wavekit_spatial::Spatial::new(&ctx, &wavekit_spatial::SpatialConfig::default()).unwrap();
    let tree = spatial.build(&ctx, &points).unwrap();
    let (idx, _) = spatial.knn(&ctx, &tree, &queries, 4, None).unwrap();
    let (want_idx, _) = wavekit_spatial::reference::knn_brute(&points, &queries, 4, f32::INFINITY);
    assert_eq!(idx, want_idx, "k-NN against brute force");
    let (w, h) = (64u32, 48u32);
    let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
    let config = wavekit_codec::cpu::EncodeConfig {
        chroma: wavekit_codec::Chroma::Yuv444,
        levels: 3,
        budget: 12 * (w * h) as usize + 65_536,
        lossless: true,
        source: wavekit_codec::format::Source::Rgb,
    };
    let frame = wavekit_codec::gpu::Encoder::new(&ctx, w, h, &config)
        .unwrap()
        .encode(&ctx, &rgb)
        .unwrap();
    let header = wavekit_codec::Header::parse(&frame).unwrap();
    let (back, _) = wavekit_codec::gpu::Decoder::new(&ctx, &header, frame.len())
        .unwrap()
        .decode(&ctx, &frame)
        .unwrap();
    assert_eq!(back, rgb, "a lossless codec round trip");

    // A mistake in the caller's own work (a copy past a buffer's end) goes to the caller's
    // handler, once, and no wavekit call reports it.
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&input, 0, &output, 8, Some(input.size()));
    queue.submit([enc.finish()]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    // (wgpu reports it twice: from the encoder and from the submission.)
    let errors = seen.lock().unwrap().clone();
    assert!(
        !errors.is_empty() && errors.iter().all(|e| e.contains("overrunning the bounds")),
        "the caller's handler saw its own error, and only it: {errors:#?}"
    );
    ctx.check_health().unwrap();
    let again = scan.bind(&ctx, &input, Some(&output), n as u64).unwrap();
    ctx.submit(|e| again.record(e));
    ctx.read_back::<u32>("scan", &output, n).unwrap();
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_device_with_wgpus_low_default_limits_is_refused_with_them_named() {
    let (adapter, device, queue) = own_device(Some(wgpu::Limits::downlevel_defaults()));
    let err = GpuContext::from_wgpu(adapter, device, queue, &ContextOptions::default())
        .expect_err("the limits are too low");
    let msg = err.to_string();
    assert!(
        msg.contains("max_storage_buffers_per_shader_stage 4 (needs 12)")
            && msg.contains("required_limits"),
        "{msg}"
    );
}
