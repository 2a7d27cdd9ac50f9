//! The CPU port of `trace/common.wgsl` (ray/triangle and ray/box tests, the while-while
//! traversal) and the brute-force reference every kernel is tested against.
//!
//! Written to read like the shader, operation for operation: the sheared vertex coordinates
//! and the edge functions use the same fused multiply-adds, so the CPU and the GPU take the
//! same hit-or-miss decision for every ray and triangle (the only difference is the division
//! for t, u and v, which WGSL does not require to be correctly rounded).

use crate::bvh::{Bvh, EMPTY, is_leaf, leaf_count, leaf_first};

/// A ray: origin, the start of the interval, direction (need not be unit length), and the end
/// of the interval. Hits count for `tmin <= t < tmax` (t in units of the direction's length).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Ray {
    /// Origin.
    pub origin: [f32; 3],
    /// Start of the interval.
    pub tmin: f32,
    /// Direction.
    pub dir: [f32; 3],
    /// End of the interval (exclusive; `f32::INFINITY` for none).
    pub tmax: f32,
}

/// A closest hit: distance, triangle (its index in the mesh) and barycentrics: the hit point is
/// `(1 − u − v)·p0 + u·p1 + v·p2` (Embree's convention). A miss: `t = +∞`, `prim = MISS`,
/// `u = v = 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Hit {
    /// Distance along the ray, in units of its direction.
    pub t: f32,
    /// The triangle's index in the mesh, or [`MISS`].
    pub prim: u32,
    /// Barycentric weight of the triangle's second corner.
    pub u: f32,
    /// Barycentric weight of the third corner.
    pub v: f32,
}

/// The `prim` of a miss.
pub const MISS: u32 = u32::MAX;

impl Hit {
    /// A miss.
    pub const NONE: Hit = Hit {
        t: f32::INFINITY,
        prim: MISS,
        u: 0.0,
        v: 0.0,
    };

    /// Whether this is a hit.
    pub fn is_hit(&self) -> bool {
        self.prim != MISS
    }
}

/// A slab test's far end is stretched by this factor, so that rounding in the slab distances
/// never culls a box the ray touches (a watertight triangle test is worth nothing behind a box
/// test that leaks): 1 + 2^-20, above the 1 + 2γ₃ Ize (2013) derives for divisions, to cover
/// the reciprocal.
pub const ROBUST: f32 = 1.0 + 1.0 / 1_048_576.0;

/// Direction components smaller than this are replaced by it before taking the reciprocal, so
/// that slab distances are never NaN (0 × ∞).
pub const TINY: f32 = 1e-30;

/// The per-ray part of the watertight test (Woop, Benthin, Wald 2013): the axis the direction
/// is largest along becomes z, and the shear that maps the direction onto +z.
#[derive(Clone, Copy, Debug)]
pub struct Shear {
    /// The permuted axes (x, y, z).
    pub k: [usize; 3],
    /// Shear coefficients Sx, Sy and the scale Sz.
    pub s: [f32; 3],
}

/// The shear of direction `d` (as `shear_of` in common.wgsl).
pub fn shear_of(d: [f32; 3]) -> Shear {
    let a = [d[0].abs(), d[1].abs(), d[2].abs()];
    let mut kz = if a[1] > a[0] { 1 } else { 0 };
    if a[2] > a[0].max(a[1]) {
        kz = 2;
    }
    let mut kx = (kz + 1) % 3;
    let mut ky = (kx + 1) % 3;
    if d[kz] < 0.0 {
        std::mem::swap(&mut kx, &mut ky);
    }
    Shear {
        k: [kx, ky, kz],
        s: [d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]],
    }
}

/// `a·b − c·d` with Kahan's fused algorithm: within 2 ulp of the exact value, so its sign is
/// exact (zero exactly when the exact value is zero) — the edge functions of two triangles
/// sharing an edge have opposite signs, whatever the compiler does with plain products.
pub fn diff_of_products(a: f32, b: f32, c: f32, d: f32) -> f32 {
    let w = c * d;
    let e = (-c).mul_add(d, w);
    let f = a.mul_add(b, -w);
    f + e
}

