//! YUV4MPEG2 (`.y4m`) streams in and out, frame by frame, as [`YcbcrImage`]s: 8-bit 4:2:0
//! (`C420jpeg`, `C420`, `C420mpeg2`, `C420paldv`; the chroma siting is carried, not
//! resampled) and 4:4:4 (`C444`). Limited range unless the header says `XCOLORRANGE=FULL`.
//! The `y4m` crate does the framing; this module checks what it does not (the size before any
//! allocation, the sampling and depth the codec takes) and says what is wrong in words.

use std::io::{BufRead, Read, Write};

use crate::error::{CodecError, Result};
use crate::format::{Chroma, MAX_SIDE, YcbcrImage};

/// Longest header line read (the `y4m` crate's own limit).
const MAX_HEADER: usize = 1024;

/// What a stream's header says, besides each frame's pixels: kept so that a stream decoded
/// from the codec's container is written back with the same tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamInfo {
    /// Luma size.
    pub width: u32,
    /// Luma size.
    pub height: u32,
    /// The sampling tag.
    pub tag: ChromaTag,
    /// Limited range (no `XCOLORRANGE=FULL`).
    pub limited: bool,
    /// Frame rate, numerator and denominator.
    pub rate: (u32, u32),
    /// Pixel aspect, numerator and denominator.
    pub aspect: (u32, u32),
    /// The header says the frames are interlaced (`It`, `Ib` or `Im`): the codec codes each
    /// frame as one progressive picture, and writes streams as progressive.
    pub interlaced: bool,
}

/// The chroma sampling tags the codec takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChromaTag {
    /// `C420jpeg`: 4:2:0, chroma centred (the default of most tools).
    C420jpeg,
    /// `C420`: 4:2:0 (as `C420jpeg` to the codec).
    C420,
    /// `C420mpeg2`: 4:2:0, chroma sited left.
    C420mpeg2,
    /// `C420paldv`: 4:2:0, PAL DV siting.
    C420paldv,
    /// `C444`.
    C444,
}

impl ChromaTag {
    /// The codec's sampling.
    pub fn chroma(self) -> Chroma {
        if self == ChromaTag::C444 {
            Chroma::Yuv444
        } else {
            Chroma::Yuv420
        }
    }

    /// The container's byte for the tag.
    pub fn byte(self) -> u8 {
        self as u8
    }

    /// The tag of a container byte.
    pub fn of_byte(b: u8) -> Option<ChromaTag> {
        [
            ChromaTag::C420jpeg,
            ChromaTag::C420,
            ChromaTag::C420mpeg2,
            ChromaTag::C420paldv,
            ChromaTag::C444,
        ]
        .into_iter()
        .find(|t| t.byte() == b)
    }

    fn colorspace(self) -> y4m::Colorspace {
        match self {
            ChromaTag::C420jpeg => y4m::Colorspace::C420jpeg,
            ChromaTag::C420 => y4m::Colorspace::C420,
            ChromaTag::C420mpeg2 => y4m::Colorspace::C420mpeg2,
            ChromaTag::C420paldv => y4m::Colorspace::C420paldv,
            ChromaTag::C444 => y4m::Colorspace::C444,
        }
    }
}

fn bad<T>(m: impl Into<String>) -> Result<T> {
    Err(CodecError::Y4m(m.into()))
}

/// The header line's fields, checked before the `y4m` crate sees them.
fn parse_header(line: &[u8]) -> Result<StreamInfo> {
    let Some(rest) = line.strip_prefix(b"YUV4MPEG2 ") else {
        return bad("it does not start with \"YUV4MPEG2 \"");
    };
    let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
    let mut info = StreamInfo {
        width: 0,
        height: 0,
        tag: ChromaTag::C420jpeg,
        limited: true,
        rate: (25, 1),
        aspect: (1, 1),
        interlaced: false,
    };
    let number = |v: &[u8], what: &str| -> Result<u32> {
        std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(|| {
                CodecError::Y4m(format!(
                    "its {what} \"{}\" is not a number",
                    String::from_utf8_lossy(v)
                ))
            })
    };
    let ratio = |v: &[u8], what: &str| -> Result<(u32, u32)> {
        let mut it = v.splitn(2, |&b| b == b':');
        let (a, b) = (it.next().unwrap_or(b""), it.next().unwrap_or(b""));
        Ok((number(a, what)?, number(b, what)?))
    };
    for field in rest.split(|&b| b == b' ').filter(|f| !f.is_empty()) {
        let (key, v) = (field[0], &field[1..]);
        match key {
            b'W' => info.width = number(v, "width")?,
            b'H' => info.height = number(v, "height")?,
            b'F' => info.rate = ratio(v, "frame rate")?,
            b'A' => info.aspect = ratio(v, "pixel aspect")?,
            b'I' => info.interlaced = !matches!(v, b"p" | b"?"),
            b'C' => {
                info.tag = match v {
                    b"420jpeg" => ChromaTag::C420jpeg,
                    b"420" => ChromaTag::C420,
                    b"420mpeg2" => ChromaTag::C420mpeg2,
                    b"420paldv" => ChromaTag::C420paldv,
                    b"444" => ChromaTag::C444,
                    other => {
                        return bad(format!(
                            "its sampling C{} is not one the codec takes: 8-bit 420jpeg, 420, \
                             420mpeg2, 420paldv or 444 (convert it, e.g. ffmpeg -pix_fmt \
                             yuv420p or yuv444p)",
                            String::from_utf8_lossy(other)
                        ));
                    }
                }
            }
            b'X' => match v {
                b"COLORRANGE=FULL" => info.limited = false,
                b"COLORRANGE=LIMITED" => info.limited = true,
                _ => {}
            },
            _ => {}
        }
    }
    if info.width == 0 || info.height == 0 || info.width > MAX_SIDE || info.height > MAX_SIDE {
        return bad(format!(
            "its frame size {} x {} (W, H) must be 1 to {MAX_SIDE} a side",
            info.width, info.height
        ));
    }
    if info.rate.0 == 0 || info.rate.1 == 0 {
        info.rate = (25, 1);
    }
    if info.aspect.0 == 0 || info.aspect.1 == 0 {
        info.aspect = (1, 1);
    }
    Ok(info)
}

