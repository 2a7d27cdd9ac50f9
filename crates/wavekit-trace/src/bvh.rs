//! The BVH: a binary tree in the layout the traversal kernels read, built on the CPU by binned
//! SAH ([`Bvh::build_cpu`]) or on the GPU by LBVH ([`crate::lbvh`]), and uploaded as a
//! [`GpuBvh`].
//!
//! # Layout (ADR-0050)
//! A node is 16 words (four `vec4<f32>`, 64 bytes) holding both children's boxes, so one
//! node fetch tests both children:
//!
//! | vec4 | x, y, z | w |
//! |---|---|---|
//! | 0 | child 0's box, low corner | child 0's reference (bits) |
//! | 1 | child 0's box, high corner | child 1's reference (bits) |
//! | 2 | child 1's box, low corner | 0 |
//! | 3 | child 1's box, high corner | 0 |
//!
//! A reference is an inner node's index (bit 31 clear), a leaf `0x8000_0000 | (count − 1) << 27
//! | first` (1 to 16 triangles from position `first` of the reordered triangles), or [`EMPTY`].
//! Node 0 is the root; a mesh of a few triangles has one leaf child and one empty one, an empty
//! mesh two empty ones. Triangles are reordered so that every leaf is a range: three `vec4` a
//! triangle, its corners, with the triangle's index in the mesh in the first corner's `w`.

use crate::Result;
use crate::mesh::Mesh;

/// A reference to nothing (an absent child; also "no work left" in the kernels).
pub const EMPTY: u32 = u32::MAX;
/// Most triangles a leaf reference holds.
pub const MAX_LEAF_REF: u32 = 16;
/// Leaves of the SAH build hold at most this many triangles.
pub const SAH_MAX_LEAF: usize = 8;
/// Bins per axis of the SAH build.
pub const SAH_BINS: usize = 16;
/// The SAH's cost of a node visit, relative to a triangle test (1).
pub const SAH_TRAVERSAL: f32 = 1.0;

/// Whether a reference names a leaf (EMPTY excluded by the caller).
pub fn is_leaf(r: u32) -> bool {
    r & 0x8000_0000 != 0
}

/// A leaf's first triangle position.
pub fn leaf_first(r: u32) -> u32 {
    r & 0x07FF_FFFF
}

/// A leaf's triangle count.
pub fn leaf_count(r: u32) -> u32 {
    ((r >> 27) & 15) + 1
}

/// The reference of a leaf of `count` (1..=16) triangles from position `first`.
pub fn leaf_ref(first: u32, count: u32) -> u32 {
    debug_assert!((1..=MAX_LEAF_REF).contains(&count) && first < 1 << 27);
    0x8000_0000 | ((count - 1) << 27) | first
}

/// `x` moved outwards (`side` −1: down, +1: up) by 2^-21 of its magnitude and 2^-40: every
/// box edge lies strictly outside the triangles in it, so that a ray running exactly along a
/// box face (a direction component of zero, the origin on the face) is inside the slab rather
/// than on its edge, where the slab test's distances collapse to zero (both builders pad;
/// `lbvh/refit.wgsl` does it as here).
pub fn pad(x: f32, side: f32) -> f32 {
    x + side * (x.abs() * (1.0 / 2_097_152.0) + 1.0 / 1_099_511_627_776.0)
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Low corner.
    pub lo: [f32; 3],
    /// High corner.
    pub hi: [f32; 3],
}

impl Aabb {
    /// The empty box (the identity of [`Aabb::union`]).
    pub const EMPTY: Aabb = Aabb {
        lo: [f32::INFINITY; 3],
        hi: [f32::NEG_INFINITY; 3],
    };

    /// The smallest box holding both.
    pub fn union(self, o: Aabb) -> Aabb {
        Aabb {
            lo: [0, 1, 2].map(|a| self.lo[a].min(o.lo[a])),
            hi: [0, 1, 2].map(|a| self.hi[a].max(o.hi[a])),
        }
    }

    /// The box grown to hold `p`.
    pub fn grow(self, p: [f32; 3]) -> Aabb {
        self.union(Aabb { lo: p, hi: p })
    }

