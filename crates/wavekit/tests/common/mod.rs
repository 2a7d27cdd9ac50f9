//! Shared set-up of the GPU tests: one context per test binary, named in the output.
//!
//! `WAVEKIT_REQUIRE_GPU=1` (set by scripts/test.sh) turns a missing adapter into a failure;
//! without it the GPU tests say they were skipped. `WAVEKIT_EXPECT_SUBGROUP=N` fails the run
//! unless the adapter's subgroup width is exactly N (so a lavapipe width that did not take
//! effect is caught, not silently tested twice).

#![allow(dead_code)]

use std::sync::OnceLock;

use wavekit::GpuContext;

static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();

/// The shared context, or `None` (with a note) when no adapter exists and none is required.
pub fn gpu() -> Option<&'static GpuContext> {
    CTX.get_or_init(|| {
        let required = std::env::var("WAVEKIT_REQUIRE_GPU").is_ok_and(|v| v == "1");
        match GpuContext::from_env() {
            Ok(ctx) => {
                let sg = ctx.caps.subgroups;
                eprintln!(
                    "[wavekit tests] adapter: {}; subgroup width {}..{}",
                    ctx.summary.label(),
                    sg.min_size,
                    sg.max_size
                );
                if let Some(want) = std::env::var("WAVEKIT_EXPECT_SUBGROUP")
                    .ok()
                    .and_then(|v| v.parse::<u32>().ok())
                {
                    assert_eq!(
                        (sg.min_size, sg.max_size),
                        (want, want),
                        "expected subgroup width {want} on {}",
                        ctx.summary.label()
                    );
                }
                Some(ctx)
            }
            Err(e) if !required => {
                eprintln!("[wavekit tests] GPU tests skipped: {e}");
                None
            }
            Err(e) => panic!("WAVEKIT_REQUIRE_GPU=1 but: {e}"),
        }
    })
    .as_ref()
}

/// Record with `record` into a fresh encoder and submit.
pub fn run(ctx: &GpuContext, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
    ctx.submit(record);
}

/// The adapter and width, for assertion messages.
pub fn on(ctx: &GpuContext) -> String {
    format!(
        "{} (subgroup width {})",
        ctx.summary.name, ctx.caps.subgroups.max_size
    )
}
