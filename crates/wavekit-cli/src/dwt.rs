//! `wavekit dwt forward|inverse|roundtrip`: the 2D wavelet transform on images and `.npy`
//! arrays. Images (PNG of 8 or 16 bits, gray or RGB; PGM/PPM) give one plane per channel,
//! level-shifted by 2^(bits−1) as JPEG 2000 does; `.npy` arrays are 2-D (H, W) or 3-D
//! (planes, H, W) and are transformed as they are. Coefficients are `.npy` of shape
//! (planes, H, W): int32 for 5/3, float32 for 9/7, followed by a 16-byte note of the
//! settings that made them, which `inverse` checks and numpy ignores (ADR-0085).

use std::path::Path;

use npyz::WriterBuilder;

use wavekit::GpuContext;
use wavekit_dwt::{Color, Dwt, Wavelet};

use crate::error::CliError;
use crate::stream::{Dtype, Progress};

/// The wavelet names the CLI takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WaveletArg {
    /// Reversible 5/3, integer, exact.
    #[value(name = "5/3")]
    Reversible53,
    /// Irreversible 9/7, f32.
    #[value(name = "9/7")]
    Irreversible97,
}

impl From<WaveletArg> for Wavelet {
    fn from(w: WaveletArg) -> Wavelet {
        match w {
            WaveletArg::Reversible53 => Wavelet::Reversible53,
            WaveletArg::Irreversible97 => Wavelet::Irreversible97,
        }
    }
}

/// The colour transform names the CLI takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    /// None: the planes as they are.
    None,
    /// Reversible (with 5/3).
    Rct,
    /// Irreversible (with 9/7).
    Ict,
}

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Color {
        match c {
            ColorArg::None => Color::None,
            ColorArg::Rct => Color::Rct,
            ColorArg::Ict => Color::Ict,
        }
    }
}

/// What transform the command was asked for.
pub type Transform = (WaveletArg, u32, ColorArg);

/// The note `dwt forward` appends after the coefficients' data: how they were made, so that
/// `dwt inverse` can refuse other settings (issue 32: 2 levels undoing 3 gave garbage without
/// a word). numpy reads the file as before: it stops at the data's end.
const NOTE_MAGIC: &[u8; 12] = b"wavekit-dwt\x01";
/// The note's length: magic, wavelet, levels, colour, newline.
const NOTE_LEN: usize = 16;

fn note(wavelet: WaveletArg, levels: u32, color: ColorArg) -> [u8; NOTE_LEN] {
    let mut n = [0u8; NOTE_LEN];
    n[..12].copy_from_slice(NOTE_MAGIC);
    n[12] = wavelet as u8;
    n[13] = levels.min(255) as u8;
    n[14] = color as u8;
    n[15] = b'\n';
    n
}

/// The note after a coefficient file's data, if it has one: (wavelet, levels, colour). A file
/// from elsewhere (numpy, another tool) has none, and is taken as the flags say. The header is
/// read by the CLI's `.npy` reader (`stream::Npy`), which says where the data ends.
fn read_note(path: &Path) -> Result<Option<Transform>, CliError> {
    use std::io::{Read, Seek, SeekFrom};
    // A dtype the streaming reader does not take (uint16, int16) is not one `forward` writes.
    let Ok(npy) = crate::stream::Npy::open(path) else {
        return Ok(None);
    };
    let end = npy.offset + npy.bytes();
    let mut f = std::fs::File::open(path).map_err(|e| bad(path, e))?;
    if f.metadata().map_err(|e| bad(path, e))?.len() != end + NOTE_LEN as u64 {
        return Ok(None);
    }
    let mut n = [0u8; NOTE_LEN];
    f.seek(SeekFrom::Start(end))
        .and_then(|_| f.read_exact(&mut n))
        .map_err(|e| bad(path, e))?;
    if &n[..12] != NOTE_MAGIC || n[15] != b'\n' {
        return Ok(None);
    }
    let wavelet = match n[12] {
        0 => WaveletArg::Reversible53,
        1 => WaveletArg::Irreversible97,
        _ => return Ok(None),
    };
    let color = match n[14] {
        0 => ColorArg::None,
        1 => ColorArg::Rct,
        2 => ColorArg::Ict,
        _ => return Ok(None),
    };
    Ok(Some((wavelet, u32::from(n[13]), color)))
}

