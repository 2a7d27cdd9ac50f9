//! `wavekit encode IN.y4m` and `wavekit decode … -o OUT.y4m`: YUV4MPEG2 streams frame by frame,
//! to and from the codec's stream container (`wavekit_codec::stream`), on the GPU or with
//! `--cpu` on the CPU reference (the same bytes and samples). The planes are coded as they are:
//! no colour conversion and no resampling.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use wavekit_codec::cpu::{EncodeConfig, decode_ycbcr, encode_ycbcr};
use wavekit_codec::stream::{STREAM_MAGIC, StreamReader, StreamWriter};
use wavekit_codec::y4m::{ChromaTag, Reader, StreamInfo, Writer};
use wavekit_codec::{Chroma, Header, YcbcrImage};

use crate::codec::{Mode, budget_of};
use crate::error::CliError;
use crate::output::{check_output, file_err, write_atomic};

fn starts_with(path: &Path, magic: &[u8]) -> Result<bool, CliError> {
    let f = std::fs::File::open(path).map_err(|e| file_err(path, e))?;
    let mut head = Vec::with_capacity(magic.len());
    f.take(magic.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| file_err(path, e))?;
    Ok(head == magic)
}

/// Whether `path` holds a `.y4m` stream (by its first bytes, not its name).
pub fn is_y4m(path: &Path) -> Result<bool, CliError> {
    starts_with(path, b"YUV4MPEG2")
}

/// Whether `path` holds the codec's stream container.
pub fn is_stream(path: &Path) -> Result<bool, CliError> {
    starts_with(path, &STREAM_MAGIC)
}

/// Whether an output path names a `.y4m` file.
pub fn wants_y4m(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("y4m"))
}

fn psnr_planes(a: &YcbcrImage, b: &YcbcrImage) -> f64 {
    wavekit_codec::cpu::psnr(&a.planes[0], &b.planes[0])
}

/// Encode a `.y4m` stream into one stream file, frame by frame, printing each frame's size and
/// PSNR-Y.
pub fn encode(
    input: &Path,
    output: &Path,
    size: (Option<usize>, Option<f64>),
    mode: Mode,
    ctx: Option<&wavekit::GpuContext>,
) -> Result<(), CliError> {
    let f = std::fs::File::open(input).map_err(|e| file_err(input, e))?;
    let mut reader = Reader::new(BufReader::new(f)).map_err(|e| file_err(input, e))?;
    let info = *reader.info();
    let chroma = info.tag.chroma();
    if let Some(c) = mode.chroma
        && Chroma::from(c) != chroma
    {
        return Err(CliError::Usage(format!(
            "--chroma {}: the stream is {:?}, and its planes are coded as they are; leave \
                 out --chroma, or convert the stream first",
            if Chroma::from(c) == Chroma::Yuv420 {
                "420"
            } else {
                "444"
            },
            chroma
        )));
    }
    if info.interlaced {
        eprintln!(
            "note: {} is interlaced; each frame is coded as one progressive picture",
            input.display()
        );
    }
    let budget = budget_of(size, info.width, info.height, mode.lossless)?;
    let config = EncodeConfig {
        chroma,
        levels: mode.levels,
        budget,
        lossless: mode.lossless,
        source: if info.limited {
            wavekit_codec::Source::YcbcrLimited
        } else {
            wavekit_codec::Source::YcbcrFull
        },
    };
    // On the GPU two frames are in flight: the next is coded while this one is written out.
    let mut queue = match ctx {
        Some(ctx) => Some(wavekit_codec::gpu::EncodeQueue::new(
            ctx,
            wavekit_codec::gpu::Encoder::new(ctx, info.width, info.height, &config)?,
            2,
        )?),
        None => {
            wavekit_codec::cpu::frame_layout(info.width, info.height, &config)?;
            None
        }
    };
    let (mut frames, mut total) = (0usize, 0usize);
    write_atomic(output, |tmp| {
        let out = std::fs::File::create(tmp).map_err(|e| file_err(output, e))?;
        let mut w =
            StreamWriter::new(BufWriter::new(out), &info).map_err(|e| file_err(output, e))?;
        let mut pictures = std::collections::VecDeque::new();
        let mut coded = Vec::new();
        let mut ended = false;
        loop {
            let next = if ended {
                None
            } else {
                reader.next_frame().map_err(|e| file_err(input, e))?
            };
            ended = next.is_none();
            let img = match (ctx, queue.as_mut(), next) {
                // The queue kept full: the picture read is submitted, the oldest written out
                // while the GPU codes it.
                (Some(ctx), Some(q), Some(img)) => {
                    let old = if q.room() == 0 {
                        q.finish(ctx, &mut coded)?;
                        pictures.pop_front()
                    } else {
                        None
                    };
                    q.submit_ycbcr(ctx, &img)?;
                    pictures.push_back(img);
                    match old {
                        Some(old) => old,
                        None => continue,
                    }
                }
                (Some(ctx), Some(q), None) => {
                    if !q.finish(ctx, &mut coded)? {
                        break;
                    }
                    pictures
                        .pop_front()
                        .expect("a picture for each frame in flight")
                }
                (_, _, Some(img)) => {
                    coded = encode_ycbcr(&img, &config)?.0;
                    img
                }
                (_, _, None) => break,
            };
            let frame = &coded;
            w.write_frame(frame).map_err(|e| file_err(output, e))?;
            let (_, back, _) = decode_ycbcr(frame)?;
            if mode.lossless {
                if back != img {
                    return Err(CliError::CheckFailed(format!(
                        "frame {frames}: the lossless frame does not decode to the input; \
                         please report it"
                    )));
                }
                println!(
                    "frame {frames}: {} bytes, lossless: decodes bit for bit",
                    frame.len()
                );
            } else {
                println!(
                    "frame {frames}: {} bytes ({:.1} % of the budget), PSNR-Y {:.2} dB",
                    frame.len(),
                    100.0 * frame.len() as f64 / budget as f64,
                    psnr_planes(&img, &back)
                );
            }
            frames += 1;
            total += frame.len();
        }
        w.finish().map_err(|e| file_err(output, e))?;
        Ok(())
    })?;
    if frames == 0 {
        eprintln!(
            "warning: {} holds no frames; the stream written is empty",
            input.display()
        );
    }
    println!(
        "{}: {frames} frames of {} x {} {:?} ({} range), {total} bytes",
        output.display(),
        info.width,
        info.height,
        chroma,
        if info.limited { "limited" } else { "full" }
    );
    Ok(())
}