/// A corner relative to the origin, permuted and sheared: (x, y, z).
fn sheared(p: [f32; 3], o: [f32; 3], sh: &Shear) -> [f32; 3] {
    let q = [p[0] - o[0], p[1] - o[1], p[2] - o[2]];
    let (x, y, z) = (q[sh.k[0]], q[sh.k[1]], q[sh.k[2]]);
    [
        (-sh.s[0]).mul_add(z, x),
        (-sh.s[1]).mul_add(z, y),
        sh.s[2] * z,
    ]
}

/// The watertight ray/triangle test: `Some((t, u, v))` where the ray's line meets the triangle
/// (edges and corners included; t may be outside the ray's interval — the caller checks),
/// `None` where it misses or the triangle is degenerate as seen along the ray.
pub fn intersect(o: [f32; 3], sh: &Shear, p: [[f32; 3]; 3]) -> Option<(f32, f32, f32)> {
    let a = sheared(p[0], o, sh);
    let b = sheared(p[1], o, sh);
    let c = sheared(p[2], o, sh);
    let u = diff_of_products(c[0], b[1], c[1], b[0]);
    let v = diff_of_products(a[0], c[1], a[1], c[0]);
    let w = diff_of_products(b[0], a[1], b[1], a[0]);
    if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + v + w;
    if det == 0.0 {
        return None;
    }
    let t = u.mul_add(a[2], v.mul_add(b[2], w * c[2]));
    Some((t / det, v / det, w / det))
}

/// The reciprocal direction the slab test uses.
pub fn inv_dir(d: [f32; 3]) -> [f32; 3] {
    d.map(|x| 1.0 / if x.abs() < TINY { TINY } else { x })
}

/// The slab test: the entry distance if the ray meets box `lo..hi` within `tmin..tmax`.
pub fn slab(
    lo: [f32; 3],
    hi: [f32; 3],
    o: [f32; 3],
    id: [f32; 3],
    tmin: f32,
    tmax: f32,
) -> Option<f32> {
    let mut tn = tmin;
    let mut tf = tmax;
    for a in 0..3 {
        let t0 = (lo[a] - o[a]) * id[a];
        let t1 = (hi[a] - o[a]) * id[a];
        tn = tn.max(t0.min(t1));
        tf = tf.min(t0.max(t1));
    }
    (tn <= tf * ROBUST).then_some(tn)
}

/// Closest hits (or, with `any_hit`, whether anything is hit) by testing every triangle: the
/// truth the tests hold every kernel and both BVHs to. Ties in t keep the lowest index.
pub fn brute_force(mesh: &crate::Mesh, rays: &[Ray]) -> Vec<Hit> {
    rays.iter()
        .map(|r| {
            let sh = shear_of(r.dir);
            let mut best = Hit {
                t: r.tmax,
                ..Hit::NONE
            };
            for i in 0..mesh.len() {
                if let Some((t, u, v)) = intersect(r.origin, &sh, mesh.corners(i))
                    && t >= r.tmin
                    && t < best.t
                {
                    best = Hit {
                        t,
                        prim: i as u32,
                        u,
                        v,
                    };
                }
            }
            if best.prim == MISS { Hit::NONE } else { best }
        })
        .collect()
}

/// A ray's traversal state (the kernels' `Task`): the ray, the closest hit so far (its leaf
/// position), the reference being worked on, the stack depth, the stack slot and the ray index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task {
    /// Origin.
    pub o: [f32; 3],
    /// Start of the interval.
    pub tmin: f32,
    /// Direction.
    pub d: [f32; 3],
    /// The closest hit's distance so far (tmax to begin with).
    pub t: f32,
    /// The closest triangle's leaf position, or EMPTY.
    pub best: u32,
    /// The reference being worked on; EMPTY when the ray is done.
    pub cur: u32,
    /// Entries on the stack.
    pub sp: u32,
    /// The stack slot (the compacted kernel's).
    pub slot: u32,
    /// The ray's index.
    pub ray: u32,
}

/// Tests done in a round: node visits and triangle tests (the diagnostics' units).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Nodes visited (each tests both children's boxes).
    pub nodes: u64,
    /// Triangles tested.
    pub tris: u64,
}

