//! The codec on the GPU, each kernel beside its CPU twin by name: `block.wgsl` decodes a
//! code block as `cpu/block.rs` does, `color.wgsl` turns YCbCr into RGB as `cpu/color.rs`
//! does, and the inverse wavelet between them is `wavekit-dwt`'s fixed-point 9/7, which
//! `wavekit_dwt::sim` (the CPU's) equals bit for bit. So a frame decoded here equals the CPU's
//! [`crate::cpu::decode`] pixel for pixel, damaged blocks included.
//!
//! A [`Decoder`] is built once for a frame size and format; per frame it uploads the bytes and
//! records three stages into the caller's encoder (blocks, inverse wavelet, colour), with no
//! allocation. The [`Encoder`] (encoder.rs) runs the other direction, its bytes the CPU
//! encoder's.

use wavekit::GpuContext;
use wavekit::prelude::{Kernel, KernelBuilder, WgslSource};
use wavekit_dwt::BoundDwt;

use crate::cpu::{DecodeReport, step_of};
use crate::error::{CodecError, Result};
use crate::format::{Chroma, Header, Layout};

/// The codec's WGSL files.
pub static SOURCES: &[WgslSource] = &[
    wavekit::wgsl_source!("codec/block", "block.wgsl"),
    wavekit::wgsl_source!("codec/block_sg", "block_sg.wgsl"),
    wavekit::wgsl_source!("codec/color", "color.wgsl"),
    wavekit::wgsl_source!("codec/color_forward", "color_forward.wgsl"),
    wavekit::wgsl_source!("codec/block_encode", "block_encode.wgsl"),
    wavekit::wgsl_source!("codec/block_encode_sg", "block_encode_sg.wgsl"),
    wavekit::wgsl_source!("codec/rate", "rate.wgsl"),
    wavekit::wgsl_source!("codec/pack", "pack.wgsl"),
    wavekit::wgsl_source!("codec/scan", "scan.wgsl"),
    wavekit::wgsl_source!("codec/layout", "layout.wgsl"),
    wavekit::wgsl_source!("codec/bits", "bits.wgsl"),
    wavekit::wgsl_source!("codec/read", "read.wgsl"),
    wavekit::wgsl_source!("codec/words", "words.wgsl"),
    wavekit::wgsl_source!("codec/ycbcr", "ycbcr.wgsl"),
    wavekit::wgsl_source!("codec/half", "half.wgsl"),
];

mod encoder;
mod queue;
mod shared;
pub mod sim;
pub use crate::format::YcbcrImage;
pub use encoder::{Encoder, SG_BLOCKS, kernels as encoder_kernels};
pub use queue::EncodeQueue;

/// How the block coders use the device: a tuning policy, as CUB's. Every policy gives the same
/// bytes and pixels; only the speed differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoderPolicy {
    /// Invocations of the workgroup that encodes one block: a power of two from 64 to 512
    /// (default 256).
    pub encode_workgroup: u32,
    /// Invocations of the workgroup that decodes one block: a power of two from 64 to 512
    /// (default 512: 7 % faster than 256 on the H200, ADR-0076; [`CoderPolicy::for_device`]
    /// takes less where a device runs fewer in a workgroup).
    pub decode_workgroup: u32,
    /// The block encoder (default [`BlockKernel::Subgroup`] where the device allows it).
    pub encoder: BlockKernel,
    /// The block decoder (default [`BlockKernel::Subgroup`] where the device allows it).
    pub decoder: BlockKernel,
    /// The wavelet's buffers chosen at run time (one level pipeline a direction and tile shape,
    /// `JointDwt::with_buffers_at_run_time`) or compiled into each step's pipeline. `None`: at
    /// run time on software adapters, where compiling pipelines is what costs (ADR-0105),
    /// compiled in on GPUs (the form timed there). The same bytes and pixels either way.
    pub wavelet_buffers_at_run_time: Option<bool>,
    /// The coefficients kept as 16-bit integers, two to a word, where the frame allows it
    /// ([`CoderPolicy::coefficients_16_bit_for`]; default off): half the coefficient buffer
    /// and half the traffic of the wavelet and the block coders over it. Timed on an H100 it
    /// did not pay: encoding within 2 % of 32 bits, decoding 1–6 % slower (ADR-0108). The
    /// same bytes and pixels either way.
    pub coefficients_16_bit: bool,
}

