//! Path tracing: the CPU twin of `trace/paths.wgsl` (the same paths from the same seeds), its
//! settings, and the image the paths make.
//!
//! A path starts from its pixel's primary ray; at each hit it scatters, diffuse
//! (cosine-weighted, albedo (0.75, 0.70, 0.65)) or, on one triangle in four (a hash of the
//! triangle's index), glossy (the mirror direction plus a quarter of a cosine-weighted one,
//! albedo 0.9); a miss adds the sky, weighted by the path's throughput, and ends it. After
//! `bounces` scatterings the path ends; from the third on, Russian roulette ends it with
//! probability 1 − max(throughput) (at least 5 % go on), dividing the survivors' throughput by
//! their chance. Paths therefore end at very different depths: the workload where refilling
//! finished lanes should pay (issue 29).

use crate::bvh::{Bvh, EMPTY};
use crate::reference::{Ray, Task};
use crate::{Result, TraceError};

/// How paths are traced.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PathSettings {
    /// Samples (paths) a pixel, 1 to 4096.
    pub spp: u32,
    /// Most scatterings a path, 1 to 64.
    pub bounces: u32,
    /// The random numbers' seed.
    pub seed: u32,
    /// How far past the surface a scattered ray starts ([`crate::rays::epsilon`] of the mesh).
    pub epsilon: f32,
}

impl PathSettings {
    /// Fails on settings the kernels do not take.
    pub fn check(&self) -> Result<()> {
        if !(1..=4096).contains(&self.spp) {
            return Err(TraceError::InvalidArgument(format!(
                "{} samples a pixel: give 1 to 4096",
                self.spp
            )));
        }
        if !(1..=64).contains(&self.bounces) {
            return Err(TraceError::InvalidArgument(format!(
                "{} bounces: give 1 to 64",
                self.bounces
            )));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(TraceError::InvalidArgument(format!(
                "a surface offset of {}: give a non-negative finite number",
                self.epsilon
            )));
        }
        Ok(())
    }
}

/// The PCG hash (the kernels' `pcg`).
pub fn pcg(v: u32) -> u32 {
    let s = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let w = ((s >> ((s >> 28) + 4)) ^ s).wrapping_mul(277_803_737);
    (w >> 22) ^ w
}

fn rand01(s: &mut u32) -> f32 {
    *s = pcg(*s);
    (*s >> 8) as f32 * (1.0 / 16_777_216.0)
}

use crate::rays::{V3, add, cross, dot, normalize, scale as mul, sub};

/// The sky's radiance in direction `d` (the kernels' `sky`).
pub fn sky(d: V3) -> V3 {
    let y = normalize(d)[1];
    let f = 0.5 * (y + 1.0);
    // WGSL's mix: x·(1 − a) + y·a.
    [(1.0 - f) + 0.5 * f, (1.0 - f) + 0.7 * f, (1.0 - f) + f]
}