impl Task {
    /// The task of ray `r` (index `ray`), starting at the root.
    pub fn start(r: &Ray, ray: u32, slot: u32) -> Task {
        Task {
            o: r.origin,
            tmin: r.tmin,
            d: r.dir,
            t: r.tmax,
            best: EMPTY,
            cur: 0,
            sp: 0,
            slot,
            ray,
        }
    }

    /// One round of the while-while traversal (`trace_round`): inner nodes until a leaf, then
    /// its triangles. `stack` is the task's stack; `None` if it would overflow.
    pub fn round(&mut self, bvh: &Bvh, any_hit: bool, stack: &mut [u32]) -> Option<Work> {
        let id = inv_dir(self.d);
        let mut work = Work::default();
        let mut cur = self.cur;
        let pop = |task: &mut Task, stack: &[u32]| {
            if task.sp == 0 {
                return EMPTY;
            }
            task.sp -= 1;
            stack[task.sp as usize]
        };
        while cur != EMPTY && !is_leaf(cur) {
            work.nodes += 1;
            let n = &bvh.nodes[cur as usize];
            let h = [0, 1].map(|c| {
                (n.child[c] != EMPTY)
                    .then(|| slab(n.lo[c], n.hi[c], self.o, id, self.tmin, self.t))
                    .flatten()
            });
            match h {
                [Some(t0), Some(t1)] => {
                    let swap = t1 < t0;
                    let (near, far) = if swap {
                        (n.child[1], n.child[0])
                    } else {
                        (n.child[0], n.child[1])
                    };
                    if self.sp as usize >= stack.len() {
                        return None;
                    }
                    stack[self.sp as usize] = far;
                    self.sp += 1;
                    cur = near;
                }
                [Some(_), None] => cur = n.child[0],
                [None, Some(_)] => cur = n.child[1],
                [None, None] => cur = pop(self, stack),
            }
        }
        if cur != EMPTY {
            let sh = shear_of(self.d);
            let first = leaf_first(cur);
            for k in first..first + leaf_count(cur) {
                work.tris += 1;
                if let Some((t, _, _)) = intersect(self.o, &sh, bvh.corners(k as usize))
                    && t >= self.tmin
                    && t < self.t
                {
                    self.t = t;
                    self.best = k;
                }
            }
            cur = if any_hit && self.best != EMPTY {
                EMPTY
            } else {
                pop(self, stack)
            };
        }
        self.cur = cur;
        Some(work)
    }

    /// The ray's result (`finish`): the closest hit with its barycentrics, or for any-hit a
    /// hit record whose `prim` is not MISS where something was hit.
    pub fn finish(&self, bvh: &Bvh) -> Hit {
        if self.best == EMPTY {
            return Hit::NONE;
        }
        let (_, u, v) = intersect(self.o, &shear_of(self.d), bvh.corners(self.best as usize))
            .unwrap_or((0.0, 0.0, 0.0));
        Hit {
            t: self.t,
            prim: bvh.prims[self.best as usize],
            u,
            v,
        }
    }
}