/// Which kernel codes the blocks, each way. Every choice writes the same bytes and pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockKernel {
    /// One subgroup a block, a row a lane (`block_encode_sg.wgsl`, `block_sg.wgsl`), where
    /// the device's subgroups have one fixed width of at most 32 lanes; elsewhere (no
    /// subgroups, a width that varies or exceeds 32) the workgroup kernel runs instead.
    #[default]
    Subgroup,
    /// One workgroup a block (`block_encode.wgsl`, `block.wgsl`) of
    /// [`CoderPolicy::encode_workgroup`] or [`CoderPolicy::decode_workgroup`] invocations,
    /// on any device.
    Workgroup,
}

impl Default for CoderPolicy {
    fn default() -> Self {
        Self {
            encode_workgroup: 256,
            decode_workgroup: 512,
            encoder: BlockKernel::Subgroup,
            decoder: BlockKernel::Subgroup,
            wavelet_buffers_at_run_time: None,
            coefficients_16_bit: false,
        }
    }
}

impl CoderPolicy {
    /// An error unless the policy can be built.
    pub fn check(&self) -> Result<()> {
        for (what, w, most) in [
            ("an encode", self.encode_workgroup, 512),
            ("a decode", self.decode_workgroup, 512),
        ] {
            if !(64..=most).contains(&w) || !w.is_power_of_two() {
                return Err(CodecError::InvalidArgument(format!(
                    "{what} workgroup of {w} invocations: give a power of two from 64 to {most}"
                )));
            }
        }
        Ok(())
    }

    /// The default policy within what `ctx`'s device takes: a device that runs fewer than 512
    /// invocations in a workgroup (WebGPU's default limit is 256) decodes with its most.
    pub fn for_device(ctx: &GpuContext) -> Self {
        let most = ctx.device.limits().max_compute_invocations_per_workgroup;
        let fit = |w: u32| {
            if w > most {
                prev_power_of_two(most).max(64)
            } else {
                w
            }
        };
        let d = Self::default();
        Self {
            encode_workgroup: fit(d.encode_workgroup),
            decode_workgroup: fit(d.decode_workgroup),
            encoder: d.encoder,
            decoder: d.decoder,
            wavelet_buffers_at_run_time: d.wavelet_buffers_at_run_time,
            coefficients_16_bit: d.coefficients_16_bit,
        }
    }

    /// Whether coders of `header`'s frames keep 16-bit coefficients: where the policy asks for
    /// them ([`CoderPolicy::coefficients_16_bit`]) and the frame allows them: its
    /// coefficients saturate ([`Header::coefficients_saturate`], so they fit), it has at least
    /// one level, and its luma and chroma bands fill whole words
    /// ([`wavekit_dwt::bands_fill_whole_words`]: widths multiples of 2^(levels + 1)). 1080p,
    /// 1440p and 4K at 5 levels qualify, at 4:2:0 and 4:4:4.
    pub fn coefficients_16_bit_for(&self, header: &Header) -> bool {
        let levels = u32::from(header.levels);
        let [(w, _), (cw, _), _] = header.planes();
        self.coefficients_16_bit
            && header.coefficients_saturate()
            && levels > 0
            && [w, cw]
                .iter()
                .all(|&x| wavekit_dwt::bands_fill_whole_words(x as u32, levels))
    }

    /// Whether the wavelet takes its buffers at run time on `ctx`'s device (see
    /// [`CoderPolicy::wavelet_buffers_at_run_time`]).
    pub fn wavelet_sels(&self, ctx: &GpuContext) -> bool {
        self.wavelet_buffers_at_run_time
            .unwrap_or(ctx.summary.software)
    }

