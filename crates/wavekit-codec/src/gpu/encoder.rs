//! The GPU encoder: the same bytes as [`crate::cpu::encode`], stage by stage on its twins:
//! `color_forward.wgsl` (`cpu/color.rs`), the fixed-point 9/7 (`wavekit_dwt::sim`),
//! `block_encode.wgsl` or `block_encode_sg.wgsl` (`cpu/block.rs`: quantization, the bit-plane
//! codes, every truncation's size, the planes' keys, and the histogram of the planes' bytes by
//! key), then the rate control and the frame's bytes in two dispatches (`cpu/rate.rs`, split
//! over tiles of blocks as `sim::place_in_tiles` does): `rate.wgsl` (the threshold θ from the
//! histogram, each block's planes above it and ties, the tiles' totals) and `pack.wgsl` (each
//! tile from the totals before it: the planes sent, the offsets, the header, the offset table
//! and the payloads, block by block).

use wavekit::GpuContext;
use wavekit::prelude::{Kernel, KernelBuilder};
use wavekit_dwt::BoundDwt;

use super::{CoderPolicy, SOURCES, block_table};
use crate::cpu::{EncodeConfig, EncodeStats};
use crate::error::{CodecError, Result};
use crate::format::{Header, Source, YcbcrImage};

/// Words of a block's bit string (24 planes of at most 1049 bits, the count's 21 and k's 4
/// included, and 1024 signs: 26200 bits, with room to spare) and of its record; the kernels get
/// these (and KEY_BINS) as constants.
const STRIDE: u64 = 832;
const RECORD: u64 = 64;
const KEY_BINS: u64 = crate::cpu::block::KEY_BINS as u64;
/// Bytes of the largest payload a block can have (26200 bits and the 2 bytes of P and n).
const MAX_PAYLOAD: u64 = 2 + 26200 / 8;

/// Blocks a workgroup of the rate control's two kernels (`rate.wgsl`, `pack.wgsl`): fewer than
/// their 256 invocations, so that the payloads' copy has several invocations a block. Of 16,
/// 32, 64 and 128, 32 was the fastest over 1080p to 4K, 4:2:0 and 4:4:4 (ADR-0095).
const RATE_TILE: u32 = 32;

fn builder(entry: &str) -> KernelBuilder {
    KernelBuilder::new(entry, SOURCES)
        .workgroup_size(256)
        .constant("STRIDE", STRIDE as u32)
        .constant("RECORD", RECORD as u32)
        .constant("KEY_BINS", KEY_BINS as u32)
}

/// Blocks a workgroup of the subgroup block encoder (`block_encode_sg.wgsl`).
pub const SG_BLOCKS: u32 = 2;

/// The block encoder's kernel and name: the subgroup encoder for subgroups of `lanes` lanes
/// ([`CoderPolicy::encode_lanes`]), or the workgroup encoder; reading 16-bit coefficients
/// where `c16` says ([`CoderPolicy::coefficients_16_bit_for`]).
fn block_kernel(policy: &CoderPolicy, lanes: Option<u32>, c16: bool) -> (String, KernelBuilder) {
    match lanes {
        Some(lanes) => (
            format!("block_encode_sg {lanes} c16 {c16}"),
            builder("codec/block_encode_sg")
                .workgroup_size(lanes * SG_BLOCKS)
                .constant("LANES", lanes)
                .constant("ROWS", 32 / lanes)
                .constant("BPW", SG_BLOCKS)
                .constant("C16", c16),
        ),
        None => (
            format!("block_encode {} c16 {c16}", policy.encode_workgroup),
            builder("codec/block_encode")
                .workgroup_size(policy.encode_workgroup)
                .constant("C16", c16),
        ),
    }
}

