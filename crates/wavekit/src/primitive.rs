//! What the tiled primitives (scan, reduce, select) share: sizes, constants, scratch.

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::shader::ConstValue;
use crate::tuning::{LOOKBACK_SPINS, PRIMITIVE_STEPS, PRIMITIVE_VEC, PRIMITIVE_WORKGROUP};

/// The `subgroup/api` piece for this device.
pub fn subgroup_api(ctx_subgroups: bool) -> &'static str {
    if ctx_subgroups {
        "#import subgroup/hw"
    } else {
        "#import subgroup/emu"
    }
}

/// Environment variable overriding [`PRIMITIVE_STEPS`] (a tuning knob for benchmarks).
pub const STEPS_ENV: &str = "WAVEKIT_TILE_STEPS";

/// Steps per tile: [`PRIMITIVE_STEPS`] unless `WAVEKIT_TILE_STEPS` (1 to 64) says otherwise.
pub fn steps() -> u32 {
    std::env::var(STEPS_ENV)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|s| (1..=64).contains(s))
        .unwrap_or(PRIMITIVE_STEPS)
}

/// Elements per tile.
pub fn tile() -> u32 {
    PRIMITIVE_WORKGROUP * steps() * PRIMITIVE_VEC
}

/// Environment variable that turns on look-back fault injection (tests only): every K-th tile
/// of a single-pass kernel never publishes, so its successors must take the fallback.
pub const FAULT_ENV: &str = "WAVEKIT_FAULT_LOOKBACK";

fn fault_skip() -> u32 {
    std::env::var(FAULT_ENV)
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(0)
}

/// Constants of a single-pass (look-back) kernel: the tile constants plus fault injection.
pub fn lookback_consts(subgroups: bool) -> Vec<(&'static str, ConstValue)> {
    let fault = fault_skip();
    let mut c = tile_consts(subgroups);
    if fault != 0 {
        // Give up waiting quickly: the skipped tiles never publish.
        c.retain(|(name, _)| *name != "LOOKBACK_SPINS");
        c.push(("LOOKBACK_SPINS", ConstValue::U32(4)));
    }
    c.push(("FAULT_SKIP", ConstValue::U32(fault)));
    c
}

/// Constants every tiled kernel takes.
pub fn tile_consts(subgroups: bool) -> Vec<(&'static str, ConstValue)> {
    vec![
        ("WG_SIZE", ConstValue::U32(PRIMITIVE_WORKGROUP)),
        ("STEPS", ConstValue::U32(steps())),
        ("VEC", ConstValue::U32(PRIMITIVE_VEC)),
        ("PER_LANE", ConstValue::U32(steps() * PRIMITIVE_VEC)),
        // Workgroup memory is sized for the narrowest subgroup: 4 lanes (wgpu's minimum
        // reported width), or 1 on the no-subgroup path.
        ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
        ("LOOKBACK_SPINS", ConstValue::U32(LOOKBACK_SPINS)),
    ]
}

/// Tiles covering `n` elements.
pub fn tiles(n: u32) -> u32 {
    n.div_ceil(tile())
}

/// Check that `n` elements of `words` 32-bit words fit `buffer` and one binding.
pub fn check_len(
    ctx: &GpuContext,
    what: &str,
    buffer: &wgpu::Buffer,
    n: u64,
    words: u32,
) -> Result<u32> {
    let bytes = n * u64::from(words) * 4;
    if bytes > buffer.size() {
        return Err(Error::InvalidArgument(format!(
            "{what}: {n} elements need {bytes} bytes but the buffer has {}",
            buffer.size()
        )));
    }
    ctx.check_binding(what, bytes)?;
    u32::try_from(n)
        .map_err(|_| Error::InvalidArgument(format!("{what}: {n} elements exceed 2^32 - 1")))
}

/// The look-back scratch: header plus two regions of 8 words per tile.
pub fn state_buffer(ctx: &GpuContext, tiles: u32) -> Result<wgpu::Buffer> {
    let words = 4 + 2 * 8 * u64::from(tiles.max(1));
    ctx.storage_uninit("look-back state", words * 4)
}

/// The uniform `Params { n, tiles, a, b }` of the tiled kernels.
pub fn params(ctx: &GpuContext, n: u32, tiles: u32, a: u32) -> Result<wgpu::Buffer> {
    ctx.uniform_from("params", &[n, tiles, a, 0])
}