    /// Surface area (0 for the empty box).
    pub fn area(&self) -> f32 {
        let d = [0, 1, 2].map(|a| (self.hi[a] - self.lo[a]).max(0.0));
        2.0 * (d[0] * d[1] + d[1] * d[2] + d[2] * d[0])
    }

    /// A triangle's box, padded outwards ([`pad`]).
    pub fn of_triangle(p: [[f32; 3]; 3]) -> Aabb {
        let b = Aabb::EMPTY.grow(p[0]).grow(p[1]).grow(p[2]);
        Aabb {
            lo: b.lo.map(|x| pad(x, -1.0)),
            hi: b.hi.map(|x| pad(x, 1.0)),
        }
    }
}

/// An inner node: both children's boxes and references.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Children's low corners.
    pub lo: [[f32; 3]; 2],
    /// Children's high corners.
    pub hi: [[f32; 3]; 2],
    /// Children's references.
    pub child: [u32; 2],
}

impl Node {
    /// A node with two empty children (an empty mesh's root).
    pub const NONE: Node = Node {
        lo: [[0.0; 3]; 2],
        hi: [[0.0; 3]; 2],
        child: [EMPTY; 2],
    };

    fn set(&mut self, c: usize, r: u32, b: Aabb) {
        self.child[c] = r;
        self.lo[c] = b.lo;
        self.hi[c] = b.hi;
    }

    fn fbox(&self, c: usize) -> Aabb {
        Aabb {
            lo: self.lo[c],
            hi: self.hi[c],
        }
    }

    /// The node's 16 words as the GPU reads them.
    pub fn to_words(&self) -> [u32; 16] {
        let b = |x: f32| x.to_bits();
        let (l, h) = (self.lo, self.hi);
        [
            b(l[0][0]),
            b(l[0][1]),
            b(l[0][2]),
            self.child[0],
            b(h[0][0]),
            b(h[0][1]),
            b(h[0][2]),
            self.child[1],
            b(l[1][0]),
            b(l[1][1]),
            b(l[1][2]),
            0,
            b(h[1][0]),
            b(h[1][1]),
            b(h[1][2]),
            0,
        ]
    }

    /// A node from its 16 words.
    pub fn from_words(w: &[u32]) -> Node {
        let f = |i: usize| f32::from_bits(w[i]);
        Node {
            lo: [[f(0), f(1), f(2)], [f(8), f(9), f(10)]],
            hi: [[f(4), f(5), f(6)], [f(12), f(13), f(14)]],
            child: [w[3], w[7]],
        }
    }
}

/// A BVH on the host: nodes (0 is the root), the triangles in leaf order, and each one's index
/// in the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    /// Inner nodes.
    pub nodes: Vec<Node>,
    /// Triangle corners in leaf order.
    pub tris: Vec<[[f32; 3]; 3]>,
    /// The mesh index of each triangle in leaf order.
    pub prims: Vec<u32>,
}

/// Which builder made a BVH, its cost and shape (for reports).
#[derive(Clone, Debug, serde::Serialize)]
pub struct BvhStats {
    /// Inner nodes.
    pub nodes: usize,
    /// Leaves.
    pub leaves: usize,
    /// Most inner nodes on a path from the root (the traversal stack needs at most this many).
    pub depth: u32,
    /// SAH cost: node visits and triangle tests expected of a random ray that meets the root's
    /// box, a visit costing [`SAH_TRAVERSAL`] and a test 1.
    pub sah: f64,
}

impl Bvh {
    /// The corners of the triangle at leaf position `k`.
    pub fn corners(&self, k: usize) -> [[f32; 3]; 3] {
        self.tris[k]
    }