/// The flags against the note of the file (if any): an error naming both when they differ.
fn check_note(path: &Path, asked: Transform) -> Result<(), CliError> {
    let Some(made) = read_note(path)? else {
        return Ok(());
    };
    if made != asked {
        let name = |(w, l, c): Transform| {
            format!(
                "--wavelet {} --levels {l} --color {}",
                spelled(w),
                spelled(c)
            )
        };
        return Err(bad(
            path,
            format!(
                "these coefficients were made with {}, but {} was given: pass the settings \
                 they were made with",
                name(made),
                name(asked)
            ),
        ));
    }
    Ok(())
}

/// A flag's value as the command line spells it.
fn spelled(v: impl clap::ValueEnum) -> String {
    v.to_possible_value()
        .map_or(String::new(), |p| p.get_name().to_string())
}

fn bad(path: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Samples of one or more planes, integer or float, and the bit depth of an image.
pub struct Planes {
    pub width: u32,
    pub height: u32,
    pub planes: u32,
    pub samples: Samples,
    /// Bits per sample of an image input (None for `.npy`).
    pub bits: Option<u32>,
}

/// The samples, plane after plane, row-major.
pub enum Samples {
    Int(Vec<i32>),
    Float(Vec<f32>),
}

impl Samples {
    /// The samples for 5/3, which takes integers only (`input` names the file in the error).
    fn integers(&self, input: &Path) -> Result<&[i32], CliError> {
        match self {
            Samples::Int(v) => Ok(v),
            Samples::Float(_) => Err(bad(
                input,
                "5/3 is an integer transform: give integer samples, or use 9/7",
            )),
        }
    }

    /// The samples for 9/7, as f32.
    fn floats(&self) -> Vec<f32> {
        match self {
            Samples::Int(v) => v.iter().map(|&v| v as f32).collect(),
            Samples::Float(v) => v.clone(),
        }
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The maxval of a binary or ASCII PGM/PPM file (`P2`, `P3`, `P5`, `P6`), or None for any
/// other file (or a header too damaged to read: the decoder reports that).
pub(crate) fn pnm_maxval(bytes: &[u8]) -> Option<u32> {
    if bytes.len() < 2 || bytes[0] != b'P' || !matches!(bytes[1], b'2' | b'3' | b'5' | b'6') {
        return None;
    }
    // Width, height, maxval: whitespace-separated, with `#` comments to the end of a line.
    let mut fields = Vec::new();
    let mut i = 2;
    while fields.len() < 3 && i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            c if c.is_ascii_whitespace() => i += 1,
            c if c.is_ascii_digit() => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                fields.push(
                    std::str::from_utf8(&bytes[start..i])
                        .ok()?
                        .parse::<u32>()
                        .ok()?,
                );
            }
            _ => return None,
        }
    }
    fields.get(2).copied()
}

/// Refuse a PGM/PPM whose maxval is not 255 or 65535: the decoder would rescale its samples
/// to 8 or 16 bits without a word, and the transform would not be of the file's values.
pub(crate) fn check_pnm_maxval(path: &Path) -> Result<(), CliError> {
    let mut head = vec![0u8; 4096];
    let n = {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(|e| bad(path, e))?;
        f.read(&mut head).map_err(|e| bad(path, e))?
    };
    match pnm_maxval(&head[..n]) {
        Some(m) if m != 255 && m != 65535 => Err(bad(
            path,
            format!(
                "maxval {m}: wavekit reads PGM/PPM samples of maxval 255 (8 bits) or 65535 (16 \
                 bits) only; other maxvals would be rescaled. Convert the file, e.g. with \
                 pnmdepth 255 or 65535"
            ),
        )),
        _ => Ok(()),
    }
}

