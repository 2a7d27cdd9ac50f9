//! The three-kernel passes (the default, ADR-0016 and ADR-0026): per pass the count kernel writes
//! each tile's digit counts as one row of a tile-major table, the blocks kernel scans each
//! block's rows down every digit's column and sums the block, the scan primitive turns the
//! blocks' sums into each (digit, block)'s keys before it, and the scatter places each key.
//! Small sorts leave dispatches out (ADR-0027, ADR-0031): up to `inline_blocks` blocks the
//! scatter sums the blocks' sums itself (no scan), and over one block it sums the tiles'
//! counts itself (no blocks kernel).

use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::record;
use crate::scan::BoundScan;

use super::config::block_tiles_for;
use super::{Io, PassBindings, RadixSort};

/// The three-kernel mode's kernels, scratch and bind groups besides each pass's.
#[derive(Debug)]
pub(crate) struct ThreeKernel {
    count: Kernel,
    blocks: Kernel,
    blocks_bind: wgpu::BindGroup,
    /// Blocks of tiles: the blocks kernel's workgroups.
    groups: u32,
    /// False over one block with the few-blocks scatter, which sums the tiles' counts itself.
    run_blocks: bool,
    /// The scan of the blocks' digit sums; none up to `inline_blocks` blocks.
    scan: Option<BoundScan>,
    /// The scatter sums the blocks' sums itself.
    few: bool,
    /// Tiles per block (the policy's, or twice that where it saves a dispatch).
    block_tiles: u32,
    /// Tile-major digit counts, scanned in place per block by the blocks kernel.
    counts: wgpu::Buffer,
    /// The scan of the blocks' sums, or (few blocks) the sums themselves.
    offsets: wgpu::Buffer,
    /// A placeholder for the single pass's look-back state.
    no_state: wgpu::Buffer,
    _sums: wgpu::Buffer,
    _params: wgpu::Buffer,
}

impl ThreeKernel {
    /// Scratch and dispatches for `tiles` tiles of `io`'s keys (`two`: past one binding).
    pub fn bind(
        sort: &RadixSort,
        ctx: &GpuContext,
        io: &Io,
        tiles: u32,
        two: bool,
    ) -> Result<Self> {
        let shape = sort.shape;
        // Over a few blocks of tiles within one binding: no scan, and over one block no blocks
        // kernel (the scatter sums them itself); blocks twice as large where that saves one
        // of those dispatches.
        let block_tiles = if two {
            shape.block_tiles
        } else {
            block_tiles_for(tiles, shape.block_tiles, shape.inline_blocks)
        };
        let blocks = tiles.div_ceil(block_tiles);
        let few = !two && blocks <= shape.inline_blocks;
        let slots = u64::from(tiles) * 256;
        ctx.check_binding("sort digit counts", slots * 4)?;
        let counts = ctx.storage_uninit("sort digit counts", slots.max(1) * 4)?;
        let block_slots = u64::from(blocks) * 256;
        let sums = ctx.storage_uninit("sort block sums", block_slots.max(1) * 4)?;
        let blocks_shape = if block_tiles == shape.block_tiles {
            shape.scanning()
        } else {
            shape.doubled()
        };
        let blocks_k = sort.kernel(ctx, "sort/blocks", blocks_shape, 1)?;
        let (offsets, scan) = if few {
            (sums.clone(), None)
        } else {
            let offsets = ctx.storage_uninit("sort block offsets", block_slots * 4)?;
            let scan = sort.scan.as_ref().expect("three-kernel mode has a scan");
            let bound = scan.bind(ctx, &sums, Some(&offsets), block_slots)?;
            (offsets, Some(bound))
        };
        // The blocks kernel reads only the tile count of the pass parameters.
        let params = ctx.uniform_from("sort blocks params", &[io.n, tiles, 0, 0, 0, 0, 0, 0])?;
        let blocks_bind = blocks_k.bind_ranges(
            ctx,
            &[
                (0, &params, 0, None),
                (3, &counts, 0, None),
                (13, &sums, 0, None),
            ],
        )?;
        Ok(Self {
            count: sort.kernel(ctx, "sort/count", shape.scanning(), 1 + u32::from(two))?,
            blocks: blocks_k,
            blocks_bind,
            groups: blocks,
            run_blocks: !(few && blocks == 1),
            scan,
            few,
            block_tiles,
            counts,
            offsets,
            no_state: ctx.storage_uninit("sort no state", 16)?,
            _sums: sums,
            _params: params,
        })
    }

    /// The scatter for this binding: summing the blocks' sums itself (few blocks) or reading
    /// their scan.
    pub fn scatter_kernel(&self, sort: &RadixSort, ctx: &GpuContext, two: bool) -> Result<Kernel> {
        let shape = sort.shape;
        if self.few {
            let few_shape = if self.block_tiles == shape.block_tiles {
                shape
            } else {
                shape.doubled()
            };
            return sort.kernel(ctx, "sort/scatter", few_shape, 1);
        }
        sort.kernel(ctx, "sort/scatter", shape.scanning(), 1 + u32::from(two))
    }

    /// The scatter's digit table, look-back state (a placeholder) and block offsets.
    pub fn scatter_scratch(&self) -> (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer) {
        (&self.counts, &self.no_state, &self.offsets)
    }

    /// A pass's bind group of the count kernel.
    pub fn count_bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        b: &PassBindings<'_>,
    ) -> Result<wgpu::BindGroup> {
        let e = [
            (0, params, 0, None),
            b.keys_in[0],
            (3, &self.counts, 0, None),
            b.keys_in[1],
        ];
        self.count.bind_ranges(ctx, &e)
    }

    /// Record a pass's count, blocks and scan (everything before its scatter).
    pub fn record_counts(
        &self,
        enc: &mut wgpu::CommandEncoder,
        count: &wgpu::BindGroup,
        tiles: u32,
    ) {
        {
            let mut pass = record::compute_pass(enc, "wavekit.sort.count");
            self.count.dispatch(&mut pass, count, tiles);
            if self.run_blocks {
                self.blocks
                    .dispatch(&mut pass, &self.blocks_bind, self.groups);
            }
        }
        if let Some(scan) = &self.scan {
            scan.record(enc);
        }
    }
}
