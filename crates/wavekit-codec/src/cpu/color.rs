//! RGB ↔ YCbCr, ITU-R BT.709, full range, in integers (the GPU's `color.wgsl` does the same
//! operations, so both give the same planes bit for bit). Planes hold samples with
//! [`FRAC_BITS`] fractional bits, Y shifted by −128 so that every plane is centred on 0:
//!
//! - `Y = (13933 R + 46871 G + 4732 B + 2^10) >> 11 − 128·2^5` (0.2126, 0.7152, 0.0722 in Q16),
//! - `Cb = (−7509 R − 25259 G + 32768 B + 2^10) >> 11` (`(B − Y) / 1.8556`),
//! - `Cr = (32768 R − 29763 G − 3005 B + 2^10) >> 11` (`(R − Y) / 1.5748`).
//!
//! 4:2:0 chroma is `(a + b + c + d + 2) >> 2` of each 2 × 2 block, brought back by repeating
//! each sample over its block. Back to RGB (each plane clamped to ±2^16 first, then Q14):
//! `R = Y + (25802 Cr + 2^13) >> 14`, `G = Y − (3069 Cb + 7670 Cr + 2^13) >> 14`,
//! `B = Y + (30402 Cb + 2^13) >> 14`, each `(v + 128·2^5 + 16) >> 5` clamped to 0..=255.

use crate::format::{Chroma, FRAC_BITS, Header, Source, YcbcrImage};

/// Y's offset: 128 in units of 2^-FRAC_BITS.
const SHIFT: i32 = 128 << FRAC_BITS;
/// Forward rows in Q16 (R, G, B weights of Y, Cb, Cr).
const FORWARD: [[i32; 3]; 3] = [
    [13933, 46871, 4732],
    [-7509, -25259, 32768],
    [32768, -29763, -3005],
];
/// Inverse constants in Q14: Cr in R, Cb and Cr in G, Cb in B.
const CR_R: i32 = 25802;
const CB_G: i32 = 3069;
const CR_G: i32 = 7670;
const CB_B: i32 = 30402;
/// Decoded planes are clamped to this before the inverse (no product can overflow).
const LIMIT: i32 = 1 << 16;

/// JPEG 2000's reversible colour transform (RCT) of one pixel, Y shifted by −128, in whole
/// units: `Y = ((R + 2G + B) >> 2) − 128`, `Cb = B − G`, `Cr = R − G`.
pub fn pixel_to_rct(r: u8, g: u8, b: u8) -> [i32; 3] {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    [((r + 2 * g + b) >> 2) - 128, b - g, r - g]
}

/// The RCT's inverse, `G = Y + 128 − ((Cb + Cr) >> 2)`, `R = Cr + G`, `B = Cb + G`, each clamped
/// to 0..=255 (only a damaged frame needs it); the planes are clamped to ±2^16 first.
pub fn rct_to_rgb(y: i32, cb: i32, cr: i32) -> [u8; 3] {
    let (y, cb, cr) = (
        y.clamp(-LIMIT, LIMIT),
        cb.clamp(-LIMIT, LIMIT),
        cr.clamp(-LIMIT, LIMIT),
    );
    let g = y + 128 - ((cb + cr) >> 2);
    [cr + g, g, cb + g].map(|v| v.clamp(0, 255) as u8)
}

/// One pixel's Y, Cb, Cr (Y shifted).
pub fn pixel_to_ycbcr(r: u8, g: u8, b: u8) -> [i32; 3] {
    let rgb = [i32::from(r), i32::from(g), i32::from(b)];
    let row = |k: usize| {
        (FORWARD[k][0] * rgb[0] + FORWARD[k][1] * rgb[1] + FORWARD[k][2] * rgb[2] + (1 << 10)) >> 11
    };
    [row(0) - SHIFT, row(1), row(2)]
}

/// One pixel's R, G, B from decoded Y, Cb, Cr.
pub fn pixel_to_rgb(y: i32, cb: i32, cr: i32) -> [u8; 3] {
    let (y, cb, cr) = (
        y.clamp(-LIMIT, LIMIT),
        cb.clamp(-LIMIT, LIMIT),
        cr.clamp(-LIMIT, LIMIT),
    );
    let r = y + ((CR_R * cr + (1 << 13)) >> 14);
    let g = y - ((CB_G * cb + CR_G * cr + (1 << 13)) >> 14);
    let b = y + ((CB_B * cb + (1 << 13)) >> 14);
    let q = |v: i32| ((v + SHIFT + (1 << (FRAC_BITS - 1))) >> FRAC_BITS).clamp(0, 255) as u8;
    [q(r), q(g), q(b)]
}

