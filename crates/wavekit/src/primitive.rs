//! What the tiled primitives (scan, reduce, select) share: sizes, constants, scratch.

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::shader::ConstValue;
use crate::tuning::{
    LOOKBACK_BACKOFF, LOOKBACK_FIRST_WINDOW, LOOKBACK_PER_LANE, LOOKBACK_SPINS, PARTITION_STEPS,
    PRIMITIVE_STEPS, PRIMITIVE_VEC, PRIMITIVE_WORKGROUP, REDUCE_STEPS, SCAN_STEPS, SELECT_STEPS,
};

/// The `subgroup/api` piece for this device.
pub fn subgroup_api(ctx_subgroups: bool) -> &'static str {
    if ctx_subgroups {
        "#import subgroup/hw"
    } else {
        "#import subgroup/emu"
    }
}

/// Environment variable overriding [`LOOKBACK_BACKOFF`] (a tuning knob for benchmarks).
pub const BACKOFF_ENV: &str = "WAVEKIT_LOOKBACK_BACKOFF";

/// A `u32` tuning knob from the environment, if set and a number.
pub(crate) fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok())
}

/// Environment variable overriding [`PRIMITIVE_STEPS`] (a tuning knob for benchmarks).
pub const STEPS_ENV: &str = "WAVEKIT_TILE_STEPS";

/// `default` steps per tile unless `WAVEKIT_TILE_STEPS` (1 to 64) says otherwise.
fn steps_or(default: u32) -> u32 {
    env_u32(STEPS_ENV)
        .filter(|s| (1..=64).contains(s))
        .unwrap_or(default)
}

/// Steps per tile of the scan: [`PRIMITIVE_STEPS`] unless `WAVEKIT_TILE_STEPS` says otherwise.
pub fn steps() -> u32 {
    steps_or(PRIMITIVE_STEPS)
}

/// Environment variable overriding [`PRIMITIVE_WORKGROUP`] (a tuning knob for benchmarks).
pub const WORKGROUP_ENV: &str = "WAVEKIT_TILE_WORKGROUP";

/// Invocations per workgroup: [`PRIMITIVE_WORKGROUP`] unless `WAVEKIT_TILE_WORKGROUP` (128,
/// 256, 512 or 1024) says otherwise.
pub fn workgroup() -> u32 {
    env_u32(WORKGROUP_ENV)
        .filter(|s| [128, 256, 512, 1024].contains(s))
        .unwrap_or(PRIMITIVE_WORKGROUP)
}

/// Consecutive elements per invocation in a tile of `words`-word elements: STEPS * VEC for
/// one word, fewer for wider elements so the tile's workgroup array stays within 16.5 KiB.
pub fn per_lane(words: u32) -> u32 {
    (steps() * vec() / words.max(1)).max(1)
}

pub fn vec() -> u32 {
    env_u32("WAVEKIT_TILE_VEC")
        .filter(|v| [1, 2, 4, 8].contains(v))
        .unwrap_or(PRIMITIVE_VEC)
}

/// Steps per tile of one-word out-of-place scans (the direct layout): [`SCAN_STEPS`] unless
/// `WAVEKIT_TILE_STEPS` says otherwise.
pub fn scan_steps() -> u32 {
    steps_or(SCAN_STEPS)
}

/// Steps per tile of reduce: [`REDUCE_STEPS`] unless `WAVEKIT_TILE_STEPS` says otherwise.
pub fn reduce_steps() -> u32 {
    steps_or(REDUCE_STEPS)
}

/// Elements per tile of reduce.
pub fn reduce_tile() -> u32 {
    workgroup() * reduce_steps() * vec()
}

/// Steps per tile of select ([`SELECT_STEPS`]) or partition ([`PARTITION_STEPS`]) unless
/// `WAVEKIT_TILE_STEPS` says otherwise.
pub fn select_steps(partition: bool) -> u32 {
    steps_or(if partition {
        PARTITION_STEPS
    } else {
        SELECT_STEPS
    })
}

/// Elements per step of select and partition: a tile is WG × STEPS × 4 elements, a lane
/// holds STEPS × 4 of them (one per subgroup-wide step, ADR-033), and the look-back's fallback
/// and the partition's count read them as 16-byte quads (`WAVEKIT_TILE_VEC` does not apply).
pub const SELECT_VEC: u32 = 4;

