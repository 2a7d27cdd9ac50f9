//! The GPU build: an LBVH (Karras 2012) in the traversal kernels' layout, in six steps recorded
//! into the caller's encoder:
//!
//! 1. `lbvh/bounds` — the bounds of the triangles' centroids;
//! 2. `lbvh/morton` — a 30-bit Morton code per triangle;
//! 3. wavekit's [`RadixSort`] — the codes sorted (30 bits: four passes), the permutation as
//!    values;
//! 4. `lbvh/hierarchy` — each inner node's range, split and children from the sorted codes;
//! 5. `lbvh/refit` — the boxes bottom up, the second child to arrive at a node climbing on;
//! 6. `lbvh/finish` — the nodes (both children's boxes in the parent) and the triangles in
//!    leaf order.
//!
//! Leaves hold one triangle each (the SAH build's up to eight). The CPU port of the codes and
//! of the hierarchy is here ([`morton_codes`], [`hierarchy`]); the tests hold the GPU's steps
//! to it.

use wavekit::GpuContext;
use wavekit::kernel::Kernel;
use wavekit::prelude::KernelBuilder;
use wavekit::sort::{BoundSort, KeyType, RadixSort, SortConfig, Values};

use crate::bvh::{GpuBvh, Node, leaf_ref};
use crate::mesh::Mesh;
use crate::{Result, SOURCES, TraceError};

/// The build's kernels, in order.
pub const KERNELS: [&str; 5] = [
    "lbvh/bounds",
    "lbvh/morton",
    "lbvh/hierarchy",
    "lbvh/refit",
    "lbvh/finish",
];

/// Invocations per workgroup of the build's kernels.
pub const WORKGROUP: u32 = 256;

/// Kernel `name` of the build (tests `check()` each).
pub fn builder(name: &str) -> KernelBuilder {
    KernelBuilder::new(name, SOURCES).workgroup_size(WORKGROUP)
}

/// The GPU builder, its kernels and sort built once.
#[derive(Debug)]
pub struct Lbvh {
    kernels: Vec<Kernel>,
    sort: RadixSort,
}

/// A mesh's triangles as the build reads them: three `vec4` each (corners, w unused).
pub fn soup_words(mesh: &Mesh) -> Vec<f32> {
    (0..mesh.len())
        .flat_map(|i| {
            let c = mesh.corners(i);
            [
                c[0][0], c[0][1], c[0][2], 0.0, c[1][0], c[1][1], c[1][2], 0.0, c[2][0], c[2][1],
                c[2][2], 0.0,
            ]
        })
        .collect()
}

