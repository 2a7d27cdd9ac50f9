//! The bitstream's layout (`docs/codec-bitstream.md`, version 3): the header, the planes and
//! their wavelet bands, the code blocks of each band in a fixed order, and the block offset
//! table. Both the encoder and the decoder derive the whole layout from the header alone.

use crate::error::{CodecError, Result};

/// The four bytes every frame starts with.
pub const MAGIC: [u8; 4] = *b"WKV\0";
/// The bitstream version this crate writes and reads (3: each plane's count of new samples
/// first and its runs in sections, decodable in parallel, ADR-0076; version 2 interleaved the
/// runs' codes; version 1 was version 2's layout on f32).
pub const VERSION: u8 = 3;
/// Fractional bits of the planes' samples and coefficients (units of 2^-5 of an 8-bit level).
pub const FRAC_BITS: u32 = 5;
/// Header bytes.
pub const HEADER_BYTES: usize = 24;
/// Bytes of one entry of the block offset table.
pub const OFFSET_BYTES: usize = 4;
/// A code block's side (edge blocks of a band are smaller).
pub const BLOCK: usize = 32;
/// Largest frame side.
pub const MAX_SIDE: u32 = 16384;
/// Most magnitude bit-planes a block can have.
pub const MAX_PLANES: u8 = 24;

/// How the chroma planes are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chroma {
    /// Cb and Cr at half the width and half the height.
    Yuv420,
    /// Cb and Cr at full size.
    Yuv444,
}

/// What the encoder was given, which the frame's planes follow (header byte 20).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// 8-bit RGB, turned into BT.709 YCbCr (or the RCT when lossless) by the codec.
    #[default]
    Rgb,
    /// 8-bit YCbCr in full range (0 ..= 255), as from a `.y4m` stream tagged
    /// `XCOLORRANGE=FULL`: the planes are the samples themselves.
    YcbcrFull,
    /// 8-bit YCbCr in limited ("video") range (Y 16 ..= 235, Cb and Cr 16 ..= 240), the
    /// `.y4m` default: mapped to the full-range planes, and back on the way out.
    YcbcrLimited,
}

impl Source {
    /// Whether the planes came as YCbCr samples (no colour transform in the codec).
    pub fn is_ycbcr(self) -> bool {
        self != Source::Rgb
    }

    /// The header's byte.
    pub fn byte(self) -> u8 {
        match self {
            Source::Rgb => 0,
            Source::YcbcrFull => 1,
            Source::YcbcrLimited => 2,
        }
    }
}

/// The sizes of the Y, Cb and Cr planes of a `width × height` picture (chroma rounded up at
/// 4:2:0).
pub fn plane_sizes(width: u32, height: u32, chroma: Chroma) -> [(usize, usize); 3] {
    let (w, h) = (width as usize, height as usize);
    let c = match chroma {
        Chroma::Yuv420 => (w.div_ceil(2), h.div_ceil(2)),
        Chroma::Yuv444 => (w, h),
    };
    [(w, h), c, c]
}

/// The byte offsets of the planar YCbCr layout the GPU kernels read and write (the encoder's
/// input from a YCbCr source, the decoder's YCbCr output): Y, Cb and Cr one after another,
/// each from a 4-byte boundary; the fourth offset is the end (a whole number of words).
pub fn planar_offsets(planes: [(usize, usize); 3]) -> [usize; 4] {
    let mut at = [0; 4];
    for (k, (w, h)) in planes.into_iter().enumerate() {
        at[k + 1] = at[k] + (w * h).next_multiple_of(4);
    }
    at
}

/// An 8-bit YCbCr picture, as a `.y4m` stream carries it: three planes, row by row, the chroma
/// planes at half width and height (rounded up) at 4:2:0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YcbcrImage {
    /// Width of the luma plane.
    pub width: u32,
    /// Height of the luma plane.
    pub height: u32,
    /// Chroma sampling.
    pub chroma: Chroma,
    /// Limited ("video") range rather than full range.
    pub limited: bool,
    /// Y, Cb, Cr.
    pub planes: [Vec<u8>; 3],
}

impl YcbcrImage {
    /// The source kind the codec records for this picture.
    pub fn source(&self) -> Source {
        if self.limited {
            Source::YcbcrLimited
        } else {
            Source::YcbcrFull
        }
    }

