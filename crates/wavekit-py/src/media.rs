//! The native half of `wavekit.dwt` (JPEG 2000's wavelets, Mallat layout in place) and
//! `wavekit.codec` (the frame codec), on bytes. The Python halves give PyWavelets'
//! coefficient lists and numpy images.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wavekit_codec::gpu::{Decoder, Encoder};
use wavekit_codec::{Chroma, EncodeConfig, Header};
use wavekit_dwt::{Color, Dwt, Wavelet};

use crate::error::{Error, Result};
use crate::{cached, cast, ctx, out};

fn wavelet_of(name: &str) -> Result<Wavelet> {
    match name {
        "97" => Ok(Wavelet::Irreversible97),
        "53" => Ok(Wavelet::Reversible53),
        other => Err(Error::InvalidArgument(format!("no wavelet '{other}'"))),
    }
}

fn color_of(name: &str) -> Result<Color> {
    match name {
        "none" => Ok(Color::None),
        "rct" => Ok(Color::Rct),
        "ict" => Ok(Color::Ict),
        other => Err(Error::InvalidArgument(format!(
            "no colour transform '{other}': none, rct (with the 5/3) or ict (with the 9/7)"
        ))),
    }
}

fn dwt_err(e: wavekit_dwt::DwtError) -> Error {
    match e {
        wavekit_dwt::DwtError::Gpu(e) => Error::Wavekit(e),
        wavekit_dwt::DwtError::InvalidArgument(m) => Error::InvalidArgument(m),
    }
}

fn codec_err(e: wavekit_codec::CodecError) -> Error {
    match e {
        wavekit_codec::CodecError::Gpu(e) => Error::Wavekit(e),
        e => Error::InvalidArgument(e.to_string()),
    }
}

/// The plan for a shape, made once a process.
fn plan(
    wavelet: Wavelet,
    (width, height, levels, planes): (u32, u32, u32, u32),
    color: Color,
) -> Result<std::sync::Arc<Dwt>> {
    let c = ctx()?;
    cached(
        &format!("dwt {wavelet:?} {width}x{height} {levels} {planes} {color:?}"),
        || {
            Dwt::new(c, wavelet, width, height, levels, planes)
                .and_then(|d| d.with_color(color))
                .map_err(dwt_err)
        },
    )
}

/// The wavelet transform of `planes` planes of `width × height` samples (f4 for the 9/7, i4
/// for the 5/3), `levels` levels, forward or inverse, in JPEG 2000's Mallat layout.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn dwt<'py>(
    py: Python<'py>,
    data: &[u8],
    wavelet: &str,
    width: u32,
    height: u32,
    levels: u32,
    planes: u32,
    color: &str,
    inverse: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let w = wavelet_of(wavelet)?;
    let color = color_of(color)?;
    let c = ctx()?;
    let bytes = py.detach(|| -> Result<Vec<u8>> {
        let p = plan(w, (width, height, levels, planes), color)?;
        Ok(match (w, inverse) {
            (Wavelet::Irreversible97, false) => {
                bytemuck::cast_slice(&p.forward_f32(c, &cast::<f32>(data)?).map_err(dwt_err)?)
                    .to_vec()
            }
            (Wavelet::Irreversible97, true) => {
                bytemuck::cast_slice(&p.inverse_f32(c, &cast::<f32>(data)?).map_err(dwt_err)?)
                    .to_vec()
            }
            (_, false) => {
                bytemuck::cast_slice(&p.forward_i32(c, &cast::<i32>(data)?).map_err(dwt_err)?)
                    .to_vec()
            }
            (_, true) => {
                bytemuck::cast_slice(&p.inverse_i32(c, &cast::<i32>(data)?).map_err(dwt_err)?)
                    .to_vec()
            }
        })
    })?;
    Ok(PyBytes::new(py, &bytes))
}

fn config(chroma: u32, levels: u8, budget: usize, lossless: bool) -> Result<EncodeConfig> {
    Ok(EncodeConfig {
        chroma: match chroma {
            420 => Chroma::Yuv420,
            444 => Chroma::Yuv444,
            x => {
                return Err(Error::InvalidArgument(format!(
                    "chroma {x}: give \"420\" or \"444\""
                )));
            }
        },
        levels,
        budget,
        lossless,
        source: wavekit_codec::Source::Rgb,
    })
}

/// One frame of 8-bit RGB (`width · height · 3` bytes) coded at `budget` bytes on the GPU.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn codec_encode<'py>(
    py: Python<'py>,
    rgb: &[u8],
    width: u32,
    height: u32,
    budget: usize,
    chroma: u32,
    levels: u8,
    lossless: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let c = ctx()?;
    let cfg = config(chroma, levels, budget, lossless)?;
    let frame = py.detach(|| -> Result<Vec<u8>> {
        let enc = cached(
            &format!("encoder {width}x{height} {chroma} {levels} {budget} {lossless}"),
            || Encoder::new(c, width, height, &cfg).map_err(codec_err),
        )?;
        enc.encode(c, rgb).map_err(codec_err)
    })?;
    Ok(PyBytes::new(py, &frame))
}

/// A decoded frame: 8-bit RGB, width, height, the damaged blocks, and the frame's blocks.
type Decoded<'py> = (Bound<'py, PyBytes>, u32, u32, Vec<usize>, usize);

/// A frame decoded on the GPU: 8-bit RGB, its width and height, and the damaged blocks.
#[pyfunction]
pub fn codec_decode<'py>(py: Python<'py>, frame: &[u8]) -> PyResult<Decoded<'py>> {
    let c = ctx()?;
    let header = Header::parse(frame).map_err(codec_err)?;
    let (rgb, report) = py.detach(|| -> Result<_> {
        // A decoder a header and a power-of-two capacity (at least 64 KiB): frames of a
        // stream share one.
        let cap = frame.len().next_power_of_two().max(1 << 16);
        let dec = cached(&format!("decoder {:?} {cap}", header.to_bytes()), || {
            Decoder::new(c, &header, cap).map_err(codec_err)
        })?;
        dec.decode(c, frame).map_err(codec_err)
    })?;
    Ok((
        out(py, &rgb),
        header.width,
        header.height,
        report.damaged,
        report.blocks,
    ))
}
