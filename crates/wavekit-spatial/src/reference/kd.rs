//! The kd-tree's CPU twin (`tree/kd.wgsl` builds it on the GPU, `query/walk_kd.wgsl` walks
//! it): the binary radix tree of the points' sorted 63-bit Morton codes (Karras, HPG 2012),
//! node for node, and the same walk.

use super::{Indexed, Walk, cell_margin, grid_cell, sort63};

/// A side of a node whose flag says it is a leaf.
const LEAF_FLAG: u32 = 1 << 31;

/// The kd-tree as the GPU builds it.
#[derive(Clone, Debug)]
pub struct KdTree {
    /// The points in the codes' order, with their indices.
    pub sorted: Vec<Indexed>,
    /// Their 63-bit codes.
    pub codes: Vec<u64>,
    /// Inner node i (n − 1 of them, root 0): split plane (f32 bits), first point | left leaf
    /// << 31, gamma | axis << 29, last point | right leaf << 31 (`tree/kd.wgsl`).
    pub nodes: Vec<[u32; 4]>,
    /// The points' bounds.
    pub bounds: ([f32; 3], [f32; 3]),
    /// Most points a leaf (more where all codes are equal).
    pub leaf: usize,
}

/// Where a walk stands: a node, or a leaf's points `[first, end)`.
enum Side {
    Node(usize),
    Leaf(usize, usize),
}

impl KdTree {
    /// Build over `points` with at most `leaf` points a leaf.
    pub fn build(points: &[[f32; 3]], leaf: usize) -> KdTree {
        let (sorted, codes, (lo, hi)) = sort63(points);
        let n = codes.len() as i64;
        let delta = |i: i64, j: i64| -> i64 {
            if j < 0 || j >= n {
                return -1;
            }
            let (a, b) = (codes[i as usize], codes[j as usize]);
            if a == b {
                64 + i64::from((i as u32 ^ j as u32).leading_zeros())
            } else {
                i64::from((a ^ b).leading_zeros())
            }
        };
        let mut nodes = Vec::with_capacity(codes.len().saturating_sub(1));
        for i in 0..(n - 1).max(0) {
            let (first, gamma, last) = wavekit::sim::device::radix_node(i, delta);
            let dnode = delta(first as i64, last as i64);
            let left_leaf = gamma + 1 - first <= leaf || codes[first] == codes[gamma];
            let right_leaf = last - gamma <= leaf || codes[gamma + 1] == codes[last];
            let b = (dnode.min(63) - 1) as u32;
            let (axis, shift) = ((b % 3) as usize, 20 - b / 3);
            let q = grid_cell(sorted[gamma + 1].0, lo, hi)[axis];
            let ext = (hi[axis] - lo[axis]).max(1e-30);
            let split = lo[axis] + ((q >> shift) << shift) as f32 * (ext / 2_097_152.0);
            nodes.push([
                split.to_bits(),
                first as u32 | if left_leaf { LEAF_FLAG } else { 0 },
                gamma as u32 | (axis as u32) << 29,
                last as u32 | if right_leaf { LEAF_FLAG } else { 0 },
            ]);
        }
        KdTree {
            sorted,
            codes,
            nodes,
            bounds: (lo, hi),
            leaf,
        }
    }

    /// Side `side` (0 left, 1 right) of node `k`.
    fn side(&self, k: usize, side: usize) -> Side {
        let n = self.nodes[k];
        let gamma = (n[2] & 0x1fff_ffff) as usize;
        match side {
            0 if n[1] & LEAF_FLAG != 0 => Side::Leaf((n[1] & !LEAF_FLAG) as usize, gamma + 1),
            0 => Side::Node(gamma),
            _ if n[3] & LEAF_FLAG != 0 => Side::Leaf(gamma + 1, (n[3] & !LEAF_FLAG) as usize + 1),
            _ => Side::Node(gamma + 1),
        }
    }

    fn root(&self) -> Side {
        let n = self.codes.len();
        if n <= self.leaf || self.codes[0] == self.codes[n - 1] {
            Side::Leaf(0, n)
        } else {
            Side::Node(0)
        }
    }
}

impl Walk for KdTree {
    /// The walk of `walk_kd.wgsl`: `visit` gets each leaf's points, `bound` the squared
    /// distance past which a side is skipped.
    fn walk(&self, q: [f32; 3], bound: &mut dyn FnMut() -> f32, visit: &mut dyn FnMut(&[Indexed])) {
        if self.sorted.is_empty() {
            return;
        }
        let margin = cell_margin(self.bounds.0, self.bounds.1);
        let mut stack = vec![(self.root(), 0.0f32)];
        while let Some((side, d)) = stack.pop() {
            if d > bound() {
                continue;
            }
            let k = match side {
                Side::Leaf(first, end) => {
                    visit(&self.sorted[first..end]);
                    continue;
                }
                Side::Node(k) => k,
            };
            let n = self.nodes[k];
            let axis = (n[2] >> 29 & 3) as usize;
            let diff = q[axis] - f32::from_bits(n[0]);
            let gap = (diff.abs() - margin[axis]).max(0.0);
            let near = usize::from(diff >= 0.0);
            stack.push((self.side(k, 1 - near), d.max(gap * gap)));
            stack.push((self.side(k, near), d));
        }
    }
}