/// The whole traversal of one ray (the baseline kernel's loop, on the CPU): the closest hit,
/// or with `any_hit` some hit in the interval. `None` if a stack of `stack` entries would
/// overflow.
pub fn traverse(bvh: &Bvh, r: &Ray, any_hit: bool, stack: usize) -> Option<Hit> {
    let mut st = vec![0u32; stack];
    let mut task = Task::start(r, 0, 0);
    while task.cur != EMPTY {
        task.round(bvh, any_hit, &mut st)?;
    }
    Some(task.finish(bvh))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(o: [f32; 3], d: [f32; 3]) -> Ray {
        Ray {
            origin: o,
            tmin: 0.0,
            dir: d,
            tmax: f32::INFINITY,
        }
    }

    #[test]
    fn a_triangle_is_hit_with_its_barycentrics() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let r = ray([0.25, 0.5, 1.0], [0.0, 0.0, -2.0]);
        let (t, u, v) = intersect(r.origin, &shear_of(r.dir), p).unwrap();
        assert!((t - 0.5).abs() < 1e-6 && (u - 0.25).abs() < 1e-6 && (v - 0.5).abs() < 1e-6);
        // Either winding, any axis.
        let q = [p[0], p[2], p[1]];
        assert!(intersect(r.origin, &shear_of(r.dir), q).is_some());
        let r = ray([2.0, 0.25, 0.25], [-1.0, 0.0, 0.0]);
        let tri = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        assert_eq!(intersect(r.origin, &shear_of(r.dir), tri).unwrap().0, 2.0);
        // Outside, parallel, and a zero direction miss.
        assert!(intersect([2.0, 2.0, 1.0], &shear_of([0.0, 0.0, -1.0]), p).is_none());
        assert!(intersect([0.1, 0.1, 1.0], &shear_of([1.0, 0.0, 0.0]), p).is_none());
        let zero = Ray {
            dir: [0.0; 3],
            ..ray([0.1, 0.1, 1.0], [0.0; 3])
        };
        let m = crate::Mesh::from_soup(&[p]).unwrap();
        assert!(!brute_force(&m, &[zero])[0].is_hit());
    }

    #[test]
    fn shared_edges_and_corners_never_leak() {
        // Two triangles sharing the diagonal of the unit square, rays through points of the
        // diagonal and the corners from many directions: every ray hits at least one.
        let m = crate::mesh::plane(2);
        let mut r = fastrand::Rng::with_seed(5);
        for i in 0..20_000 {
            let s = (i % 201) as f32 / 100.0;
            let target = match i % 3 {
                0 => [s, s, 0.0],
                1 => [1.0, s, 0.0],
                _ => [(i % 3) as f32, ((i / 3) % 3) as f32, 0.0],
            };
            if target[0] <= 0.0 || target[0] >= 2.0 || target[1] <= 0.0 || target[1] >= 2.0 {
                continue;
            }
            let d = [r.f32() - 0.5, r.f32() - 0.5, -0.2 - r.f32()];
            let o = [target[0] - d[0], target[1] - d[1], target[2] - d[2]];
            let hit = brute_force(&m, &[ray(o, d)])[0];
            assert!(
                hit.is_hit(),
                "ray {i} from {o:?} along {d:?} slipped through"
            );
        }
    }

    #[test]
    fn diff_of_products_sign_is_exact() {
        let mut r = fastrand::Rng::with_seed(3);
        for _ in 0..100_000 {
            let (a, b, c, d) = (r.f32() - 0.5, r.f32() - 0.5, r.f32() - 0.5, r.f32() - 0.5);
            let exact = f64::from(a) * f64::from(b) - f64::from(c) * f64::from(d);
            let got = diff_of_products(a, b, c, d);
            assert_eq!(got.signum() as f64, exact.signum(), "{a} {b} {c} {d}");
            let swapped = diff_of_products(c, d, a, b);
            assert_eq!((swapped > 0.0, swapped == 0.0), (got < 0.0, got == 0.0));
            // Exact zero where the products are equal.
            assert_eq!(diff_of_products(a, b, b, a), 0.0);
        }
    }

    #[test]
    fn slab_test_sees_flat_boxes_and_axis_rays() {
        let id = inv_dir([0.0, 0.0, -1.0]);
        // A ray along the face x = 1 of a box padded as the builders pad.
        let b = crate::bvh::Aabb::of_triangle([[0.0; 3], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]]);
        let t = slab(b.lo, b.hi, [1.0, 0.5, 1.0], id, 0.0, f32::INFINITY).unwrap();
        assert!((t - 1.0).abs() < 1e-6, "{t}");
        // Unpadded, the slab collapses on the face: what the padding is for.
        assert!(slab([0.0; 3], [1.0, 1.0, 0.0], [1.0, 0.5, 1.0], id, 0.0, 9.0).is_none());
        assert!(slab([0.0; 3], [1.0; 3], [2.0, 0.5, 1.0], id, 0.0, f32::INFINITY).is_none());
        assert!(slab([0.0; 3], [1.0; 3], [0.5, 0.5, 3.0], id, 0.0, 1.0).is_none());
    }
}
