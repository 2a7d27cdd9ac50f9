//! The GPU build (the kernels in `tree/`; the CPU twin is [`crate::reference::Tree::build`]),
//! recorded into the caller's encoder:
//!
//! 1. `tree/bounds.wgsl` — the points' bounds;
//! 2. `tree/morton.wgsl` — a 30-bit Morton code per point;
//! 3. wavekit's radix sort — the codes sorted, the permutation as values (stable);
//! 4. `tree/gather.wgsl` — the points in leaf order, each with its index;
//! 5. `tree/leaves.wgsl` — each leaf's box;
//! 6. `tree/up.wgsl` — the boxes up, one dispatch a level.

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::sort::BoundSort;

use crate::reference::leaf_count;
use crate::{Result, Spatial, SpatialError, WORKGROUP};

/// A tree on the GPU: the points in leaf order and the nodes' boxes.
#[derive(Debug)]
pub struct PointTree {
    /// Points.
    pub points: u32,
    /// Leaves (a power of two).
    pub leaves: u32,
    /// Points a leaf.
    pub leaf: u32,
    /// The points in leaf order: `vec4` each (xyz, the index's bits in w).
    pub sorted: wgpu::Buffer,
    /// Node k's box at `vec4` 2k (low) and 2k + 1 (high); root 1.
    pub boxes: wgpu::Buffer,
    /// The bounds, encoded (tree/common.wgsl): what the queries' Morton codes are taken in.
    pub bounds: wgpu::Buffer,
    /// The points' Morton codes, sorted (leaf order): where a k-NN query starts.
    pub codes: wgpu::Buffer,
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
    /// Bind a build over `n` points in `points` (three f32 each, finite: [`flatten`] checks).
    pub fn bind_build(
        &self,
        ctx: &GpuContext,
        points: &wgpu::Buffer,
        n: u32,
    ) -> Result<BoundBuild> {
        if n >= 1 << 31 {
            return Err(SpatialError::InvalidArgument(format!(
                "{n} points: at most 2^31 - 1"
            )));
        }
        let leaf = self.config.leaf;
        let leaves = leaf_count(n as usize, leaf as usize) as u32;
        let nodes = 2 * u64::from(leaves);
        ctx.check_binding("spatial points in leaf order", u64::from(n) * 16)?;
        ctx.check_binding("spatial node boxes", nodes * 32)?;
        ctx.check_binding("spatial points", u64::from(n) * 12)?;
        let params = |z: u32, w: u32| ctx.uniform_from("spatial build params", &[n, leaves, z, w]);
        let p0 = params(0, 0)?;
        // Encoded bounds start at 0: every encoded coordinate is above it.
        let bounds = ctx.storage_from("spatial bounds", &[0u32; 8])?;
        let keys = ctx.storage_uninit("spatial keys", u64::from(n.max(1)) * 4)?;
        let perm = ctx.storage_uninit("spatial permutation", u64::from(n.max(1)) * 4)?;
        let sorted =
            ctx.storage_uninit("spatial points in leaf order", u64::from(n.max(1)) * 16)?;
        // Every box empty to begin with (an empty tree's root stays so).
        let inf = f32::INFINITY;
        let empty: Vec<f32> = (0..nodes)
            .flat_map(|_| [inf, inf, inf, 0.0, -inf, -inf, -inf, 0.0])
            .collect();
        let boxes = ctx.storage_from("spatial node boxes", &empty)?;
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
                    (6, boxes.clone()),
                ]
            };
            let bind = |k: &Kernel, p: &wgpu::Buffer| {
                let e = entries(p);
                let r: Vec<(u32, &wgpu::Buffer)> = e.iter().map(|(b, x)| (*b, x)).collect();
                k.bind(ctx, &r)
            };
            let groups = n.div_ceil(WORKGROUP);
            let [bounds_k, morton_k, gather_k, leaves_k, up_k] = &self.build;
            steps.push((bounds_k.clone(), bind(bounds_k, &p0)?, groups));
            steps.push((morton_k.clone(), bind(morton_k, &p0)?, groups));
            steps.push((gather_k.clone(), bind(gather_k, &p0)?, groups));
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
        keep.push(p0);
        let sort = if n > 1 {
            Some(self.sort.bind(ctx, &keys, Some(&perm), u64::from(n))?)
        } else {
            None
        };
        Ok(BoundBuild {
            steps,
            sort,
            tree: PointTree {
                points: n,
                leaves,
                leaf,
                sorted,
                boxes,
                bounds,
                codes: keys,
            },
            _keep: keep,
        })
    }

    /// Upload `points` and build their tree, waiting for it (time the steps with
    /// [`BoundBuild::record`]).
    pub fn build(&self, ctx: &GpuContext, points: &[[f32; 3]]) -> Result<PointTree> {
        let buf = crate::upload_points(ctx, points, "point")?;
        let bound = self.bind_build(ctx, &buf, points.len() as u32)?;
        ctx.submit(|e| bound.record(e));
        Ok(bound.into_tree())
    }
}

impl BoundBuild {
    /// Record the build (the bounds reset first, so that it can be recorded again).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if self.steps.is_empty() {
            return;
        }
        enc.clear_buffer(&self.tree.bounds, 0, None);
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
    /// The points in leaf order with their indices, and the nodes' boxes, read back (tests).
    pub fn read(
        &self,
        ctx: &GpuContext,
    ) -> Result<(Vec<crate::reference::Indexed>, Vec<crate::reference::Aabb>)> {
        let s: Vec<f32> =
            ctx.read_back("spatial points", &self.sorted, 4 * self.points as usize)?;
        let b: Vec<f32> = ctx.read_back("spatial boxes", &self.boxes, 16 * self.leaves as usize)?;
        let pts = s
            .chunks(4)
            .map(|c| ([c[0], c[1], c[2]], c[3].to_bits()))
            .collect();
        let boxes = b
            .chunks(8)
            .map(|c| ([c[0], c[1], c[2]], [c[4], c[5], c[6]]))
            .collect();
        Ok((pts, boxes))
    }
}