/// Read an image or a 2-D/3-D `.npy` array.
pub fn read(path: &Path) -> Result<Planes, CliError> {
    if extension(path) == "npy" {
        return read_npy(path);
    }
    check_pnm_maxval(path)?;
    let img = image::ImageReader::open(path)
        .map_err(|e| bad(path, e))?
        .with_guessed_format()
        .map_err(|e| bad(path, e))?
        .decode()
        .map_err(|e| bad(path, format!("not a readable image: {e}")))?;
    let (w, h) = (img.width(), img.height());
    let (planes, bits, raw): (u32, u32, Vec<i32>) = match img {
        image::DynamicImage::ImageLuma8(b) => {
            (1, 8, b.into_raw().into_iter().map(i32::from).collect())
        }
        image::DynamicImage::ImageLuma16(b) => {
            (1, 16, b.into_raw().into_iter().map(i32::from).collect())
        }
        image::DynamicImage::ImageRgb8(b) => {
            (3, 8, b.into_raw().into_iter().map(i32::from).collect())
        }
        image::DynamicImage::ImageRgb16(b) => {
            (3, 16, b.into_raw().into_iter().map(i32::from).collect())
        }
        other => {
            return Err(bad(
                path,
                format!(
                    "{:?} images are not supported: use 8- or 16-bit gray or RGB (no alpha)",
                    other.color()
                ),
            ));
        }
    };
    // Interleaved channels to planes, level-shifted.
    let shift = 1 << (bits - 1);
    let n = (w * h) as usize;
    let mut samples = vec![0i32; n * planes as usize];
    for (i, &v) in raw.iter().enumerate() {
        let (pixel, c) = (i / planes as usize, i % planes as usize);
        samples[c * n + pixel] = v - shift;
    }
    Ok(Planes {
        width: w,
        height: h,
        planes,
        samples: Samples::Int(samples),
        bits: Some(bits),
    })
}

fn read_npy(path: &Path) -> Result<Planes, CliError> {
    let file = std::fs::File::open(path).map_err(|e| bad(path, e))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| bad(path, format!("not a readable .npy file: {e}")))?;
    let shape = npy.shape().to_vec();
    let (planes, h, w) = match shape.as_slice() {
        [h, w] => (1, *h, *w),
        [p, h, w] => (*p, *h, *w),
        _ => {
            return Err(bad(
                path,
                format!("shape {shape:?}: expected (H, W) or (planes, H, W)"),
            ));
        }
    };
    if planes == 0 || h == 0 || w == 0 || h > u64::from(u32::MAX) || w > u64::from(u32::MAX) {
        return Err(bad(
            path,
            format!("shape {shape:?}: every size must be at least 1"),
        ));
    }
    let dtype = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => format!("{other:?}"),
    };
    let item = match dtype.as_str() {
        "|u1" => 1,
        "<u2" | "<i2" => 2,
        _ => 4,
    };
    crate::npy::check_holds(path, &shape, item)?;
    let err = |e: std::io::Error| bad(path, format!("reading the data: {e}"));
    let fortran = npy.order() == npyz::Order::Fortran;
    let samples = match dtype.as_str() {
        "|u1" => widen(npy.into_vec::<u8>().map_err(err)?),
        "<u2" => widen(npy.into_vec::<u16>().map_err(err)?),
        "<i2" => widen(npy.into_vec::<i16>().map_err(err)?),
        "<i4" => Samples::Int(npy.into_vec::<i32>().map_err(err)?),
        "<f4" => Samples::Float(npy.into_vec::<f32>().map_err(err)?),
        _ => {
            return Err(bad(
                path,
                format!("dtype '{dtype}': use uint8, uint16, int16, int32 or float32"),
            ));
        }
    };
    // Fortran order (numpy's `np.asfortranarray`): the first index runs fastest; into C order.
    let samples = if fortran {
        let (p, h, w) = (planes as usize, h as usize, w as usize);
        let c_order = |i: usize| {
            let (plane, rest) = (i / (h * w), i % (h * w));
            let (r, c) = (rest / w, rest % w);
            plane + p * (r + h * c)
        };
        match samples {
            Samples::Int(v) => Samples::Int((0..v.len()).map(|i| v[c_order(i)]).collect()),
            Samples::Float(v) => Samples::Float((0..v.len()).map(|i| v[c_order(i)]).collect()),
        }
    } else {
        samples
    };
    Ok(Planes {
        width: w as u32,
        height: h as u32,
        planes: planes as u32,
        samples,
        bits: None,
    })
}

