//! Frames in flight: an [`EncodeQueue`] submits up to N encodes before the first is read back,
//! so the GPU codes frame i + 1 while the caller writes frame i out. Each frame in flight has
//! its own read-back buffer (the control words and the bytes, copied in the frame's own
//! submission); the encoder's working buffers are shared, since the queue runs submissions in
//! order. Built once; per frame nothing is allocated (the input's words and the caller's
//! output `Vec` are reused).

use std::collections::VecDeque;
use std::sync::mpsc;

use wavekit::GpuContext;

use super::Encoder;
use crate::error::{CodecError, Result};
use crate::format::YcbcrImage;

/// Bytes of the control words at the start of a read-back buffer.
const CONTROL: u64 = 16;

type Mapped = mpsc::Receiver<std::result::Result<(), wgpu::BufferAsyncError>>;

/// An [`Encoder`] with up to N frames in flight.
pub struct EncodeQueue {
    encoder: Encoder,
    staging: Vec<wgpu::Buffer>,
    free: Vec<usize>,
    pending: VecDeque<(usize, wgpu::SubmissionIndex, Mapped)>,
    words: Vec<u32>,
    /// A YCbCr picture's planes as the encoder reads them.
    bytes: Vec<u8>,
}

impl EncodeQueue {
    /// The most frames a queue keeps in flight.
    pub const MAX_IN_FLIGHT: usize = 8;

    /// A queue of `frames_in_flight` (1 to [`EncodeQueue::MAX_IN_FLIGHT`]) read-back buffers
    /// on `encoder`.
    pub fn new(ctx: &GpuContext, encoder: Encoder, frames_in_flight: usize) -> Result<Self> {
        if !(1..=Self::MAX_IN_FLIGHT).contains(&frames_in_flight) {
            return Err(CodecError::InvalidArgument(format!(
                "{frames_in_flight} frames in flight: give 1 to {}",
                Self::MAX_IN_FLIGHT
            )));
        }
        let size = CONTROL + encoder.output().size();
        let staging = (0..frames_in_flight)
            .map(|_| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("codec frame in flight"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect();
        Ok(Self {
            encoder,
            staging,
            free: (0..frames_in_flight).rev().collect(),
            pending: VecDeque::with_capacity(frames_in_flight),
            words: Vec::new(),
            bytes: Vec::new(),
        })
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// Change the byte budget of the frames submitted from now on: only with no frame in
    /// flight (finish them first).
    pub fn set_budget(&mut self, ctx: &GpuContext, budget: usize) -> Result<()> {
        if !self.pending.is_empty() {
            return Err(CodecError::InvalidArgument(format!(
                "a new budget with {} frames in flight: finish them first",
                self.pending.len()
            )));
        }
        self.encoder.set_budget(ctx, budget)
    }

    /// Frames submitted and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Frames that can be submitted before one is finished.
    pub fn room(&self) -> usize {
        self.free.len()
    }

    /// Submit the encode of 8-bit RGB (an encoder built for an RGB source); returns at once.
    pub fn submit_rgb(&mut self, ctx: &GpuContext, rgb: &[u8]) -> Result<()> {
        self.check_room()?;
        self.encoder.rgb_words(rgb, &mut self.words)?;
        self.submit(ctx, true)
    }

    /// Submit the encode of a YCbCr picture (an encoder built for its format); returns at once.
    pub fn submit_ycbcr(&mut self, ctx: &GpuContext, img: &YcbcrImage) -> Result<()> {
        self.check_room()?;
        self.bytes.clear();
        for p in self.encoder.ycbcr_input(img)? {
            self.bytes.extend_from_slice(p);
        }
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        self.submit(ctx, false)
    }

    fn check_room(&self) -> Result<()> {
        if self.free.is_empty() {
            return Err(CodecError::InvalidArgument(format!(
                "all {} frames are in flight: finish one before submitting another",
                self.staging.len()
            )));
        }
        Ok(())
    }

    fn submit(&mut self, ctx: &GpuContext, rgb: bool) -> Result<()> {
        let slot = self.free.pop().expect("checked for room");
        let staging = &self.staging[slot];
        let input: &[u8] = if rgb {
            bytemuck::cast_slice(&self.words)
        } else {
            &self.bytes
        };
        ctx.queue.write_buffer(self.encoder.input(), 0, input);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        self.encoder.record(&mut enc);
        enc.copy_buffer_to_buffer(self.encoder.control(), 0, staging, 0, CONTROL);
        let bytes = (self.encoder.budget() as u64)
            .next_multiple_of(4)
            .min(self.encoder.output().size());
        enc.copy_buffer_to_buffer(self.encoder.output(), 0, staging, CONTROL, bytes);
        let index = ctx.queue.submit([enc.finish()]);
        let (tx, rx) = mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.pending.push_back((slot, index, rx));
        Ok(())
    }

    /// Wait for the oldest frame in flight and put its bytes in `out` (replacing what it held;
    /// its allocation is reused). Returns false, with `out` untouched, when no frame is in
    /// flight.
    pub fn finish(&mut self, ctx: &GpuContext, out: &mut Vec<u8>) -> Result<bool> {
        let Some((slot, index, mapped)) = self.pending.pop_front() else {
            return Ok(false);
        };
        // The slot is free again whatever happens below.
        self.free.push(slot);
        let staging = &self.staging[slot];
        let gpu_err = |message: String| {
            CodecError::Gpu(wavekit::Error::Readback {
                what: "a coded frame in flight".into(),
                message,
            })
        };
        ctx.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map_err(|e| gpu_err(e.to_string()))?;
        mapped
            .recv()
            .map_err(|e| gpu_err(e.to_string()))?
            .map_err(|e| gpu_err(e.to_string()))?;
        let result = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| gpu_err(e.to_string()))?;
            let control: [u32; 3] = bytemuck::pod_read_unaligned(&view[..12]);
            self.encoder.frame_len(&control).map(|len| {
                out.clear();
                out.extend_from_slice(&view[CONTROL as usize..CONTROL as usize + len]);
            })
        };
        staging.unmap();
        result.map(|()| true)
    }
}
