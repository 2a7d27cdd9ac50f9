//! The GPU builds (the kernels in `tree/`; the CPU twins are [`crate::reference::Tree::build`],
//! [`crate::reference::kd::KdTree::build`] and [`crate::reference::octree::Octree::build`]),
//! recorded into the caller's encoder:
//!
//! 1. `tree/bounds.wgsl` — the points' bounds;
//! 2. `tree/morton.wgsl` — a 30-bit Morton code per point (BVH), or `tree/morton63.wgsl` — a
//!    63-bit one (kd-tree, octree);
//! 3. wavekit's radix sort — the codes sorted, the permutation as values (stable);
//! 4. `tree/gather.wgsl` — the points in the codes' order, each with its index;
//! 5. BVH: `tree/leaves.wgsl` — each leaf's box, then `tree/up.wgsl` — the boxes up, one
//!    dispatch a level; kd-tree: `tree/kd.wgsl` — every inner node at once (Karras's radix
//!    tree); octree: `tree/octree.wgsl` — one dispatch a generation, 22 in all.

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::sort::BoundSort;

use crate::reference::leaf_count;
use crate::{Result, Spatial, SpatialError, TreeKind, WORKGROUP};

/// Generations of the octree's build: one a level of its 63-bit codes' digits, and the root.
pub const OCTREE_GENERATIONS: u32 = 22;

/// A tree on the GPU: the points in the codes' order and the nodes.
#[derive(Debug)]
pub struct PointTree {
    /// Which tree.
    pub kind: TreeKind,
    /// Points.
    pub points: u32,
    /// BVH: leaves (a power of two); kd-tree and octree: 0.
    pub leaves: u32,
    /// Points a leaf.
    pub leaf: u32,
    /// The points in the codes' order: `vec4` each (xyz, the index's bits in w).
    pub sorted: wgpu::Buffer,
    /// BVH: node k's box at `vec4` 2k (low) and 2k + 1 (high), root 1. kd-tree and octree:
    /// a `vec4<u32>` a node (layouts in `tree/kd.wgsl` and `tree/octree.wgsl`).
    pub nodes: wgpu::Buffer,
    /// The bounds, encoded (tree/common.wgsl): what the queries' Morton codes are taken in.
    pub bounds: wgpu::Buffer,
    /// The points' Morton codes, sorted: 30 bits a point (BVH: where a k-NN query starts) or
    /// 63 bits in two words, low first (kd-tree, octree).
    pub codes: wgpu::Buffer,
    /// The octree's node count a generation (`[g]`, g ≥ 1; the root is generation 0).
    pub generations: Option<wgpu::Buffer>,
    /// A periodic box (SciPy's `boxsize`): each axis's length, 0 for an open axis (the
    /// default: all open). Set by [`Spatial::build_periodic`] or [`PointTree::set_box`].
    pub boxsize: [f32; 3],
}

/// A build bound to its input and its result's buffers.
#[derive(Debug)]
pub struct BoundBuild {
    steps: Vec<(Kernel, wgpu::BindGroup, u32)>,
    sort: Option<BoundSort>,
    tree: PointTree,
    _keep: Vec<wgpu::Buffer>,
}

