//! Every example on the test device, once (lavapipe's first width in the test command, and
//! the H200): the examples call the public API, whose kernels the crates' own `*_gpu` tests run
//! at every width and without subgroups (ADR-0066, ADR-0101).

use wavekit_harness::gpu;

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn primitives_match_the_cpu() {
    for seed in [1, 2] {
        let line = wavekit_examples::primitives::run(gpu(), seed).unwrap();
        assert!(line.contains("match the CPU"), "{line}");
    }
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_wavelet_round_trip_is_exact() {
    wavekit_examples::wavelet::run(gpu(), 3).unwrap();
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn the_panel_matches_the_reference() {
    let (image, _) = wavekit_examples::compositor::run(gpu(), 0.25).unwrap();
    assert_eq!(image.dimensions(), wavekit_ui::demo::SIZE);
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn rays_agree_with_brute_force() {
    let line = wavekit_examples::tracer::run(gpu()).unwrap();
    assert!(line.contains("every kernel"), "{line}");
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn a_frame_through_the_gpu_codec_equals_the_cpus() {
    wavekit_examples::codec::run(gpu(), 4).unwrap();
}

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn point_queries_equal_brute_force() {
    wavekit_examples::spatial::run(gpu(), 5).unwrap();
}
