//! Rays for renders and benchmarks: a camera framing a mesh, primary rays, shadow rays toward a
//! light and one cosine-weighted diffuse bounce from primary hits, random rays through the
//! scene; and simple shading of the results into an RGB image.

use crate::mesh::Mesh;
use crate::reference::{Hit, Ray};

/// The ray kinds of renders and benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RayKind {
    /// Eye rays, one per pixel.
    Primary,
    /// From each primary hit toward the light (any hit).
    Shadow,
    /// One cosine-weighted bounce from each primary hit (closest hit).
    Diffuse,
    /// Random origins in the scene's box, uniform directions.
    Random,
}

impl RayKind {
    /// The name the CLI takes.
    pub fn name(self) -> &'static str {
        match self {
            RayKind::Primary => "primary",
            RayKind::Shadow => "shadow",
            RayKind::Diffuse => "diffuse",
            RayKind::Random => "random",
        }
    }
}

pub(crate) type V3 = [f32; 3];

pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub(crate) fn scale(a: V3, s: f32) -> V3 {
    a.map(|x| x * s)
}
pub(crate) fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub(crate) fn normalize(a: V3) -> V3 {
    let l = dot(a, a).sqrt();
    if l > 0.0 { scale(a, 1.0 / l) } else { a }
}

/// A pinhole camera.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    /// Eye position.
    pub eye: V3,
    /// Unit view direction.
    pub forward: V3,
    /// Image-plane right vector (scaled by the field of view).
    pub right: V3,
    /// Image-plane up vector (scaled).
    pub up: V3,
    /// Image size.
    pub width: u32,
    /// Image height.
    pub height: u32,
}

impl Camera {
    /// A camera looking at the centre of `mesh`'s bounds from the front-right-above, far enough
    /// to frame it with a 45° vertical field of view.
    pub fn framing(mesh: &Mesh, width: u32, height: u32) -> Camera {
        let (lo, hi) = mesh.bounds();
        let centre = scale(add(lo, hi), 0.5);
        // A mesh of one point has no size: frame a sliver of its distance from the origin.
        let span = 0.5 * dot(sub(hi, lo), sub(hi, lo)).sqrt();
        let radius = if span > 0.0 {
            span
        } else {
            (1e-6 * dot(centre, centre).sqrt()).max(1e-6)
        };
        let view = normalize([0.55, 0.45, 1.0]);
        let fov = 45f32.to_radians();
        let dist = radius / (0.5 * fov).sin() * 1.05;
        let eye = add(centre, scale(view, dist));
        let forward = scale(view, -1.0);
        let world_up = [0.0, 1.0, 0.0];
        let right = normalize(cross(forward, world_up));
        let up = cross(right, forward);
        let h = (0.5 * fov).tan();
        let aspect = width as f32 / height.max(1) as f32;
        Camera {
            eye,
            forward,
            right: scale(right, h * aspect),
            up: scale(up, h),
            width,
            height,
        }
    }

    /// The eye rays, row by row from the top.
    pub fn primary(&self) -> Vec<Ray> {
        let (w, h) = (self.width, self.height);
        (0..w * h)
            .map(|i| {
                let x = ((i % w) as f32 + 0.5) / w as f32 * 2.0 - 1.0;
                let y = 1.0 - ((i / w) as f32 + 0.5) / h as f32 * 2.0;
                let d = add(self.forward, add(scale(self.right, x), scale(self.up, y)));
                Ray {
                    origin: self.eye,
                    tmin: 0.0,
                    dir: normalize(d),
                    tmax: f32::INFINITY,
                }
            })
            .collect()
    }
}

/// The unit normal of triangle `prim`, facing against `dir`.
pub fn facing_normal(mesh: &Mesh, prim: u32, dir: V3) -> V3 {
    let p = mesh.corners(prim as usize);
    let n = normalize(cross(sub(p[1], p[0]), sub(p[2], p[0])));
    if dot(n, dir) > 0.0 { scale(n, -1.0) } else { n }
}

/// Where a hit lies.
pub fn hit_point(r: &Ray, h: &Hit) -> V3 {
    add(r.origin, scale(r.dir, h.t))
}

/// The light of renders and shadow rays: a point above and to the left of the mesh.
pub fn light_position(mesh: &Mesh) -> V3 {
    let (lo, hi) = mesh.bounds();
    let size = dot(sub(hi, lo), sub(hi, lo)).sqrt().max(1e-6);
    add(scale(add(lo, hi), 0.5), scale([-0.6, 1.0, 0.7], size))
}

/// The start of secondary rays, in units of the scene's size: past the surface they leave.
pub fn epsilon(mesh: &Mesh) -> f32 {
    let (lo, hi) = mesh.bounds();
    dot(sub(hi, lo), sub(hi, lo)).sqrt().max(1e-6) * 1e-4
}

