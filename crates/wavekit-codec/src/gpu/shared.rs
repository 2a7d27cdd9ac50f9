//! What every [`super::Decoder`] and [`super::Encoder`] on one device shares: the kernels (a
//! frame size or budget changes none of them) and a wavelet plan of each kind to resize, so that
//! a second coder of another size compiles nothing (on lavapipe a coder's pipelines took
//! seconds to build).

use std::collections::HashMap;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::{LazyLock, Mutex};

use wavekit::GpuContext;
use wavekit::prelude::{Kernel, KernelBuilder};
use wavekit_dwt::{Dwt, Wavelet};

use crate::error::Result;

#[derive(Default)]
struct Shared {
    kernels: HashMap<String, Kernel>,
    plans: HashMap<&'static str, Dwt>,
}

#[cfg(not(target_arch = "wasm32"))]
static SHARED: LazyLock<Mutex<HashMap<wgpu::Device, Shared>>> = LazyLock::new(Default::default);

// A browser's devices live on the thread that made them.
#[cfg(target_arch = "wasm32")]
thread_local! {
    static SHARED: std::cell::RefCell<HashMap<wgpu::Device, Shared>> = Default::default();
}

fn with<T>(ctx: &GpuContext, f: impl FnOnce(&mut Shared) -> Result<T>) -> Result<T> {
    #[cfg(target_arch = "wasm32")]
    return SHARED.with(|all| f(all.borrow_mut().entry(ctx.device.clone()).or_default()));
    #[cfg(not(target_arch = "wasm32"))]
    {
        let mut all = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        f(all.entry(ctx.device.clone()).or_default())
    }
}

/// The kernel `key` names, built from `builder` the first time on this device.
pub(crate) fn kernel(
    ctx: &GpuContext,
    key: &str,
    builder: impl FnOnce() -> KernelBuilder,
) -> Result<Kernel> {
    with(ctx, |s| {
        if let Some(k) = s.kernels.get(key) {
            return Ok(k.clone());
        }
        let k = builder().build(ctx)?;
        s.kernels.insert(key.to_string(), k.clone());
        Ok(k)
    })
}

/// A wavelet plan of this size, resized from the device's plan of that wavelet.
pub(crate) fn plan(
    ctx: &GpuContext,
    wavelet: Wavelet,
    (width, height, levels, planes): (u32, u32, u32, u32),
) -> Result<Dwt> {
    let name = wavekit_dwt::reference::name(wavelet);
    with(ctx, |s| {
        if let Some(base) = s.plans.get(name) {
            return Ok(base.resized(ctx, width, height, levels, planes)?);
        }
        let base = Dwt::new(ctx, wavelet, width, height, levels, planes)?;
        let out = base.resized(ctx, width, height, levels, planes)?;
        s.plans.insert(name, base);
        Ok(out)
    })
}

/// A frame's three planes in one buffer, as the coders keep them (their samples and their
/// coefficients alike): luma from element 0, the two chroma planes from `chroma_at`, a binding
/// offset the device allows for 4-byte and 2-byte elements alike, so that a kernel can bind
/// either part alone. Samples are 4 bytes; coefficients 2 where `c16`
/// ([`super::CoderPolicy::coefficients_16_bit_for`]), else 4.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planes {
    pub(crate) luma: usize,
    pub(crate) chroma_at: usize,
    pub(crate) chroma: usize,
    pub(crate) c16: bool,
}

impl Planes {
    pub(crate) fn of(ctx: &GpuContext, header: &crate::format::Header, c16: bool) -> Self {
        let [(w, h), (cw, ch), _] = header.planes();
        let align = (ctx.caps.limits.min_storage_buffer_offset_alignment.max(4) / 2) as usize;
        Self {
            luma: w * h,
            chroma_at: (w * h).next_multiple_of(align),
            chroma: 2 * cw * ch,
            c16,
        }
    }

    /// Bytes of the coefficient buffer.
    pub(crate) fn coefficient_bytes(&self) -> u64 {
        (self.len() as u64 * self.coefficient_size()).next_multiple_of(4)
    }

    fn coefficient_size(&self) -> u64 {
        if self.c16 { 2 } else { 4 }
    }

    /// [`Planes::ranges`] of the coefficient buffer `buf`, its elements 2 or 4 bytes.
    pub(crate) fn coefficient_ranges<'b>(
        &self,
        buf: &'b wgpu::Buffer,
        bindings: (u32, u32),
    ) -> [(u32, &'b wgpu::Buffer, u64, Option<u64>); 2] {
        self.ranges_of(buf, bindings, self.coefficient_size())
    }

    /// Elements the buffer holds.
    pub(crate) fn len(&self) -> usize {
        self.chroma_at + self.chroma
    }

    /// Bindings of the luma and the chroma part of `buf` (4-byte elements), for
    /// `Kernel::bind_ranges`.
    pub(crate) fn ranges<'b>(
        &self,
        buf: &'b wgpu::Buffer,
        (luma, chroma): (u32, u32),
    ) -> [(u32, &'b wgpu::Buffer, u64, Option<u64>); 2] {
        self.ranges_of(buf, (luma, chroma), 4)
    }

    /// The two parts' bindings with elements of `size` bytes, each part's length rounded up to
    /// whole words.
    fn ranges_of<'b>(
        &self,
        buf: &'b wgpu::Buffer,
        (luma, chroma): (u32, u32),
        size: u64,
    ) -> [(u32, &'b wgpu::Buffer, u64, Option<u64>); 2] {
        let bytes = |n: usize| (n as u64 * size).next_multiple_of(4);
        [
            (luma, buf, 0, Some(bytes(self.luma))),
            (
                chroma,
                buf,
                self.chroma_at as u64 * size,
                Some(bytes(self.chroma)),
            ),
        ]
    }
}