/// Y, Cb, Cr planes (row-major, [`FRAC_BITS`] fractional bits) of an 8-bit RGB image (`rgb`:
/// 3 bytes a pixel).
pub fn to_ycbcr(rgb: &[u8], width: usize, height: usize, chroma: Chroma) -> [Vec<i32>; 3] {
    planes_of(rgb, width, height, chroma, pixel_to_ycbcr)
}

/// The RCT's planes (4:4:4, whole units) of an 8-bit RGB image.
pub fn to_rct(rgb: &[u8], width: usize, height: usize) -> [Vec<i32>; 3] {
    planes_of(rgb, width, height, Chroma::Yuv444, pixel_to_rct)
}

fn planes_of(
    rgb: &[u8],
    width: usize,
    height: usize,
    chroma: Chroma,
    f: fn(u8, u8, u8) -> [i32; 3],
) -> [Vec<i32>; 3] {
    let n = width * height;
    let mut planes = [vec![0i32; n], vec![0i32; n], vec![0i32; n]];
    for (i, px) in rgb.chunks_exact(3).take(n).enumerate() {
        let v = f(px[0], px[1], px[2]);
        for (p, v) in planes.iter_mut().zip(v) {
            p[i] = v;
        }
    }
    let [y, cb, cr] = planes;
    match chroma {
        Chroma::Yuv444 => [y, cb, cr],
        Chroma::Yuv420 => [y, halve(&cb, width, height), halve(&cr, width, height)],
    }
}

/// `(a + b + c + d + 2) >> 2` of each 2 × 2 block (the sides are even for 4:2:0).
fn halve(p: &[i32], width: usize, height: usize) -> Vec<i32> {
    let (w, h) = (width / 2, height / 2);
    let mut out = vec![0i32; w * h];
    for y in 0..h {
        for x in 0..w {
            let at = |dx: usize, dy: usize| p[(2 * y + dy) * width + 2 * x + dx];
            out[y * w + x] = (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) >> 2;
        }
    }
    out
}

/// 8-bit RGB of decoded RCT planes (4:4:4).
pub fn rct_planes_to_rgb(planes: &[Vec<i32>; 3], width: usize, height: usize) -> Vec<u8> {
    let n = width * height;
    let mut rgb = Vec::with_capacity(3 * n);
    for ((&y, &cb), &cr) in planes[0][..n]
        .iter()
        .zip(&planes[1][..n])
        .zip(&planes[2][..n])
    {
        rgb.extend(rct_to_rgb(y, cb, cr));
    }
    rgb
}

/// 8-bit RGB of decoded Y, Cb, Cr planes.
pub fn to_rgb(planes: &[Vec<i32>; 3], width: usize, height: usize, chroma: Chroma) -> Vec<u8> {
    let mut rgb = vec![0u8; 3 * width * height];
    let cw = match chroma {
        Chroma::Yuv420 => width / 2,
        Chroma::Yuv444 => width,
    };
    for y in 0..height {
        for x in 0..width {
            let c = match chroma {
                Chroma::Yuv420 => (y / 2) * cw + x / 2,
                Chroma::Yuv444 => y * cw + x,
            };
            let i = 3 * (y * width + x);
            rgb[i..i + 3].copy_from_slice(&pixel_to_rgb(
                planes[0][y * width + x],
                planes[1][c],
                planes[2][c],
            ));
        }
    }
    rgb
}

/// Limited range to the planes' units, Q8: luma `255·32/219`, chroma `255·32/224`.
const LIMITED_Y: i32 = 9539;
const LIMITED_C: i32 = 9326;

/// An 8-bit YCbCr sample as a plane value: lossless, the sample less 128, in whole units;
/// lossy, BT.709 full range with [`FRAC_BITS`] fractional bits (Y shifted by −128), from full
/// range `v·32 − 4096` (Y) or `(v − 128)·32` (Cb, Cr), from limited range
/// `((v − 16)·9539 + 128) >> 8 − 4096` (Y) or `((v − 128)·9326 + 128) >> 8` (Cb, Cr).
pub fn sample_to_plane(v: u8, luma: bool, limited: bool, lossless: bool) -> i32 {
    let v = i32::from(v);
    match (lossless, limited, luma) {
        (true, _, _) => v - 128,
        (false, false, true) => (v << FRAC_BITS) - SHIFT,
        (false, false, false) => (v - 128) << FRAC_BITS,
        (false, true, true) => (((v - 16) * LIMITED_Y + 128) >> 8) - SHIFT,
        (false, true, false) => ((v - 128) * LIMITED_C + 128) >> 8,
    }
}