    /// Build by binned SAH ([`SAH_BINS`] bins an axis, leaves of at most [`SAH_MAX_LEAF`]);
    /// the top [`SAH_PARALLEL_LEVELS`] levels split the work between threads.
    pub fn build_cpu(mesh: &Mesh) -> Bvh {
        let n = mesh.len();
        let boxes: Vec<Aabb> = (0..n).map(|i| Aabb::of_triangle(mesh.corners(i))).collect();
        let centroid: Vec<[f32; 3]> = boxes
            .iter()
            .map(|b| [0, 1, 2].map(|a| 0.5 * (b.lo[a] + b.hi[a])))
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        let input = Input {
            boxes: &boxes,
            centroid: &centroid,
        };
        let nodes = if n == 0 {
            vec![Node::NONE]
        } else {
            let (r, b, nodes) = subtree(&mut order, 0, &input, SAH_PARALLEL_LEVELS);
            if is_leaf(r) {
                // A few triangles: the root holds one leaf beside an empty child.
                let mut root = Node::NONE;
                root.set(0, r, b);
                vec![root]
            } else {
                nodes
            }
        };
        Bvh {
            nodes,
            tris: order.iter().map(|&i| mesh.corners(i as usize)).collect(),
            prims: order,
        }
    }

    /// Inner nodes, leaves, depth and SAH cost (of any BVH in this layout: both builders').
    pub fn stats(&self) -> BvhStats {
        let root = self.nodes[0];
        let root_box = (0..2)
            .filter(|&c| root.child[c] != EMPTY)
            .fold(Aabb::EMPTY, |b, c| b.union(root.fbox(c)));
        let area = f64::from(root_box.area()).max(f64::MIN_POSITIVE);
        let mut sah = f64::from(SAH_TRAVERSAL);
        let mut leaves = 0;
        let mut depth = 0;
        let mut stack = vec![(0u32, 1u32)];
        while let Some((i, d)) = stack.pop() {
            depth = depth.max(d);
            let n = &self.nodes[i as usize];
            for c in 0..2 {
                let r = n.child[c];
                if r == EMPTY {
                    continue;
                }
                let a = f64::from(n.fbox(c).area()) / area;
                if is_leaf(r) {
                    leaves += 1;
                    sah += a * f64::from(leaf_count(r));
                } else {
                    sah += a * f64::from(SAH_TRAVERSAL);
                    stack.push((r, d + 1));
                }
            }
        }
        BvhStats {
            nodes: self.nodes.len(),
            leaves,
            depth,
            sah,
        }
    }

    /// Check the tree against `mesh`: every triangle in exactly one leaf, with its own corners,
    /// inside its leaf's box, and every child box inside its parent's.
    pub fn validate(&self, mesh: &Mesh) -> std::result::Result<(), String> {
        if self.tris.len() != mesh.len() || self.prims.len() != mesh.len() {
            return Err(format!(
                "{} triangles for a mesh of {}",
                self.tris.len(),
                mesh.len()
            ));
        }
        let mut seen = vec![false; mesh.len()];
        let mut stack = vec![(0u32, None::<Aabb>)];
        while let Some((i, outer)) = stack.pop() {
            let n = self.nodes.get(i as usize).ok_or(format!("no node {i}"))?;
            for c in 0..2 {
                let r = n.child[c];
                if r == EMPTY {
                    continue;
                }
                let b = n.fbox(c);
                if outer.is_some_and(|o| o.union(b) != o) {
                    return Err(format!("node {i}: child {c}'s box is outside its parent's"));
                }
                if !is_leaf(r) {
                    stack.push((r, Some(b)));
                    continue;
                }
                for k in leaf_first(r)..leaf_first(r) + leaf_count(r) {
                    let p = *self
                        .prims
                        .get(k as usize)
                        .ok_or(format!("leaf position {k}"))?;
                    let p = p as usize;
                    if p >= mesh.len() || std::mem::replace(&mut seen[p], true) {
                        return Err(format!("triangle {p} twice or out of range"));
                    }
                    if self.tris[k as usize] != mesh.corners(p) {
                        return Err(format!("leaf position {k}: not triangle {p}'s corners"));
                    }
                    if b.union(Aabb::of_triangle(mesh.corners(p))) != b {
                        return Err(format!("triangle {p} sticks out of its leaf's box"));
                    }
                }
            }
        }
        match seen.iter().position(|&s| !s) {
            Some(p) => Err(format!("triangle {p} is in no leaf")),
            None => Ok(()),
        }
    }

