//! The per-pixel arithmetic of the `fine` kernel, ported to Rust (the WGSL is `shade.wgsl`, in
//! the same order, function for function): signed distances and their coverage, the box
//! shadow's integral, gradients, image and glyph sampling, clips, and source-over.
//!
//! Everything is f32 in the same operation order as the shader. A GPU may still differ in the
//! last bit where it fuses a multiply and an add, or where its `exp`, `sqrt` and division are
//! not correctly rounded; after quantisation to 8 bits such a difference is at most ±1, and the
//! tests count those pixels.

use crate::records::{
    CLIP_WORDS, ITEM_WORDS, PixelBox, SHADOW_SAMPLES, clip_word, flag, kind, unpack_f16x4, word,
};

/// 1/255 as the kernels multiply by it (never a division: both sides round the same).
pub const INV255: f32 = 1.0 / 255.0;

/// The scene's data as the kernel's `scene` buffer holds it.
#[derive(Clone, Copy, Debug)]
pub struct SceneData<'a> {
    /// Item records.
    pub items: &'a [u32],
    /// Clip records.
    pub clips: &'a [u32],
    /// Gradient records.
    pub gradients: &'a [u32],
    /// The glyph atlas, four coverage bytes a word.
    pub glyphs: &'a [u32],
    /// Words a glyph-atlas row.
    pub glyph_row_words: u32,
    /// The image atlas, one RGBA8 texel a word.
    pub images: &'a [u32],
    /// Texels an image-atlas row.
    pub image_row: u32,
}

/// Coverage of a pixel whose centre is `d` pixels outside an edge (negative: inside).
pub fn cov(d: f32) -> f32 {
    (0.5 - d).clamp(0.0, 1.0)
}

/// Signed distance from `p` to the rounded rectangle `b` (x0, y0, x1, y1) with radii `r`
/// (top-left, top-right, bottom-right, bottom-left), each clamped to half the shorter side.
pub fn sd_rounded_rect(p: [f32; 2], b: [f32; 4], r: [f32; 4]) -> f32 {
    let cx = (b[0] + b[2]) * 0.5;
    let cy = (b[1] + b[3]) * 0.5;
    let hx = (b[2] - b[0]) * 0.5;
    let hy = (b[3] - b[1]) * 0.5;
    let qx = p[0] - cx;
    let qy = p[1] - cy;
    let mut rr = if qx < 0.0 {
        if qy < 0.0 { r[0] } else { r[3] }
    } else if qy < 0.0 {
        r[1]
    } else {
        r[2]
    };
    rr = rr.min(hx.min(hy)).max(0.0);
    let dx = qx.abs() - hx + rr;
    let dy = qy.abs() - hy + rr;
    let ox = dx.max(0.0);
    let oy = dy.max(0.0);
    dx.max(dy).min(0.0) + (ox * ox + oy * oy).sqrt() - rr
}

/// Approximate signed distance to the ellipse inscribed in `b`: the implicit function over
/// the length of its gradient (exact on a circle's edge, first-order on an ellipse's).
pub fn sd_ellipse(p: [f32; 2], b: [f32; 4]) -> f32 {
    let rx = (b[2] - b[0]) * 0.5;
    let ry = (b[3] - b[1]) * 0.5;
    if rx <= 0.0 || ry <= 0.0 {
        return 1.0e9;
    }
    let u = (p[0] - (b[0] + b[2]) * 0.5) / rx;
    let v = (p[1] - (b[1] + b[3]) * 0.5) / ry;
    let f = u * u + v * v - 1.0;
    let gx = u / rx;
    let gy = v / ry;
    let g = 2.0 * (gx * gx + gy * gy).sqrt();
    f / g.max(1.0e-6)
}

/// erf, Abramowitz and Stegun 7.1.27 (absolute error under 5e-4).
pub fn erf(x: f32) -> f32 {
    let t = x.abs();
    let p = 1.0 + t * (0.278393 + t * (0.230389 + t * (0.000972 + t * 0.078108)));
    let p2 = p * p;
    let e = 1.0 - 1.0 / (p2 * p2);
    if x < 0.0 { -e } else { e }
}

/// Half-width of a rounded rectangle (half size `hx, hy`) on the side of corner radius `rad`,
/// at `row` from its centre.
fn extent(hx: f32, hy: f32, rad: f32, row: f32) -> f32 {
    let dy = (row.abs() - (hy - rad)).max(0.0);
    hx - rad + (rad * rad - dy * dy).max(0.0).sqrt()
}

