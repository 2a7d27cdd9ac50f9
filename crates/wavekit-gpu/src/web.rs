//! The browser's side of the context (WebGPU, `wasm32` with the `webgpu` feature).
//!
//! wgpu 30's WebGPU backend maps no `subgroups` feature (gfx-rs/wgpu#10146): it never asks the
//! browser for it, and a WGSL module with `enable subgroups;` is then refused. Until wgpu does,
//! a shim of a few lines wraps `GPUAdapter.prototype.requestDevice` once so that a device
//! request also names `subgroups` where the adapter offers it and wavekit wants it
//! (ADR-0077). It changes nothing else in the request, and nothing at all when subgroups are
//! not wanted (`ContextOptions::disable_subgroups`) or not offered.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function wavekit_request_subgroups(on) {
    globalThis.__wavekitSubgroups = on;
    const proto = globalThis.GPUAdapter && globalThis.GPUAdapter.prototype;
    if (!proto) return false;
    if (!proto.__wavekitRequestDevice) {
        const original = proto.requestDevice;
        proto.__wavekitRequestDevice = original;
        proto.requestDevice = function (descriptor) {
            if (globalThis.__wavekitSubgroups && this.features.has('subgroups')) {
                const d = Object.assign({}, descriptor || {});
                const f = Array.from(d.requiredFeatures || []);
                if (!f.includes('subgroups')) f.push('subgroups');
                d.requiredFeatures = f;
                globalThis.__wavekitAdapterSubgroups = true;
                return original.call(this, d);
            }
            globalThis.__wavekitAdapterSubgroups = this.features.has('subgroups');
            return original.call(this, descriptor);
        };
    }
    return true;
}
export function wavekit_adapter_offers_subgroups() {
    return globalThis.__wavekitAdapterSubgroups === true;
}
"#)]
extern "C" {
    fn wavekit_request_subgroups(on: bool) -> bool;
    fn wavekit_adapter_offers_subgroups() -> bool;
}

/// Ask for `subgroups` in the next device requests (where the adapter offers it) or stop
/// asking.
pub(crate) fn request_subgroups(on: bool) {
    wavekit_request_subgroups(on);
}

/// Whether the adapter of the last device request offered `subgroups`.
pub(crate) fn adapter_offers_subgroups() -> bool {
    wavekit_adapter_offers_subgroups()
}

/// Whether `device` was created with the browser's `subgroups` feature.
pub(crate) fn device_has_subgroups(device: &wgpu::Device) -> bool {
    device
        .as_webgpu()
        .is_some_and(|d| d.features().has("subgroups"))
}
