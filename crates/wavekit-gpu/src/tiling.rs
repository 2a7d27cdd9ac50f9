//! What the tiled primitives (scan, reduce, select) share: a tile's shape, the look-back's
//! policy and scratch, and work split into chunks of one storage binding. Each primitive's own
//! policy (`ScanPolicy`, `ReducePolicy`, `SelectPolicy`) holds its tile shape; the numbers
//! behind the defaults are in [`crate::tuning`].

use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::shader::ConstValue;
use crate::tuning::{LOOKBACK_BACKOFF, LOOKBACK_FIRST_WINDOW, LOOKBACK_PER_LANE, LOOKBACK_SPINS};

/// A tile: `workgroup` invocations, each holding `steps × vec` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TileShape {
    /// Invocations per workgroup: 128, 256, 512 or 1024 (a multiple of 128, so every subgroup
    /// is full at every width).
    pub workgroup: u32,
    /// Steps per tile, 1 to 64.
    pub steps: u32,
    /// Consecutive elements an invocation takes per step: 1, 2, 4 or 8.
    pub vec: u32,
}

impl TileShape {
    /// Elements per tile.
    pub fn elements(&self) -> u32 {
        self.workgroup * self.steps * self.vec
    }

    /// Elements per invocation for `words`-word elements: `steps × vec` for one word, fewer
    /// for wider ones so the tile's workgroup array keeps its size.
    pub fn per_lane(&self, words: u32) -> u32 {
        (self.steps * self.vec / words.max(1)).max(1)
    }

    /// Fails unless the shape is one the kernels are written for.
    pub fn check(&self, what: &str) -> Result<()> {
        if ![128, 256, 512, 1024].contains(&self.workgroup)
            || !(1..=64).contains(&self.steps)
            || ![1, 2, 4, 8].contains(&self.vec)
        {
            return Err(Error::InvalidArgument(format!(
                "{what}: tile shape {self:?}: use workgroups of 128, 256, 512 or 1024, 1 to 64 \
                 steps and 1, 2, 4 or 8 elements a step"
            )));
        }
        Ok(())
    }

    /// The same shape with `steps` steps.
    pub fn with_steps(self, steps: u32) -> Self {
        Self { steps, ..self }
    }

    /// The same shape with `vec` elements a step.
    pub fn with_vec(self, vec: u32) -> Self {
        Self { vec, ..self }
    }
}

/// The tiling for small inputs (issue 31, ADR-0082): inputs of at most `up_to` elements take
/// tiles of `steps` steps instead of the policy's, so that more workgroups share the work and
/// each tile's latency is shorter. A primitive builds that variant when a bind first needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SmallInputs {
    /// Most elements that take the small tiles.
    pub up_to: u64,
    /// Steps per tile for them (1 to 64).
    pub steps: u32,
}

impl SmallInputs {
    /// Whether `n` elements take the small tiles under `rule`, when the policy's own steps
    /// are `steps` (a rule that changes nothing never applies).
    pub fn applies(rule: Option<Self>, n: u64, steps: u32) -> bool {
        rule.is_some_and(|r| n <= r.up_to && r.steps != steps)
    }

    /// The variant for small inputs kept in `cell`, built by `build` the first time.
    pub fn variant<T>(
        cell: &std::sync::OnceLock<Box<T>>,
        build: impl FnOnce() -> Result<T>,
    ) -> Result<&T> {
        if let Some(v) = cell.get() {
            return Ok(v);
        }
        let _ = cell.set(Box::new(build()?));
        Ok(cell.get().expect("set just above"))
    }

    /// Fails on steps outside 1 to 64.
    pub fn check(rule: Option<Self>, what: &str) -> Result<()> {
        match rule {
            Some(r) if !(1..=64).contains(&r.steps) => Err(Error::InvalidArgument(format!(
                "{what}: small inputs with {} steps a tile: use 1 to 64",
                r.steps
            ))),
            _ => Ok(()),
        }
    }
}

/// How a single-pass kernel's decoupled look-back waits and reads (ADR-0010, ADR-0015,
/// ADR-0021), and what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LookbackPolicy {
    /// Reads of a silent predecessor before the workgroup reduces its tile itself.
    pub spins: u32,
    /// Iterations of a dependent loop between two windows that made no progress.
    pub backoff: u32,
    /// Nearest predecessors read first (the window doubles after each step back).
    pub first_window: u32,
    /// Chunks of one subgroup width read per round trip.
    pub per_lane: u32,
    /// Fault injection (tests): every `fault_skip`-th tile never publishes, so its successors
    /// must take the fallback. 0: none.
    pub fault_skip: u32,
    /// Count every window read (measurement: the counting atomics cost time).
    pub count_windows: bool,
}

impl Default for LookbackPolicy {
    fn default() -> Self {
        Self {
            spins: LOOKBACK_SPINS,
            backoff: LOOKBACK_BACKOFF,
            first_window: LOOKBACK_FIRST_WINDOW,
            per_lane: LOOKBACK_PER_LANE,
            fault_skip: 0,
            count_windows: false,
        }
    }
}

impl LookbackPolicy {
    /// Fails on values the look-back cannot work with.
    pub fn check(&self, what: &str) -> Result<()> {
        if self.spins == 0 || self.first_window == 0 || !(1..=32).contains(&self.per_lane) {
            return Err(Error::InvalidArgument(format!(
                "{what}: look-back policy {self:?}: spins and first_window must be at least 1, \
                 per_lane 1 to 32"
            )));
        }
        Ok(())
    }
}