/// Reads a `.y4m` stream frame by frame.
pub struct Reader<R: Read> {
    info: StreamInfo,
    inner: y4m::Decoder<std::io::Chain<std::io::Cursor<Vec<u8>>, R>>,
    frames: usize,
}

impl<R: BufRead> Reader<R> {
    /// Read and check the stream's header.
    pub fn new(mut input: R) -> Result<Self> {
        let mut line = Vec::with_capacity(64);
        (&mut input)
            .take(MAX_HEADER as u64)
            .read_until(b'\n', &mut line)?;
        if line.last() != Some(&b'\n') {
            if line.starts_with(b"YUV4MPEG2 ") && line.len() >= MAX_HEADER {
                return bad(format!("its header line is longer than {MAX_HEADER} bytes"));
            }
            if !line.starts_with(b"YUV4MPEG2") {
                return bad("it does not start with \"YUV4MPEG2 \"");
            }
            return bad("it ends inside its header line");
        }
        let info = parse_header(&line)?;
        let limits = y4m::Limits {
            bytes: 3 * MAX_SIDE as usize * MAX_SIDE as usize,
        };
        let inner = y4m::Decoder::new_with_limits(std::io::Cursor::new(line).chain(input), limits)
            .map_err(|e| CodecError::Y4m(format!("its header: {e}")))?;
        Ok(Self {
            info,
            inner,
            frames: 0,
        })
    }
}

impl<R: Read> Reader<R> {
    /// What the header says.
    pub fn info(&self) -> &StreamInfo {
        &self.info
    }

    /// The next frame, `None` at the end of the stream; an error on a frame cut short or a
    /// malformed frame marker.
    pub fn next_frame(&mut self) -> Result<Option<YcbcrImage>> {
        let n = self.frames;
        let frame = match self.inner.read_frame() {
            Ok(f) => f,
            Err(y4m::Error::EOF) => return Ok(None),
            Err(y4m::Error::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return bad(format!(
                    "frame {n} is cut short: the stream ends inside it (the {n} frames before \
                     it are whole)"
                ));
            }
            Err(y4m::Error::IoError(e)) => return Err(CodecError::Io(e)),
            Err(e) => return bad(format!("frame {n}: {e} (expected a FRAME line)")),
        };
        let img = YcbcrImage {
            width: self.info.width,
            height: self.info.height,
            chroma: self.info.tag.chroma(),
            limited: self.info.limited,
            planes: [
                frame.get_y_plane().to_vec(),
                frame.get_u_plane().to_vec(),
                frame.get_v_plane().to_vec(),
            ],
        };
        img.check()?;
        self.frames += 1;
        Ok(Some(img))
    }
}

/// Writes a `.y4m` stream frame by frame.
pub struct Writer<W: Write> {
    info: StreamInfo,
    inner: y4m::Encoder<W>,
}

impl<W: Write> Writer<W> {
    /// Write the stream's header.
    pub fn new(out: W, info: &StreamInfo) -> Result<Self> {
        let range = if info.limited {
            "COLORRANGE=LIMITED"
        } else {
            "COLORRANGE=FULL"
        };
        let y4m_err = |e: y4m::Error| CodecError::Y4m(e.to_string());
        let inner = y4m::encode(
            info.width as usize,
            info.height as usize,
            y4m::Ratio::new(info.rate.0 as usize, info.rate.1 as usize),
        )
        .with_pixel_aspect(y4m::Ratio::new(
            info.aspect.0 as usize,
            info.aspect.1 as usize,
        ))
        .with_colorspace(info.tag.colorspace())
        .append_vendor_extension(
            y4m::VendorExtensionString::new(range.as_bytes().to_vec()).map_err(y4m_err)?,
        )
        .write_header(out)
        .map_err(y4m_err)?;
        Ok(Self { info: *info, inner })
    }

    /// Write a frame; it must have the stream's size, sampling and range.
    pub fn write_frame(&mut self, img: &YcbcrImage) -> Result<()> {
        img.check()?;
        let i = &self.info;
        if (img.width, img.height, img.chroma, img.limited)
            != (i.width, i.height, i.tag.chroma(), i.limited)
        {
            return Err(CodecError::InvalidArgument(format!(
                "a {} x {} {:?} frame ({} range) for a {} x {} {:?} stream ({} range)",
                img.width,
                img.height,
                img.chroma,
                if img.limited { "limited" } else { "full" },
                i.width,
                i.height,
                i.tag.chroma(),
                if i.limited { "limited" } else { "full" },
            )));
        }
        let frame = y4m::Frame::new([&img.planes[0], &img.planes[1], &img.planes[2]], None);
        self.inner.write_frame(&frame).map_err(|e| match e {
            y4m::Error::IoError(e) => CodecError::Io(e),
            e => CodecError::Y4m(e.to_string()),
        })
    }
}
