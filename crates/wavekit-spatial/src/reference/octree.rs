//! The octree's CPU twin (`tree/octree.wgsl` builds it on the GPU, `query/walk_octree.wgsl`
//! walks it): the same compressed sparse octree over the points' sorted 63-bit Morton codes,
//! made a generation at a time, and the same walk.

use super::{Indexed, Walk, cell_margin, common_digits, digit, grid_cell, morton63, sort63};

/// A leaf's child field.
pub const NO_NODE: u32 = u32::MAX;

/// The octree as the GPU builds it.
#[derive(Clone, Debug)]
pub struct Octree {
    /// The points in the codes' order, with their indices.
    pub sorted: Vec<Indexed>,
    /// Their 63-bit codes.
    pub codes: Vec<u64>,
    /// Node k: first point, points, first child ([`NO_NODE`] for a leaf), level | child
    /// octants << 8 (`tree/octree.wgsl`); the root first, each generation after the one
    /// before, children consecutive in octant order.
    pub nodes: Vec<[u32; 4]>,
    /// The points' bounds.
    pub bounds: ([f32; 3], [f32; 3]),
}

impl Octree {
    /// Build over `points` with at most `leaf` points a leaf (more where all codes are
    /// equal).
    pub fn build(points: &[[f32; 3]], leaf: usize) -> Octree {
        let (sorted, codes, bounds) = sort63(points);
        let n = codes.len();
        let mut nodes = Vec::new();
        if n > 0 {
            nodes.push([0, n as u32, NO_NODE, common_digits(codes[0], codes[n - 1])]);
        }
        let mut generation = 0..nodes.len();
        while !generation.is_empty() {
            let next = nodes.len();
            for k in generation {
                let [first, count, _, level] = nodes[k];
                if count as usize <= leaf || level >= 21 {
                    continue;
                }
                let range = first as usize..(first + count) as usize;
                let mut mask = 0;
                let child0 = nodes.len() as u32;
                let mut at = range.start;
                while at < range.end {
                    let o = digit(codes[at], level);
                    let end = at + codes[at..range.end].partition_point(|&c| digit(c, level) == o);
                    mask |= 1 << o;
                    let shared = common_digits(codes[at], codes[end - 1]);
                    nodes.push([at as u32, (end - at) as u32, NO_NODE, shared]);
                    at = end;
                }
                nodes[k][2] = child0;
                nodes[k][3] = level | mask << 8;
            }
            generation = next..nodes.len();
        }
        Octree {
            sorted,
            codes,
            nodes,
            bounds,
        }
    }

    /// The nodes in depth-first order, children in octant order, each as (first point,
    /// points, level, child octants): the same list for any numbering of the nodes (the
    /// GPU's depends on the order its workgroups ran).
    pub fn canonical(nodes: &[[u32; 4]]) -> Vec<[u32; 4]> {
        let mut out = Vec::with_capacity(nodes.len());
        let mut stack = if nodes.is_empty() { vec![] } else { vec![0u32] };
        while let Some(k) = stack.pop() {
            let [first, count, child, w] = nodes[k as usize];
            out.push([first, count, w & 0xff, w >> 8]);
            if child != NO_NODE {
                let c = (w >> 8).count_ones();
                stack.extend((child..child + c).rev());
            }
        }
        out
    }
}

impl Walk for Octree {
    /// The walk of `walk_octree.wgsl`: `visit` gets each leaf's points, `bound` the squared
    /// distance past which a cell is skipped.
    fn walk(&self, q: [f32; 3], bound: &mut dyn FnMut() -> f32, visit: &mut dyn FnMut(&[Indexed])) {
        if self.nodes.is_empty() {
            return;
        }
        let (lo, hi) = self.bounds;
        let margin = cell_margin(lo, hi);
        let code = morton63(q, lo, hi);
        // A node's cell (widened) distance, as the kernel's `cell_box`.
        let cell_dist = |k: usize| {
            let [first, _, _, w] = self.nodes[k];
            let level = w & 0xff;
            let cell = grid_cell(self.sorted[first as usize].0, lo, hi).map(|c| c >> (21 - level));
            let mut d2 = 0.0;
            for a in 0..3 {
                let ext = (hi[a] - lo[a]).max(1e-30);
                let size = ext / (1u32 << level) as f32;
                let low = lo[a] + cell[a] as f32 * size;
                let (l, h) = (low - margin[a], low + size + margin[a]);
                let d = (l - q[a]).max(q[a] - h).max(0.0);
                d2 += d * d;
            }
            d2
        };
        // (node, octants left, the query's octant at the node).
        let mut stack: Vec<(usize, u32, u32)> = Vec::new();
        let mut visit_node = |k: usize, stack: &mut Vec<(usize, u32, u32)>, bound: f32| {
            if cell_dist(k) > bound {
                return;
            }
            let [first, count, child, w] = self.nodes[k];
            if child == NO_NODE {
                visit(&self.sorted[first as usize..(first + count) as usize]);
            } else {
                stack.push((k, w >> 8 & 0xff, digit(code, w & 0xff)));
            }
        };
        visit_node(0, &mut stack, bound());
        while let Some(&(k, left, qo)) = stack.last() {
            let o = (0..8)
                .map(|j| j ^ qo)
                .find(|o| left & 1 << o != 0)
                .unwrap_or(0);
            let rest = left & !(1 << o);
            if rest == 0 {
                stack.pop();
            } else {
                stack.last_mut().expect("a top").1 = rest;
            }
            let [_, _, child, w] = self.nodes[k];
            let mask = w >> 8 & 0xff;
            let c = child + (mask & ((1 << o) - 1)).count_ones();
            visit_node(c as usize, &mut stack, bound());
        }
    }
}