    /// Each plane's size: Y, Cb, Cr.
    pub fn plane_sizes(&self) -> [(usize, usize); 3] {
        plane_sizes(self.width, self.height, self.chroma)
    }

    /// Fails when a plane's length does not match the size.
    pub fn check(&self) -> Result<()> {
        for ((p, (w, h)), name) in self
            .planes
            .iter()
            .zip(self.plane_sizes())
            .zip(["Y", "Cb", "Cr"])
        {
            if p.len() != w * h {
                return Err(CodecError::InvalidArgument(format!(
                    "the {name} plane of a {} x {} picture holds {} samples: expected {w} x {h}",
                    self.width,
                    self.height,
                    p.len()
                )));
            }
        }
        Ok(())
    }
}

/// What a frame holds: its size, chroma sampling, wavelet levels and quantizer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// Width of the luma plane in pixels.
    pub width: u32,
    /// Height of the luma plane in pixels.
    pub height: u32,
    /// Chroma sampling.
    pub chroma: Chroma,
    /// Wavelet levels (9/7).
    pub levels: u8,
    /// The base quantizer step (each band's step is this over the square root of its
    /// synthesis gain).
    pub step: f32,
    /// Lossless coding: the reversible colour transform (RCT), the 5/3 wavelet, every band's
    /// step one unit, every plane sent (4:4:4 only, unless the source is YCbCr: then the
    /// samples themselves, no colour transform, at either sampling).
    pub lossless: bool,
    /// What the encoder was given (RGB, or YCbCr in full or limited range).
    pub source: Source,
}

impl Header {
    /// Fails on a size, level count or step the codec does not take.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(CodecError::InvalidArgument(m));
        if self.width == 0 || self.height == 0 || self.width > MAX_SIDE || self.height > MAX_SIDE {
            return bad(format!(
                "frame {} x {}: each side must be 1 to {MAX_SIDE} pixels",
                self.width, self.height
            ));
        }
        if self.chroma == Chroma::Yuv420
            && (!self.width.is_multiple_of(2) || !self.height.is_multiple_of(2))
        {
            return bad(format!(
                "frame {} x {}: 4:2:0 needs even sides; crop or pad the frame, or use 4:4:4",
                self.width, self.height
            ));
        }
        let max = self.max_levels();
        if self.levels > max {
            return bad(format!(
                "{} wavelet levels on a {} x {} frame: at most {max}",
                self.levels, self.width, self.height
            ));
        }
        if self.lossless && self.chroma != Chroma::Yuv444 && !self.source.is_ycbcr() {
            return bad(format!(
                "lossless coding of a {} x {} RGB frame at 4:2:0: 4:2:0 drops chroma samples; \
                 use 4:4:4",
                self.width, self.height
            ));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return bad(format!("quantizer step {}: must be positive", self.step));
        }
        Ok(())
    }

    /// The most levels every plane of this frame can take.
    pub fn max_levels(&self) -> u8 {
        self.planes()
            .iter()
            .map(|&(w, h)| wavekit_dwt::max_levels(w, h) as u8)
            .min()
            .unwrap_or(0)
            .min(8)
    }

    /// Whether a decoder saturates this frame's dequantized coefficients to 16 bits: each
    /// block's values, signed, clamped to −32768 ..= 32767 before the inverse wavelet. So for
    /// lossy frames from RGB or full-range YCbCr, whose coefficients provably fit 16 bits
    /// (ADR-0108: at most 28 245 in magnitude from 8-bit samples), so that a decoder may keep
    /// them in 16 bits; an encoder's own frames never reach the bound except where a large step
    /// rounds a coefficient up past it. Limited-range and lossless frames are not saturated.
    pub fn coefficients_saturate(&self) -> bool {
        !self.lossless && self.source != Source::YcbcrLimited
    }

    /// Each plane's size: Y, Cb, Cr.
    pub fn planes(&self) -> [(usize, usize); 3] {
        plane_sizes(self.width, self.height, self.chroma)
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        b[..4].copy_from_slice(&MAGIC);
        b[4] = VERSION;
        b[5] = match self.chroma {
            Chroma::Yuv420 => 0,
            Chroma::Yuv444 => 1,
        };
        b[6] = self.levels;
        b[7] = u8::from(self.lossless);
        b[8..12].copy_from_slice(&self.width.to_le_bytes());
        b[12..16].copy_from_slice(&self.height.to_le_bytes());
        b[16..20].copy_from_slice(&self.step.to_le_bytes());
        b[20] = self.source.byte();
        b
    }

    /// Parse and check a header; `bytes` is the whole frame.
    pub fn parse(bytes: &[u8]) -> Result<Header> {
        let bad = |m: String| Err(CodecError::Bitstream(m));
        if bytes.len() < HEADER_BYTES {
            return bad(format!(
                "{} bytes, shorter than the {HEADER_BYTES}-byte header",
                bytes.len()
            ));
        }
        if bytes[..4] != MAGIC {
            return bad("it does not start with the wavekit frame magic".into());
        }
        if bytes[4] != VERSION {
            return bad(format!(
                "bitstream version {}; this decoder reads version {VERSION}",
                bytes[4]
            ));
        }
        let chroma = match bytes[5] {
            0 => Chroma::Yuv420,
            1 => Chroma::Yuv444,
            c => return bad(format!("unknown chroma sampling {c}")),
        };
        let lossless = match bytes[7] {
            0 => false,
            1 => true,
            m => return bad(format!("unknown coding mode {m} (0 lossy, 1 lossless)")),
        };
        let source = match bytes[20] {
            0 => Source::Rgb,
            1 => Source::YcbcrFull,
            2 => Source::YcbcrLimited,
            s => {
                return bad(format!(
                    "unknown source {s} (0 RGB, 1 YCbCr full range, 2 YCbCr limited range)"
                ));
            }
        };
        if bytes[21..24] != [0, 0, 0] {
            return bad("reserved header bytes 21 to 23 are not 0".into());
        }
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let h = Header {
            source,
            lossless,
            width: word(8),
            height: word(12),
            chroma,
            levels: bytes[6],
            step: f32::from_bits(word(16)),
        };
        h.check()
            .map_err(|e| CodecError::Bitstream(e.to_string()))?;
        Ok(h)
    }
}