    /// The subgroup width the block encoder is built for on `caps`' device: `Some(width)`
    /// where the policy asks for [`BlockKernel::Subgroup`] and the device's subgroups have
    /// one width of at most 32 lanes; `None` where the workgroup encoder runs.
    pub fn encode_lanes(&self, caps: &wavekit::SubgroupCaps) -> Option<u32> {
        lanes(self.encoder, caps)
    }

    /// [`CoderPolicy::encode_lanes`] for the block decoder.
    pub fn decode_lanes(&self, caps: &wavekit::SubgroupCaps) -> Option<u32> {
        lanes(self.decoder, caps)
    }

    /// [`CoderPolicy::check`], and an error where `ctx`'s device cannot run its workgroups.
    pub fn check_for(&self, ctx: &GpuContext) -> Result<()> {
        self.check()?;
        let most = ctx.device.limits().max_compute_invocations_per_workgroup;
        let widest = self.encode_workgroup.max(self.decode_workgroup);
        if widest > most {
            return Err(CodecError::InvalidArgument(format!(
                "a workgroup of {widest} invocations: this device runs at most {most}; give a \
                 smaller CoderPolicy (CoderPolicy::for_device picks one)"
            )));
        }
        Ok(())
    }
}

fn lanes(kernel: BlockKernel, caps: &wavekit::SubgroupCaps) -> Option<u32> {
    (kernel == BlockKernel::Subgroup
        && caps.supported
        && caps.min_size == caps.max_size
        && caps.max_size.is_power_of_two()
        && caps.max_size <= 32)
        .then_some(caps.max_size)
}

fn prev_power_of_two(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        1 << (31 - x.leading_zeros())
    }
}

/// The block decoder's kernel for `policy` and `header`'s frames, and the name it is shared by
/// on a device: the subgroup decoder for subgroups of `lanes` lanes
/// ([`CoderPolicy::decode_lanes`]), or the workgroup decoder; saturating as the header says,
/// writing 16-bit coefficients where [`CoderPolicy::coefficients_16_bit_for`] says.
pub fn block_kernel_of(
    policy: &CoderPolicy,
    header: &Header,
    lanes: Option<u32>,
) -> (String, KernelBuilder) {
    let c16 = policy.coefficients_16_bit_for(header);
    let saturate = header.coefficients_saturate();
    let (name, builder) = match lanes {
        Some(lanes) => (
            format!("block_sg {lanes} c16 {c16} saturate {saturate}"),
            KernelBuilder::new("codec/block_sg", SOURCES)
                .workgroup_size(lanes)
                .constant("LANES", lanes)
                .constant("ROWS", 32 / lanes),
        ),
        None => (
            format!(
                "block {} c16 {c16} saturate {saturate}",
                policy.decode_workgroup
            ),
            KernelBuilder::new("codec/block", SOURCES).workgroup_size(policy.decode_workgroup),
        ),
    };
    (
        name,
        builder.constant("C16", c16).constant("SATURATE", saturate),
    )
}

/// What a [`Decoder`] writes: RGB, or YCbCr samples at the frame's sampling and its source's
/// range (what a `.y4m` stream takes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// `R | G << 8 | B << 16 | 255 << 24` a pixel.
    #[default]
    Rgb,
    /// `Y | Cb << 8 | Cr << 16` a pixel, the pixel's chroma samples (repeated over a 2 × 2 block
    /// at 4:2:0).
    Ycbcr,
}

/// The colour kernel (one invocation a pixel) and the name it is shared by on a device.
pub fn color_kernel(header: &Header, output: Output) -> (String, KernelBuilder) {
    (
        format!(
            "color {:?} {} {:?} {output:?}",
            header.chroma, header.lossless, header.source
        ),
        KernelBuilder::new("codec/color", SOURCES)
            .workgroup_size(256)
            .constant("CHROMA_420", header.chroma == Chroma::Yuv420)
            .constant("LOSSLESS", header.lossless)
            .constant("SOURCE", u32::from(header.source.byte()))
            .constant("YCBCR_OUT", output == Output::Ycbcr),
    )
}

/// Largest frame the decoder and encoder take: bit positions must fit in 32 bits.
pub const MAX_FRAME_BYTES: usize = 1 << 29;