/// A lossy plane value (full range, [`FRAC_BITS`] fractional bits) as an 8-bit sample in full
/// or limited range, rounded, clamped to 0 ..= 255 (the plane clamped to ±2^16 first). Limited:
/// `Y = (438·(p + 4096) + 8160 + 16·16320) / 16320`, `C = (448·p + 8160 + 128·16320) / 16320`
/// (`219/8160` and `224/8160` with rounding; negative numerators give 0).
pub fn plane_to_sample(p: i32, luma: bool, limited: bool) -> u8 {
    let p = p.clamp(-LIMIT, LIMIT);
    let v = match (limited, luma) {
        (false, true) => (p + SHIFT + (1 << (FRAC_BITS - 1))) >> FRAC_BITS,
        (false, false) => ((p + (1 << (FRAC_BITS - 1))) >> FRAC_BITS) + 128,
        (true, true) => (438 * (p + SHIFT) + 8160 + 16 * 16320).max(0) / 16320,
        (true, false) => (448 * p + 8160 + 128 * 16320).max(0) / 16320,
    };
    v.clamp(0, 255) as u8
}

/// Each sample of Y, Cb and Cr through `f(sample, luma)`.
fn per_plane<A: Copy, B>(planes: &[Vec<A>; 3], f: impl Fn(A, bool) -> B) -> [Vec<B>; 3] {
    std::array::from_fn(|k| planes[k].iter().map(|&v| f(v, k == 0)).collect())
}

/// The planes of a YCbCr picture (its own sampling; no colour transform).
pub fn ycbcr_to_planes(img: &YcbcrImage, lossless: bool) -> [Vec<i32>; 3] {
    per_plane(&img.planes, |v, luma| {
        sample_to_plane(v, luma, img.limited, lossless)
    })
}

/// Decoded planes as 8-bit RGB, whatever the frame's source and mode.
pub fn planes_to_rgb(planes: &[Vec<i32>; 3], header: &Header) -> Vec<u8> {
    let (w, h) = (header.width as usize, header.height as usize);
    match (header.lossless, header.source) {
        (true, Source::Rgb) => rct_planes_to_rgb(planes, w, h),
        (true, source) => {
            let limited = source == Source::YcbcrLimited;
            let fixed = per_plane(planes, |v, luma| {
                sample_to_plane((v + 128).clamp(0, 255) as u8, luma, limited, false)
            });
            to_rgb(&fixed, w, h, header.chroma)
        }
        (false, _) => to_rgb(planes, w, h, header.chroma),
    }
}

