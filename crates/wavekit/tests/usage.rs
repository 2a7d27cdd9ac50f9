//! Issue 51: a buffer wavekit cannot use is refused at the call that binds it, naming the
//! primitive, the binding and what it lacks, not at submit (where wgpu drops the whole command
//! buffer, the caller's own passes with it) or at a later read-back: a sort whose odd number of
//! passes copies its result back into keys without COPY_DST, a read-back of a buffer without
//! COPY_SRC, a buffer of another device, a buffer too small. Checks of the host's, not of a
//! kernel: run once, at the first lavapipe width and on a GPU (not named `*_gpu`, ADR-0066).

use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::sort::{KeyType, RadixSort, SortConfig};
use wavekit::{GpuContext, wgpu};

fn gpu() -> &'static GpuContext {
    wavekit_harness::gpu()
}

fn buffer(ctx: &GpuContext, words: &[u32], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("caller's"),
            contents: bytemuck::cast_slice(words),
            usage,
        })
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_sort_that_copies_back_refuses_keys_without_copy_dst_at_bind() {
    let ctx = gpu();
    // Past the small sorts (2^16), so that the radix passes run: 24 bits are three passes.
    let n = 70_001usize;
    let mut rng = fastrand::Rng::with_seed(51);
    let keys: Vec<u32> = (0..n).map(|_| rng.u32(..1 << 24)).collect();
    let storage_only = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let odd = RadixSort::new(
        ctx,
        &SortConfig {
            bits: Some((0, 24)),
            ..SortConfig::keys(KeyType::U32)
        },
    )
    .unwrap();
    let b = buffer(ctx, &keys, storage_only);
    let err = odd.bind(ctx, &b, None, n as u64).unwrap_err().to_string();
    assert!(
        err.contains("sort, binding keys") && err.contains("COPY_DST"),
        "{err}"
    );
    // Two passes (16 bits) end in the caller's buffer: no copy, no COPY_DST needed.
    let keys16: Vec<u32> = keys.iter().map(|k| k & 0xffff).collect();
    let b = buffer(ctx, &keys16, storage_only);
    let even = RadixSort::new(
        ctx,
        &SortConfig {
            bits: Some((0, 16)),
            ..SortConfig::keys(KeyType::U32)
        },
    )
    .unwrap();
    let bound = even.bind(ctx, &b, None, n as u64).unwrap();
    ctx.submit(|e| bound.record(e));
    let mut want = keys16.clone();
    want.sort_unstable();
    assert_eq!(ctx.read_back::<u32>("keys", &b, n).unwrap(), want);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_read_back_without_copy_src_is_refused_naming_itself() {
    let ctx = gpu();
    let b = buffer(ctx, &[1, 2, 3], wgpu::BufferUsages::STORAGE);
    let err = ctx
        .read_back::<u32>("the counts", &b, 3)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("reading the counts back") && err.contains("COPY_SRC"),
        "{err}"
    );
    // Nothing was left for a later call to report.
    ctx.check_health().unwrap();
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_buffer_of_another_device_or_too_small_is_refused_at_bind() {
    let ctx = gpu();
    let scan = Scan::new(
        ctx,
        &ScanConfig::inclusive(Monoid::builtin(Scalar::U32, Op::Add)),
    )
    .unwrap();
    // A second device on the same adapter (one wgpu instance: a buffer of another instance's
    // device is beyond what wgpu can check, and panics inside it).
    let (device, _queue) = pollster::block_on(ctx.adapter.request_device(&Default::default()))
        .expect("a second device");
    let foreign = {
        use wgpu::util::DeviceExt;
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("another device's"),
            contents: bytemuck::cast_slice(&[1u32; 1000]),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        })
    };
    let mine = ctx.storage_uninit("out", 4000).unwrap();
    let err = scan
        .bind(ctx, &foreign, Some(&mine), 1000)
        .unwrap_err()
        .to_string();
    assert!(err.contains("scan"), "{err}");
    let small = ctx.storage_uninit("small", 400).unwrap();
    let err = scan
        .bind(ctx, &small, Some(&mine), 1000)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("1000 elements") || err.contains("bytes"),
        "{err}"
    );
    ctx.check_health().unwrap();
}

/// A submission's own error is that call's: `submit_checked` names its operation, and nothing
/// is left for a later call (`check_health` is clean after it).
#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_checked_submission_reports_its_own_error_and_leaves_none() {
    let ctx = gpu();
    ctx.check_health().unwrap();
    // A clear needs COPY_DST: this buffer has none.
    let b = buffer(ctx, &[7u32; 64], wgpu::BufferUsages::STORAGE);
    let err = ctx
        .submit_checked("clearing the caller's buffer", |enc| {
            enc.clear_buffer(&b, 0, None)
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("clearing the caller's buffer"), "{err}");
    ctx.check_health().unwrap();
    // The same commands through a wavekit call afterwards run clean.
    let ok = ctx.storage_uninit("fine", 256).unwrap();
    ctx.submit_checked("clearing a fine buffer", |enc| {
        enc.clear_buffer(&ok, 0, None)
    })
    .unwrap();
}