/// The encoder's kernels, in the order `Encoder::new` binds them, each with the name it is
/// shared by on a device (the colour kernel's depends on the format); the block encoder's as
/// [`CoderPolicy::encode_lanes`] says (`lanes`).
pub fn kernels(
    header: &Header,
    policy: &CoderPolicy,
    lanes: Option<u32>,
) -> [(String, KernelBuilder); 4] {
    [
        (
            format!(
                "color_forward {:?} {} {:?}",
                header.chroma, header.lossless, header.source
            ),
            builder("codec/color_forward")
                .constant("CHROMA_420", header.chroma == crate::Chroma::Yuv420)
                .constant("LOSSLESS", header.lossless)
                .constant("SOURCE", u32::from(header.source.byte())),
        ),
        block_kernel(policy, lanes, policy.coefficients_16_bit_for(header)),
        (
            "rate".into(),
            builder("codec/rate").constant("TILE", RATE_TILE),
        ),
        (
            "pack".into(),
            builder("codec/pack").constant("TILE", RATE_TILE),
        ),
    ]
}

/// A GPU encoder for frames of one size, format and byte budget.
pub struct Encoder {
    header: Header,
    blocks: u32,
    overhead: usize,
    budget: usize,
    p_rate: wgpu::Buffer,
    /// The words the colour kernel clears: the histogram's, the frame's (the budget's).
    p_clear: wgpu::Buffer,
    input: wgpu::Buffer,
    control: wgpu::Buffer,
    frame: wgpu::Buffer,
    steps: Vec<(Kernel, wgpu::BindGroup, u32)>,
    dwt: BoundDwt,
    /// Where luma and chroma are in `image` (the colour kernel's planes) and `coeffs`.
    planes: super::shared::Planes,
    image: wgpu::Buffer,
    coeffs: wgpu::Buffer,
    records: wgpu::Buffer,
    table: wgpu::Buffer,
    head: wgpu::Buffer,
    layout: crate::format::Layout,
    _keep: Vec<wgpu::Buffer>,
    /// The input's words of the frame being encoded (its allocation kept from frame to frame).
    scratch: std::sync::Mutex<Vec<u32>>,
}

/// The colour kernel's clearing: the key histogram's words, and the frame's up to the budget
/// (the payloads' words shared by two of the packer's tiles are or-ed in).
fn clear_words(budget: usize, hist_words: u64, frame_bytes: u64, only_clear: bool) -> [u32; 4] {
    let frame = (budget as u64).div_ceil(4).min(frame_bytes / 4);
    [hist_words as u32, frame as u32, u32::from(only_clear), 0]
}

/// The colour kernel's workgroups where it only clears (its loops stride over the grid).
const CLEAR_GROUPS: u32 = 1024;

/// The header's bytes as the pack kernel reads them, four to a word.
fn head_words(header: &Header) -> Vec<u32> {
    header
        .to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect()
}

impl Encoder {
    /// An encoder of `width × height` frames with `config`'s chroma, levels and budget.
    pub fn new(ctx: &GpuContext, width: u32, height: u32, config: &EncodeConfig) -> Result<Self> {
        Self::with_policy(ctx, width, height, config, &CoderPolicy::for_device(ctx))
    }