/// A wavelet band's orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// The last level's low-pass band.
    Ll,
    /// High-pass across, low-pass down.
    Hl,
    /// Low-pass across, high-pass down.
    Lh,
    /// High-pass both ways.
    Hh,
}

/// A band of one plane in the Mallat layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// Plane: 0 Y, 1 Cb, 2 Cr.
    pub plane: usize,
    /// Level, 1 (finest) to the frame's levels (LL has the coarsest).
    pub level: u8,
    /// Orientation.
    pub orientation: Orientation,
    /// First column and row of the band in the plane.
    pub x: usize,
    /// First row.
    pub y: usize,
    /// Width in samples.
    pub width: usize,
    /// Height in samples.
    pub height: usize,
}

/// A code block: a rectangle of one band, coded on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Index of its band in [`Layout::bands`].
    pub band: usize,
    /// First column in the plane.
    pub x: usize,
    /// First row in the plane.
    pub y: usize,
    /// Width in samples (at most [`BLOCK`]).
    pub width: usize,
    /// Height in samples.
    pub height: usize,
}

impl Block {
    /// Samples in the block.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// Whether the block has no samples (never, for blocks of a layout).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one bit-plane (one bit a sample, rows one after another).
    pub fn plane_bytes(&self) -> usize {
        self.len().div_ceil(8)
    }
}

/// Every band and block of a frame, in bitstream order: plane by plane, each plane's LL
/// first, then from the coarsest level to the finest HL, LH, HH; each band's blocks row by row.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The bands.
    pub bands: Vec<Band>,
    /// The blocks.
    pub blocks: Vec<Block>,
}