/// The fraction bits with which the frame's wavelet reads (`reading`: the encoder's picture)
/// or writes (the decoder's YCbCr output) 8-bit YCbCr itself ([`wavelet_of_bytes`]), where the
/// codec's map between samples and planes is the wavelet's fixed point: lossless YCbCr, the
/// samples less 128 (0 bits); lossy full range, `(v − 128) << FRAC_BITS` and back rounded at
/// those bits, clamped (`cpu::color`'s sample_to_plane and plane_to_sample), which also gives
/// the YCbCr output of a lossy RGB frame. None where a colour kernel must run: RGB in, the
/// RCT's YCbCr out, limited range (a scaled map), or no levels.
pub(crate) fn byte_fraction_bits(header: &crate::format::Header, reading: bool) -> Option<u32> {
    use crate::format::{FRAC_BITS, Source};
    if header.levels == 0 {
        return None;
    }
    match (header.lossless, header.source) {
        (true, Source::Rgb) => None,
        (true, _) => Some(0),
        (false, Source::YcbcrFull) => Some(FRAC_BITS),
        (false, Source::Rgb) if !reading => Some(FRAC_BITS),
        (false, _) => None,
    }
}

/// The frame's wavelet bound to its 8-bit YCbCr picture in `bytes` (planar, each plane from a
/// word boundary: `format::planar_offsets`) and its coefficients (laid out as [`Planes`]),
/// with `frac` fraction bits ([`byte_fraction_bits`]): the forward reads the picture, the
/// inverse writes it, in place of the colour kernels.
pub(crate) fn wavelet_of_bytes(
    ctx: &GpuContext,
    header: &crate::format::Header,
    planes: &Planes,
    (bytes, coeffs): (&wgpu::Buffer, &wgpu::Buffer),
    (sels, frac): (bool, u32),
) -> Result<wavekit_dwt::BoundDwt> {
    let dims = header.planes();
    let [(w, h), (cw, ch), _] = dims;
    let wavelet = crate::cpu::wavelet_of(header);
    let levels = u32::from(header.levels);
    let luma = plan(ctx, wavelet, (w as u32, h as u32, levels, 1))?.with_fraction_bits(frac)?;
    let chroma = plan(ctx, wavelet, (cw as u32, ch as u32, levels, 2))?.with_fraction_bits(frac)?;
    let joint = wavekit_dwt::JointDwt::new(&luma, &chroma, ctx, planes.chroma_at as u32)?
        .with_buffers_at_run_time(sels)
        .with_16_bit_coefficients(planes.c16)?;
    let at = crate::format::planar_offsets(dims);
    let places = [
        wavekit_dwt::BytePlanes {
            first: at[0] as u32,
            stride: (w * h) as u32,
        },
        wavekit_dwt::BytePlanes {
            first: at[1] as u32,
            stride: (at[2] - at[1]) as u32,
        },
    ];
    Ok(joint.bind_bytes(ctx, bytes, coeffs, places)?)
}

/// The frame's wavelet, bound to its planes and coefficients (both laid out as [`Planes`]): one
/// joint transform of the luma and the chroma planes, whose levels of one size share a
/// dispatch (a 4:2:0 frame's luma level l + 1 with its chroma level l; a 4:4:4 frame's three
/// planes at each level: ADR-0105); its buffers chosen at run time where `sels` says.
pub(crate) fn wavelet(
    ctx: &GpuContext,
    header: &crate::format::Header,
    planes: &Planes,
    (image, coeffs): (&wgpu::Buffer, &wgpu::Buffer),
    sels: bool,
) -> Result<wavekit_dwt::BoundDwt> {
    let [(w, h), (cw, ch), _] = header.planes();
    let wavelet = crate::cpu::wavelet_of(header);
    let levels = u32::from(header.levels);
    let luma = plan(ctx, wavelet, (w as u32, h as u32, levels, 1))?;
    let chroma = plan(ctx, wavelet, (cw as u32, ch as u32, levels, 2))?;
    let joint = wavekit_dwt::JointDwt::new(&luma, &chroma, ctx, planes.chroma_at as u32)?
        .with_buffers_at_run_time(sels)
        .with_16_bit_coefficients(planes.c16)?;
    Ok(joint.bind_separate(ctx, image, coeffs)?)
}