    /// An encoder whose block kernel is laid out by `policy` (the same bytes as any other's).
    pub fn with_policy(
        ctx: &GpuContext,
        width: u32,
        height: u32,
        config: &EncodeConfig,
        policy: &CoderPolicy,
    ) -> Result<Self> {
        policy.check_for(ctx)?;
        let (header, layout) = crate::cpu::frame_layout(width, height, config)?;
        let overhead = layout.overhead();
        let nb = layout.blocks.len();
        if config.budget > super::MAX_FRAME_BYTES {
            return Err(CodecError::InvalidArgument(format!(
                "a budget of {} bytes: the GPU encoder takes at most {}",
                config.budget,
                super::MAX_FRAME_BYTES
            )));
        }
        let [(w, h), (cw, ch), _] = header.planes();
        let u = |label: &str, words: u64| ctx.storage_uninit(label, words * 4);
        let input = u("codec input", (w * h) as u64)?;
        // The colour kernel's planes, and the wavelet's coefficients apart from them (no
        // whole-plane copy, as in place would take), each buffer luma then chroma. Where the
        // wavelet reads the 8-bit picture itself, the colour kernel only clears, and there are
        // no planes.
        let planes =
            super::shared::Planes::of(ctx, &header, policy.coefficients_16_bit_for(&header));
        let from_bytes = super::shared::byte_fraction_bits(&header, true);
        let image = match from_bytes {
            Some(_) => u("codec no planes", 1)?,
            None => u("codec planes", planes.len() as u64)?,
        };
        let coeffs = ctx.storage_uninit("codec coefficients", planes.coefficient_bytes())?;
        let table = ctx.storage_from("codec block table", &block_table(&header, &layout))?;
        let bits = u("codec bit strings", nb as u64 * STRIDE)?;
        let records = u("codec records", nb as u64 * RECORD)?;
        let hist = u("codec key histogram", KEY_BINS)?;
        let control = u("codec control", 4)?;
        let ties = u("codec ties", nb as u64)?;
        let high = u("codec planes above the threshold", nb as u64)?;
        let tiles = (nb as u32).div_ceil(RATE_TILE);
        let totals = u("codec tile totals", 2 * tiles as u64)?;
        // Room for the largest frame the coder can write, so that the budget can change from
        // frame to frame without an allocation.
        let capacity =
            (overhead as u64 + nb as u64 * MAX_PAYLOAD).min(super::MAX_FRAME_BYTES as u64);
        let frame = u("codec frame", capacity.div_ceil(4))?;
        let head = ctx.storage_from("codec header", &head_words(&header))?;
        let nbu = nb as u32;
        let p_color = ctx.uniform_from(
            "codec colour params",
            &[w as u32, h as u32, cw as u32, (cw * ch) as u32],
        )?;
        let p_blocks = ctx.uniform_from("codec blocks", &[nbu, 0, 0, 0])?;
        let p_clear = ctx.uniform_from(
            "codec clear params",
            &clear_words(config.budget, KEY_BINS, frame.size(), from_bytes.is_some()),
        )?;
        let p_rate = ctx.uniform_from(
            "codec rate params",
            &[nbu, 2 * nbu, (config.budget - overhead) as u32, 0],
        )?;
        let p_pack = ctx.uniform_from("codec pack params", &[nbu, overhead as u32, tiles, 0])?;

        let mut built = Vec::with_capacity(4);
        let lanes = policy.encode_lanes(&ctx.caps.subgroups);
        for (name, b) in kernels(&header, policy, lanes) {
            built.push(super::shared::kernel(ctx, &name, || b)?);
        }
        let [color, block, rate, pack]: [Kernel; 4] = built
            .try_into()
            .map_err(|_| CodecError::InvalidArgument("the encoder's kernels".into()))?;
        let groups = |n: u32| n.div_ceil(256);
        let mut steps = Vec::new();
        let [luma_img, chroma_img] = match from_bytes {
            Some(_) => [(1, &image, 0, None), (2, &image, 0, None)],
            None => planes.ranges(&image, (1, 2)),
        };
        let b = color.bind_ranges(
            ctx,
            &[
                (0, &input, 0, None),
                luma_img,
                chroma_img,
                (3, &p_color, 0, None),
                (4, &hist, 0, None),
                (5, &frame, 0, None),
                (6, &p_clear, 0, None),
            ],
        )?;
        // One invocation a chroma sample from RGB (a pixel, or a 2 × 2 block), one an input
        // word from YCbCr (color_forward.wgsl); clearing alone, a grid that strides.
        let color_groups = match (header.source, from_bytes) {
            (Source::Rgb, _) => groups((cw * ch) as u32),
            (_, None) => groups(super::planar_words(&header) as u32),
            (_, Some(_)) => groups(super::planar_words(&header) as u32).min(CLEAR_GROUPS),
        };
        steps.push((color, b, color_groups));
        let sels = policy.wavelet_sels(ctx);
        let dwt = match from_bytes {
            Some(frac) => super::shared::wavelet_of_bytes(
                ctx,
                &header,
                &planes,
                (&input, &coeffs),
                (sels, frac),
            )?,
            None => super::shared::wavelet(ctx, &header, &planes, (&image, &coeffs), sels)?,
        };
        let [luma, chroma] = planes.coefficient_ranges(&coeffs, (1, 2));
        let b = block.bind_ranges(
            ctx,
            &[
                (0, &table, 0, None),
                luma,
                chroma,
                (3, &bits, 0, None),
                (4, &records, 0, None),
                (5, &p_blocks, 0, None),
                (6, &hist, 0, None),
            ],
        )?;
        steps.push((
            block,
            b,
            if lanes.is_some() {
                nbu.div_ceil(SG_BLOCKS)
            } else {
                nbu
            },
        ));
        let b = rate.bind(
            ctx,
            &[
                (0, &records),
                (1, &hist),
                (2, &control),
                (3, &ties),
                (4, &high),
                (5, &totals),
                (6, &p_rate),
            ],
        )?;
        steps.push((rate, b, tiles));
        let b = pack.bind(
            ctx,
            &[
                (0, &head),
                (1, &records),
                (2, &bits),
                (3, &control),
                (4, &ties),
                (5, &high),
                (6, &totals),
                (7, &frame),
                (8, &p_pack),
            ],
        )?;
        steps.push((pack, b, tiles));
        let overhead_u = overhead;
        Ok(Self {
            header,
            blocks: nbu,
            overhead: overhead_u,
            budget: config.budget,
            p_rate: p_rate.clone(),
            p_clear: p_clear.clone(),
            input,
            control,
            frame,
            steps,
            dwt,
            planes,
            image,
            coeffs,
            records,
            table,
            head,
            layout,
            _keep: vec![
                bits, ties, high, totals, hist, p_color, p_blocks, p_rate, p_pack,
            ],
            scratch: Default::default(),
        })
    }