impl Spatial {
    /// Bind a build over `n` points in `points` (three f32 each, finite: [`crate::flatten`] checks).
    pub fn bind_build(
        &self,
        ctx: &GpuContext,
        points: &wgpu::Buffer,
        n: u32,
    ) -> Result<BoundBuild> {
        let kind = self.config.tree;
        let most = match kind {
            TreeKind::Bvh => 1 << 31,
            // The kd-tree's node words keep flags above 29 bits of a point's position.
            _ => 1 << 29,
        };
        if n >= most {
            return Err(SpatialError::InvalidArgument(format!(
                "{n} points: the {} takes at most {}",
                kind.name(),
                most - 1
            )));
        }
        let leaf = self.config.leaf;
        let leaves = match kind {
            TreeKind::Bvh => leaf_count(n as usize, leaf as usize) as u32,
            _ => 0,
        };
        let code_words = if kind == TreeKind::Bvh { 1 } else { 2 };
        ctx.check_binding("spatial points in leaf order", u64::from(n) * 16)?;
        ctx.check_binding("spatial points", u64::from(n) * 12)?;
        ctx.check_binding("spatial Morton codes", u64::from(n) * 4 * code_words)?;
        let params = |z: u32, w: u32| ctx.uniform_from("spatial build params", &[n, leaves, z, w]);
        let p0 = params(0, 0)?;
        // Encoded bounds start at 0: every encoded coordinate is above it.
        let bounds = ctx.storage_from("spatial bounds", &[0u32; 8])?;
        let keys = ctx.storage_uninit("spatial keys", u64::from(n.max(1)) * 4 * code_words)?;
        let perm = ctx.storage_uninit("spatial permutation", u64::from(n.max(1)) * 4)?;
        let sorted =
            ctx.storage_uninit("spatial points in leaf order", u64::from(n.max(1)) * 16)?;
        let nodes = match kind {
            TreeKind::Bvh => {
                let nodes = 2 * u64::from(leaves);
                ctx.check_binding("spatial node boxes", nodes * 32)?;
                // Every box empty to begin with (an empty tree's root stays so).
                let inf = f32::INFINITY;
                let empty: Vec<f32> = (0..nodes)
                    .flat_map(|_| [inf, inf, inf, 0.0, -inf, -inf, -inf, 0.0])
                    .collect();
                ctx.storage_from("spatial node boxes", &empty)?
            }
            TreeKind::Kd => {
                ctx.check_binding("spatial kd-tree nodes", u64::from(n) * 16)?;
                ctx.storage_uninit("spatial kd-tree nodes", u64::from(n.max(1)) * 16)?
            }
            TreeKind::Octree => {
                let words = 2 * u64::from(n.max(1)) * 16;
                ctx.check_binding("spatial octree nodes", words)?;
                ctx.storage_uninit("spatial octree nodes", words)?
            }
        };
        let generations = (kind == TreeKind::Octree)
            .then(|| ctx.storage_from("spatial octree generations", &[0u32; 24]))
            .transpose()?;
        let gens = generations.clone().unwrap_or_else(|| perm.clone());
        let mut keep = vec![perm.clone()];
        let mut steps = Vec::new();
        if n > 0 {
            let entries = |p: &wgpu::Buffer| {
                [
                    (0u32, p.clone()),
                    (1, points.clone()),
                    (2, bounds.clone()),
                    (3, keys.clone()),
                    (4, perm.clone()),
                    (5, sorted.clone()),
                    (6, nodes.clone()),
                    (7, nodes.clone()),
                    (8, gens.clone()),
                ]
            };
            let bind = |k: &Kernel, p: &wgpu::Buffer| {
                let e = entries(p);
                let r: Vec<(u32, &wgpu::Buffer)> = e.iter().map(|(b, x)| (*b, x)).collect();
                k.bind(ctx, &r)
            };
            let groups = n.div_ceil(WORKGROUP);
            let k = &self.build;
            for step in &k[..3] {
                steps.push((step.clone(), bind(step, &p0)?, groups));
            }
            match kind {
                TreeKind::Bvh => {
                    let (leaves_k, up_k) = (&k[3], &k[4]);
                    steps.push((
                        leaves_k.clone(),
                        bind(leaves_k, &p0)?,
                        leaves.div_ceil(WORKGROUP),
                    ));
                    // Levels from the leaves' parents [L/2, L) up to the root [1, 2).
                    let mut first = leaves / 2;
                    while first >= 1 {
                        let p = params(first, first)?;
                        steps.push((up_k.clone(), bind(up_k, &p)?, first.div_ceil(WORKGROUP)));
                        keep.push(p);
                        first /= 2;
                    }
                }
                TreeKind::Kd => {
                    steps.push((k[3].clone(), bind(&k[3], &p0)?, groups));
                }
                TreeKind::Octree => {
                    // Generation g holds at most n nodes (each has a point or more); the root
                    // one workgroup.
                    for g in 0..OCTREE_GENERATIONS {
                        let p = params(g, 0)?;
                        let wgs = if g == 0 { 1 } else { groups };
                        steps.push((k[3].clone(), bind(&k[3], &p)?, wgs));
                        keep.push(p);
                    }
                }
            }
        }
        keep.push(p0);
        let sort = if n > 1 {
            let sorter = self.sort63.as_ref().unwrap_or(&self.sort);
            Some(sorter.bind(ctx, &keys, Some(&perm), u64::from(n))?)
        } else {
            None
        };
        Ok(BoundBuild {
            steps,
            sort,
            tree: PointTree {
                kind,
                points: n,
                leaves,
                leaf,
                sorted,
                nodes,
                bounds,
                codes: keys,
                generations,
                boxsize: [0.0; 3],
            },
            _keep: keep,
        })
    }