impl Layout {
    /// The layout of a frame with `header`.
    pub fn of(header: &Header) -> Layout {
        let mut bands = Vec::new();
        let levels = u32::from(header.levels);
        for (plane, &(w, h)) in header.planes().iter().enumerate() {
            let regions = wavekit_dwt::reference::regions(w, h, levels);
            let (lw, lh) = match regions.last() {
                Some(&(rw, rh)) => (rw.div_ceil(2), rh.div_ceil(2)),
                None => (w, h),
            };
            bands.push(Band {
                plane,
                level: header.levels,
                orientation: Orientation::Ll,
                x: 0,
                y: 0,
                width: lw,
                height: lh,
            });
            for (i, &(rw, rh)) in regions.iter().enumerate().rev() {
                let (cw, ch) = (rw.div_ceil(2), rh.div_ceil(2));
                let level = i as u8 + 1;
                for (orientation, x, y, bw, bh) in [
                    (Orientation::Hl, cw, 0, rw - cw, ch),
                    (Orientation::Lh, 0, ch, cw, rh - ch),
                    (Orientation::Hh, cw, ch, rw - cw, rh - ch),
                ] {
                    bands.push(Band {
                        plane,
                        level,
                        orientation,
                        x,
                        y,
                        width: bw,
                        height: bh,
                    });
                }
            }
        }
        let mut blocks = Vec::new();
        for (i, b) in bands.iter().enumerate() {
            for by in (0..b.height).step_by(BLOCK) {
                for bx in (0..b.width).step_by(BLOCK) {
                    blocks.push(Block {
                        band: i,
                        x: b.x + bx,
                        y: b.y + by,
                        width: BLOCK.min(b.width - bx),
                        height: BLOCK.min(b.height - by),
                    });
                }
            }
        }
        Layout { bands, blocks }
    }

    /// Bytes before the first block's payload: the header and the offset table.
    pub fn overhead(&self) -> usize {
        HEADER_BYTES + OFFSET_BYTES * self.blocks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(width: u32, height: u32, chroma: Chroma, levels: u8) -> Header {
        Header {
            width,
            height,
            chroma,
            levels,
            step: 1.5,
            lossless: false,
            source: crate::format::Source::Rgb,
        }
    }

    #[test]
    fn the_blocks_cover_every_sample_of_every_plane_once() {
        for (w, h, chroma, levels) in [
            (1, 1, Chroma::Yuv444, 0),
            (4, 4, Chroma::Yuv420, 1),
            (33, 7, Chroma::Yuv444, 2),
            (64, 64, Chroma::Yuv420, 5),
            (130, 66, Chroma::Yuv420, 5),
            (97, 211, Chroma::Yuv444, 5),
        ] {
            let hd = header(w, h, chroma, levels);
            hd.check().unwrap();
            let layout = Layout::of(&hd);
            for (plane, &(pw, ph)) in hd.planes().iter().enumerate() {
                let mut seen = vec![0u8; pw * ph];
                for b in layout
                    .blocks
                    .iter()
                    .filter(|b| layout.bands[b.band].plane == plane)
                {
                    assert!(b.width <= BLOCK && b.height <= BLOCK && !b.is_empty());
                    for y in b.y..b.y + b.height {
                        for x in b.x..b.x + b.width {
                            seen[y * pw + x] += 1;
                        }
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{w}x{h} {chroma:?} {levels}");
            }
        }
    }

    #[test]
    fn a_header_round_trips_and_bad_ones_are_refused() {
        let h = header(1920, 1080, Chroma::Yuv420, 5);
        assert_eq!(Header::parse(&h.to_bytes()).unwrap(), h);
        let mut b = h.to_bytes();
        b[4] = 2;
        assert!(
            Header::parse(&b)
                .unwrap_err()
                .to_string()
                .contains("version 2")
        );
        assert!(Header::parse(&b[..10]).is_err());
        assert!(Header::parse(b"JUNKJUNKJUNKJUNKJUNKJUNK").is_err());
        let mut b = h.to_bytes();
        b[8..12].copy_from_slice(&0u32.to_le_bytes());
        assert!(Header::parse(&b).is_err());
        assert!(header(1921, 1080, Chroma::Yuv420, 5).check().is_err());
        assert!(header(16, 16, Chroma::Yuv444, 9).check().is_err());
        let lossless = Header {
            lossless: true,
            source: crate::format::Source::Rgb,
            ..header(64, 32, Chroma::Yuv444, 3)
        };
        assert_eq!(Header::parse(&lossless.to_bytes()).unwrap(), lossless);
        let e = Header {
            chroma: Chroma::Yuv420,
            ..lossless
        }
        .check()
        .unwrap_err();
        assert!(e.to_string().contains("use 4:4:4"), "{e}");
        let mut b = lossless.to_bytes();
        b[7] = 2;
        assert!(
            Header::parse(&b)
                .unwrap_err()
                .to_string()
                .contains("coding mode 2")
        );
        assert!(
            Header {
                step: f32::NAN,
                ..h
            }
            .check()
            .is_err()
        );
    }
}