    /// Change the byte budget of the frames recorded from now on (no allocation): the same
    /// limits as [`Encoder::new`]'s.
    pub fn set_budget(&mut self, ctx: &GpuContext, budget: usize) -> Result<()> {
        let least = self.overhead + 2 * self.blocks as usize;
        if budget < least || budget > super::MAX_FRAME_BYTES {
            return Err(CodecError::InvalidArgument(format!(
                "a budget of {budget} bytes for {} x {} frames: give {least} to {}",
                self.header.width,
                self.header.height,
                super::MAX_FRAME_BYTES
            )));
        }
        let p = [
            self.blocks,
            2 * self.blocks,
            (budget - self.overhead) as u32,
            0,
        ];
        ctx.queue
            .write_buffer(&self.p_rate, 0, bytemuck::cast_slice(&p));
        let only_clear = super::shared::byte_fraction_bits(&self.header, true).is_some();
        let clear = clear_words(budget, KEY_BINS, self.frame.size(), only_clear);
        ctx.queue
            .write_buffer(&self.p_clear, 0, bytemuck::cast_slice(&clear));
        // The base step follows the budget (cpu::base_step): the header and the bands' steps
        // in the block table change with it.
        if !self.header.lossless {
            let step = crate::cpu::base_step(self.header.width, self.header.height, budget);
            if step != self.header.step {
                self.header.step = step;
                let table = block_table(&self.header, &self.layout);
                ctx.queue
                    .write_buffer(&self.table, 0, bytemuck::cast_slice(&table));
                ctx.queue.write_buffer(
                    &self.head,
                    0,
                    bytemuck::cast_slice(&head_words(&self.header)),
                );
            }
        }
        self.budget = budget;
        Ok(())
    }

