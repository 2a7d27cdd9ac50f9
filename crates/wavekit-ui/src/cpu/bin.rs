//! The binning kernels (`gpu/bin_count.wgsl`, `gpu/bin_emit.wgsl`) on the CPU, by their
//! definition: each bin's items in draw order. [`super::bin_sim`] computes the same
//! lists the way the kernels do, at every subgroup width.

use super::bbox::bounds;
use crate::records::{self, BIN};
use crate::scene::Scene;

/// Bins across and down.
pub fn bins(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(BIN), height.div_ceil(BIN))
}

/// Each bin's items in draw order, bins row by row: what the binning kernels write.
pub fn bin_lists(scene: &Scene) -> Vec<Vec<u32>> {
    let (bx, by) = bins(scene.width, scene.height);
    let rects: Vec<u32> = bounds(scene)
        .iter()
        .map(|(outer, _)| records::bin_rect(*outer))
        .collect();
    let mut out = vec![Vec::new(); (bx * by) as usize];
    for y in 0..by {
        for x in 0..bx {
            out[(y * bx + x) as usize] = rects
                .iter()
                .enumerate()
                .filter(|(_, r)| records::bin_rect_has(**r, x, y))
                .map(|(i, _)| i as u32)
                .collect();
        }
    }
    out
}
