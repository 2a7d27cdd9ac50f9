//! wavekit-codec: a wavelet intra-frame codec of the kind that streams a game's frames over a
//! local network with the least latency: every frame a still image, YCbCr (BT.709, full range,
//! 4:2:0 or 4:4:4), the 9/7 wavelet of `wavekit-dwt` in fixed point (or the 5/3 and the RCT,
//! lossless), a quantizer per band, independent code blocks of 32 × 32 coefficients sent
//! bit-plane by bit-plane, and a rate control that keeps every frame within the byte budget
//! the caller sets. The bitstream is `docs/codec-bitstream.md` (version 3; versions 1 and 2
//! are refused with a message naming them): a header, a table of block offsets, the blocks'
//! payloads; a damaged block damages only its own area.
//!
//! The encoder and decoder run on the GPU ([`gpu`]) and on the CPU ([`cpu`], the reference):
//! the GPU's bytes equal the CPU encoder's and its pixels the CPU decoder's, at every subgroup
//! width. [`stream`] and [`y4m`] carry frames in files.
//!
//! On the GPU, an encoder and a decoder built once for a frame size:
//!
//! ```no_run
//! use wavekit::{ContextOptions, GpuContext};
//! use wavekit_codec::{EncodeConfig, Header};
//! use wavekit_codec::gpu::{Decoder, Encoder};
//!
//! let ctx = GpuContext::new(&ContextOptions::default())?;
//! let (w, h) = (1920u32, 1080u32);
//! let rgb = vec![128u8; (w * h * 3) as usize];
//! let encoder = Encoder::new(&ctx, w, h, &EncodeConfig::bpp(w, h, 1.0))?;
//! let frame = encoder.encode(&ctx, &rgb)?;
//! let decoder = Decoder::new(&ctx, &Header::parse(&frame)?, frame.len())?;
//! let (back, report) = decoder.decode(&ctx, &frame)?;
//! assert!(report.damaged.is_empty() && back.len() == rgb.len());
//! # Ok::<(), wavekit_codec::CodecError>(())
//! ```
//!
//! On the CPU, the reference:
//!
//! ```
//! use wavekit_codec::cpu::{decode, encode, psnr};
//! use wavekit_codec::EncodeConfig;
//! let (w, h) = (64u32, 48u32);
//! let rgb: Vec<u8> = (0..w * h * 3).map(|i| ((i / 3) % w * 4) as u8).collect();
//! let (frame, stats) = encode(&rgb, w, h, &EncodeConfig::bytes(2_000))?;
//! assert!(frame.len() <= 2_000 && stats.bytes == frame.len());
//! let (header, back, report) = decode(&frame)?;
//! assert_eq!((header.width, header.height), (w, h));
//! assert!(report.damaged.is_empty());
//! assert!(psnr(&rgb, &back) > 30.0);
//! # Ok::<(), wavekit_codec::CodecError>(())
//! ```

#![warn(missing_docs)]
pub mod cpu;
mod error;
pub mod format;
pub mod gpu;
pub mod net;
pub mod stream;
pub mod y4m;

pub use cpu::EncodeConfig;
pub use error::{CodecError, Result};
pub use format::{Chroma, Header, Source, YcbcrImage};
