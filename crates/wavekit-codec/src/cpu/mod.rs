//! The codec on the CPU: the reference a GPU encoder and decoder will be held to, byte for
//! byte, and what `--cpu` runs. Integers from the pixels to the payloads and back, so that
//! every device computes what this does, bit for bit. Each stage is a file: [`color`] (BT.709
//! YCbCr in fixed point, 4:2:0), the fixed-point 9/7 wavelet (`wavekit_dwt::sim`, the CPU port
//! of the GPU's kernel), [`block`] (quantization and the bit-plane coding of one block), and
//! [`rate`] (the planes of every block for the byte budget).

pub mod block;
pub mod color;
mod gains;
pub mod rate;

use wavekit_dwt::{SHAPES, Wavelet};

use crate::error::{CodecError, Result};
use crate::format::{
    Band, Chroma, FRAC_BITS, Header, Layout, OFFSET_BYTES, Orientation, Source, YcbcrImage,
};

/// What to encode: the chroma sampling, wavelet levels and the frame's byte budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncodeConfig {
    /// Chroma sampling.
    pub chroma: Chroma,
    /// Wavelet levels (5 by default; fewer where a plane is too small).
    pub levels: u8,
    /// The coded frame's size at most, in bytes; the rate control fills it as far as the
    /// blocks' bit-planes allow. A lossless frame that needs more is an error.
    pub budget: usize,
    /// Lossless coding: RCT (4:4:4 only), or the YCbCr samples themselves; the 5/3, every
    /// plane; decoded bit for bit.
    pub lossless: bool,
    /// What the encoder is given: RGB ([`encode`]) or YCbCr ([`encode_ycbcr`]).
    pub source: Source,
}

impl EncodeConfig {
    /// Lossy 4:2:0 from RGB, 5 levels, at `bpp` bits a pixel of a `width` × `height` frame
    /// (the budget is `width × height × bpp / 8` bytes, rounded down).
    pub fn bpp(width: u32, height: u32, bpp: f64) -> Self {
        let bytes = (f64::from(width) * f64::from(height) * bpp / 8.0).max(0.0) as usize;
        Self::bytes(bytes)
    }

    /// Lossy 4:2:0 from RGB, 5 levels, within `budget` bytes a frame.
    pub fn bytes(budget: usize) -> Self {
        Self {
            chroma: Chroma::Yuv420,
            levels: 5,
            budget,
            lossless: false,
            source: Source::Rgb,
        }
    }

    /// Lossless (the 5/3 and the RCT, 4:4:4) from RGB, 5 levels, with room for any
    /// `width` × `height` frame (12 bytes a pixel and 64 KiB).
    pub fn lossless(width: u32, height: u32) -> Self {
        Self {
            chroma: Chroma::Yuv444,
            lossless: true,
            ..Self::bytes(12 * width as usize * height as usize + 65_536)
        }
    }
}

/// The base quantizer step of a frame, in 8-bit levels, from its budget in bits a pixel: 1
/// up to 3 bpp, 0.5 up to 6, 0.25 above. Fine enough that the bit-planes the rate control
/// drops, not the step, set the quality at these budgets (on the photographic mosaics, within
/// 0.07 dB PSNR-Y of 0.25's at 0.5 to 6 bpp, ADR-0094); coarse enough that the encoder does
/// not code planes far below any it keeps (each halving of the step adds a plane to every
/// block). A frame whose every plane fits sooner (simple content) is smaller than its budget.
pub fn base_step(width: u32, height: u32, budget: usize) -> f32 {
    let bpp = budget as f64 * 8.0 / (f64::from(width) * f64::from(height)).max(1.0);
    if bpp <= 3.0 {
        1.0
    } else if bpp <= 6.0 {
        0.5
    } else {
        0.25
    }
}

/// What an encode did.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodeStats {
    /// Bytes of the coded frame.
    pub bytes: usize,
    /// Header and offset table.
    pub overhead: usize,
    /// Blocks, and blocks with no plane sent.
    pub blocks: usize,
    /// Blocks with no plane sent.
    pub empty_blocks: usize,
    /// Every plane of every block that lowers the error fitted: the frame is as good as the
    /// quantizer allows, and may be smaller than the budget.
    pub all_planes: bool,
}

/// What a decode found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodeReport {
    /// Blocks whose offset or payload was out of the frame or malformed: their samples were
    /// set to 0 (the band's mean for LL is 0 too: a damaged block shows as a flat patch).
    pub damaged: Vec<usize>,
    /// Blocks in the frame.
    pub blocks: usize,
}