impl Lbvh {
    /// Build the kernels and the sort.
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let kernels = KERNELS
            .iter()
            .map(|k| builder(k).build(ctx))
            .collect::<wavekit::Result<Vec<_>>>()?;
        let sort = RadixSort::new(
            ctx,
            &SortConfig {
                values: Values::Indices,
                bits: Some((0, 30)),
                ..SortConfig::keys(KeyType::U32)
            },
        )?;
        Ok(Self { kernels, sort })
    }

    /// Bind to `n` triangles in `soup` (12 words each, [`soup_words`]); the result's buffers
    /// are made here and filled by [`BoundLbvh::record`].
    pub fn bind(&self, ctx: &GpuContext, soup: &wgpu::Buffer, n: u32) -> Result<BoundLbvh> {
        if n >= 1 << 27 {
            return Err(TraceError::InvalidArgument(format!(
                "{n} triangles; at most 2^27 - 1 fit the BVH's leaf references"
            )));
        }
        if soup.size() < u64::from(n) * 48 {
            return Err(TraceError::InvalidArgument(format!(
                "{n} triangles need {} bytes of corners (three vec4 each); the buffer has {}",
                u64::from(n) * 48,
                soup.size()
            )));
        }
        let inner = n.saturating_sub(1).max(1);
        ctx.check_binding("lbvh triangles", u64::from(n) * 48)?;
        ctx.check_binding("lbvh nodes", u64::from(inner) * 64)?;
        let params = ctx.uniform_from("lbvh params", &[n, 0, 0, 0])?;
        let bounds = ctx.storage_uninit("lbvh bounds", 32)?;
        let keys = ctx.storage_uninit("lbvh keys", u64::from(n) * 4)?;
        let perm = ctx.storage_uninit("lbvh permutation", u64::from(n) * 4)?;
        let children = ctx.storage_uninit("lbvh children", u64::from(inner) * 8)?;
        let parents = ctx.storage_uninit("lbvh parents", u64::from(2 * n) * 4)?;
        let flags = ctx.storage_uninit("lbvh flags", u64::from(inner) * 4)?;
        let boxes = ctx.storage_uninit("lbvh boxes", u64::from(inner) * 48)?;
        // An empty mesh's root: two empty children (nothing is dispatched).
        let none: Vec<u32> = (0..inner).flat_map(|_| Node::NONE.to_words()).collect();
        let nodes = ctx.storage_from("lbvh nodes", &none)?;
        let tris = ctx.storage_uninit("lbvh triangles", u64::from(n) * 48)?;
        let groups = n.div_ceil(WORKGROUP);
        let mut passes = Vec::new();
        if n > 0 {
            for k in &self.kernels {
                let bind = k.bind(
                    ctx,
                    &[
                        (0, &params),
                        (1, soup),
                        (2, &bounds),
                        (3, &keys),
                        (4, &perm),
                        (5, &children),
                        (6, &parents),
                        (7, &flags),
                        (8, &boxes),
                        (9, &nodes),
                        (10, &tris),
                    ],
                )?;
                passes.push((k.clone(), bind));
            }
        }
        let sort = if n > 1 {
            Some(self.sort.bind(ctx, &keys, Some(&perm), u64::from(n))?)
        } else {
            None
        };
        Ok(BoundLbvh {
            passes,
            sort,
            groups,
            clear: [bounds.clone(), flags, boxes],
            bvh: GpuBvh {
                nodes,
                tris,
                node_count: inner,
                tri_count: n,
                depth: None,
            },
            keys,
            perm,
            _buffers: [params, children, parents, bounds],
        })
    }

    /// Build `mesh`'s BVH on the GPU and wait for it (a one-call convenience; time the steps
    /// with [`BoundLbvh::record`]).
    pub fn build(&self, ctx: &GpuContext, mesh: &Mesh) -> Result<GpuBvh> {
        let soup = ctx.storage_from("lbvh input", &soup_words(mesh))?;
        let bound = self.bind(ctx, &soup, mesh.len() as u32)?;
        ctx.submit_checked("building a BVH", |e| bound.record(e))?;
        bound.check(ctx)?;
        Ok(bound.into_bvh())
    }
}

/// A build bound to its input and its result's buffers.
#[derive(Debug)]
pub struct BoundLbvh {
    passes: Vec<(Kernel, wgpu::BindGroup)>,
    sort: Option<BoundSort>,
    groups: u32,
    clear: [wgpu::Buffer; 3],
    bvh: GpuBvh,
    keys: wgpu::Buffer,
    perm: wgpu::Buffer,
    _buffers: [wgpu::Buffer; 4],
}