/// The block table the block kernels read: four words a block (see block.wgsl).
fn block_table(header: &Header, layout: &Layout) -> Vec<u32> {
    let dims = header.planes();
    let mut t = Vec::with_capacity(4 * layout.blocks.len());
    for b in &layout.blocks {
        let band = &layout.bands[b.band];
        let (pw, ph) = dims[band.plane];
        let mut base = (b.y * pw + b.x) as u32;
        if band.plane == 2 {
            base += (pw * ph) as u32;
        }
        if band.plane > 0 {
            base |= 1 << 31;
        }
        t.extend([
            base,
            pw as u32,
            (b.width | b.height << 16) as u32,
            step_of(header, band),
        ]);
    }
    t
}

/// Words of the decoder's planar YCbCr output (color.wgsl, YCBCR_OUT).
fn planar_words(header: &Header) -> usize {
    crate::format::planar_offsets(header.planes())[3] / 4
}

/// A GPU decoder for frames of one size and format.
pub struct Decoder {
    header: Header,
    blocks: u32,
    overhead: usize,
    capacity: usize,
    frame: wgpu::Buffer,
    params: wgpu::Buffer,
    damaged: wgpu::Buffer,
    rgba: wgpu::Buffer,
    block: (Kernel, wgpu::BindGroup),
    /// The colour kernel, where one runs: none where the inverse wavelet writes the YCbCr
    /// output itself (`shared::byte_fraction_bits`).
    color: Option<(Kernel, wgpu::BindGroup)>,
    output: Output,
    dwt: BoundDwt,
    // The block table (its bands' steps follow the frames' base step) and the layout it is
    // made from; the step it holds now, as f32 bits.
    table: wgpu::Buffer,
    layout: Layout,
    table_step: std::sync::atomic::AtomicU32,
    // The buffers the bind groups and bound transforms hold.
    _keep: [wgpu::Buffer; 3],
}

impl Decoder {
    /// A decoder to RGB for frames laid out as `header` says (size, chroma, levels, mode,
    /// source), of at most `capacity` bytes.
    pub fn new(ctx: &GpuContext, header: &Header, capacity: usize) -> Result<Self> {
        Self::with_output(ctx, header, capacity, Output::Rgb)
    }

    /// A decoder that writes `output` (RGB, or YCbCr samples).
    pub fn with_output(
        ctx: &GpuContext,
        header: &Header,
        capacity: usize,
        output: Output,
    ) -> Result<Self> {
        Self::with_policy(ctx, header, capacity, output, &CoderPolicy::for_device(ctx))
    }

