//! RGB ↔ YCbCr, ITU-R BT.709, full range, on the CPU: `Y = 0.2126 R + 0.7152 G + 0.0722 B`,
//! `Cb = (B − Y) / 1.8556`, `Cr = (R − Y) / 1.5748`, with Y shifted by −128 so that every plane
//! is centred on 0 for the wavelet. 4:2:0 chroma is the mean of each 2 × 2 block, and is
//! brought back by repeating each sample over its block.

use crate::format::Chroma;

/// Y, Cb, Cr planes (f32, row-major) of an 8-bit RGB image (`rgb`: 3 bytes a pixel).
pub fn to_ycbcr(rgb: &[u8], width: usize, height: usize, chroma: Chroma) -> [Vec<f32>; 3] {
    let n = width * height;
    let mut y = vec![0f32; n];
    let mut cb = vec![0f32; n];
    let mut cr = vec![0f32; n];
    for i in 0..n {
        let (r, g, b) = (
            f32::from(rgb[3 * i]),
            f32::from(rgb[3 * i + 1]),
            f32::from(rgb[3 * i + 2]),
        );
        let l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        y[i] = l - 128.0;
        cb[i] = (b - l) / 1.8556;
        cr[i] = (r - l) / 1.5748;
    }
    match chroma {
        Chroma::Yuv444 => [y, cb, cr],
        Chroma::Yuv420 => [y, halve(&cb, width, height), halve(&cr, width, height)],
    }
}

/// The mean of each 2 × 2 block (the sides are even for 4:2:0).
fn halve(p: &[f32], width: usize, height: usize) -> Vec<f32> {
    let (w, h) = (width / 2, height / 2);
    let mut out = vec![0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let at = |dx: usize, dy: usize| p[(2 * y + dy) * width + 2 * x + dx];
            out[y * w + x] = (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)) * 0.25;
        }
    }
    out
}

/// 8-bit RGB (rounded, clamped) of Y, Cb, Cr planes.
pub fn to_rgb(planes: &[Vec<f32>; 3], width: usize, height: usize, chroma: Chroma) -> Vec<u8> {
    let mut rgb = vec![0u8; 3 * width * height];
    let cw = match chroma {
        Chroma::Yuv420 => width / 2,
        Chroma::Yuv444 => width,
    };
    let q = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    for y in 0..height {
        for x in 0..width {
            let c = match chroma {
                Chroma::Yuv420 => (y / 2) * cw + x / 2,
                Chroma::Yuv444 => y * cw + x,
            };
            let l = planes[0][y * width + x] + 128.0;
            let (cb, cr) = (planes[1][c], planes[2][c]);
            let r = l + 1.5748 * cr;
            let b = l + 1.8556 * cb;
            let g = (l - 0.2126 * r - 0.0722 * b) / 0.7152;
            let i = 3 * (y * width + x);
            rgb[i] = q(r);
            rgb[i + 1] = q(g);
            rgb[i + 2] = q(b);
        }
    }
    rgb
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Grey has no chroma.
        let grey = to_ycbcr(&[77, 77, 77], 1, 1, Chroma::Yuv444);
        assert!(grey[1][0].abs() < 1e-4 && grey[2][0].abs() < 1e-4);
        assert!((grey[0][0] - (77.0 - 128.0)).abs() < 1e-3);
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