    /// Upload to the GPU.
    pub fn upload(&self, ctx: &wavekit::GpuContext) -> Result<GpuBvh> {
        let words: Vec<u32> = self.nodes.iter().flat_map(|n| n.to_words()).collect();
        let tris: Vec<u32> = self
            .tris
            .iter()
            .zip(&self.prims)
            .flat_map(|(t, &p)| tri_words(t, p))
            .collect();
        Ok(GpuBvh {
            nodes: ctx.storage_from("trace bvh nodes", &words)?,
            tris: ctx.storage_from("trace bvh triangles", &tris)?,
            node_count: self.nodes.len() as u32,
            tri_count: self.tris.len() as u32,
            depth: Some(self.stats().depth),
        })
    }

    /// Read a BVH back from the GPU (tests and reports: SAH cost and depth of the GPU build).
    pub fn read_back(ctx: &wavekit::GpuContext, g: &GpuBvh) -> Result<Bvh> {
        let words: Vec<u32> =
            ctx.read_back("trace bvh nodes", &g.nodes, g.node_count as usize * 16)?;
        let tw: Vec<u32> =
            ctx.read_back("trace bvh triangles", &g.tris, g.tri_count as usize * 12)?;
        let f = f32::from_bits;
        Ok(Bvh {
            nodes: words.chunks_exact(16).map(Node::from_words).collect(),
            tris: tw
                .chunks_exact(12)
                .map(|w| [0, 4, 8].map(|o| [f(w[o]), f(w[o + 1]), f(w[o + 2])]))
                .collect(),
            prims: tw.chunks_exact(12).map(|w| w[3]).collect(),
        })
    }
}

/// A triangle's 12 words on the GPU: three corners as `vec4`, the mesh index in the first `w`.
pub fn tri_words(t: &[[f32; 3]; 3], prim: u32) -> [u32; 12] {
    let b = |x: f32| x.to_bits();
    [
        b(t[0][0]),
        b(t[0][1]),
        b(t[0][2]),
        prim,
        b(t[1][0]),
        b(t[1][1]),
        b(t[1][2]),
        0,
        b(t[2][0]),
        b(t[2][1]),
        b(t[2][2]),
        0,
    ]
}

/// The SAH build splits its work between threads in this many top levels (2^levels parts).
pub const SAH_PARALLEL_LEVELS: u32 = 4;
/// Ranges smaller than this are built on one thread.
const SAH_PARALLEL_MIN: usize = 20_000;

/// What every part of the SAH build reads: each triangle's box and centroid.
struct Input<'a> {
    boxes: &'a [Aabb],
    centroid: &'a [[f32; 3]],
}

fn bounds(order: &[u32], boxes: &[Aabb]) -> Aabb {
    order
        .iter()
        .fold(Aabb::EMPTY, |b, &i| b.union(boxes[i as usize]))
}

/// The subtree over `order` (positions `offset..` of the final triangle order): its reference
/// (a leaf, or 0 for its own node 0), its box and its nodes (children indices local). The top
/// `par` levels build their halves on two threads and relocate them under a new node 0.
fn subtree(order: &mut [u32], offset: u32, input: &Input, par: u32) -> (u32, Aabb, Vec<Node>) {
    let (boxes, centroid) = (input.boxes, input.centroid);
    let n = order.len();
    let bbox = bounds(order, boxes);
    let mid = split(order, boxes, centroid, n > SAH_MAX_LEAF);
    if mid == 0 {
        return (leaf_ref(offset, n as u32), bbox, Vec::new());
    }
    if par > 0 && n >= SAH_PARALLEL_MIN {
        let (l, r) = order.split_at_mut(mid);
        let (a, b) = std::thread::scope(|s| {
            let left = s.spawn(|| subtree(l, offset, input, par - 1));
            let right = subtree(r, offset + mid as u32, input, par - 1);
            (left.join().expect("the SAH build's thread ran"), right)
        });
        let mut nodes = vec![Node::NONE];
        for (c, (r, bx, sub)) in [a, b].into_iter().enumerate() {
            let base = nodes.len() as u32;
            let reloc = |r: u32| {
                if r == EMPTY || is_leaf(r) {
                    r
                } else {
                    r + base
                }
            };
            nodes[0].set(c, reloc(r), bx);
            nodes.extend(sub.into_iter().map(|mut nd| {
                nd.child = nd.child.map(reloc);
                nd
            }));
        }
        return (0, bbox, nodes);
    }
    // One thread: this node at 0, its descendants by a work stack of (node, child, range).
    let mut nodes = vec![Node::NONE];
    let mut work = vec![(0usize, 0usize, 0usize, mid), (0, 1, mid, n)];
    while let Some((parent, slot, a, b)) = work.pop() {
        let b_box = bounds(&order[a..b], boxes);
        let count = b - a;
        let m = split(&mut order[a..b], boxes, centroid, count > SAH_MAX_LEAF);
        if m == 0 {
            let r = leaf_ref(offset + a as u32, count as u32);
            nodes[parent].set(slot, r, b_box);
        } else {
            let id = nodes.len();
            nodes.push(Node::NONE);
            nodes[parent].set(slot, id as u32, b_box);
            work.push((id, 0, a, a + m));
            work.push((id, 1, a + m, b));
        }
    }
    (0, bbox, nodes)
}