/// The box shadow: the rounded rectangle `b` with radii `r` convolved with a Gaussian of
/// standard deviation `sigma`, at `p`. Exact along x (erf of the row's extent on each side,
/// with that side's corner radius); along y the midpoint rule over the rows within 3 sigma.
pub fn shadow(p: [f32; 2], b: [f32; 4], r: [f32; 4], sigma: f32) -> f32 {
    let cx = (b[0] + b[2]) * 0.5;
    let cy = (b[1] + b[3]) * 0.5;
    let hx = (b[2] - b[0]) * 0.5;
    let hy = (b[3] - b[1]) * 0.5;
    let qx = p[0] - cx;
    let qy = p[1] - cy;
    let m = hx.min(hy);
    let lim = 3.0 * sigma;
    let lo = (qy - hy).max(-lim);
    let hi = (qy + hy).min(lim);
    if hi <= lo {
        return 0.0;
    }
    let step = (hi - lo) / SHADOW_SAMPLES as f32;
    let k = 1.0 / (sigma * std::f32::consts::SQRT_2);
    let e = 1.0 / (2.0 * sigma * sigma);
    let mut acc = 0.0f32;
    for i in 0..SHADOW_SAMPLES {
        let y = lo + (i as f32 + 0.5) * step;
        let row = qy - y;
        let (rl, rr) = if row < 0.0 {
            (r[0], r[1])
        } else {
            (r[3], r[2])
        };
        let xl = -extent(hx, hy, rl.min(m), row);
        let xr = extent(hx, hy, rr.min(m), row);
        let ix = 0.5 * (erf((xr - qx) * k) - erf((xl - qx) * k));
        acc += ix * (-(y * y) * e).exp();
    }
    let norm = step / (sigma * 2.506_628_3);
    (acc * norm).clamp(0.0, 1.0)
}

/// `a + (b - a) * t` on four channels.
pub fn mix4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
        a[3] + (b[3] - a[3]) * t,
    ]
}

fn scale4(a: [f32; 4], s: f32) -> [f32; 4] {
    [a[0] * s, a[1] * s, a[2] * s, a[3] * s]
}

fn mul4(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]]
}