    /// Upload `points` and build their tree, waiting for it (time the steps with
    /// [`BoundBuild::record`]).
    pub fn build(&self, ctx: &GpuContext, points: &[[f32; 3]]) -> Result<PointTree> {
        let buf = crate::upload_points(ctx, points, "point")?;
        let bound = self.bind_build(ctx, &buf, points.len() as u32)?;
        ctx.submit_checked("building a tree", |e| bound.record(e))?;
        Ok(bound.into_tree())
    }

    /// [`Spatial::build`] in a periodic box (SciPy's `boxsize`): `boxsize` is each axis's
    /// length (0 for an open axis), and every point must lie in [0, L) on each periodic axis.
    /// Queries then find the nearer image across each periodic axis, in the walk itself (the
    /// BVH only; the slice calls wrap the queries into the box).
    pub fn build_periodic(
        &self,
        ctx: &GpuContext,
        points: &[[f32; 3]],
        boxsize: [f32; 3],
    ) -> Result<PointTree> {
        check_box(self.config.tree, boxsize)?;
        for (i, p) in points.iter().enumerate() {
            for axis in 0..3 {
                let l = boxsize[axis];
                if l > 0.0 && !(0.0..l).contains(&p[axis]) {
                    return Err(SpatialError::InvalidArgument(format!(
                        "point {i} is {p:?}: in a periodic box of {boxsize:?} every coordinate                          of a periodic axis must lie in [0, L); wrap the points into the box                          first (x mod L)"
                    )));
                }
            }
        }
        let mut tree = self.build(ctx, points)?;
        tree.boxsize = boxsize;
        Ok(tree)
    }
}

/// A periodic box the walks take: the BVH's, finite non-negative lengths.
fn check_box(kind: TreeKind, boxsize: [f32; 3]) -> Result<()> {
    if boxsize.iter().any(|l| !l.is_finite() || *l < 0.0) {
        return Err(SpatialError::InvalidArgument(format!(
            "a periodic box of {boxsize:?}: give each axis a finite length, or 0 for an open axis"
        )));
    }
    if kind != TreeKind::Bvh && boxsize.iter().any(|l| *l > 0.0) {
        return Err(SpatialError::InvalidArgument(format!(
            "a periodic box on the {}: only the BVH's walk takes one (SpatialConfig::tree =              TreeKind::Bvh)",
            kind.name()
        )));
    }
    Ok(())
}

impl BoundBuild {
    /// Record the build (the bounds reset first, so that it can be recorded again).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if self.steps.is_empty() {
            return;
        }
        enc.clear_buffer(&self.tree.bounds, 0, None);
        if let Some(g) = &self.tree.generations {
            enc.clear_buffer(g, 0, None);
        }
        let run = |enc: &mut wgpu::CommandEncoder, range: std::ops::Range<usize>| {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.spatial.build"),
                timestamp_writes: None,
            });
            for (k, b, g) in &self.steps[range] {
                k.dispatch(&mut pass, b, *g);
            }
        };
        run(enc, 0..2);
        if let Some(s) = &self.sort {
            s.record(enc);
        }
        // wgpu orders dependent dispatches within a pass (each level reads the one below).
        run(enc, 2..self.steps.len());
    }

    /// The tree (valid once the recorded build has run).
    pub fn tree(&self) -> &PointTree {
        &self.tree
    }

    /// The tree, taken.
    pub fn into_tree(self) -> PointTree {
        self.tree
    }
}

