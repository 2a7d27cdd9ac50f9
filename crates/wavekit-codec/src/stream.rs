//! The codec's stream container (`docs/codec-bitstream.md`, "Streams"): a `.wkv` file of
//! frames, as a `.y4m` stream encodes to. A 24-byte header (the `.y4m` tags to write the
//! stream back with), then each frame as its length (u32) and its bytes. Read frame by frame;
//! a file cut short gives its last frame cut short, which the frame decoder conceals.

use std::io::{Read, Write};

use crate::error::{CodecError, Result};
use crate::format::MAX_SIDE;
use crate::y4m::{ChromaTag, StreamInfo};

/// The four bytes a stream file starts with.
pub const STREAM_MAGIC: [u8; 4] = *b"WKVS";
/// The container version this crate writes and reads.
pub const STREAM_VERSION: u8 = 1;
/// Bytes of the stream header.
pub const STREAM_HEADER_BYTES: usize = 32;
/// Largest frame a stream may hold.
pub const MAX_STREAM_FRAME: usize = 1 << 29;

fn bad<T>(m: impl Into<String>) -> Result<T> {
    Err(CodecError::Bitstream(m.into()))
}

/// The stream header's bytes.
pub fn header_bytes(info: &StreamInfo) -> [u8; STREAM_HEADER_BYTES] {
    let mut b = [0u8; STREAM_HEADER_BYTES];
    b[..4].copy_from_slice(&STREAM_MAGIC);
    b[4] = STREAM_VERSION;
    b[5] = info.tag.byte();
    b[6] = u8::from(info.limited);
    let words = [
        info.width,
        info.height,
        info.rate.0,
        info.rate.1,
        info.aspect.0,
        info.aspect.1,
    ];
    for (k, w) in words.iter().enumerate() {
        b[8 + 4 * k..12 + 4 * k].copy_from_slice(&w.to_le_bytes());
    }
    b
}

/// Parse a stream header.
pub fn parse_header(b: &[u8]) -> Result<StreamInfo> {
    if b.len() < STREAM_HEADER_BYTES {
        return bad(format!(
            "{} bytes, shorter than the {STREAM_HEADER_BYTES}-byte stream header",
            b.len()
        ));
    }
    if b[..4] != STREAM_MAGIC {
        return bad("it does not start with the wavekit stream magic \"WKVS\"");
    }
    if b[4] != STREAM_VERSION {
        return bad(format!(
            "stream container version {}; this decoder reads version {STREAM_VERSION}",
            b[4]
        ));
    }
    let Some(tag) = ChromaTag::of_byte(b[5]) else {
        return bad(format!(
            "unknown sampling tag {} in the stream header",
            b[5]
        ));
    };
    if b[6] > 1 || b[7] != 0 {
        return bad("malformed stream header (bytes 6 and 7)");
    }
    let w = |k: usize| u32::from_le_bytes(b[8 + 4 * k..12 + 4 * k].try_into().expect("4"));
    let info = StreamInfo {
        width: w(0),
        height: w(1),
        tag,
        limited: b[6] == 1,
        rate: (w(2), w(3)),
        aspect: (w(4), w(5)),
        interlaced: false,
    };
    if info.width == 0 || info.height == 0 || info.width > MAX_SIDE || info.height > MAX_SIDE {
        return bad(format!(
            "stream frame size {} x {}: each side must be 1 to {MAX_SIDE}",
            info.width, info.height
        ));
    }
    if info.rate.0 == 0 || info.rate.1 == 0 || info.aspect.0 == 0 || info.aspect.1 == 0 {
        return bad("the stream header's frame rate or pixel aspect has a zero term");
    }
    Ok(info)
}

/// Writes a stream: its header, then frames.
pub struct StreamWriter<W: Write> {
    out: W,
    frames: usize,
}

impl<W: Write> StreamWriter<W> {
    /// Write the header.
    pub fn new(mut out: W, info: &StreamInfo) -> Result<Self> {
        out.write_all(&header_bytes(info))?;
        Ok(Self { out, frames: 0 })
    }

    /// Append a coded frame.
    pub fn write_frame(&mut self, frame: &[u8]) -> Result<()> {
        if frame.len() > MAX_STREAM_FRAME {
            return Err(CodecError::InvalidArgument(format!(
                "a frame of {} bytes: a stream holds frames of at most {MAX_STREAM_FRAME}",
                frame.len()
            )));
        }
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Flush and give the writer back.
    pub fn finish(mut self) -> Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One frame read from a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamFrame {
    /// The frame's bytes (fewer than its length says when the file is cut short).
    pub bytes: Vec<u8>,
    /// The file ended inside this frame.
    pub truncated: bool,
}

/// Reads a stream frame by frame.
pub struct StreamReader<R: Read> {
    input: R,
    info: StreamInfo,
    done: bool,
}

impl<R: Read> StreamReader<R> {
    /// Read and check the header.
    pub fn new(mut input: R) -> Result<Self> {
        let mut head = Vec::with_capacity(STREAM_HEADER_BYTES);
        (&mut input)
            .take(STREAM_HEADER_BYTES as u64)
            .read_to_end(&mut head)?;
        let info = parse_header(&head)?;
        Ok(Self {
            input,
            info,
            done: false,
        })
    }

    /// What the header says.
    pub fn info(&self) -> &StreamInfo {
        &self.info
    }

    /// The next frame, `None` at the end; a frame length over [`MAX_STREAM_FRAME`] is an error
    /// (the rest of the stream cannot be found).
    pub fn next_frame(&mut self) -> Result<Option<StreamFrame>> {
        if self.done {
            return Ok(None);
        }
        let mut len = Vec::with_capacity(4);
        (&mut self.input).take(4).read_to_end(&mut len)?;
        if len.is_empty() {
            self.done = true;
            return Ok(None);
        }
        if len.len() < 4 {
            self.done = true;
            return Ok(Some(StreamFrame {
                bytes: Vec::new(),
                truncated: true,
            }));
        }
        let n = u32::from_le_bytes(len.try_into().expect("4")) as usize;
        if n > MAX_STREAM_FRAME {
            self.done = true;
            return bad(format!(
                "a frame length of {n} bytes, over the most a stream holds ({MAX_STREAM_FRAME}): \
                 the stream is corrupted here"
            ));
        }
        let mut bytes = Vec::new();
        (&mut self.input).take(n as u64).read_to_end(&mut bytes)?;
        let truncated = bytes.len() < n;
        self.done = truncated;
        Ok(Some(StreamFrame { bytes, truncated }))
    }
}