/// The energy of the synthesis of a unit sample in each band (how much an error there costs
/// in the image): from the table [`gains::GAINS`], which holds [`gain_reference`]'s values for
/// every level count the format takes (1 to 8), so that no encoder or decoder computes them
/// (an 8-level frame's took seconds).
fn gain(levels: u8, band: &Band) -> f64 {
    gains::lookup(levels, band.level, band.orientation as u8)
        .unwrap_or_else(|| gain_reference(levels, band.level, band.orientation))
}

/// [`gain`] computed with the f64 reference: an impulse in the middle of the band of a plane
/// large enough for the basis function, synthesised, its energy summed.
#[doc(hidden)]
pub fn gain_reference(levels: u8, level: u8, orientation: Orientation) -> f64 {
    let side = 16usize << levels;
    let mut plane = vec![0f64; side * side];
    let s = side >> level;
    let (x0, y0) = match orientation {
        Orientation::Ll => (0, 0),
        Orientation::Hl => (s, 0),
        Orientation::Lh => (0, s),
        Orientation::Hh => (s, s),
    };
    plane[(y0 + s / 2) * side + x0 + s / 2] = 1.0;
    wavekit_dwt::reference::inverse_2d_97(&mut plane, side, side, u32::from(levels));
    plane.iter().map(|v| v * v).sum::<f64>()
}

/// The wavelet of a frame: the 5/3 when lossless, else the fixed-point 9/7.
pub fn wavelet_of(header: &Header) -> Wavelet {
    if header.lossless {
        Wavelet::Reversible53
    } else {
        Wavelet::Fixed97
    }
}

/// A band's quantizer step in units of 2^-8 of a coefficient unit (2^-FRAC_BITS of a level):
/// `max(1, round(Δ·2^(FRAC_BITS + 8) / √G_b))`, computed in f64 from the header's Δ; 256 (one
/// unit: no quantization) when lossless. The GPU gets this table from the same function.
pub fn step_of(header: &Header, band: &Band) -> u32 {
    if header.lossless {
        return 256;
    }
    let s = f64::from(header.step) * f64::from(1u32 << (FRAC_BITS + 8))
        / gain(header.levels, band).sqrt();
    s.round().clamp(1.0, f64::from(u32::MAX >> 8)) as u32
}

/// The frame's three planes before the wavelet: the RCT when lossless, else BT.709 YCbCr.
pub fn color_planes(rgb: &[u8], header: &Header) -> [Vec<i32>; 3] {
    let (w, h) = (header.width as usize, header.height as usize);
    if header.lossless {
        color::to_rct(rgb, w, h)
    } else {
        color::to_ycbcr(rgb, w, h, header.chroma)
    }
}

/// The frame's forward wavelet, each plane in place (the GPU's kernel's CPU port).
pub fn forward(planes: &mut [Vec<i32>; 3], header: &Header) {
    for (p, &(pw, ph)) in planes.iter_mut().zip(header.planes().iter()) {
        wavekit_dwt::sim::forward_2d(
            wavelet_of(header),
            SHAPES[0],
            p,
            pw,
            ph,
            u32::from(header.levels),
        );
    }
}

/// A block's samples, row by row, from its plane (of width `pitch`).
pub fn block_samples(plane: &[i32], pitch: usize, b: &crate::format::Block) -> Vec<i32> {
    let mut v = Vec::with_capacity(b.len());
    for y in b.y..b.y + b.height {
        v.extend_from_slice(&plane[y * pitch + b.x..y * pitch + b.x + b.width]);
    }
    v
}

/// The header and layout of a `width × height` frame coded with `config` (its levels as the
/// frame allows), or why the frame or the budget cannot be coded: what both encoders check
/// first.
pub fn frame_layout(width: u32, height: u32, config: &EncodeConfig) -> Result<(Header, Layout)> {
    let mut header = Header {
        width,
        height,
        chroma: config.chroma,
        levels: 0,
        // Lossless frames take every band's step as one unit; their header keeps 0.25.
        step: if config.lossless {
            0.25
        } else {
            base_step(width, height, config.budget)
        },
        lossless: config.lossless,
        source: config.source,
    };
    header.check()?;
    header.levels = config.levels.min(header.max_levels());
    let layout = Layout::of(&header);
    let overhead = layout.overhead();
    let least = overhead + 2 * layout.blocks.len();
    if config.budget < least {
        return Err(CodecError::InvalidArgument(format!(
            "a budget of {} bytes is too small for a {width} x {height} frame: its header and \
             block table take {overhead} bytes and every block at least 2 more; give at least \
             {least}",
            config.budget
        )));
    }
    Ok((header, layout))
}