/// One path: its radiance and the scatterings it made. `bvh` is the traced BVH (its leaf
/// order gives the triangles), `primary` the pixel's ray, `p` the path's index.
pub fn trace_path(bvh: &Bvh, primary: &Ray, p: u32, s: &PathSettings) -> (V3, u32) {
    let mut stack = vec![0u32; 256];
    let mut task = Task::start(primary, p, 0);
    let mut thr = [1.0f32; 3];
    let mut rad = [0.0f32; 3];
    let mut rng = pcg(p ^ pcg(s.seed));
    let mut bounce = 0;
    loop {
        while task.cur != EMPTY {
            if task.round(bvh, false, &mut stack).is_none() {
                return (rad, bounce);
            }
        }
        if task.best == EMPTY {
            let k = sky(task.d);
            rad = add(rad, [thr[0] * k[0], thr[1] * k[1], thr[2] * k[2]]);
            return (rad, bounce);
        }
        let [a, b, c] = bvh.tris[task.best as usize];
        let mut n = normalize(cross(sub(b, a), sub(c, a)));
        if dot(n, task.d) > 0.0 {
            n = mul(n, -1.0);
        }
        let hit = add(task.o, mul(task.d, task.t));
        let shiny = pcg(bvh.prims[task.best as usize]) & 3 == 0;
        let up = if n[0].abs() > 0.9 {
            [0.0, 1.0, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        let e1 = normalize(cross(n, up));
        let e2 = cross(n, e1);
        let (u1, u2) = (rand01(&mut rng), rand01(&mut rng));
        let r = u1.sqrt();
        let phi = 6.283_185_5 * u2;
        let hemi = add(
            add(mul(e1, r * phi.cos()), mul(e2, r * phi.sin())),
            mul(n, (1.0 - u1).max(0.0).sqrt()),
        );
        let dir = if shiny {
            let dn = normalize(task.d);
            thr = mul(thr, 0.9);
            normalize(add(sub(dn, mul(n, 2.0 * dot(dn, n))), mul(hemi, 0.25)))
        } else {
            thr = [thr[0] * 0.75, thr[1] * 0.7, thr[2] * 0.65];
            hemi
        };
        bounce += 1;
        if dot(dir, n) <= 0.0 || bounce >= s.bounces {
            return (rad, bounce);
        }
        if bounce >= 3 {
            let q = thr[0].max(thr[1]).max(thr[2]).clamp(0.05, 1.0);
            if rand01(&mut rng) >= q {
                return (rad, bounce);
            }
            thr = mul(thr, 1.0 / q);
        }
        let next = Ray {
            origin: add(hit, mul(n, s.epsilon)),
            tmin: 0.0,
            dir,
            tmax: f32::INFINITY,
        };
        task = Task::start(&next, p, 0);
    }
}

/// The image of `width × height` pixels from each path's radiance (`spp` paths a pixel, in
/// pixel order): the mean, clamped to [0, 1], gamma 2.2, 8-bit RGB.
pub fn image(radiance: &[V3], width: u32, height: u32, spp: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((width * height * 3) as usize);
    for px in radiance
        .chunks(spp as usize)
        .take((width * height) as usize)
    {
        let mut m = [0.0f32; 3];
        for r in px {
            m = add(m, *r);
        }
        for c in m {
            let v = (c / spp as f32).clamp(0.0, 1.0).powf(1.0 / 2.2);
            out.push((v * 255.0 + 0.5) as u8);
        }
    }
    out
}

/// `mesh` standing on a ground: a square at the bottom of its bounds (y, up), ten times its
/// size across, two triangles appended (so paths that miss the mesh bounce off the ground and
/// light from it reaches the mesh, as in a scene).
pub fn with_ground(mesh: &crate::Mesh) -> Result<crate::Mesh> {
    let (lo, hi) = mesh.bounds();
    let size = (0..3)
        .map(|a| hi[a] - lo[a])
        .fold(0.0f32, f32::max)
        .max(1e-3)
        * 5.0;
    let (cx, cz) = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2]));
    let y = lo[1];
    let mut positions = mesh.positions.clone();
    let first = positions.len() as u32;
    positions.extend([
        [cx - size, y, cz - size],
        [cx + size, y, cz - size],
        [cx + size, y, cz + size],
        [cx - size, y, cz + size],
    ]);
    let mut triangles = mesh.triangles.clone();
    triangles.extend([[first, first + 1, first + 2], [first, first + 2, first + 3]]);
    crate::Mesh::new(positions, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_and_the_ground_is_under_the_mesh() {
        let ok = PathSettings {
            spp: 4,
            bounces: 8,
            seed: 1,
            epsilon: 1e-4,
        };
        assert!(ok.check().is_ok());
        for bad in [
            PathSettings { spp: 0, ..ok },
            PathSettings { bounces: 0, ..ok },
            PathSettings { bounces: 65, ..ok },
            PathSettings {
                epsilon: f32::NAN,
                ..ok
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        let mesh = crate::Mesh::load("proc:grid:2").unwrap();
        let g = with_ground(&mesh).unwrap();
        assert_eq!(g.len(), mesh.len() + 2);
        let (lo, _) = mesh.bounds();
        assert!(
            g.positions[mesh.positions.len()..]
                .iter()
                .all(|p| p[1] == lo[1])
        );
        // Two pixels of two paths: the mean, clamped, gamma 2.2.
        let paths = [[1.0, 0.0, 4.0], [0.0, 0.0, 0.0], [0.25; 3], [0.25; 3]];
        let img = image(&paths, 2, 1, 2);
        assert_eq!(img, [186, 0, 255, 136, 136, 136]);
        assert_eq!(pcg(0), pcg(0));
        assert_ne!(pcg(1), pcg(2));
    }
}