impl PointTree {
    /// Make the tree periodic (SciPy's `boxsize`; 0 for an open axis), for a tree built from a
    /// buffer: its points must lie in [0, L) on each periodic axis, which is not checked here
    /// ([`Spatial::build_periodic`] checks them), and so must the queries of a bound call.
    pub fn set_box(&mut self, boxsize: [f32; 3]) -> Result<()> {
        check_box(self.kind, boxsize)?;
        self.boxsize = boxsize;
        Ok(())
    }

    /// `queries` as the walks take them: wrapped into the periodic box, if any.
    pub fn wrap_queries<'a>(&self, queries: &'a [[f32; 3]]) -> std::borrow::Cow<'a, [[f32; 3]]> {
        if self.boxsize.iter().all(|l| *l == 0.0) {
            return std::borrow::Cow::Borrowed(queries);
        }
        std::borrow::Cow::Owned(
            queries
                .iter()
                .map(|q| crate::reference::wrap(*q, self.boxsize))
                .collect(),
        )
    }

    /// The points in the tree's order with their indices (tests).
    pub fn read_points(&self, ctx: &GpuContext) -> Result<Vec<crate::reference::Indexed>> {
        let s: Vec<f32> =
            ctx.read_back("spatial points", &self.sorted, 4 * self.points as usize)?;
        Ok(s.chunks(4)
            .map(|c| ([c[0], c[1], c[2]], c[3].to_bits()))
            .collect())
    }

    /// The points in leaf order with their indices, and the nodes' boxes, read back (tests;
    /// the BVH).
    pub fn read(
        &self,
        ctx: &GpuContext,
    ) -> Result<(Vec<crate::reference::Indexed>, Vec<crate::reference::Aabb>)> {
        if self.kind != TreeKind::Bvh {
            return Err(SpatialError::InvalidArgument(format!(
                "a {} has no boxes: read its nodes",
                self.kind.name()
            )));
        }
        let b: Vec<f32> = ctx.read_back("spatial boxes", &self.nodes, 16 * self.leaves as usize)?;
        let boxes = b
            .chunks(8)
            .map(|c| ([c[0], c[1], c[2]], [c[4], c[5], c[6]]))
            .collect();
        Ok((self.read_points(ctx)?, boxes))
    }

    /// The kd-tree's or the octree's nodes (`vec4<u32>` each) and its sorted 63-bit codes,
    /// read back (tests): n − 1 nodes for the kd-tree, as many as were made for the octree.
    pub fn read_nodes(&self, ctx: &GpuContext) -> Result<(Vec<[u32; 4]>, Vec<u64>)> {
        let count = match (&self.kind, &self.generations) {
            (TreeKind::Kd, _) => self.points.saturating_sub(1) as usize,
            (TreeKind::Octree, Some(g)) if self.points > 0 => {
                let g: Vec<u32> = ctx.read_back("spatial generations", g, 24)?;
                1 + g[1..].iter().map(|&c| c as usize).sum::<usize>()
            }
            (TreeKind::Octree, _) => 0,
            (TreeKind::Bvh, _) => {
                return Err(SpatialError::InvalidArgument(
                    "the BVH has boxes, not nodes: read it with `read`".into(),
                ));
            }
        };
        let words: Vec<u32> = ctx.read_back("spatial nodes", &self.nodes, 4 * count)?;
        let codes: Vec<u32> =
            ctx.read_back("spatial codes", &self.codes, 2 * self.points as usize)?;
        Ok((
            words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
            codes
                .chunks(2)
                .map(|c| u64::from(c[0]) | u64::from(c[1]) << 32)
                .collect(),
        ))
    }
}