/// Decodes frames on the GPU (a decoder per format met) or the CPU.
pub(crate) struct FrameDecoder<'a> {
    ctx: Option<&'a wavekit::GpuContext>,
    gpu: Option<(Header, usize, wavekit_codec::gpu::Decoder)>,
}

impl<'a> FrameDecoder<'a> {
    /// On the GPU of `ctx`, or the CPU without one.
    pub(crate) fn new(ctx: Option<&'a wavekit::GpuContext>) -> Self {
        Self { ctx, gpu: None }
    }

    /// Builds the GPU decoder's kernels before the first frame needs them, by decoding a
    /// small lossy frame of each sampling (4:2:0, 4:4:4) and range (full, limited) a stream
    /// may have (kernels are kept per device; a first 4K frame's build took 0.8 s on an H100,
    /// while a stream's datagrams piled up behind it). Frames wider or taller than 4K take
    /// larger wavelet tiles, built on their first frame. Nothing on the CPU.
    pub(crate) fn warm_up(&mut self) -> wavekit_codec::Result<()> {
        if self.ctx.is_none() {
            return Ok(());
        }
        let (w, h) = (64usize, 64usize);
        for chroma in [Chroma::Yuv420, Chroma::Yuv444] {
            for limited in [false, true] {
                let c = if chroma == Chroma::Yuv420 {
                    w * h / 4
                } else {
                    w * h
                };
                let img = YcbcrImage {
                    width: w as u32,
                    height: h as u32,
                    chroma,
                    limited,
                    planes: [
                        (0..w * h).map(|i| (i * 7 % 200 + 20) as u8).collect(),
                        vec![100; c],
                        vec![150; c],
                    ],
                };
                let config = EncodeConfig {
                    chroma,
                    levels: 5,
                    budget: w * h / 4,
                    lossless: false,
                    source: if limited {
                        wavekit_codec::Source::YcbcrLimited
                    } else {
                        wavekit_codec::Source::YcbcrFull
                    },
                };
                let (bytes, _) = encode_ycbcr(&img, &config)?;
                self.decode(&bytes)?;
            }
        }
        Ok(())
    }

    /// A frame's header, samples and damage report.
    pub(crate) fn decode(
        &mut self,
        bytes: &[u8],
    ) -> wavekit_codec::Result<(Header, YcbcrImage, wavekit_codec::cpu::DecodeReport)> {
        let Some(ctx) = self.ctx else {
            return decode_ycbcr(bytes);
        };
        let header = Header::parse(bytes)?;
        let fits = self
            .gpu
            .as_ref()
            .is_some_and(|(h, cap, _)| *h == header && bytes.len() <= *cap);
        if !fits {
            let cap = bytes.len().max(1 << 16);
            let dec = wavekit_codec::gpu::Decoder::with_output(
                ctx,
                &header,
                cap,
                wavekit_codec::gpu::Output::Ycbcr,
            )?;
            self.gpu = Some((header, cap, dec));
        }
        let (_, _, dec) = self.gpu.as_ref().expect("built above");
        let (img, report) = dec.decode_ycbcr(ctx, bytes)?;
        Ok((header, img, report))
    }
}

/// The next frame's bytes and whether the file ended inside it; `None` at the end.
type FrameSource<'a> = Box<dyn FnMut() -> Result<Option<(Vec<u8>, bool)>, CliError> + 'a>;

