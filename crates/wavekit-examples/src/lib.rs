//! Small examples of wavekit, one module per crate, each a function that does the job on the
//! caller's device and checks it against the CPU: [`primitives`] (scan, select, sort and a
//! histogram on the core), [`wavelet`] (a lossless 5/3 round trip with `wavekit-dwt`),
//! [`compositor`] (the demo panel with `wavekit-ui`), [`tracer`] (rays through a BVH with
//! `wavekit-trace`), [`codec`] (a frame coded and decoded on the GPU with `wavekit-codec`),
//! [`spatial`] (k-NN and radius search with `wavekit-spatial`). `examples/` runs each from the command line (`cargo run -p
//! wavekit-examples --example primitives`), and the panel in a window (`--example panel`);
//! `tests/examples.rs` runs each on the test device. The README's code blocks are this
//! crate's doctests, so that they stay true.

#![warn(missing_docs)]
pub mod codec;
pub mod compositor;
mod error;
pub mod primitives;
pub mod spatial;
pub mod tracer;
pub mod wavelet;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use error::{Error, Result};

/// The context the command-line examples run on: wavekit's own (`GpuContext::new`), or, with
/// `--own-device` among the arguments, one made from an adapter, device and queue the program
/// created with wgpu alone (`GpuContext::from_wgpu`), as a wgpu application brings its own.
/// Either way the example's function takes it as the caller's.
pub fn example_context() -> std::result::Result<wavekit::GpuContext, Box<dyn std::error::Error>> {
    use wavekit::{ContextOptions, GpuContext, wgpu};
    if !std::env::args().any(|a| a == "--own-device") {
        return Ok(GpuContext::new(&ContextOptions::default())?);
    }
    // The application's own: the first adapter, asked for the limits wavekit needs (the
    // adapter's own here) and for subgroups where it has them.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the application's device"),
        required_features: adapter.features() & wgpu::Features::SUBGROUP,
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    Ok(GpuContext::from_wgpu(
        adapter,
        device,
        queue,
        &ContextOptions::default(),
    )?)
}

/// A `Mismatch` of `example` unless `ok`.
fn check(ok: bool, example: &'static str, what: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Mismatch {
            example,
            what: what(),
        })
    }
}
