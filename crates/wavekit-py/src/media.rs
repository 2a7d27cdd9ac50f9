//! The native half of `wavekit.dwt` (JPEG 2000's wavelets, Mallat layout in place) and
//! `wavekit.codec` (the frame codec), on bytes. The Python halves give PyWavelets'
//! coefficient lists and numpy images.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wavekit_codec::gpu::{Decoder, Encoder};
use wavekit_codec::{Chroma, EncodeConfig, Header};
use wavekit_dwt::{Color, Dwt, Wavelet};

use crate::error::{Error, Result};
use crate::{cached, cast, ctx, host, host_mut, out};

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

/// The wavelet transform of `shape` = `(width, height, levels, planes)` (`planes` planes of
/// `width × height` samples, `levels` levels), forward or `inverse`, in JPEG 2000's Mallat
/// layout, with the colour transform `color` (`"none"`, `"rct"`, `"ict"`): f32 samples for the
/// 9/7 (`"97"`), i32 for the 5/3 (`"53"`). `data` and `out` are each the Python half's
/// `(address, bytes)` of a C-contiguous array, `data` read in place and `out` allocated by it
/// for the result: one copy each way, through the context's kept staging buffers.
#[pyfunction]
pub fn dwt_into(
    py: Python<'_>,
    data: (usize, usize),
    out: (usize, usize),
    wavelet: &str,
    shape: (u32, u32, u32, u32),
    color: &str,
    inverse: bool,
) -> PyResult<()> {
    let w = wavelet_of(wavelet)?;
    let color = color_of(color)?;
    let c = ctx()?;
    if data.1 != out.1 {
        return Err(Error::InvalidArgument(format!(
            "a wavelet transform of {} bytes into {}: the output must be as large as the input",
            data.1, out.1
        ))
        .into());
    }
    py.detach(|| -> Result<()> {
        let p = plan(w, shape, color)?;
        let (input, output) = (host(data), host_mut(out));
        match w {
            Wavelet::Irreversible97 => p.transform_with(c, &samples::<f32>(input)?, inverse, |r| {
                wavekit::copy_bytes(output, bytemuck::cast_slice(r))
            }),
            _ => p.transform_with(c, &samples::<i32>(input)?, inverse, |r| {
                wavekit::copy_bytes(output, bytemuck::cast_slice(r))
            }),
        }
        .map_err(dwt_err)
    })?;
    Ok(())
}

/// `data`'s 4-byte samples: read in place where aligned (numpy's arrays are), copied where not.
fn samples<T: bytemuck::Pod>(data: &[u8]) -> Result<std::borrow::Cow<'_, [T]>> {
    match bytemuck::try_cast_slice::<u8, T>(data) {
        Ok(s) => Ok(std::borrow::Cow::Borrowed(s)),
        Err(_) => cast::<T>(data).map(std::borrow::Cow::Owned),
    }
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