/// Integer samples narrower than 32 bits, widened.
fn widen<T: Into<i32>>(v: Vec<T>) -> Samples {
    Samples::Int(v.into_iter().map(Into::into).collect())
}

fn plan(
    ctx: &GpuContext,
    p: &Planes,
    wavelet: Wavelet,
    levels: u32,
    color: ColorArg,
) -> Result<Dwt, CliError> {
    Ok(Dwt::new(ctx, wavelet, p.width, p.height, levels, p.planes)?.with_color(color.into())?)
}

fn write_npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(
    path: &Path,
    shape: [u64; 3],
    data: &[T],
) -> Result<(), CliError> {
    crate::output::write_atomic(path, |tmp| {
        let file = std::fs::File::create(tmp).map_err(|e| bad(path, e))?;
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&shape)
            .writer(std::io::BufWriter::new(file))
            .begin_nd()
            .map_err(|e| bad(path, e))?;
        w.extend(data.iter().copied()).map_err(|e| bad(path, e))?;
        w.finish().map_err(|e| bad(path, e))
    })
}

/// The image format of an output path that is not `.npy`, and its sample depth, checked
/// before any work (a bad name or depth used to fail after the transform, leaving an empty
/// file behind).
fn image_output(path: &Path, bits: u32) -> Result<image::ImageFormat, CliError> {
    if !matches!(bits, 8 | 16) {
        return Err(CliError::Usage(format!(
            "--bits {bits}: images are 8 or 16 bits"
        )));
    }
    let format = image::ImageFormat::from_path(path).map_err(|_| {
        bad(
            path,
            "not an output this command writes: name a .npy file, or an image (.png, .pgm, \
             .ppm, .tif)",
        )
    })?;
    if bits == 16
        && !matches!(
            format,
            image::ImageFormat::Png | image::ImageFormat::Pnm | image::ImageFormat::Tiff
        )
    {
        return Err(bad(
            path,
            format!("a {format:?} file cannot hold 16-bit samples: use .png, .pgm or .tif"),
        ));
    }
    Ok(format)
}

