//! What every [`super::Decoder`] and [`super::Encoder`] on one device shares: the kernels (a
//! frame size or budget changes none of them) and a wavelet plan of each kind to resize, so that
//! a second coder of another size compiles nothing (on lavapipe a coder's pipelines took
//! seconds to build).

use std::collections::HashMap;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::{LazyLock, Mutex};

use wavekit::GpuContext;
use wavekit::prelude::{Kernel, KernelBuilder};
use wavekit_dwt::{Dwt, Wavelet};

use crate::error::Result;

#[derive(Default)]
struct Shared {
    kernels: HashMap<String, Kernel>,
    plans: HashMap<&'static str, Dwt>,
}

#[cfg(not(target_arch = "wasm32"))]
static SHARED: LazyLock<Mutex<HashMap<wgpu::Device, Shared>>> = LazyLock::new(Default::default);

// A browser's devices live on the thread that made them.
#[cfg(target_arch = "wasm32")]
thread_local! {
    static SHARED: std::cell::RefCell<HashMap<wgpu::Device, Shared>> = Default::default();
}

fn with<T>(ctx: &GpuContext, f: impl FnOnce(&mut Shared) -> Result<T>) -> Result<T> {
    #[cfg(target_arch = "wasm32")]
    return SHARED.with(|all| f(all.borrow_mut().entry(ctx.device.clone()).or_default()));
    #[cfg(not(target_arch = "wasm32"))]
    {
        let mut all = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        f(all.entry(ctx.device.clone()).or_default())
    }
}

/// The kernel `key` names, built from `builder` the first time on this device.
pub(crate) fn kernel(
    ctx: &GpuContext,
    key: &str,
    builder: impl FnOnce() -> KernelBuilder,
) -> Result<Kernel> {
    with(ctx, |s| {
        if let Some(k) = s.kernels.get(key) {
            return Ok(k.clone());
        }
        let k = builder().build(ctx)?;
        s.kernels.insert(key.to_string(), k.clone());
        Ok(k)
    })
}

/// A wavelet plan of this size, resized from the device's plan of that wavelet.
pub(crate) fn plan(
    ctx: &GpuContext,
    wavelet: Wavelet,
    (width, height, levels, planes): (u32, u32, u32, u32),
) -> Result<Dwt> {
    let name = wavekit_dwt::reference::name(wavelet);
    with(ctx, |s| {
        if let Some(base) = s.plans.get(name) {
            return Ok(base.resized(ctx, width, height, levels, planes)?);
        }
        let base = Dwt::new(ctx, wavelet, width, height, levels, planes)?;
        let out = base.resized(ctx, width, height, levels, planes)?;
        s.plans.insert(name, base);
        Ok(out)
    })
}