/// Split `order` by binned SAH; returns the split position (0 < m < len), or 0 when a leaf
/// is cheaper and `force` is false. With `force`, a range whose centroids all coincide is
/// halved.
// The axis indexes the centroids, the bounds and the bins alike.
#[allow(clippy::needless_range_loop)]
fn split(order: &mut [u32], boxes: &[Aabb], centroid: &[[f32; 3]], force: bool) -> usize {
    let n = order.len();
    let cb = order
        .iter()
        .fold(Aabb::EMPTY, |b, &i| b.grow(centroid[i as usize]));
    let parent = order
        .iter()
        .fold(Aabb::EMPTY, |b, &i| b.union(boxes[i as usize]))
        .area()
        .max(f32::MIN_POSITIVE);
    let mut best = (f32::INFINITY, 0usize, 0usize); // cost, axis, bins left of the split
    for axis in 0..3 {
        let extent = cb.hi[axis] - cb.lo[axis];
        if extent <= 0.0 {
            continue;
        }
        let scale = SAH_BINS as f32 / extent;
        let bin = |i: u32| {
            (((centroid[i as usize][axis] - cb.lo[axis]) * scale) as usize).min(SAH_BINS - 1)
        };
        let mut bb = [Aabb::EMPTY; SAH_BINS];
        let mut cnt = [0usize; SAH_BINS];
        for &i in order.iter() {
            let k = bin(i);
            bb[k] = bb[k].union(boxes[i as usize]);
            cnt[k] += 1;
        }
        // Right-to-left sweep of areas and counts, then left to right.
        let mut right = [(0.0f32, 0usize); SAH_BINS];
        let (mut b, mut c) = (Aabb::EMPTY, 0);
        for k in (1..SAH_BINS).rev() {
            b = b.union(bb[k]);
            c += cnt[k];
            right[k] = (b.area(), c);
        }
        let (mut b, mut c) = (Aabb::EMPTY, 0);
        for k in 0..SAH_BINS - 1 {
            b = b.union(bb[k]);
            c += cnt[k];
            let (ra, rc) = right[k + 1];
            if c == 0 || rc == 0 {
                continue;
            }
            let cost = SAH_TRAVERSAL + (b.area() * c as f32 + ra * rc as f32) / parent;
            if cost < best.0 {
                best = (cost, axis, k + 1);
            }
        }
    }
    if best.0.is_infinite() {
        // Every centroid in one place (or one bin): halve by position.
        return if force { n / 2 } else { 0 };
    }
    if !force && best.0 >= n as f32 {
        return 0;
    }
    let (_, axis, left_bins) = best;
    let scale = SAH_BINS as f32 / (cb.hi[axis] - cb.lo[axis]);
    let left = |i: &u32| {
        (((centroid[*i as usize][axis] - cb.lo[axis]) * scale) as usize).min(SAH_BINS - 1)
            < left_bins
    };
    // In-place partition.
    let mut m = 0;
    for j in 0..n {
        if left(&order[j]) {
            order.swap(m, j);
            m += 1;
        }
    }
    debug_assert!(m > 0 && m < n);
    m
}