/// The forward transform of `input` into `output`: the planes uploaded once, transformed into
/// a coefficient buffer, and streamed to the file.
pub fn forward<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    input: &Path,
    output: &Path,
    (wavelet, levels, color): Transform,
    t: &mut crate::prims::Timings,
) -> Result<(), CliError> {
    crate::output::check_output(input, output)?;
    if extension(output) != "npy" {
        return Err(bad(
            output,
            "the coefficients are written as .npy: name a .npy file",
        ));
    }
    let p = read(input)?;
    t.phase("read + decode");
    let ctx = ctx()?;
    let ctx = &*ctx;
    t.phase("device");
    let wavelet_arg = wavelet;
    let wavelet = Wavelet::from(wavelet);
    let dwt = plan(ctx, &p, wavelet, levels, color)?;
    let shape = [u64::from(p.planes), u64::from(p.height), u64::from(p.width)];
    let (src, dtype) = match wavelet {
        Wavelet::Reversible53 | Wavelet::Fixed97 => (
            ctx.storage_from("dwt image", p.samples.integers(input)?)?,
            Dtype::I32,
        ),
        Wavelet::Irreversible97 => (
            ctx.storage_from("dwt image", &p.samples.floats())?,
            Dtype::F32,
        ),
    };
    let coeffs = ctx.storage_uninit("dwt coefficients", src.size())?;
    t.phase("upload");
    let bound = dwt.bind_separate(ctx, &src, &coeffs)?;
    ctx.submit(|e| bound.record_forward(e));
    ctx.wait()?;
    t.phase("pipelines + transform");
    let mut progress = Progress::new(
        format!("writing {}", output.display()),
        4 * dwt.len() as u64,
    );
    crate::output::write_atomic(output, |tmp| {
        crate::stream::download(ctx, &coeffs, dtype, &shape, tmp, &mut progress)?;
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(tmp)
            .and_then(|mut f| f.write_all(&note(wavelet_arg, dwt.levels(), color)))
            .map_err(|e| bad(output, format!("writing: {e}")))
    })?;
    progress.finish();
    t.phase("read back + write");
    let shift = p.bits.map_or(String::new(), |b| {
        format!(", {b}-bit samples shifted by -{}", 1 << (b - 1))
    });
    eprintln!(
        "{} plane(s) of {} × {}{shift}, {levels} level(s): coefficients written to {}",
        p.planes,
        p.width,
        p.height,
        output.display()
    );
    Ok(())
}

/// The inverse transform of `coeffs` into `output` (.npy, or an image of `bits` bits).
pub fn inverse<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    coeffs: &Path,
    output: &Path,
    (wavelet, levels, color): Transform,
    bits: u32,
) -> Result<(), CliError> {
    crate::output::check_output(coeffs, output)?;
    let image = extension(output) != "npy";
    if image {
        image_output(output, bits)?;
    }
    let p = read_npy(coeffs)?;
    check_note(coeffs, (wavelet, levels, color))?;
    if let (true, Samples::Float(c)) = (image, &p.samples)
        && let Some(i) = c.iter().position(|v| !v.is_finite())
    {
        let n = (p.width * p.height) as usize;
        return Err(bad(
            coeffs,
            format!(
                "coefficient {i} (plane {}, row {}, column {}) is {}: an image needs finite \
                     samples (write a .npy to see what the inverse gives)",
                i / n,
                i % n / p.width as usize,
                i % p.width as usize,
                c[i]
            ),
        ));
    }
    let ctx = ctx()?;
    let ctx = &*ctx;
    let wavelet = Wavelet::from(wavelet);
    let dwt = plan(ctx, &p, wavelet, levels, color)?;
    // (The 8-bit last pass takes no colour transform: the samples come back and are written.)
    if extension(output) != "npy" && bits == 8 && dwt.color() == Color::None {
        // The GPU's last pass writes the 8-bit samples itself (shift, rounding, clamping).
        // The plan checks that int32 coefficients go with 5/3 and float32 with 9/7.
        let bytes = match &p.samples {
            Samples::Int(c) => dwt.inverse_i32_to_u8(ctx, c),
            Samples::Float(c) => dwt.inverse_f32_to_u8(ctx, c),
        }?;
        let shifted = Planes {
            samples: Samples::Int(bytes.iter().map(|&b| i32::from(b) - 128).collect()),
            ..p
        };
        write_image(output, &shifted, 8)?;
        eprintln!(
            "{} plane(s) of {} × {} written to {} (8-bit samples from the GPU's last pass)",
            shifted.planes,
            shifted.width,
            shifted.height,
            output.display()
        );
        return Ok(());
    }
    let samples = match &p.samples {
        Samples::Int(c) => Samples::Int(dwt.inverse_i32(ctx, c)?),
        Samples::Float(c) => Samples::Float(dwt.inverse_f32(ctx, c)?),
    };
    let out = Planes { samples, ..p };
    if !image {
        let shape = [
            u64::from(out.planes),
            u64::from(out.height),
            u64::from(out.width),
        ];
        match &out.samples {
            Samples::Int(v) => write_npy(output, shape, v)?,
            Samples::Float(v) => write_npy(output, shape, v)?,
        }
    } else {
        write_image(output, &out, bits)?;
    }
    eprintln!(
        "{} plane(s) of {} × {} written to {}",
        out.planes,
        out.width,
        out.height,
        output.display()
    );
    Ok(())
}