/// A synthetic test frame, 8-bit RGB, with what photographs have: smooth shading, a disc with
/// hard edges, fine stripes and noise (seeded). For tests and benchmarks.
pub fn test_picture(w: u32, h: u32, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Vec::with_capacity((3 * w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let disc = ((fx - 0.6).powi(2) + (fy - 0.4).powi(2)) < 0.05;
            let stripes = ((x / 3 + y / 5) % 2) as f32 * 40.0 * f32::from(fx > 0.8);
            let n = rng.f32() * 12.0;
            let r = 60.0 + 150.0 * fx + stripes + n + if disc { 60.0 } else { 0.0 };
            let g = 40.0 + 120.0 * fy + n;
            let b = 200.0 - 100.0 * fx * fy + stripes - if disc { 90.0 } else { 0.0 };
            out.extend([r, g, b].map(|v| v.clamp(0.0, 255.0) as u8));
        }
    }
    out
}

/// Encode an 8-bit RGB frame (`rgb`: 3 bytes a pixel, rows top to bottom).
pub fn encode(
    rgb: &[u8],
    width: u32,
    height: u32,
    config: &EncodeConfig,
) -> Result<(Vec<u8>, EncodeStats)> {
    let (w, h) = (width as usize, height as usize);
    if rgb.len() != 3 * w * h {
        return Err(CodecError::InvalidArgument(format!(
            "{} bytes of RGB for a {width} x {height} frame: expected {}",
            rgb.len(),
            3 * w * h
        )));
    }
    if config.source != Source::Rgb {
        return Err(CodecError::InvalidArgument(format!(
            "the config's source is {:?}: encode RGB with source Rgb, or call encode_ycbcr",
            config.source
        )));
    }
    let (header, layout) = frame_layout(width, height, config)?;
    let planes = color_planes(rgb, &header);
    encode_planes(planes, &header, &layout, config.budget)
}

/// Encode an 8-bit YCbCr picture (as a `.y4m` stream carries it), its planes coded as they are:
/// `config.chroma` must be the picture's, `config.source` its range.
pub fn encode_ycbcr(img: &YcbcrImage, config: &EncodeConfig) -> Result<(Vec<u8>, EncodeStats)> {
    let (header, layout) = ycbcr_layout(img, config)?;
    let planes = color::ycbcr_to_planes(img, header.lossless);
    encode_planes(planes, &header, &layout, config.budget)
}

/// The header and layout of a YCbCr picture coded with `config`, or why they do not fit.
pub fn ycbcr_layout(img: &YcbcrImage, config: &EncodeConfig) -> Result<(Header, Layout)> {
    img.check()?;
    if config.chroma != img.chroma || config.source != img.source() {
        return Err(CodecError::InvalidArgument(format!(
            "a {:?} picture in {} range with a config for {:?} from {:?}: give the picture's \
             chroma and source (YcbcrFull or YcbcrLimited) in the config",
            img.chroma,
            if img.limited { "limited" } else { "full" },
            config.chroma,
            config.source
        )));
    }
    frame_layout(img.width, img.height, config)
}

/// The coding of a frame's planes (before the wavelet) within `budget` bytes.
fn encode_planes(
    mut planes: [Vec<i32>; 3],
    header: &Header,
    layout: &Layout,
    budget: usize,
) -> Result<(Vec<u8>, EncodeStats)> {
    let header = *header;
    let overhead = layout.overhead();
    forward(&mut planes, &header);
    let dims = header.planes();
    let mut coded = Vec::with_capacity(layout.blocks.len());
    let mut costs = Vec::with_capacity(layout.blocks.len());
    for b in &layout.blocks {
        let band = &layout.bands[b.band];
        let samples = block_samples(&planes[band.plane], dims[band.plane].0, b);
        let q = block::quantize(&samples, step_of(&header, band));
        let c = block::code(&q);
        let rates = c.rates();
        let keys = block::keys(&q, &rates);
        costs.push((rates, keys));
        coded.push((q.planes, c));
    }
    let choices: Vec<rate::Choices> = costs
        .iter()
        .map(|(r, k)| rate::Choices { rates: r, keys: k })
        .collect();
    let (planes_sent, theta) = rate::choose(&choices, budget - overhead)
        .expect("the budget holds every block's header (checked above)");
    if header.lossless
        && planes_sent
            .iter()
            .zip(&coded)
            .any(|(&n, (p, _))| n != usize::from(*p))
    {
        let need: usize = overhead + costs.iter().map(|(r, _)| r[r.len() - 1]).sum::<usize>();
        return Err(CodecError::InvalidArgument(format!(
            "this lossless frame needs {need} bytes, more than the budget of {}: give at least \
             {need}, or code it lossy",
            budget
        )));
    }
    let mut out = Vec::with_capacity(budget);
    out.extend_from_slice(&header.to_bytes());
    out.resize(overhead, 0);
    for (i, ((_, coded), &n)) in coded.iter().zip(&planes_sent).enumerate() {
        let offset = out.len() as u32;
        out[crate::format::HEADER_BYTES + i * OFFSET_BYTES..][..OFFSET_BYTES]
            .copy_from_slice(&offset.to_le_bytes());
        coded.write(n as u8, &mut out);
    }
    debug_assert!(out.len() <= budget);
    let stats = EncodeStats {
        bytes: out.len(),
        overhead,
        blocks: layout.blocks.len(),
        empty_blocks: planes_sent.iter().filter(|&&n| n == 0).count(),
        all_planes: theta == 1,
    };
    Ok((out, stats))
}