/// A BVH on the GPU: the node and triangle buffers the traversal kernels bind.
#[derive(Debug)]
pub struct GpuBvh {
    /// Nodes, 16 words each.
    pub nodes: wgpu::Buffer,
    /// Triangles in leaf order, 12 words each.
    pub tris: wgpu::Buffer,
    /// Inner nodes.
    pub node_count: u32,
    /// Triangles.
    pub tri_count: u32,
    /// The depth, where known (the CPU build; the GPU build's after [`Bvh::read_back`]).
    pub depth: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{Ray, brute_force, traverse};

    #[test]
    fn sah_trees_hold_every_triangle_and_trace_like_brute_force() {
        for (spec, n) in [
            ("proc:soup:0", 0),
            ("proc:soup:1", 1),
            ("proc:soup:8", 8),
            ("proc:soup:9", 9),
            ("proc:soup:997", 997),
            ("proc:thin:500", 500),
            ("proc:plane:16", 512),
            ("proc:grid:4", 512),
        ] {
            let mesh = if n == 0 {
                Mesh::default()
            } else {
                crate::mesh::procedural(spec).unwrap()
            };
            let bvh = Bvh::build_cpu(&mesh);
            bvh.validate(&mesh).unwrap();
            let s = bvh.stats();
            assert!(s.depth <= 64 && s.sah.is_finite(), "{spec}: {s:?}");
            let (lo, hi) = mesh.bounds();
            let mut r = fastrand::Rng::with_seed(9);
            let rays: Vec<Ray> = (0..400)
                .map(|_| {
                    let o = [0, 1, 2].map(|a| lo[a] - 0.5 + (hi[a] - lo[a] + 1.0) * r.f32());
                    let t = [0, 1, 2].map(|a| lo[a] + (hi[a] - lo[a]) * r.f32());
                    Ray {
                        origin: o,
                        tmin: 0.0,
                        dir: [t[0] - o[0], t[1] - o[1], t[2] - o[2]],
                        tmax: f32::INFINITY,
                    }
                })
                .collect();
            let want = brute_force(&mesh, &rays);
            for (i, r) in rays.iter().enumerate() {
                let got = traverse(&bvh, r, false, 64).unwrap();
                assert_eq!(got.is_hit(), want[i].is_hit(), "{spec} ray {i}");
                assert!(
                    got.prim == want[i].prim || (got.t - want[i].t).abs() <= 1e-6 * got.t,
                    "{spec} ray {i}: {got:?} vs {:?}",
                    want[i]
                );
                let any = traverse(&bvh, r, true, 64).unwrap();
                assert_eq!(any.is_hit(), want[i].is_hit(), "{spec} ray {i} any hit");
            }
        }
    }

    #[test]
    fn the_threaded_top_levels_build_a_valid_tree() {
        // Large enough that four levels are split between threads.
        let mesh = crate::mesh::procedural("proc:soup:90000:6").unwrap();
        let bvh = Bvh::build_cpu(&mesh);
        bvh.validate(&mesh).unwrap();
        let mut r = fastrand::Rng::with_seed(4);
        let rays: Vec<Ray> = (0..40)
            .map(|_| Ray {
                origin: [r.f32(), r.f32(), -0.5],
                tmin: 0.0,
                dir: [r.f32() - 0.5, r.f32() - 0.5, 1.0],
                tmax: f32::INFINITY,
            })
            .collect();
        let want = brute_force(&mesh, &rays);
        for (i, ray) in rays.iter().enumerate() {
            let got = traverse(&bvh, ray, false, 64).unwrap();
            assert!(got.prim == want[i].prim || got.t == want[i].t, "ray {i}");
        }
    }

    #[test]
    fn references_round_trip() {
        for (first, count) in [(0, 1), (5, 16), ((1 << 27) - 1, 8)] {
            let r = leaf_ref(first, count);
            assert!(is_leaf(r) && r != EMPTY);
            assert_eq!((leaf_first(r), leaf_count(r)), (first, count));
        }
        assert!(!is_leaf(12345));
        let n = Node {
            lo: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
            hi: [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]],
            child: [7, leaf_ref(3, 2)],
        };
        assert_eq!(Node::from_words(&n.to_words()), n);
    }
}