/// Undo the level shift, round and clamp to `bits`, and save as an image (gray or RGB).
fn write_image(path: &Path, p: &Planes, bits: u32) -> Result<(), CliError> {
    let format = image_output(path, bits)?;
    if !matches!(p.planes, 1 | 3) {
        return Err(bad(
            path,
            format!("{} planes: an image takes 1 (gray) or 3 (RGB)", p.planes),
        ));
    }
    let max = (1i64 << bits) - 1;
    let shift = 1i64 << (bits - 1);
    let n = (p.width * p.height) as usize;
    if let Samples::Float(s) = &p.samples
        && let Some(i) = s.iter().position(|v| v.is_nan())
    {
        return Err(bad(
            path,
            format!(
                "sample {i} of the inverse is NaN (coefficients too large for f32?): not \
                     written"
            ),
        ));
    }
    let value = |i: usize| -> u16 {
        let v = match &p.samples {
            Samples::Int(s) => i64::from(s[i]),
            Samples::Float(s) => s[i].round() as i64,
        };
        (v + shift).clamp(0, max) as u16
    };
    // Planes back to interleaved pixels.
    let c = p.planes as usize;
    let pixels: Vec<u16> = (0..n * c).map(|i| value((i % c) * n + i / c)).collect();
    let (w, h) = (p.width, p.height);
    let img = match (c, bits) {
        (1, 8) => image::DynamicImage::ImageLuma8(
            image::GrayImage::from_raw(w, h, pixels.iter().map(|&v| v as u8).collect())
                .expect("sized"),
        ),
        (3, 8) => image::DynamicImage::ImageRgb8(
            image::RgbImage::from_raw(w, h, pixels.iter().map(|&v| v as u8).collect())
                .expect("sized"),
        ),
        (1, _) => image::DynamicImage::ImageLuma16(
            image::ImageBuffer::from_raw(w, h, pixels).expect("sized"),
        ),
        _ => image::DynamicImage::ImageRgb16(
            image::ImageBuffer::from_raw(w, h, pixels).expect("sized"),
        ),
    };
    crate::output::write_atomic(path, |tmp| {
        img.save_with_format(tmp, format).map_err(|e| bad(path, e))
    })
}

/// Forward and inverse on the GPU; exact for 5/3, within 0.01 of a sample's range for 9/7.
/// Prints the largest difference; a check failure (exit 1) if the bound is missed.
pub fn roundtrip(
    ctx: &GpuContext,
    input: &Path,
    (wavelet, levels, color): Transform,
) -> Result<(), CliError> {
    let p = read(input)?;
    let wavelet = Wavelet::from(wavelet);
    let dwt = plan(ctx, &p, wavelet, levels, color)?;
    let (worst, bound) = match wavelet {
        Wavelet::Reversible53 | Wavelet::Fixed97 => {
            let x = p.samples.integers(input)?;
            let back = dwt.inverse_i32(ctx, &dwt.forward_i32(ctx, x)?)?;
            let worst = x
                .iter()
                .zip(&back)
                .map(|(a, b)| (a - b).unsigned_abs())
                .max()
                .unwrap_or(0);
            // The fixed-point 9/7 rounds at each step: a unit or two of integer samples.
            let bound = if wavelet == Wavelet::Fixed97 {
                2.0
            } else {
                0.0
            };
            (f64::from(worst), bound)
        }
        Wavelet::Irreversible97 => {
            let x = p.samples.floats();
            let back = dwt.inverse_f32(ctx, &dwt.forward_f32(ctx, &x)?)?;
            let worst = x
                .iter()
                .zip(&back)
                .map(|(a, b)| f64::from((a - b).abs()))
                .fold(0.0, f64::max);
            let range = x.iter().fold(1.0f32, |m, v| m.max(v.abs()));
            (worst, 1e-4 * f64::from(range))
        }
    };
    println!(
        "{} plane(s) of {} × {}, {levels} level(s), {:?}: largest difference {worst} (bound {bound})",
        p.planes, p.width, p.height, wavelet
    );
    if worst > bound {
        return Err(CliError::CheckFailed(format!(
            "round trip differs by {worst}, more than {bound}"
        )));
    }
    Ok(())
}