    /// A decoder that writes `output`, its block kernel laid out by `policy`.
    pub fn with_policy(
        ctx: &GpuContext,
        header: &Header,
        capacity: usize,
        output: Output,
        policy: &CoderPolicy,
    ) -> Result<Self> {
        header.check()?;
        policy.check_for(ctx)?;
        if capacity > MAX_FRAME_BYTES {
            return Err(CodecError::InvalidArgument(format!(
                "a frame capacity of {capacity} bytes: the GPU decoder takes at most \
                 {MAX_FRAME_BYTES}"
            )));
        }
        let layout = Layout::of(header);
        let [(w, h), (cw, ch), _] = header.planes();
        let table = block_table(header, &layout);
        let table = ctx.storage_from("codec block table", &table)?;
        // The coefficients, and the planes the inverse wavelet writes apart from them (no
        // whole-plane copy, as in place would take), each buffer luma then chroma.
        // Where the inverse wavelet writes 8-bit YCbCr itself, it needs no planes.
        let planes = shared::Planes::of(ctx, header, policy.coefficients_16_bit_for(header));
        let to_bytes = match output {
            Output::Ycbcr => shared::byte_fraction_bits(header, false),
            Output::Rgb => None,
        };
        let coeffs = ctx.storage_uninit("codec coefficients", planes.coefficient_bytes())?;
        let image_len = if to_bytes.is_some() { 4 } else { planes.len() };
        let image = ctx.storage_uninit("codec planes", image_len as u64 * 4)?;
        let frame = ctx.storage_uninit("codec frame", capacity.next_multiple_of(4) as u64)?;
        let damaged = ctx.storage_uninit("codec damaged blocks", layout.blocks.len() as u64 * 4)?;
        // One word a pixel (RGB), or the planar YCbCr output (more words than pixels only for
        // the smallest frames).
        let rgba =
            ctx.storage_uninit("codec rgba", ((w * h).max(planar_words(header)) * 4) as u64)?;
        let params = ctx.uniform_from("codec block params", &[0u32; 4])?;
        let color_params = ctx.uniform_from(
            "codec colour params",
            &[w as u32, h as u32, cw as u32, (cw * ch) as u32],
        )?;
        let sels = policy.wavelet_sels(ctx);
        let dwt = match to_bytes {
            Some(frac) => {
                shared::wavelet_of_bytes(ctx, header, &planes, (&rgba, &coeffs), (sels, frac))?
            }
            None => shared::wavelet(ctx, header, &planes, (&image, &coeffs), sels)?,
        };
        let (block_name, block_builder) =
            block_kernel_of(policy, header, policy.decode_lanes(&ctx.caps.subgroups));
        let block_k = shared::kernel(ctx, &block_name, || block_builder)?;
        let [luma, chroma] = planes.coefficient_ranges(&coeffs, (2, 3));
        let block_b = block_k.bind_ranges(
            ctx,
            &[
                (0, &frame, 0, None),
                (1, &table, 0, None),
                luma,
                chroma,
                (4, &damaged, 0, None),
                (5, &params, 0, None),
            ],
        )?;
        let color = if to_bytes.is_some() {
            None
        } else {
            let (name, builder) = color_kernel(header, output);
            let color_k = shared::kernel(ctx, &name, || builder)?;
            let [luma_img, chroma_img] = planes.ranges(&image, (0, 1));
            let color_b = color_k.bind_ranges(
                ctx,
                &[
                    luma_img,
                    chroma_img,
                    (2, &rgba, 0, None),
                    (3, &color_params, 0, None),
                ],
            )?;
            Some((color_k, color_b))
        };
        Ok(Self {
            header: *header,
            blocks: layout.blocks.len() as u32,
            overhead: layout.overhead(),
            capacity,
            frame,
            params,
            damaged,
            rgba,
            block: (block_k, block_b),
            color,
            output,
            dwt,
            table,
            layout,
            table_step: std::sync::atomic::AtomicU32::new(header.step.to_bits()),
            _keep: [coeffs, image, color_params],
        })
    }

    /// The frame layout this decoder was built for.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The decoded frame after [`Decoder::record`], rows top to bottom: for RGB output one
    /// `u32` a pixel, `R | G << 8 | B << 16 | 255 << 24` (RGBA8 in memory); for YCbCr output
    /// the 8-bit planes, Y then Cb then Cr, each from a 4-byte boundary.
    pub fn output(&self) -> &wgpu::Buffer {
        &self.rgba
    }

