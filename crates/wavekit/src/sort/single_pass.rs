//! The single pass (Onesweep-style, [`super::SortPolicy::single_pass`]): the digit histograms
//! of every pass in one read of the keys (`sort/histograms.wgsl`), then per pass one scatter
//! that finds each tile's offsets by a look-back over its predecessors' published digit counts
//! (ADR-0037, ADR-0038). Opt-in: on the H200 the three kernels are 1.6× faster.

use crate::clear::BoundClear;
use crate::context::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::record;
use crate::tiling::LookbackStats;

use super::{Io, RadixSort};

/// The single pass's histograms dispatch and scratch.
#[derive(Debug)]
pub(crate) struct SinglePass {
    histograms: Kernel,
    bind: wgpu::BindGroup,
    groups: u32,
    /// The digit histograms of every pass.
    table: wgpu::Buffer,
    /// The look-back's descriptors: a header, then one word per tile and digit (30-bit counts).
    state: wgpu::Buffer,
    /// A placeholder for the three kernels' block offsets.
    no_blocks: wgpu::Buffer,
    _params: wgpu::Buffer,
    /// Dispatches that set the table, and the state, to zero (ADR-0081).
    clear_table: BoundClear,
    clear_state: BoundClear,
}

impl SinglePass {
    /// Scratch and the histograms dispatch for `tiles` tiles of `io`'s keys (`two`: past one
    /// binding).
    pub fn bind(
        sort: &RadixSort,
        ctx: &GpuContext,
        io: &Io,
        tiles: u32,
        two: bool,
    ) -> Result<Self> {
        let n = io.n;
        if n >= 1 << 30 {
            return Err(Error::InvalidArgument(format!(
                "sort of {n} keys: the single-pass sort counts in 30 bits, so at most 2^30 - 1 \
                 keys (use the three-kernel passes: SortPolicy::default())"
            )));
        }
        let config = &sort.config;
        let (begin, end) = config.bit_range()?;
        let passes = config.passes()?;
        let table = ctx.storage_uninit("sort digit histograms", u64::from(passes) * 256 * 4)?;
        let state_words = 64 + u64::from(tiles) * 256;
        ctx.check_binding("sort look-back descriptors", state_words * 4)?;
        let state = ctx.storage_uninit("sort look-back descriptors", state_words * 4)?;
        let groups = n.div_ceil(sort.shape.workgroup * 16).clamp(1, 1024);
        let per_group = n.div_ceil(groups).max(1);
        let params = ctx.uniform_from(
            "sort histogram params",
            &[
                n,
                per_group,
                begin,
                end - begin,
                u32::from(config.descending),
                0,
                0,
                io.window_words(),
            ],
        )?;
        let histograms = sort.kernel(
            ctx,
            "sort/histograms",
            sort.shape.scanning(),
            1 + u32::from(two),
        )?;
        let [k, k_hi] = io.keys_in(0);
        let bind =
            histograms.bind_ranges(ctx, &[(0, &params, 0, None), k, (3, &table, 0, None), k_hi])?;
        Ok(Self {
            histograms,
            bind,
            groups: n.div_ceil(per_group),
            clear_table: sort.clear.bind(ctx, &[&table])?,
            clear_state: sort.clear.bind(ctx, &[&state])?,
            table,
            state,
            no_blocks: ctx.storage_uninit("sort no block offsets", 4)?,
            _params: params,
        })
    }

    /// The scatter's digit table (the histograms), look-back state and block offsets (a
    /// placeholder).
    pub fn scatter_scratch(&self) -> (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer) {
        (&self.table, &self.state, &self.no_blocks)
    }

    /// Record the histograms of every pass.
    pub fn record_histograms(&self, enc: &mut wgpu::CommandEncoder) {
        let mut pass = record::compute_pass(enc, "wavekit.sort.histograms");
        self.clear_table.dispatch(&mut pass);
        self.histograms.dispatch(&mut pass, &self.bind, self.groups);
    }

    /// Clear the look-back state before a pass (a dispatch in the scatter's pass).
    pub fn clear_state(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.clear_state.dispatch(pass);
    }

    /// The look-back's statistics for the last recorded pass.
    pub fn lookback_stats(&self, ctx: &GpuContext) -> Result<LookbackStats> {
        let w = ctx.read_back::<u32>("sort state", &self.state, 4)?;
        Ok(LookbackStats {
            waited_windows: w[2],
            fallbacks: w[1],
            windows: w[3],
        })
    }
}