/// Elements per tile of select or partition.
pub fn select_tile(partition: bool) -> u32 {
    workgroup() * select_steps(partition) * SELECT_VEC
}

/// `consts` with STEPS, VEC and PER_LANE replaced.
pub fn with_steps(
    mut consts: Vec<(&'static str, ConstValue)>,
    steps: u32,
    vec: u32,
) -> Vec<(&'static str, ConstValue)> {
    for entry in consts.iter_mut() {
        match entry.0 {
            "STEPS" => entry.1 = ConstValue::U32(steps),
            "VEC" => entry.1 = ConstValue::U32(vec),
            "PER_LANE" => entry.1 = ConstValue::U32(steps * vec),
            _ => {}
        }
    }
    consts
}

/// Elements per tile of a one-word out-of-place scan (the direct layout); other scans:
/// [`crate::scan::tile_elements`].
pub fn tile() -> u32 {
    crate::scan::tile_elements(1, false)
}

/// Elements per tile of `words`-word elements.
pub fn tile_for(words: u32) -> u32 {
    workgroup() * per_lane(words)
}

/// Environment variable that turns on look-back fault injection (tests only): every K-th tile
/// of a single-pass kernel never publishes, so its successors must take the fallback.
pub const FAULT_ENV: &str = "WAVEKIT_FAULT_LOOKBACK";

/// Every how many tiles the look-back's fault injection ([`FAULT_ENV`]) silences one; 0: none.
pub(crate) fn fault_skip() -> u32 {
    env_u32(FAULT_ENV).unwrap_or(0)
}

/// Whether `WAVEKIT_STATS_WINDOWS=1` asks the look-backs to count their windows (measurement
/// only: the counting atomics cost time).
pub(crate) fn stats_windows() -> bool {
    env_u32("WAVEKIT_STATS_WINDOWS") == Some(1)
}

/// Constants of a single-pass (look-back) kernel on `words`-word elements: the tile
/// constants plus fault injection.
pub fn lookback_consts(subgroups: bool, words: u32) -> Vec<(&'static str, ConstValue)> {
    let fault = fault_skip();
    let mut c = tile_consts(subgroups);
    for entry in c.iter_mut().filter(|e| e.0 == "PER_LANE") {
        entry.1 = ConstValue::U32(per_lane(words));
    }
    if fault != 0 {
        // Give up waiting quickly: the skipped tiles never publish.
        c.retain(|(name, _)| *name != "LOOKBACK_SPINS");
        c.push(("LOOKBACK_SPINS", ConstValue::U32(4)));
    }
    c.push(("FAULT_SKIP", ConstValue::U32(fault)));
    c.push(("STATE_HEADER", ConstValue::U32(STATE_HEADER as u32)));
    c.push((
        "EXPERIMENT_NO_LOOKBACK",
        ConstValue::Bool(env_u32("WAVEKIT_EXPERIMENT_NO_LOOKBACK") == Some(1)),
    ));
    c.push((
        "EXPERIMENT_SELECT_STORES",
        ConstValue::U32(env_u32("WAVEKIT_EXPERIMENT_SELECT_STORES").unwrap_or(0)),
    ));
    c
}

/// Constants every tiled kernel takes.
pub fn tile_consts(subgroups: bool) -> Vec<(&'static str, ConstValue)> {
    vec![
        ("WG_SIZE", ConstValue::U32(workgroup())),
        ("STEPS", ConstValue::U32(steps())),
        ("VEC", ConstValue::U32(vec())),
        ("PER_LANE", ConstValue::U32(steps() * vec())),
        // Workgroup memory is sized for the narrowest subgroup: 4 lanes (wgpu's minimum
        // reported width), or 1 on the no-subgroup path.
        ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
        ("LOOKBACK_SPINS", ConstValue::U32(LOOKBACK_SPINS)),
        (
            "LOOKBACK_BACKOFF",
            ConstValue::U32(env_u32(BACKOFF_ENV).unwrap_or(LOOKBACK_BACKOFF)),
        ),
        (
            "LOOKBACK_FIRST_WINDOW",
            ConstValue::U32(
                env_u32("WAVEKIT_LOOKBACK_FIRST_WINDOW")
                    .filter(|v| *v >= 1)
                    .unwrap_or(LOOKBACK_FIRST_WINDOW),
            ),
        ),
        ("STATS_WINDOWS", ConstValue::Bool(stats_windows())),
        (
            "LOOKBACK_PER_LANE",
            ConstValue::U32(
                env_u32("WAVEKIT_LOOKBACK_PER_LANE")
                    .filter(|v| (1..=32).contains(v))
                    .unwrap_or(LOOKBACK_PER_LANE),
            ),
        ),
    ]
}

/// Environment variable lowering the binding size wavekit splits work at (tests only: it
/// exercises the multi-chunk path on small inputs).
pub const CHUNK_ENV: &str = "WAVEKIT_MAX_BINDING_BYTES";

/// Elements of `words` words per chunk: the largest multiple of `tile` elements that fits one
/// storage binding (and keeps chunk offsets aligned).
pub fn chunk_elements(ctx: &GpuContext, words: u32, tile: u32) -> u64 {
    let limit = ctx.binding_limit();
    let align = u64::from(ctx.caps.limits.min_storage_buffer_offset_alignment.max(4));
    let bytes_per = u64::from(words) * 4;
    let mut per_chunk = (limit / bytes_per) / u64::from(tile) * u64::from(tile);
    while per_chunk > 0 && !(per_chunk * bytes_per).is_multiple_of(align) {
        per_chunk -= u64::from(tile);
    }
    per_chunk.clamp(u64::from(tile), u64::from(u32::MAX) / 2)
}

/// Check that `n` elements of `words` words fit `buffer` (any number of bindings).
pub fn check_fits(what: &str, buffer: &wgpu::Buffer, n: u64, words: u32) -> Result<()> {
    let bytes = n * u64::from(words) * 4;
    if bytes > buffer.size() {
        return Err(Error::InvalidArgument(format!(
            "{what}: {n} elements need {bytes} bytes but the buffer has {}",
            buffer.size()
        )));
    }
    Ok(())
}

/// Words before the descriptor regions of the look-back state (prepended to the WGSL as
/// `STATE_HEADER`): tile counters and statistics.
const STATE_HEADER: u64 = 8;

/// The look-back scratch: header plus two regions of 8 words per tile (the second used only by
/// the two-pass mode).
pub fn state_buffer(ctx: &GpuContext, tiles: u32) -> Result<wgpu::Buffer> {
    let words = STATE_HEADER + 2 * 8 * u64::from(tiles.max(1));
    ctx.storage_uninit("look-back state", words * 4)
}

/// The uniform `Params { n, tiles, a, b }` of the tiled kernels.
pub fn params(ctx: &GpuContext, n: u32, tiles: u32, a: u32) -> Result<wgpu::Buffer> {
    params4(ctx, n, tiles, a, 0)
}

/// The uniform `Params { n, tiles, a, b }` with all four words.
pub fn params4(ctx: &GpuContext, n: u32, tiles: u32, a: u32, b: u32) -> Result<wgpu::Buffer> {
    ctx.uniform_from("params", &[n, tiles, a, b])
}

/// What the look-back did in the last recorded run: statistics for tuning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LookbackStats {
    /// Windows of predecessors read without progress (summed over workgroups; in the sort's
    /// single pass only counted with `WAVEKIT_STATS_WINDOWS=1`).
    pub waited_windows: u32,
    /// Predecessor tiles reduced by a successor because they had published nothing.
    pub fallbacks: u32,
    /// Windows read in all (only counted with `WAVEKIT_STATS_WINDOWS=1`, single pass).
    pub windows: u32,
}

/// Read the statistics words of a look-back state buffer.
pub fn lookback_stats(ctx: &GpuContext, state: &wgpu::Buffer) -> Result<LookbackStats> {
    let w: Vec<u32> = ctx.read_back("look-back state", state, STATE_HEADER as usize)?;
    Ok(LookbackStats {
        waited_windows: w[2],
        fallbacks: w[3],
        windows: if stats_windows() { w[4] } else { 0 },
    })
}