    /// Put a frame's bytes where [`Decoder::record`] reads them. Fails, with nothing written,
    /// on a frame whose header is not a frame's, or another size or format than the
    /// decoder's, or that is shorter than its block table or longer than the capacity.
    pub fn upload(&self, ctx: &GpuContext, bytes: &[u8]) -> Result<Header> {
        let h = Header::parse(bytes)?;
        let same = (h.width, h.height, h.chroma, h.levels, h.lossless, h.source)
            == (
                self.header.width,
                self.header.height,
                self.header.chroma,
                self.header.levels,
                self.header.lossless,
                self.header.source,
            );
        if !same {
            let mode = |l: bool| if l { "lossless" } else { "lossy" };
            return Err(CodecError::InvalidArgument(format!(
                "a {} x {} {:?} {} frame of {} levels from {:?}, for a decoder of {} x {} {:?} \
                 {} frames of {} from {:?}: build a decoder for this format",
                h.width,
                h.height,
                h.chroma,
                mode(h.lossless),
                h.levels,
                h.source,
                self.header.width,
                self.header.height,
                self.header.chroma,
                mode(self.header.lossless),
                self.header.levels,
                self.header.source
            )));
        }
        if bytes.len() < self.overhead {
            return Err(CodecError::Bitstream(format!(
                "{} bytes: its header and block table alone take {}",
                bytes.len(),
                self.overhead
            )));
        }
        if bytes.len() > self.capacity {
            return Err(CodecError::InvalidArgument(format!(
                "a frame of {} bytes, for a decoder of at most {}",
                bytes.len(),
                self.capacity
            )));
        }
        // The frame's base step (it follows the budget, cpu::base_step): the bands' steps in
        // the block table are rewritten where it differs from the last frame's.
        use std::sync::atomic::Ordering;
        if self.table_step.swap(h.step.to_bits(), Ordering::Relaxed) != h.step.to_bits() {
            let table = block_table(&h, &self.layout);
            ctx.queue
                .write_buffer(&self.table, 0, bytemuck::cast_slice(&table));
        }
        let mut padded = bytes.to_vec();
        padded.resize(bytes.len().next_multiple_of(4), 0);
        ctx.queue.write_buffer(&self.frame, 0, &padded);
        let p = [bytes.len() as u32, self.blocks, self.overhead as u32, 0];
        ctx.queue
            .write_buffer(&self.params, 0, bytemuck::cast_slice(&p));
        Ok(h)
    }