fn add4(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

/// A gradient's colour at `p` (record at word `g`).
pub fn gradient(s: &SceneData, g: usize, p: [f32; 2]) -> [f32; 4] {
    let r = &s.gradients[g..];
    let f = |i: usize| f32::from_bits(r[i]);
    let t = ((p[0] - f(0)) * f(2) + (p[1] - f(1)) * f(3) + f(4)).clamp(0.0, 1.0);
    let n = r[5] as usize;
    let stop = |k: usize| &r[6 + 4 * k..6 + 4 * k + 4];
    let mut c = unpack_f16x4([stop(0)[2], stop(0)[3]]);
    for k in 0..n - 1 {
        let off = f32::from_bits(stop(k)[0]);
        if t >= off {
            let u = ((t - off) * f32::from_bits(stop(k)[1])).clamp(0.0, 1.0);
            let a = unpack_f16x4([stop(k)[2], stop(k)[3]]);
            let b = unpack_f16x4([stop(k + 1)[2], stop(k + 1)[3]]);
            c = mix4(a, b, u);
        }
    }
    c
}

/// An RGBA8 texel, premultiplied.
pub fn texel(s: &SceneData, x: u32, y: u32) -> [f32; 4] {
    let w = s.images[(y * s.image_row + x) as usize];
    let a = (w >> 24) as f32 * INV255;
    [
        (w & 0xff) as f32 * INV255 * a,
        (w >> 8 & 0xff) as f32 * INV255 * a,
        (w >> 16 & 0xff) as f32 * INV255 * a,
        a,
    ]
}

/// Coverage of the chain from clip `c` (index + 1; 0: none) at pixel centre `p`: the least of
/// its clips' coverages (ADR-0083: a clip nested in itself changes nothing, and no order of
/// operations matters). The walk stops where the rest is known exactly: inside a clip's
/// chain-inner box every clip from it up covers 1; outside its chain-outer box, or once the
/// least is 0, the answer is 0.
pub fn clip_coverage(s: &SceneData, mut c: u32, p: [f32; 2]) -> f32 {
    let mut v = 1.0f32;
    while c != 0 {
        let r = clip_record(s, c);
        match settled(r, p) {
            Some(1.0) => break,
            Some(_) => return 0.0,
            None => {}
        }
        v = v.min(own_coverage(r, p));
        if v == 0.0 {
            return 0.0;
        }
        c = r[clip_word::PARENT];
    }
    v
}

/// Clip `c`'s words (clips are numbered from 1).
fn clip_record<'a>(s: &'a SceneData<'_>, c: u32) -> &'a [u32] {
    &s.clips[(c as usize - 1) * CLIP_WORDS..][..CLIP_WORDS]
}

/// What the clip's boxes settle for the chain from it up at pixel `p`: 1 inside the chain's
/// inner box (every clip above holds the pixel whole), 0 outside its outer box, else `None`.
fn settled(r: &[u32], p: [f32; 2]) -> Option<f32> {
    let (px, py) = (p[0].floor() as i32, p[1].floor() as i32);
    let holds = |b: PixelBox| px >= b.x0 && py >= b.y0 && px < b.x1 && py < b.y1;
    if holds(PixelBox::unpack([
        r[clip_word::INNER],
        r[clip_word::INNER + 1],
    ])) {
        Some(1.0)
    } else if !holds(PixelBox::unpack([
        r[clip_word::OUTER],
        r[clip_word::OUTER + 1],
    ])) {
        Some(0.0)
    } else {
        None
    }
}

/// The clip's own coverage at `p` (its rounded box alone).
fn own_coverage(r: &[u32], p: [f32; 2]) -> f32 {
    let b = [0, 1, 2, 3].map(|i| f32::from_bits(r[clip_word::BOX + i]));
    let rad = unpack_f16x4([r[clip_word::RADII], r[clip_word::RADII + 1]]);
    cov(sd_rounded_rect(p, b, rad))
}

/// [`clip_coverage`] for one pixel at a time, each clip's chain computed once a pixel: the
/// reference's cost is linear in the scene's items and clips, not in their product, however
/// deep the clips nest. The same value as the walk, bit for bit (a test holds them equal).
#[derive(Clone, Debug, Default)]
pub struct ClipMemo {
    pixel: u32,
    stamp: Vec<u32>,
    value: Vec<f32>,
    path: Vec<u32>,
}

impl ClipMemo {
    /// Forget the last pixel's values.
    pub fn next_pixel(&mut self) {
        self.pixel = self.pixel.wrapping_add(1);
        if self.pixel == 0 {
            self.stamp.fill(0);
            self.pixel = 1;
        }
    }

    /// The chain's coverage from clip `c` at pixel centre `p` (the pixel set by the last
    /// [`ClipMemo::next_pixel`]).
    pub fn coverage(&mut self, s: &SceneData, c: u32, p: [f32; 2]) -> f32 {
        let clips = s.clips.len() / CLIP_WORDS;
        if self.stamp.len() != clips + 1 {
            self.stamp = vec![0; clips + 1];
            self.value = vec![0.0; clips + 1];
            self.pixel = self.pixel.max(1);
        }
        // Up the chain to a clip whose value is known or settled by its boxes, then back down.
        self.path.clear();
        let mut at = c;
        let mut above = loop {
            if at == 0 {
                break 1.0;
            }
            if self.stamp[at as usize] == self.pixel {
                break self.value[at as usize];
            }
            let r = clip_record(s, at);
            if let Some(v) = settled(r, p) {
                self.stamp[at as usize] = self.pixel;
                self.value[at as usize] = v;
                break v;
            }
            self.path.push(at);
            at = r[clip_word::PARENT];
        };
        while let Some(at) = self.path.pop() {
            above = own_coverage(clip_record(s, at), p).min(above);
            self.stamp[at as usize] = self.pixel;
            self.value[at as usize] = above;
        }
        above
    }
}

/// Item `i`'s premultiplied colour at pixel `(px, py)`, its clips applied.
pub fn shade(s: &SceneData, i: u32, px: u32, py: u32) -> [f32; 4] {
    shade_by(s, i, px, py, |c, p| clip_coverage(s, c, p))
}

/// [`shade`] with the clips' coverage from `memo` (its pixel set to this one).
pub fn shade_memo(s: &SceneData, i: u32, px: u32, py: u32, memo: &mut ClipMemo) -> [f32; 4] {
    shade_by(s, i, px, py, |c, p| memo.coverage(s, c, p))
}

fn shade_by(
    s: &SceneData,
    i: u32,
    px: u32,
    py: u32,
    clip_coverage: impl FnOnce(u32, [f32; 2]) -> f32,
) -> [f32; 4] {
    let rec = &s.items[i as usize * ITEM_WORDS..][..ITEM_WORDS];
    let p = [px as f32 + 0.5, py as f32 + 0.5];
    let head = rec[word::KIND];
    let k = head & 0xff;
    let b = [0, 1, 2, 3].map(|j| f32::from_bits(rec[word::BOX + j]));
    let c0 = unpack_f16x4([rec[word::FILL], rec[word::FILL + 1]]);
    let c1 = unpack_f16x4([rec[word::BORDER], rec[word::BORDER + 1]]);
    let p0 = f32::from_bits(rec[word::P0]);
    let p1 = f32::from_bits(rec[word::P1]);
    let col = match k {
        kind::RECT | kind::ELLIPSE => {
            let fill = if head & flag::GRADIENT != 0 {
                gradient(s, rec[word::FILL] as usize, p)
            } else {
                c0
            };
            let r = unpack_f16x4([rec[word::RADII], rec[word::RADII + 1]]);
            let co = if k == kind::RECT {
                cov(sd_rounded_rect(p, b, r))
            } else {
                cov(sd_ellipse(p, b))
            };
            if head & flag::INNER != 0 {
                let ib = [b[0] + p0, b[1] + p0, b[2] - p0, b[3] - p0];
                let ci = if k == kind::RECT {
                    let ir = r.map(|v| (v - p0).max(0.0));
                    cov(sd_rounded_rect(p, ib, ir))
                } else {
                    cov(sd_ellipse(p, ib))
                };
                let ring = (co - ci).max(0.0);
                if head & flag::RING != 0 {
                    scale4(fill, ring)
                } else {
                    add4(scale4(fill, ci), scale4(c1, ring))
                }
            } else {
                scale4(fill, co)
            }
        }
        kind::IMAGE => {
            let co = cov(sd_rounded_rect(p, b, [0.0; 4]));
            let (ax, ay) = (rec[word::RADII] & 0xffff, rec[word::RADII] >> 16);
            let (sw, sh) = (rec[word::RADII + 1] & 0xffff, rec[word::RADII + 1] >> 16);
            let u = (p[0] - b[0]) * p0;
            let v = (p[1] - b[1]) * p1;
            let t = if head & flag::BILINEAR != 0 {
                let fu = u - 0.5;
                let fv = v - 0.5;
                let x0 = fu.floor();
                let y0 = fv.floor();
                let tx = fu - x0;
                let ty = fv - y0;
                let cx = |x: f32| (x as i32).clamp(0, sw as i32 - 1) as u32 + ax;
                let cy = |y: f32| (y as i32).clamp(0, sh as i32 - 1) as u32 + ay;
                let top = mix4(texel(s, cx(x0), cy(y0)), texel(s, cx(x0 + 1.0), cy(y0)), tx);
                let bot = mix4(
                    texel(s, cx(x0), cy(y0 + 1.0)),
                    texel(s, cx(x0 + 1.0), cy(y0 + 1.0)),
                    tx,
                );
                mix4(top, bot, ty)
            } else {
                let x = (u.floor() as i32).clamp(0, sw as i32 - 1) as u32;
                let y = (v.floor() as i32).clamp(0, sh as i32 - 1) as u32;
                texel(s, ax + x, ay + y)
            };
            scale4(mul4(t, c1), co)
        }
        kind::GLYPH => {
            let (ax, ay) = (rec[word::RADII] & 0xffff, rec[word::RADII] >> 16);
            let x = ax + (px as i32 - b[0] as i32) as u32;
            let y = ay + (py as i32 - b[1] as i32) as u32;
            let w = s.glyphs[(y * s.glyph_row_words + x / 4) as usize];
            let c = (w >> (8 * (x % 4)) & 0xff) as f32 * INV255;
            scale4(c0, c)
        }
        kind::SHADOW => {
            let r = unpack_f16x4([rec[word::RADII], rec[word::RADII + 1]]);
            scale4(c0, shadow(p, b, r, p0))
        }
        _ => [0.0; 4],
    };
    let clip = rec[word::CLIP];
    if clip != 0 {
        scale4(col, clip_coverage(clip, p))
    } else {
        col
    }
}

/// Source-over of premultiplied colours: `src + dst × (1 − src.a)`.
pub fn over(src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
    let k = 1.0 - src[3];
    [
        src[0] + dst[0] * k,
        src[1] + dst[1] * k,
        src[2] + dst[2] * k,
        src[3] + dst[3] * k,
    ]
}

/// The output pixel: straight alpha, each channel rounded half up to 8 bits.
pub fn quantise(c: [f32; 4]) -> [u8; 4] {
    let a = c[3].clamp(0.0, 1.0);
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
    if a > 0.0 {
        [q(c[0] / a), q(c[1] / a), q(c[2] / a), q(a)]
    } else {
        [0, 0, 0, 0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo gives the walk's coverage bit for bit, for every clip at every pixel, on
    /// random chains: nested, crossing, repeated, rounded, edges on pixel centres, far off.
    #[test]
    fn the_memo_is_the_walk() {
        use crate::scene::{Clip, Scene};
        for seed in 0..6u64 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let (w, h) = (40u32, 30u32);
            let mut scene = Scene::new(w, h).unwrap();
            let mut depth = 0;
            for _ in 0..300 {
                if depth > 0 && rng.u32(..3) == 0 {
                    scene.pop_clip().unwrap();
                    depth -= 1;
                    continue;
                }
                let q = |v: f32| (v * 2.0).round() / 2.0;
                let (x, y) = (q(rng.f32() * 12.0 - 4.0), q(rng.f32() * 9.0 - 3.0));
                scene
                    .push_clip(&Clip {
                        x,
                        y,
                        w: q(rng.f32() * 30.0 + 12.0),
                        h: q(rng.f32() * 22.0 + 9.0),
                        radius: [0, 1, 2, 3]
                            .map(|_| if rng.bool() { 0.0 } else { rng.f32() * 8.0 }),
                    })
                    .unwrap();
                depth += 1;
            }
            let data = SceneData {
                items: &[],
                clips: &scene.clips,
                gradients: &[],
                glyphs: &[],
                glyph_row_words: 0,
                images: &[],
                image_row: 0,
            };
            let clips = (scene.clips.len() / CLIP_WORDS) as u32;
            let mut memo = ClipMemo::default();
            let mut partial = 0;
            for py in 0..h {
                for px in 0..w {
                    memo.next_pixel();
                    let p = [px as f32 + 0.5, py as f32 + 0.5];
                    // Deepest first, then from the root: both orders fill the memo.
                    let order: Vec<u32> = if (px + py) % 2 == 0 {
                        (1..=clips).rev().collect()
                    } else {
                        (1..=clips).collect()
                    };
                    for c in order {
                        let walk = clip_coverage(&data, c, p);
                        let got = memo.coverage(&data, c, p);
                        assert_eq!(
                            got.to_bits(),
                            walk.to_bits(),
                            "seed {seed} clip {c} at {p:?}"
                        );
                        partial += usize::from(walk > 0.0 && walk < 1.0);
                    }
                }
            }
            assert!(
                partial > 100,
                "seed {seed}: only {partial} partial coverages"
            );
        }
    }

    #[test]
    fn distances_of_a_rounded_rect_by_hand() {
        let b = [10.0, 10.0, 50.0, 30.0];
        let r = [8.0, 0.0, 4.0, 0.0];
        // Inside, 5 from the left edge and far from corners.
        assert_eq!(sd_rounded_rect([15.0, 20.0], b, r), -5.0);
        // 3 right of the right edge, at mid height.
        assert_eq!(sd_rounded_rect([53.0, 20.0], b, r), 3.0);
        // The top-left corner's circle: centre (18, 18), radius 8; the box corner is
        // 8 * sqrt(2) - 8 outside it.
        let d = sd_rounded_rect([10.0, 10.0], b, r);
        assert!((d - (8.0 * 2f32.sqrt() - 8.0)).abs() < 1e-5, "{d}");
        // The top-right corner is square.
        assert_eq!(sd_rounded_rect([50.0, 10.0], b, r), 0.0);
        // Radii clamp to half the shorter side (10).
        let d = sd_rounded_rect([10.0, 10.0], b, [40.0; 4]);
        assert!((d - (10.0 * 2f32.sqrt() - 10.0)).abs() < 1e-5, "{d}");
        assert_eq!(cov(-3.0), 1.0);
        assert_eq!(cov(0.0), 0.5);
        assert_eq!(cov(0.75), 0.0);
    }

    #[test]
    fn a_circle_distance_is_exact_near_its_edge() {
        let b = [0.0, 0.0, 20.0, 20.0];
        // Within a pixel of the edge (where coverage is decided) the first-order distance is
        // within 0.06 of the true one; further out it only keeps its sign.
        for (p, want) in [([10.0, 0.0], 0.0), ([10.0, -1.0], 1.0), ([10.0, 1.0], -1.0)] {
            let d = sd_ellipse(p, b);
            assert!((d - want).abs() < 0.06, "{p:?}: {d} against {want}");
        }
        assert!((0.0..5.0).contains(&sd_ellipse([25.0, 10.0], b)));
        assert!(sd_ellipse([10.0, 10.0], b) < -1e3);
        assert!(sd_ellipse([1.0, 1.0], [0.0, 0.0, 0.0, 4.0]) > 1e8);
    }

    #[test]
    fn erf_is_within_its_stated_error() {
        // erf values from tables.
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (2.0, 0.995_322_3),
            (-1.0, -0.842_700_8),
        ] {
            assert!((erf(x) - want).abs() < 5e-4, "erf({x}) = {}", erf(x));
        }
    }

    /// The analytic shadow against the blur done by brute force in f64 (the rounded
    /// rectangle's indicator sampled 8 × 8 per pixel, convolved with the Gaussian): within
    /// 0.016 everywhere for 4 different corner radii (measured: 0.0143 with 6 samples along y,
    /// 0.0229 with 4, 0.0095 with 32, the brute force's own error).
    #[test]
    fn the_shadow_is_the_blurred_rounded_rect() {
        let b = [20.0f32, 16.0, 60.0, 40.0];
        let r = [12.0f32, 0.0, 6.0, 3.0];
        let sigma = 4.0f32;
        let inside = |x: f64, y: f64| sd_rounded_rect([x as f32, y as f32], b, r) <= 0.0;
        // The indicator on a fine grid.
        let n = 8usize;
        let (w, h) = (80usize, 56usize);
        let mut grid = vec![0.0f64; w * n * h * n];
        for j in 0..h * n {
            for i in 0..w * n {
                let (x, y) = ((i as f64 + 0.5) / n as f64, (j as f64 + 0.5) / n as f64);
                grid[j * w * n + i] = f64::from(u8::from(inside(x, y)));
            }
        }
        let s = f64::from(sigma) * n as f64;
        let taps = (3.5 * s) as i64;
        let g: Vec<f64> = (-taps..=taps)
            .map(|t| (-(t * t) as f64 / (2.0 * s * s)).exp())
            .collect();
        let gs: f64 = g.iter().sum();
        let mut worst = 0.0f64;
        for py in (0..h).step_by(3) {
            for px in (0..w).step_by(3) {
                let (ci, cj) = ((px * n + n / 2) as i64, (py * n + n / 2) as i64);
                let mut v = 0.0;
                for (a, ga) in g.iter().enumerate() {
                    let jj = cj + a as i64 - taps;
                    if jj < 0 || jj >= (h * n) as i64 {
                        continue;
                    }
                    let mut row = 0.0;
                    for (c, gc) in g.iter().enumerate() {
                        let ii = ci + c as i64 - taps;
                        if ii >= 0 && ii < (w * n) as i64 {
                            row += gc * grid[jj as usize * w * n + ii as usize];
                        }
                    }
                    v += ga * row;
                }
                let want = v / (gs * gs);
                let got = f64::from(shadow([px as f32 + 0.5, py as f32 + 0.5], b, r, sigma));
                worst = worst.max((got - want).abs());
            }
        }
        eprintln!("shadow: largest difference from the brute-force blur {worst:.4}");
        assert!(worst < 0.016, "largest difference {worst}");
    }

    #[test]
    fn source_over_and_quantisation() {
        let red = [0.5, 0.0, 0.0, 0.5];
        let white = [1.0; 4];
        assert_eq!(over(red, white), [1.0, 0.5, 0.5, 1.0]);
        assert_eq!(quantise([1.0, 0.5, 0.5, 1.0]), [255, 128, 128, 255]);
        assert_eq!(quantise([0.25, 0.0, 0.0, 0.5]), [128, 0, 0, 128]);
        assert_eq!(quantise([0.0; 4]), [0; 4]);
    }
}