/// Constants of a tiled kernel: WG_SIZE, STEPS, VEC, PER_LANE, MIN_WIDTH.
pub fn tile_consts(shape: TileShape, subgroups: bool) -> Vec<(&'static str, ConstValue)> {
    vec![
        ("WG_SIZE", ConstValue::U32(shape.workgroup)),
        ("STEPS", ConstValue::U32(shape.steps)),
        ("VEC", ConstValue::U32(shape.vec)),
        ("PER_LANE", ConstValue::U32(shape.steps * shape.vec)),
        // Workgroup memory is sized for the narrowest subgroup: 4 lanes (wgpu's minimum
        // reported width), or 1 on the no-subgroup path.
        ("MIN_WIDTH", ConstValue::U32(if subgroups { 4 } else { 1 })),
    ]
}

/// Constants of a single-pass (look-back) kernel on `words`-word elements: the tile's, with
/// PER_LANE for the element width, and the look-back's.
pub fn lookback_consts(
    shape: TileShape,
    words: u32,
    lookback: &LookbackPolicy,
    subgroups: bool,
) -> Vec<(&'static str, ConstValue)> {
    let mut c = tile_consts(shape, subgroups);
    for entry in c.iter_mut().filter(|e| e.0 == "PER_LANE") {
        entry.1 = ConstValue::U32(shape.per_lane(words));
    }
    // With fault injection, give up waiting quickly: the skipped tiles never publish.
    let spins = if lookback.fault_skip != 0 {
        4
    } else {
        lookback.spins
    };
    c.extend([
        ("LOOKBACK_SPINS", ConstValue::U32(spins)),
        ("LOOKBACK_BACKOFF", ConstValue::U32(lookback.backoff)),
        (
            "LOOKBACK_FIRST_WINDOW",
            ConstValue::U32(lookback.first_window),
        ),
        ("LOOKBACK_PER_LANE", ConstValue::U32(lookback.per_lane)),
        ("STATS_WINDOWS", ConstValue::Bool(lookback.count_windows)),
        ("FAULT_SKIP", ConstValue::U32(lookback.fault_skip)),
        ("STATE_HEADER", ConstValue::U32(STATE_HEADER as u32)),
    ]);
    c
}

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

/// Refuse a buffer that lacks a usage a primitive needs of it, at bind, naming the primitive,
/// the binding, the missing flags and why (`why`: what the primitive does with it), rather than
/// letting wgpu drop the whole command buffer at submit.
pub fn check_usage(
    what: &str,
    buffer: &wgpu::Buffer,
    need: wgpu::BufferUsages,
    why: &str,
) -> Result<()> {
    let have = buffer.usage();
    let missing = need - have;
    if !missing.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the buffer has usage {have:?}, without {missing:?}, which it needs because \
             {why}; create it with {need:?} as well"
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
    /// single pass only counted with [`LookbackPolicy::count_windows`]).
    pub waited_windows: u32,
    /// Predecessor tiles reduced by a successor because they had published nothing.
    pub fallbacks: u32,
    /// Windows read in all (only counted with [`LookbackPolicy::count_windows`]).
    pub windows: u32,
}

/// Read the statistics words of a look-back state buffer (`counted`: whether the kernel was
/// built to count every window).
pub fn lookback_stats(
    ctx: &GpuContext,
    state: &wgpu::Buffer,
    counted: bool,
) -> Result<LookbackStats> {
    let w: Vec<u32> = ctx.read_back("look-back state", state, STATE_HEADER as usize)?;
    Ok(LookbackStats {
        waited_windows: w[2],
        fallbacks: w[3],
        windows: if counted { w[4] } else { 0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_policies_are_checked() {
        let ok = TileShape {
            workgroup: 256,
            steps: 7,
            vec: 4,
        };
        ok.check("t").unwrap();
        assert_eq!(ok.elements(), 7168);
        assert_eq!(ok.per_lane(2), 14);
        assert_eq!(ok.per_lane(64), 1);
        for bad in [
            TileShape {
                workgroup: 100,
                ..ok
            },
            ok.with_steps(0),
            ok.with_steps(65),
            TileShape { vec: 3, ..ok },
        ] {
            let e = bad.check("scan").unwrap_err().to_string();
            assert!(e.contains("scan: tile shape"), "{e}");
        }
        LookbackPolicy::default().check("t").unwrap();
        let e = LookbackPolicy {
            per_lane: 0,
            ..Default::default()
        }
        .check("select")
        .unwrap_err()
        .to_string();
        assert!(e.contains("select: look-back policy"), "{e}");
    }

    #[test]
    fn fault_injection_shortens_the_wait() {
        let shape = TileShape {
            workgroup: 256,
            steps: 7,
            vec: 4,
        };
        let spins = |fault_skip| {
            let p = LookbackPolicy {
                fault_skip,
                ..Default::default()
            };
            lookback_consts(shape, 1, &p, true)
                .into_iter()
                .find(|c| c.0 == "LOOKBACK_SPINS")
                .map(|c| c.1)
        };
        assert_eq!(spins(0), Some(ConstValue::U32(LOOKBACK_SPINS)));
        assert_eq!(spins(3), Some(ConstValue::U32(4)));
    }
}