/// Shadow rays from each primary hit toward the light (`tmax` 1: the light is at the end of the
/// direction), and the index of the primary ray each starts from.
pub fn shadow(mesh: &Mesh, primary: &[Ray], hits: &[Hit]) -> (Vec<Ray>, Vec<u32>) {
    let light = light_position(mesh);
    let eps = epsilon(mesh);
    let mut rays = Vec::new();
    let mut from = Vec::new();
    for (i, (r, h)) in primary.iter().zip(hits).enumerate() {
        if !h.is_hit() {
            continue;
        }
        let p = hit_point(r, h);
        let n = facing_normal(mesh, h.prim, r.dir);
        let o = add(p, scale(n, eps));
        let d = sub(light, o);
        rays.push(Ray {
            origin: o,
            tmin: 0.0,
            dir: d,
            tmax: 1.0,
        });
        from.push(i as u32);
    }
    (rays, from)
}

/// One cosine-weighted bounce from each primary hit about its normal (seeded), and the index
/// of the primary ray each starts from.
pub fn diffuse(mesh: &Mesh, primary: &[Ray], hits: &[Hit], seed: u64) -> (Vec<Ray>, Vec<u32>) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let eps = epsilon(mesh);
    let mut rays = Vec::new();
    let mut from = Vec::new();
    for (i, (r, h)) in primary.iter().zip(hits).enumerate() {
        if !h.is_hit() {
            continue;
        }
        let n = facing_normal(mesh, h.prim, r.dir);
        let p = add(hit_point(r, h), scale(n, eps));
        // A frame about n, then a cosine-weighted direction.
        let a = if n[0].abs() > 0.9 {
            [0.0, 1.0, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        let t = normalize(cross(n, a));
        let b = cross(n, t);
        let (u1, u2) = (rng.f32(), rng.f32());
        let rad = u1.sqrt();
        let phi = std::f32::consts::TAU * u2;
        let (x, y, z) = (rad * phi.cos(), rad * phi.sin(), (1.0 - u1).max(0.0).sqrt());
        let d = add(add(scale(t, x), scale(b, y)), scale(n, z));
        rays.push(Ray {
            origin: p,
            tmin: 0.0,
            dir: d,
            tmax: f32::INFINITY,
        });
        from.push(i as u32);
    }
    (rays, from)
}

/// `n` rays with origins uniform in the mesh's box grown by a tenth and uniform unit
/// directions, `tmax` infinite.
pub fn random(mesh: &Mesh, n: usize, seed: u64) -> Vec<Ray> {
    let (lo, hi) = mesh.bounds();
    let ext = sub(hi, lo);
    let mut r = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|_| {
            let o = [0, 1, 2].map(|a| lo[a] - 0.1 * ext[a] + 1.2 * ext[a] * r.f32());
            let z = 2.0 * r.f32() - 1.0;
            let phi = std::f32::consts::TAU * r.f32();
            let s = (1.0 - z * z).max(0.0).sqrt();
            Ray {
                origin: o,
                tmin: 0.0,
                dir: [s * phi.cos(), s * phi.sin(), z],
                tmax: f32::INFINITY,
            }
        })
        .collect()
}

/// An RGB image (8 bits a channel, row-major) of primary hits shaded by the light's angle
/// with an ambient term; where `shadowed` is given (per primary ray), occluded points keep
/// only the ambient; where `bounce` is given (per primary ray: whether the diffuse bounce
/// escaped), the ambient term is that sky light.
pub fn shade(
    mesh: &Mesh,
    cam: &Camera,
    primary: &[Ray],
    hits: &[Hit],
    shadowed: Option<&[bool]>,
    bounce_escaped: Option<&[bool]>,
) -> Vec<u8> {
    let light = light_position(mesh);
    let mut img = Vec::with_capacity(primary.len() * 3);
    for (i, (r, h)) in primary.iter().zip(hits).enumerate() {
        if !h.is_hit() {
            let y = (i as u32 / cam.width) as f32 / cam.height as f32;
            img.extend([40.0 + 30.0 * y, 50.0 + 40.0 * y, 70.0 + 60.0 * y].map(|c| c as u8));
            continue;
        }
        let n = facing_normal(mesh, h.prim, r.dir);
        let p = hit_point(r, h);
        let l = normalize(sub(light, p));
        let mut direct = dot(n, l).max(0.0);
        if shadowed.is_some_and(|s| s[i]) {
            direct = 0.0;
        }
        let ambient = match bounce_escaped {
            Some(b) if b[i] => 0.45,
            Some(_) => 0.05,
            None => 0.2,
        };
        let v = (ambient + 0.8 * direct).min(1.0);
        img.extend([v * 235.0, v * 215.0, v * 190.0].map(|c| c as u8));
    }
    img
}