    /// The byte budget of a frame.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// The frames' header (its levels as the frame allows).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The input the encoder reads, rows top to bottom; write it, or copy into it, before
    /// [`Encoder::record`]. From an RGB source one `u32` a pixel, `R | G << 8 | B << 16` (RGBA8
    /// in memory, alpha ignored); from a YCbCr source the picture's 8-bit planes, Y then Cb
    /// then Cr (each of [`YcbcrImage::plane_sizes`]), each from a 4-byte boundary.
    pub fn input(&self) -> &wgpu::Buffer {
        &self.input
    }

    /// The coded frame after [`Encoder::record`] (its bytes, packed four to a word, are
    /// [`Encoder::control`]'s third word).
    pub fn output(&self) -> &wgpu::Buffer {
        &self.frame
    }

    /// Three words after [`Encoder::record`]: θ, the room left, the frame's bytes.
    pub fn control(&self) -> &wgpu::Buffer {
        &self.control
    }

    /// Record the encode of [`Encoder::input`] into `enc`.
    pub fn record(&self, enc: &mut wgpu::CommandEncoder) {
        self.record_until(enc, 5);
    }

    /// Record the first stages only, for diagnosis and measurement: 1 the colour, 2 and the
    /// wavelet, 3 and the blocks, 4 and the rate control, 5 all (the packing).
    #[doc(hidden)]
    pub fn record_until(&self, enc: &mut wgpu::CommandEncoder, stages: u32) {
        let pass = |enc: &mut wgpu::CommandEncoder, s: &(Kernel, wgpu::BindGroup, u32)| {
            let mut pass = enc.begin_compute_pass(&Default::default());
            s.0.dispatch(&mut pass, &s.1, s.2);
        };
        pass(enc, &self.steps[0]);
        if stages < 2 {
            return;
        }
        self.dwt.record_forward(enc);
        if stages < 3 {
            return;
        }
        // The block encoder adds each plane's bytes to the histogram (cleared by the colour
        // kernel, as the frame is).
        pass(enc, &self.steps[1]);
        if stages < 4 {
            return;
        }
        pass(enc, &self.steps[2]);
        if stages < 5 {
            return;
        }
        pass(enc, &self.steps[3]);
    }

    /// Encode 8-bit RGB (3 bytes a pixel) on the GPU and read the frame back (an encoder
    /// built for an RGB source).
    pub fn encode(&self, ctx: &GpuContext, rgb: &[u8]) -> Result<Vec<u8>> {
        let mut words = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        self.rgb_words(rgb, &mut words)?;
        self.run(ctx, &words)
    }

    /// Encode an 8-bit YCbCr picture on the GPU (an encoder built with its chroma and its
    /// source, as [`crate::cpu::encode_ycbcr`] takes them) and read the frame back.
    pub fn encode_ycbcr(&self, ctx: &GpuContext, img: &YcbcrImage) -> Result<Vec<u8>> {
        Ok(self.encode_ycbcr_with_stats(ctx, img)?.0)
    }

    /// [`Encoder::input`]'s words for 8-bit RGB, into `words` (its allocation reused).
    pub(crate) fn rgb_words(&self, rgb: &[u8], words: &mut Vec<u32>) -> Result<()> {
        let px = (self.header.width * self.header.height) as usize;
        if self.header.source != Source::Rgb {
            return Err(CodecError::InvalidArgument(format!(
                "RGB for an encoder built for {:?}: give YCbCr pictures (encode_ycbcr)",
                self.header.source
            )));
        }
        if rgb.len() != 3 * px {
            return Err(CodecError::InvalidArgument(format!(
                "{} bytes of RGB for a {} x {} frame: expected {}",
                rgb.len(),
                self.header.width,
                self.header.height,
                3 * px
            )));
        }
        words.clear();
        words.extend(
            rgb.chunks_exact(3)
                .map(|p| u32::from(p[0]) | u32::from(p[1]) << 8 | u32::from(p[2]) << 16),
        );
        Ok(())
    }