impl BoundLbvh {
    /// Record the build (its scratch cleared first).
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        if self.passes.is_empty() {
            return;
        }
        for b in &self.clear {
            enc.clear_buffer(b, 0, None);
        }
        let run = |enc: &mut wgpu::CommandEncoder, range: std::ops::Range<usize>| {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wavekit.lbvh"),
                timestamp_writes: None,
            });
            for (k, b) in &self.passes[range] {
                k.dispatch(&mut pass, b, self.groups);
            }
        };
        run(enc, 0..2);
        if let Some(s) = &self.sort {
            s.record(enc);
        }
        run(enc, 2..5);
    }

    /// After a run: an error if the refit waited in vain for a box (never seen on a device
    /// that runs its workgroups concurrently; reported rather than hidden).
    pub fn check(&self, ctx: &GpuContext) -> Result<()> {
        if self.passes.is_empty() {
            return Ok(());
        }
        let w: Vec<u32> = ctx.read_back("lbvh bounds", &self.clear[0], 8)?;
        if w[7] != 0 {
            return Err(TraceError::InvalidArgument(
                "the LBVH refit waited too long for a child's box; build on the CPU instead \
                 (Bvh::build_cpu)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The result (valid after the recorded build has run).
    pub fn bvh(&self) -> &GpuBvh {
        &self.bvh
    }

    /// The result, taken.
    pub fn into_bvh(self) -> GpuBvh {
        self.bvh
    }

    /// The sorted Morton codes and the permutation (tests).
    pub fn codes(&self, ctx: &GpuContext) -> Result<(Vec<u32>, Vec<u32>)> {
        let n = self.bvh.tri_count as usize;
        Ok((
            ctx.read_back("lbvh keys", &self.keys, n)?,
            ctx.read_back("lbvh permutation", &self.perm, n)?,
        ))
    }
}

/// CPU port of `lbvh/bounds` and `lbvh/morton`: each triangle's 30-bit Morton code.
pub fn morton_codes(mesh: &Mesh) -> Vec<u32> {
    let centroid = |i: usize| {
        let c = mesh.corners(i);
        [0, 1, 2]
            .map(|a| 0.5 * (c[0][a].min(c[1][a]).min(c[2][a]) + c[0][a].max(c[1][a]).max(c[2][a])))
    };
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for i in 0..mesh.len() {
        let c = centroid(i);
        for a in 0..3 {
            lo[a] = lo[a].min(c[a]);
            hi[a] = hi[a].max(c[a]);
        }
    }
    let spread = |v: u32| {
        let mut x = v & 0x3ff;
        x = (x | (x << 16)) & 0x0300_00ff;
        x = (x | (x << 8)) & 0x0300_f00f;
        x = (x | (x << 4)) & 0x030c_30c3;
        (x | (x << 2)) & 0x0924_9249
    };
    (0..mesh.len())
        .map(|i| {
            let c = centroid(i);
            let q = [0, 1, 2].map(|a| {
                wavekit::sim::device::grid_floor(c[a] - lo[a], (hi[a] - lo[a]).max(1e-30), 10)
            });
            (spread(q[0]) << 2) | (spread(q[1]) << 1) | spread(q[2])
        })
        .collect()
}

/// CPU port of `lbvh/hierarchy`: the two references of each inner node over `keys` (sorted).
pub fn hierarchy(keys: &[u32]) -> Vec<[u32; 2]> {
    let n = keys.len() as i64;
    let delta = |i: i64, j: i64| -> i64 {
        if j < 0 || j >= n {
            return -1;
        }
        let (a, b) = (keys[i as usize], keys[j as usize]);
        if a == b {
            return 32 + i64::from(((i as u32) ^ (j as u32)).leading_zeros());
        }
        i64::from((a ^ b).leading_zeros())
    };
    (0..(n - 1).max(0))
        .map(|i| {
            let (first, gamma, last) = wavekit::sim::device::radix_node(i, delta);
            let (first, gamma, last) = (first as u32, gamma as u32, last as u32);
            [
                if first == gamma {
                    leaf_ref(gamma, 1)
                } else {
                    gamma
                },
                if last == gamma + 1 {
                    leaf_ref(gamma + 1, 1)
                } else {
                    gamma + 1
                },
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_build_kernel_validates_with_naga() {
        for k in KERNELS {
            builder(k).check().unwrap();
        }
    }

    #[test]
    fn the_cpu_hierarchy_is_a_tree_over_every_leaf() {
        for (spec, dupes) in [
            ("proc:soup:1000:2", false),
            ("proc:plane:10", false),
            ("", true),
        ] {
            let mut keys = if dupes {
                vec![5u32; 300]
            } else {
                morton_codes(&Mesh::load(spec).unwrap())
            };
            keys.sort_unstable();
            let h = hierarchy(&keys);
            let n = keys.len();
            let mut leaves = vec![0; n];
            let mut inner = vec![0; n - 1];
            inner[0] = 1;
            for c in h.iter().flatten() {
                if crate::bvh::is_leaf(*c) {
                    leaves[crate::bvh::leaf_first(*c) as usize] += 1;
                } else {
                    inner[*c as usize] += 1;
                }
            }
            assert!(leaves.iter().all(|&x| x == 1), "{spec}");
            assert!(inner.iter().all(|&x| x == 1), "{spec}");
        }
    }
}
