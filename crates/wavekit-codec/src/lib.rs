//! wavekit-codec: a wavelet intra-frame codec of the kind that streams a game's frames over a
//! local network with the least latency: every frame a still image, YCbCr (BT.709, full range,
//! 4:2:0 or 4:4:4), the 9/7 wavelet of `wavekit-dwt`, a quantizer per band, independent code
//! blocks of 32 × 32 coefficients sent bit-plane by bit-plane, and a rate control that keeps
//! every frame within the byte budget the caller sets. The bitstream is
//! `docs/codec-bitstream.md` (version 1): a header, a table of block offsets, the blocks'
//! payloads; a damaged block damages only its own area.
//!
//! This first step is the CPU reference ([`cpu`]): the encoder and decoder the GPU kernels will
//! be held to byte for byte.
//!
//! ```
//! use wavekit_codec::cpu::{EncodeConfig, decode, encode, psnr};
//! use wavekit_codec::{Chroma, Source};
//! let (w, h) = (64u32, 48u32);
//! let rgb: Vec<u8> = (0..w * h * 3).map(|i| ((i / 3) % w * 4) as u8).collect();
//! let config = EncodeConfig {
//!     lossless: false, chroma: Chroma::Yuv420, levels: 5, budget: 2_000, source: Source::Rgb,
//! };
//! let (frame, stats) = encode(&rgb, w, h, &config)?;
//! assert!(frame.len() <= 2_000 && stats.bytes == frame.len());
//! let (header, back, report) = decode(&frame)?;
//! assert_eq!((header.width, header.height), (w, h));
//! assert!(report.damaged.is_empty());
//! assert!(psnr(&rgb, &back) > 30.0);
//! # Ok::<(), wavekit_codec::CodecError>(())
//! ```

pub mod cpu;
mod error;
pub mod format;
pub mod gpu;
pub mod stream;
pub mod y4m;

pub use error::{CodecError, Result};
pub use format::{Chroma, Header, Source, YcbcrImage};