/// Decoded planes as an 8-bit YCbCr picture at the frame's sampling, in the source's range
/// (full range for an RGB source; an RCT frame goes through RGB and BT.709).
pub fn planes_to_ycbcr(planes: &[Vec<i32>; 3], header: &Header) -> YcbcrImage {
    let (w, h) = (header.width as usize, header.height as usize);
    let limited = header.source == Source::YcbcrLimited;
    let samples = match (header.lossless, header.source) {
        (true, Source::Rgb) => {
            let rgb = rct_planes_to_rgb(planes, w, h);
            let fixed = to_ycbcr(&rgb, w, h, Chroma::Yuv444);
            per_plane(&fixed, |v, luma| plane_to_sample(v, luma, false))
        }
        (true, _) => per_plane(planes, |v, _| (v + 128).clamp(0, 255) as u8),
        (false, _) => per_plane(planes, |v, luma| plane_to_sample(v, luma, limited)),
    };
    YcbcrImage {
        width: header.width,
        height: header.height,
        chroma: header.chroma,
        limited,
        planes: samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU's wavelet reads and writes full-range and lossless YCbCr pictures itself with
    /// the wavelet's fixed point (`gpu::shared::byte_fraction_bits`): these maps must be
    /// exactly `(v − 128) << bits` and `clamp(((p + 2^(bits−1)) >> bits) + 128)`.
    #[test]
    fn full_range_maps_are_the_wavelets_fixed_point() {
        for v in 0..=255u8 {
            let s = i32::from(v) - 128;
            for luma in [true, false] {
                assert_eq!(sample_to_plane(v, luma, false, false), s << FRAC_BITS);
                assert_eq!(sample_to_plane(v, luma, true, true), s);
                assert_eq!(sample_to_plane(v, luma, false, true), s);
            }
        }
        let mut rng = fastrand::Rng::with_seed(0x5107);
        let edges = [
            i32::MIN,
            -LIMIT - 1,
            -LIMIT,
            -4113,
            -4112,
            -17,
            -16,
            15,
            16,
            LIMIT,
            i32::MAX,
        ];
        let tries = edges
            .into_iter()
            .chain((-5000..5000).step_by(7))
            .chain((0..10_000).map(|_| rng.i32(..)));
        for p in tries {
            let fixed = ((i64::from(p) + 16) >> FRAC_BITS) + 128;
            for luma in [true, false] {
                assert_eq!(
                    i64::from(plane_to_sample(p, luma, false)),
                    fixed.clamp(0, 255),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn every_ycbcr_sample_comes_back_exactly() {
        for limited in [false, true] {
            for luma in [false, true] {
                for v in 0..=255u8 {
                    let p = sample_to_plane(v, luma, limited, false);
                    assert_eq!(plane_to_sample(p, luma, limited), v, "{v} {luma} {limited}");
                    let l = sample_to_plane(v, luma, limited, true);
                    assert_eq!(l, i32::from(v) - 128);
                }
            }
        }
        // Limited range's black and white are full range's, within a unit of 2^-5.
        assert_eq!(sample_to_plane(16, true, true, false), -4096);
        assert!((sample_to_plane(235, true, true, false) - (255 * 32 - 4096)).abs() <= 1);
        assert!((sample_to_plane(240, false, true, false) - 127 * 32).abs() <= 16);
        // Out-of-range planes clamp.
        assert_eq!(plane_to_sample(i32::MAX, true, true), 255);
        assert_eq!(plane_to_sample(i32::MIN, false, true), 0);
    }

    #[test]
    fn every_colour_comes_back_within_one_step_at_444() {
        let mut rng = fastrand::Rng::with_seed(3);
        let rgb: Vec<u8> = (0..3 * 4096).map(|_| rng.u8(..)).collect();
        let planes = to_ycbcr(&rgb, 64, 64, Chroma::Yuv444);
        let back = to_rgb(&planes, 64, 64, Chroma::Yuv444);
        let worst = rgb
            .iter()
            .zip(&back)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(worst <= 1, "{worst}");
        // Grey has no chroma, and Y is the grey level.
        for v in [0u8, 77, 128, 255] {
            assert_eq!(
                pixel_to_ycbcr(v, v, v),
                [(i32::from(v) << FRAC_BITS) - SHIFT, 0, 0]
            );
            assert_eq!(
                pixel_to_rgb((i32::from(v) << FRAC_BITS) - SHIFT, 0, 0),
                [v; 3]
            );
        }
        // Against the f64 matrix: within half a unit of 2^-5 plus rounding.
        for px in rgb.chunks(3).take(500) {
            let [r, g, b] = [0, 1, 2].map(|k| f64::from(px[k]));
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
            let want = [y - 128.0, (b - y) / 1.8556, (r - y) / 1.5748];
            let got = pixel_to_ycbcr(px[0], px[1], px[2]);
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (f64::from(*g) / 32.0 - w).abs() <= 0.04,
                    "{px:?}: {got:?} {want:?}"
                );
            }
        }
        // Out-of-range planes clamp, never overflow.
        assert_eq!(pixel_to_rgb(i32::MAX, 0, 0), [255, 255, 255]);
        assert_eq!(pixel_to_rgb(0, i32::MIN, i32::MAX), [255, 0, 0]);
        assert_eq!(pixel_to_rgb(i32::MIN, 0, 0), [0, 0, 0]);
    }

    #[test]
    fn the_rct_round_trips_every_colour_exactly() {
        for r in (0..=255u8).step_by(5) {
            for g in (0..=255u8).step_by(3) {
                for b in [0u8, 1, 77, 128, 254, 255] {
                    let [y, cb, cr] = pixel_to_rct(r, g, b);
                    assert_eq!(rct_to_rgb(y, cb, cr), [r, g, b]);
                }
            }
        }
    }

    #[test]
    fn flat_colour_blocks_survive_420() {
        // Each 2 x 2 block one colour: 4:2:0 loses nothing but rounding.
        let (w, h) = (8, 6);
        let mut rng = fastrand::Rng::with_seed(4);
        let colours: Vec<[u8; 3]> = (0..(w / 2) * (h / 2))
            .map(|_| [rng.u8(..), rng.u8(..), rng.u8(..)])
            .collect();
        let mut rgb = vec![0u8; 3 * w * h];
        for y in 0..h {
            for x in 0..w {
                let c = colours[(y / 2) * (w / 2) + x / 2];
                rgb[3 * (y * w + x)..3 * (y * w + x) + 3].copy_from_slice(&c);
            }
        }
        let planes = to_ycbcr(&rgb, w, h, Chroma::Yuv420);
        assert_eq!(planes[1].len(), (w / 2) * (h / 2));
        let back = to_rgb(&planes, w, h, Chroma::Yuv420);
        assert!(rgb.iter().zip(&back).all(|(a, b)| a.abs_diff(*b) <= 1));
    }
}