    /// Record the decode of the uploaded frame into `enc`: blocks to coefficients, the inverse
    /// wavelet, colour to [`Decoder::output`].
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        self.record_until(enc, 3);
    }

    /// Record the first stages only, for measurement: 1 the blocks, 2 and the inverse wavelet,
    /// 3 all.
    #[doc(hidden)]
    pub fn record_until(&self, enc: &mut wgpu::CommandEncoder, stages: u32) {
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            self.block.0.dispatch(&mut pass, &self.block.1, self.blocks);
        }
        if stages < 2 {
            return;
        }
        self.dwt.record_inverse(enc);
        if stages < 3 {
            return;
        }
        // Without a colour kernel the inverse wavelet wrote the output.
        let Some((kernel, bind)) = &self.color else {
            return;
        };
        let words = self.output_words() as u32;
        let mut pass = enc.begin_compute_pass(&Default::default());
        kernel.dispatch(&mut pass, bind, words.div_ceil(256));
    }

    /// Decode `bytes` on the GPU and read the frame back: 8-bit RGB and what was damaged, as
    /// [`crate::cpu::decode`] gives them.
    pub fn decode(&self, ctx: &GpuContext, bytes: &[u8]) -> Result<(Vec<u8>, DecodeReport)> {
        if self.output != Output::Rgb {
            return Err(CodecError::InvalidArgument(
                "decode() of a decoder built for YCbCr output: call decode_ycbcr()".into(),
            ));
        }
        self.run(ctx, bytes, |words| {
            let mut rgb = vec![0u8; 3 * words.len()];
            for (o, p) in rgb.chunks_exact_mut(3).zip(words) {
                o.copy_from_slice(&p.to_le_bytes()[..3]);
            }
            rgb
        })
    }

    /// Decode `bytes` on the GPU to 8-bit YCbCr, as [`crate::cpu::decode_ycbcr`] gives it (the
    /// decoder built with [`Output::Ycbcr`]).
    pub fn decode_ycbcr(
        &self,
        ctx: &GpuContext,
        bytes: &[u8],
    ) -> Result<(crate::format::YcbcrImage, DecodeReport)> {
        if self.output != Output::Ycbcr {
            return Err(CodecError::InvalidArgument(
                "decode_ycbcr() of a decoder built for RGB output: build it with Output::Ycbcr"
                    .into(),
            ));
        }
        let hdr = &self.header;
        let sizes = hdr.planes();
        let at = crate::format::planar_offsets(sizes);
        // The planes as the GPU wrote them (each from a word boundary), copied straight from
        // the mapped read-back.
        let (planes, report) = self.run(ctx, bytes, |words| {
            let b: &[u8] = bytemuck::cast_slice(words);
            std::array::from_fn(|k| b[at[k]..at[k] + sizes[k].0 * sizes[k].1].to_vec())
        })?;
        let img = crate::format::YcbcrImage {
            width: hdr.width,
            height: hdr.height,
            chroma: hdr.chroma,
            limited: hdr.source == crate::format::Source::YcbcrLimited,
            planes,
        };
        Ok((img, report))
    }

    /// [`Decoder::decode`] as a future, for the web (where a read-back cannot block): 8-bit RGB
    /// and what was damaged.
    pub async fn decode_async(
        &self,
        ctx: &GpuContext,
        bytes: &[u8],
    ) -> Result<(Vec<u8>, DecodeReport)> {
        if self.output != Output::Rgb {
            return Err(CodecError::InvalidArgument(
                "decode_async() of a decoder built for YCbCr output: build it with Output::Rgb"
                    .into(),
            ));
        }
        self.upload(ctx, bytes)?;
        ctx.submit_checked("decoding a frame", |enc| self.record(enc))?;
        let pixels = (self.header.width * self.header.height) as usize;
        let words = ctx.read_back_async::<u32>("codec output", &self.rgba, pixels);
        let flags =
            ctx.read_back_async::<u32>("codec damaged", &self.damaged, self.blocks as usize);
        let (words, flags) = (words.await?, flags.await?);
        let report = DecodeReport {
            damaged: (0..flags.len()).filter(|&i| flags[i] != 0).collect(),
            blocks: flags.len(),
        };
        let mut rgb = Vec::with_capacity(3 * words.len());
        for p in words {
            rgb.extend_from_slice(&p.to_le_bytes()[..3]);
        }
        Ok((rgb, report))
    }

    /// Words of [`Decoder::output`]: one a pixel (RGB), or the planar YCbCr's.
    fn output_words(&self) -> usize {
        match self.output {
            Output::Rgb => (self.header.width * self.header.height) as usize,
            Output::Ycbcr => planar_words(&self.header),
        }
    }

    /// Upload and decode; `f` of the output words where the read-back left them (the
    /// context's mapped staging memory: no copy of the frame's words between), and the damage
    /// report.
    fn run<R>(
        &self,
        ctx: &GpuContext,
        bytes: &[u8],
        f: impl FnOnce(&[u32]) -> R,
    ) -> Result<(R, DecodeReport)> {
        self.upload(ctx, bytes)?;
        ctx.submit_checked("decoding a frame", |enc| self.record(enc))?;
        let flags: Vec<u32> =
            ctx.read_back("codec damaged", &self.damaged, self.blocks as usize)?;
        let report = DecodeReport {
            damaged: (0..flags.len()).filter(|&i| flags[i] != 0).collect(),
            blocks: flags.len(),
        };
        let out = ctx.read_back_with("codec output", &self.rgba, self.output_words(), f)?;
        Ok((out, report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The subgroup kernels run only where the width is fixed, a power of two and at most
    /// 32 lanes, and where the policy asks for them.
    #[test]
    fn subgroup_kernels_where_the_width_is_fixed_and_at_most_32() {
        let caps = |supported, min_size, max_size| wavekit::SubgroupCaps {
            supported,
            min_size,
            max_size,
        };
        let policy = CoderPolicy::default();
        for w in [1, 2, 4, 8, 16, 32] {
            assert_eq!(policy.encode_lanes(&caps(true, w, w)), Some(w));
            assert_eq!(policy.decode_lanes(&caps(true, w, w)), Some(w));
        }
        for (supported, lo, hi) in [
            (true, 64, 64),
            (true, 128, 128),
            (true, 8, 32),
            (false, 32, 32),
        ] {
            assert_eq!(policy.encode_lanes(&caps(supported, lo, hi)), None);
            assert_eq!(policy.decode_lanes(&caps(supported, lo, hi)), None);
        }
        let workgroup = CoderPolicy {
            encoder: BlockKernel::Workgroup,
            decoder: BlockKernel::Workgroup,
            ..Default::default()
        };
        assert_eq!(workgroup.encode_lanes(&caps(true, 32, 32)), None);
        assert_eq!(workgroup.decode_lanes(&caps(true, 32, 32)), None);
    }

    /// 16-bit coefficients where the frame's coefficients saturate and its widths halve
    /// evenly at every level, and the policy asks for them.
    #[test]
    fn sixteen_bit_coefficients_where_the_frame_allows_them() {
        use crate::format::Source;
        let header = |(width, height), chroma, levels, lossless, source| Header {
            width,
            height,
            chroma,
            levels,
            step: 0.25,
            lossless,
            source,
        };
        let on = CoderPolicy {
            coefficients_16_bit: true,
            ..Default::default()
        };
        let off = CoderPolicy::default();
        for size in [(1920, 1080), (2560, 1440), (3840, 2160)] {
            for chroma in [Chroma::Yuv420, Chroma::Yuv444] {
                for source in [Source::Rgb, Source::YcbcrFull] {
                    let h = header(size, chroma, 5, false, source);
                    assert!(on.coefficients_16_bit_for(&h), "{h:?}");
                    assert!(!off.coefficients_16_bit_for(&h), "{h:?}");
                    assert!(h.coefficients_saturate());
                }
                for (lossless, source) in [(false, Source::YcbcrLimited), (true, Source::Rgb)] {
                    let h = header(size, chroma, 5, lossless, source);
                    assert!(!on.coefficients_16_bit_for(&h), "{h:?}");
                    assert!(!h.coefficients_saturate());
                }
            }
        }
        // 1366 = 2 · 683: its bands' widths turn odd at the second level.
        let h = header((1366, 768), Chroma::Yuv420, 5, false, Source::Rgb);
        assert!(!on.coefficients_16_bit_for(&h) && h.coefficients_saturate());
        // 4:2:0 chroma 960 wide takes 5 levels (64 · 15), not 6.
        let h = header((1920, 1080), Chroma::Yuv420, 6, false, Source::Rgb);
        assert!(!on.coefficients_16_bit_for(&h));
        let h = header((1920, 1080), Chroma::Yuv420, 0, false, Source::Rgb);
        assert!(!on.coefficients_16_bit_for(&h));
    }

    #[test]
    fn kernels_validate_with_and_without_subgroups() {
        for w in [0, 32, 96, 1024] {
            let policy = CoderPolicy {
                encode_workgroup: 256,
                decode_workgroup: w,
                ..Default::default()
            };
            assert!(policy.check().is_err());
        }
        let policy = CoderPolicy {
            encode_workgroup: 1024,
            decode_workgroup: 256,
            ..Default::default()
        };
        assert!(policy.check().unwrap_err().to_string().contains("encode"));
        let powers: Vec<u32> = [0, 1, 255, 256, 300, 1024].map(prev_power_of_two).to_vec();
        assert_eq!(powers, [0, 1, 128, 256, 256, 1024]);
        use crate::format::Source;
        for (chroma, lossless, source) in [
            (Chroma::Yuv420, false, Source::Rgb),
            (Chroma::Yuv444, false, Source::Rgb),
            (Chroma::Yuv444, true, Source::Rgb),
            (Chroma::Yuv420, false, Source::YcbcrLimited),
            (Chroma::Yuv420, true, Source::YcbcrFull),
        ] {
            let h = Header {
                width: 64,
                height: 64,
                chroma,
                levels: 3,
                step: 0.25,
                lossless,
                source,
            };
            for output in [Output::Rgb, Output::Ycbcr] {
                color_kernel(&h, output).1.check().unwrap();
            }
            for w in [64, 256] {
                let policy = CoderPolicy {
                    encode_workgroup: w,
                    decode_workgroup: w,
                    ..Default::default()
                };
                for c16 in [true, false] {
                    let policy = CoderPolicy {
                        coefficients_16_bit: c16,
                        ..policy
                    };
                    for lanes in [None, Some(1), Some(4), Some(32)] {
                        for (_, k) in encoder_kernels(&h, &policy, lanes) {
                            k.check().unwrap();
                        }
                        block_kernel_of(&policy, &h, lanes).1.check().unwrap();
                    }
                }
            }
        }
    }
}