    /// [`Encoder::input`] for a YCbCr picture: its planes as they are, each from a 4-byte
    /// boundary (`format::planar_offsets`; the zeros between given as pieces of their own),
    /// after checking that the picture is this encoder's format.
    pub(crate) fn ycbcr_input<'a>(&self, img: &'a YcbcrImage) -> Result<[&'a [u8]; 5]> {
        img.check()?;
        let h = &self.header;
        if (img.width, img.height, img.chroma, img.source())
            != (h.width, h.height, h.chroma, h.source)
        {
            return Err(CodecError::InvalidArgument(format!(
                "a {} x {} {:?} picture from {:?}, for an encoder of {} x {} {:?} frames from \
                 {:?}: build an encoder for this format",
                img.width,
                img.height,
                img.chroma,
                img.source(),
                h.width,
                h.height,
                h.chroma,
                h.source
            )));
        }
        let pad = |n: usize| &[0u8; 3][..n.next_multiple_of(4) - n];
        let [y, cb, cr] = &img.planes;
        Ok([&y[..], pad(y.len()), &cb[..], pad(cb.len()), &cr[..]])
    }

    /// The frame's length from [`Encoder::control`]'s words, or why there is no frame.
    pub(crate) fn frame_len(&self, control: &[u32]) -> Result<usize> {
        let len = control[2] as usize;
        if self.header.lossless && control[0] != 1 {
            return Err(CodecError::InvalidArgument(format!(
                "this lossless frame needs more than the budget of {} bytes: give a larger \
                 budget, or code it lossy",
                self.budget
            )));
        }
        if len > self.budget {
            return Err(CodecError::InvalidArgument(format!(
                "the GPU wrote a {len}-byte frame for a budget of {}: a bug; please report it",
                self.budget
            )));
        }
        Ok(len)
    }

    /// Upload the input words, encode, read the frame back.
    fn run(&self, ctx: &GpuContext, words: &[u32]) -> Result<Vec<u8>> {
        Ok(self.run_with_stats(ctx, words)?.0)
    }

    fn run_with_stats(&self, ctx: &GpuContext, words: &[u32]) -> Result<(Vec<u8>, EncodeStats)> {
        self.upload(ctx, &[bytemuck::cast_slice::<u32, u8>(words)])?;
        self.finish(ctx)
    }

    /// Write `pieces` (the input, in order) to [`Encoder::input`]: through the context's kept
    /// staging buffer (`write_buffer` makes a fresh one of the frame's size each call: on the
    /// H100, 49 ms of a 4K frame's 50 ms encode from the host). The web has no waiting upload:
    /// write_buffer there.
    fn upload(&self, ctx: &GpuContext, pieces: &[&[u8]]) -> Result<()> {
        let bytes: u64 = pieces.iter().map(|p| p.len() as u64).sum();
        #[cfg(not(target_arch = "wasm32"))]
        ctx.write_from_chunks("codec input", &self.input, bytes, pieces)?;
        #[cfg(target_arch = "wasm32")]
        {
            let mut all = Vec::with_capacity(bytes.next_multiple_of(4) as usize);
            pieces.iter().for_each(|p| all.extend_from_slice(p));
            all.resize(all.len().next_multiple_of(4), 0);
            ctx.queue.write_buffer(&self.input, 0, &all);
        }
        Ok(())
    }

    /// Encode what [`Encoder::input`] holds and read the frame back.
    fn finish(&self, ctx: &GpuContext) -> Result<(Vec<u8>, EncodeStats)> {
        ctx.submit_checked("encoding a frame", |enc| self.record(enc))?;
        let control: Vec<u32> = ctx.read_back("codec control", &self.control, 3)?;
        let len = self.frame_len(&control)?;
        let words: Vec<u32> = ctx.read_back("codec frame", &self.frame, len.div_ceil(4))?;
        let frame = bytemuck::cast_slice(&words)[..len].to_vec();
        let stats = self.stats_of(&frame, control[0]);
        Ok((frame, stats))
    }

    /// What an encode did, from its frame and its threshold θ: the CPU encoder's statistics.
    fn stats_of(&self, frame: &[u8], theta: u32) -> EncodeStats {
        use crate::format::{HEADER_BYTES, OFFSET_BYTES};
        let sent = |i: usize| {
            let at = HEADER_BYTES + i * OFFSET_BYTES;
            let offset = frame
                .get(at..at + OFFSET_BYTES)
                .map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4")) as usize);
            frame.get(offset + 1).copied().unwrap_or(0)
        };
        EncodeStats {
            bytes: frame.len(),
            overhead: self.overhead,
            blocks: self.blocks as usize,
            empty_blocks: (0..self.blocks as usize).filter(|&i| sent(i) == 0).count(),
            all_planes: theta == 1,
        }
    }

    /// [`Encoder::encode`], with what the encode did: the frame's bytes, its header and table,
    /// its blocks and those with no plane sent, and whether every plane that lowers the error
    /// fitted (then the frame may be smaller than the budget) — the same as the CPU encoder's.
    pub fn encode_with_stats(
        &self,
        ctx: &GpuContext,
        rgb: &[u8],
    ) -> Result<(Vec<u8>, EncodeStats)> {
        let mut words = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        self.rgb_words(rgb, &mut words)?;
        self.run_with_stats(ctx, &words)
    }

    /// [`Encoder::encode_ycbcr`], with what the encode did (as [`Encoder::encode_with_stats`]).
    pub fn encode_ycbcr_with_stats(
        &self,
        ctx: &GpuContext,
        img: &YcbcrImage,
    ) -> Result<(Vec<u8>, EncodeStats)> {
        self.upload(ctx, &self.ycbcr_input(img)?)?;
        self.finish(ctx)
    }

    /// After [`Encoder::record_until`] its first stage, for diagnosing a difference from the
    /// CPU: the colour kernel's luma and chroma planes (none where the wavelet reads the
    /// picture's bytes itself).
    #[doc(hidden)]
    pub fn color_planes(&self, ctx: &GpuContext) -> Result<[Vec<u32>; 2]> {
        if super::shared::byte_fraction_bits(&self.header, true).is_some() {
            return Err(CodecError::InvalidArgument(
                "this encoder's wavelet reads the picture's bytes itself: it has no colour \
                 planes (its coefficients are in intermediates())"
                    .into(),
            ));
        }
        self.split("codec planes", ctx, &self.image, false)
    }

    /// `buf`'s luma and chroma parts (laid out as `self.planes`); its elements widened to
    /// words, sign-extended, where they are 16-bit (`sixteen`).
    fn split(
        &self,
        what: &str,
        ctx: &GpuContext,
        buf: &wgpu::Buffer,
        sixteen: bool,
    ) -> Result<[Vec<u32>; 2]> {
        let p = &self.planes;
        let all: Vec<u32> = if sixteen {
            let words: Vec<u32> = ctx.read_back(what, buf, p.len().div_ceil(2))?;
            let halves: &[u16] = bytemuck::cast_slice(&words);
            halves[..p.len()]
                .iter()
                .map(|&h| i32::from(h as i16) as u32)
                .collect()
        } else {
            ctx.read_back(what, buf, p.len())?
        };
        Ok([all[..p.luma].to_vec(), all[p.chroma_at..].to_vec()])
    }

    /// Blocks in a frame.
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// After an encode, for diagnosing a difference from the CPU: the luma and chroma
    /// coefficients, each block's record (64 words: P, the bits of 0 ..= P planes from word 1,
    /// the planes' keys from word 26) and the control words (θ, room left, bytes).
    pub fn intermediates(&self, ctx: &GpuContext) -> Result<[Vec<u32>; 4]> {
        let n = self.blocks as usize * RECORD as usize;
        let [luma, chroma] =
            self.split("codec coefficients", ctx, &self.coeffs, self.planes.c16)?;
        Ok([
            luma,
            chroma,
            ctx.read_back("codec records", &self.records, n)?,
            ctx.read_back("codec control", &self.control, 3)?,
        ])
    }
}