/// What `wavekit bench dwt` was asked.
pub struct BenchArgs {
    pub sizes: Vec<String>,
    pub planes: Vec<u32>,
    pub levels: u32,
    pub bindings: Vec<String>,
    pub color: bool,
    pub protocol: crate::bench::ProtocolArgs,
    pub peer: Option<std::path::PathBuf>,
    pub save: Option<std::path::PathBuf>,
    pub json: bool,
}

/// A peer's measurement (one JSON line of peer/python/dwt_peers.py).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct PeerDwt {
    pub peer: String,
    pub size: String,
    pub planes: u32,
    pub wavelet: String,
    pub direction: String,
    pub median_ns: f64,
}

/// `wavekit bench dwt`.
pub fn bench(ctx: &GpuContext, a: &BenchArgs) -> Result<(), CliError> {
    let chosen = a
        .sizes
        .iter()
        .map(|s| {
            wavekit_bench::dwt::SIZES
                .iter()
                .find(|(n, ..)| n.eq_ignore_ascii_case(s))
                .copied()
                .ok_or_else(|| {
                    CliError::Usage(format!("unknown size '{s}': use 1080p, 1440p, 4k or 8k"))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let peer = a
        .peer
        .as_deref()
        .map(crate::bench::read_peer::<PeerDwt>)
        .transpose()?;
    let tuning = wavekit_harness::dwt_tuning(&wavekit_harness::Env)?;
    let protocol = a.protocol.protocol()?;
    let clock = crate::bench::clock_reader(ctx);
    let bindings: Vec<&str> = a.bindings.iter().map(String::as_str).collect();
    let results = wavekit_bench::dwt::run(
        ctx,
        &chosen,
        &a.planes,
        a.levels,
        &bindings,
        a.color,
        &tuning,
        &protocol,
        clock.as_ref(),
        &mut |l| eprintln!("{l}"),
    )?;
    // The faster peer's time over wavekit's (separate buffers: what the peers do).
    let ratio = |r: &wavekit_bench::dwt::DwtBench| {
        peer.as_ref().and_then(|p| {
            p.iter()
                .filter(|q| {
                    r.color == Color::None
                        && q.size.eq_ignore_ascii_case(&r.size)
                        && q.planes == r.planes
                        && q.wavelet == r.wavelet
                        && q.direction == r.direction
                })
                .map(|q| (q.median_ns, q.peer.clone()))
                .min_by(|x, y| x.0.total_cmp(&y.0))
                .map(|(t, name)| (t / r.median_ns, name))
        })
    };
    #[derive(serde::Serialize)]
    struct Row<'a> {
        #[serde(flatten)]
        result: &'a wavekit_bench::dwt::DwtBench,
        peer_over_wavekit: Option<f64>,
        faster_peer: Option<String>,
    }
    let rows: Vec<Row> = results
        .iter()
        .map(|r| {
            let x = ratio(r);
            Row {
                result: r,
                peer_over_wavekit: x.as_ref().map(|p| p.0),
                faster_peer: x.map(|p| p.1),
            }
        })
        .collect();
    let json = serde_json::to_string_pretty(
        &serde_json::json!({"adapter": &ctx.summary, "protocol": protocol, "results": rows}),
    )?;
    if let Some(path) = &a.save {
        std::fs::write(path, &json).map_err(|e| CliError::File {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    if a.json {
        println!("{json}");
        return Ok(());
    }
    println!("adapter: {}", ctx.summary.label());
    if let Some(r) = results.first() {
        println!(
            "tile: {} x {} (shape {} columns, {} rows, {} segments){}",
            r.tile.0,
            r.tile.1,
            r.shape.columns,
            r.shape.rows,
            r.shape.segments,
            match r.small_levels {
                Some((rows, most)) => format!(
                    "; levels of at most {most} samples (all planes): {rows} rows an invocation"
                ),
                None => String::new(),
            }
        );
    }
    println!(
        "{:<6} {:>6} {:>4} {:>8} {:>9} {:>5} {:>10} {:>7} {:>11} {:>8} {:>7} {:>8} {:>10}",
        "size",
        "planes",
        "wav",
        "dir",
        "binding",
        "color",
        "median us",
        "spread",
        "G samples/s",
        "of bound",
        "x copy",
        "peer/ours",
        "clock MHz"
    );
    for row in &rows {
        let r = row.result;
        println!(
            "{:<6} {:>6} {:>4} {:>8} {:>9} {:>5} {:>10.1} {:>6.1}% {:>11.2} {:>7.1}% {:>7.2} {:>8} {:>10}",
            r.size,
            r.planes,
            r.wavelet,
            r.direction,
            r.binding,
            format!("{:?}", r.color).to_lowercase(),
            r.median_ns / 1e3,
            100.0 * r.spread,
            r.samples_per_s / 1e9,
            100.0 * r.bound_fraction,
            r.copy_ratio,
            row.peer_over_wavekit
                .map_or("-".into(), |x| format!("{x:.1}x")),
            crate::bench::clock_text(r.clock, r.clock_low)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{PeerDwt, pnm_maxval};

    /// The peers' files: comment and log lines skipped, a bad record named by its line.
    #[test]
    fn pnm_maxvals_are_read_from_the_header() {
        assert_eq!(pnm_maxval(b"P5\n3 2\n255\n\x00\x01"), Some(255));
        assert_eq!(
            pnm_maxval(b"P2 # a comment\n# another\n 3 2 1000\n0 1 2"),
            Some(1000)
        );
        assert_eq!(pnm_maxval(b"P6\n1 1\n15\n"), Some(15));
        assert_eq!(pnm_maxval(b"P3\n1 1\n65535\n1 2 3"), Some(65535));
        // Not a PGM/PPM, or a header cut short or garbled: left to the decoder.
        for other in [
            &b"\x89PNG\r\n"[..],
            b"P7\nWIDTH 1\n",
            b"P5\n3 2",
            b"P5\n3 x 255",
            b"P",
            b"",
            b"P5\n99999999999 2 255",
        ] {
            assert_eq!(pnm_maxval(other), None, "{other:?}");
        }
    }

    #[test]
    fn peer_files_are_read_line_by_line() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-peer-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        let good = dir.join("good.jsonl");
        let rec = r#"{"peer": "ptwt", "size": "4k", "planes": 1, "wavelet": "9/7", "direction": "forward", "median_ns": 649000.0}"#;
        std::fs::write(&good, format!("# a note\n{rec}\n\n{rec}\n")).unwrap();
        let got = crate::bench::read_peer::<PeerDwt>(&good).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[1].peer.as_str(), got[1].median_ns), ("ptwt", 649000.0));
        let bad = dir.join("bad.jsonl");
        std::fs::write(&bad, format!("# a note\n{rec}\n{{\"peer\": 1}}\n")).unwrap();
        let e = crate::bench::read_peer::<PeerDwt>(&bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("bad.jsonl"), "{e}");
    }
}