/// Decode a frame: its header, and 8-bit RGB. Any byte string is safe: a header that is not a
/// frame's is an error; a block whose offset or payload is out of the frame or malformed is
/// decoded as zeros and reported, and damages only its own area.
pub fn decode(bytes: &[u8]) -> Result<(Header, Vec<u8>, DecodeReport)> {
    let (header, planes, report) = decode_planes(bytes)?;
    Ok((header, color::planes_to_rgb(&planes, &header), report))
}

/// Decode a frame to 8-bit YCbCr at its own sampling, in its source's range (full range for
/// an RGB source): what `.y4m` output takes. Safe on any byte string, as [`decode`] is.
pub fn decode_ycbcr(bytes: &[u8]) -> Result<(Header, YcbcrImage, DecodeReport)> {
    let (header, planes, report) = decode_planes(bytes)?;
    Ok((header, color::planes_to_ycbcr(&planes, &header), report))
}

/// Decode a frame's planes (after the inverse wavelet, before any colour conversion).
pub fn decode_planes(bytes: &[u8]) -> Result<(Header, [Vec<i32>; 3], DecodeReport)> {
    let header = Header::parse(bytes)?;
    let layout = Layout::of(&header);
    if bytes.len() < layout.overhead() {
        return Err(CodecError::Bitstream(format!(
            "{} bytes: its header and block table alone take {}",
            bytes.len(),
            layout.overhead()
        )));
    }
    let dims = header.planes();
    let mut planes: [Vec<i32>; 3] = dims.map(|(w, h)| vec![0i32; w * h]);
    let mut report = DecodeReport {
        blocks: layout.blocks.len(),
        ..Default::default()
    };
    let mut samples = Vec::new();
    for (i, b) in layout.blocks.iter().enumerate() {
        let band = &layout.bands[b.band];
        let at = crate::format::HEADER_BYTES + i * OFFSET_BYTES;
        let offset =
            u32::from_le_bytes(bytes[at..at + OFFSET_BYTES].try_into().expect("4")) as usize;
        samples.resize(b.len(), 0);
        let ok = offset >= layout.overhead()
            && offset < bytes.len()
            && block::decode(
                &bytes[offset..],
                b.len(),
                step_of(&header, band),
                &mut samples,
            )
            .is_ok();
        if !ok {
            samples.fill(0);
            report.damaged.push(i);
        }
        if header.coefficients_saturate() {
            for v in samples.iter_mut() {
                *v = (*v).clamp(-32768, 32767);
            }
        }
        let pitch = dims[band.plane].0;
        for (r, row) in samples.chunks(b.width).enumerate() {
            let start = (b.y + r) * pitch + b.x;
            planes[band.plane][start..start + b.width].copy_from_slice(row);
        }
    }
    for (p, &(pw, ph)) in planes.iter_mut().zip(dims.iter()) {
        wavekit_dwt::sim::inverse_2d(
            wavelet_of(&header),
            SHAPES[0],
            p,
            pw,
            ph,
            u32::from(header.levels),
        );
    }
    Ok((header, planes, report))
}

/// Peak signal-to-noise ratio of `b` against `a` (8-bit samples), dB; infinite when equal.
pub fn psnr(a: &[u8], b: &[u8]) -> f64 {
    let mse = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.len().max(1) as f64;
    10.0 * (255.0 * 255.0 / mse).log10()
}