/// A mid-grey frame: what an undecodable frame is concealed with.
fn grey(info: &StreamInfo) -> YcbcrImage {
    let mut img = YcbcrImage {
        width: info.width,
        height: info.height,
        chroma: info.tag.chroma(),
        limited: info.limited,
        planes: [Vec::new(), Vec::new(), Vec::new()],
    };
    let sizes = img.plane_sizes();
    img.planes = sizes.map(|(w, h)| vec![128u8; w * h]);
    img
}

/// Decode a stream file (or one frame) to a `.y4m` stream. A frame that cannot be decoded at
/// all (its header damaged, or cut short before its block table) is written as mid-grey and
/// reported; damaged blocks are concealed and reported.
pub fn decode(
    input: &Path,
    output: &Path,
    ctx: Option<&wavekit::GpuContext>,
) -> Result<(), CliError> {
    check_output(input, output)?;
    let stream = is_stream(input)?;
    if stream && !wants_y4m(output) {
        return Err(CliError::Usage(format!(
            "{} is a stream of frames: give a .y4m output (-o OUT.y4m)",
            input.display()
        )));
    }
    let mut dec = FrameDecoder::new(ctx);
    let f = std::fs::File::open(input).map_err(|e| file_err(input, e))?;
    // A single frame becomes a stream of one.
    let (info, mut frames): (StreamInfo, FrameSource) = if stream {
        let mut r = StreamReader::new(BufReader::new(f)).map_err(|e| file_err(input, e))?;
        let info = *r.info();
        (
            info,
            Box::new(move || {
                Ok(r.next_frame()
                    .map_err(|e| file_err(input, e))?
                    .map(|f| (f.bytes, f.truncated)))
            }),
        )
    } else {
        let bytes = std::fs::read(input).map_err(|e| file_err(input, e))?;
        let h = Header::parse(&bytes).map_err(|e| file_err(input, e))?;
        let info = StreamInfo {
            width: h.width,
            height: h.height,
            tag: if h.chroma == Chroma::Yuv444 {
                ChromaTag::C444
            } else {
                ChromaTag::C420jpeg
            },
            limited: h.source == wavekit_codec::Source::YcbcrLimited,
            rate: (25, 1),
            aspect: (1, 1),
            interlaced: false,
        };
        let mut once = Some(bytes);
        (info, Box::new(move || Ok(once.take().map(|b| (b, false)))))
    };
    let (mut n, mut bad, mut damaged) = (0usize, 0usize, 0usize);
    write_atomic(output, |tmp| {
        let out = std::fs::File::create(tmp).map_err(|e| file_err(output, e))?;
        let mut buf = BufWriter::new(out);
        let mut w = Writer::new(&mut buf, &info).map_err(|e| file_err(output, e))?;
        while let Some((bytes, truncated)) = frames()? {
            if truncated {
                eprintln!("warning: frame {n}: the file ends inside it; decoding what is there");
            }
            let img = match dec.decode(&bytes) {
                Ok((h, img, report))
                    if (h.width, h.height, h.chroma)
                        == (info.width, info.height, info.tag.chroma()) =>
                {
                    if !report.damaged.is_empty() {
                        damaged += 1;
                        eprintln!(
                            "warning: frame {n}: {} of {} blocks were damaged and decoded as flat",
                            report.damaged.len(),
                            report.blocks
                        );
                    }
                    // The stream's range is the container's; a frame from another source keeps
                    // its samples (a full-range frame in a limited stream is not rescaled).
                    YcbcrImage {
                        limited: info.limited,
                        ..img
                    }
                }
                Ok((h, _, _)) => {
                    bad += 1;
                    eprintln!(
                        "warning: frame {n} is {} x {} {:?}, not the stream's {} x {} {:?}; \
                         written as grey",
                        h.width,
                        h.height,
                        h.chroma,
                        info.width,
                        info.height,
                        info.tag.chroma()
                    );
                    grey(&info)
                }
                Err(wavekit_codec::CodecError::Gpu(e)) => return Err(CliError::Wavekit(e)),
                Err(e) => {
                    bad += 1;
                    eprintln!("warning: frame {n} cannot be decoded ({e}); written as grey");
                    grey(&info)
                }
            };
            w.write_frame(&img).map_err(|e| file_err(output, e))?;
            n += 1;
        }
        buf.flush().map_err(|e| file_err(output, e))
    })?;
    println!(
        "{}: {n} frames of {} x {} {:?} ({} range){}{}",
        output.display(),
        info.width,
        info.height,
        info.tag.chroma(),
        if info.limited { "limited" } else { "full" },
        if damaged > 0 {
            format!(", {damaged} with damaged blocks")
        } else {
            String::new()
        },
        if bad > 0 {
            format!(", {bad} undecodable (grey)")
        } else {
            String::new()
        }
    );
    Ok(())
}
