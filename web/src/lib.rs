//! wavekit in the browser: the code of the page in `web/` (`index.html`), built for
//! `wasm32-unknown-unknown` with wgpu's WebGPU backend and bound to JavaScript by
//! wasm-bindgen. The page probes the adapter, runs the self-test, runs every primitive on
//! seeded data against the plain Rust references, renders the UI demo panel into a canvas and
//! decodes a codec frame into another, each checked against the CPU, with GPU times.
//!
//! `scripts/web-test.sh` builds it, serves it and drives it in headless Chromium. On other
//! targets this crate is empty.

#[cfg(target_arch = "wasm32")]
mod checks;
#[cfg(target_arch = "wasm32")]
mod page;
