//! Host-visible buffers kept for the next transfer: uploads ([`GpuContext::storage_from`] of a
//! megabyte or more, [`GpuContext::storage_from_chunks`]) and read-backs reuse them instead of
//! allocating fresh mappable memory each call. A driver's mappable memory is pinned host
//! memory: allocating it and touching its pages for the first time cost more than the copy
//! itself (on the H200 machine, host arrays of 2^24 elements moved at under 1 GB/s that way,
//! ADR-0100). [`ContextOptions::staging_keep_bytes`](crate::ContextOptions) bounds what is kept.

use std::sync::Mutex;

use crate::context::GpuContext;
#[cfg(not(target_arch = "wasm32"))]
use crate::error::{Error, Result};

/// Which way a staging buffer carries data.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Way {
    /// Host to GPU: `MAP_WRITE | COPY_SRC` (native only: the web uploads with
    /// `create_buffer_init`).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Up,
    /// GPU to host: `MAP_READ | COPY_DST`.
    Down,
}

impl Way {
    fn usage(self) -> wgpu::BufferUsages {
        match self {
            Way::Up => wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            Way::Down => wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        }
    }
}

/// Staging buffers not in use, each way; the largest are kept up to `keep` bytes a way.
#[derive(Debug, Default)]
pub(crate) struct StagingPool {
    up: Vec<wgpu::Buffer>,
    down: Vec<wgpu::Buffer>,
    keep: u64,
}

/// Sizes staging buffers are made in: whole mebibytes (a buffer serves every transfer up to
/// its size).
const GRAIN: u64 = 1 << 20;

impl StagingPool {
    pub(crate) fn new(keep: u64) -> Mutex<Self> {
        Mutex::new(Self {
            keep,
            ..Default::default()
        })
    }

    fn list(&mut self, way: Way) -> &mut Vec<wgpu::Buffer> {
        match way {
            Way::Up => &mut self.up,
            Way::Down => &mut self.down,
        }
    }

    /// The smallest kept buffer of at least `bytes`, taken out of the pool.
    fn take(&mut self, way: Way, bytes: u64) -> Option<wgpu::Buffer> {
        let list = self.list(way);
        let best = list
            .iter()
            .enumerate()
            .filter(|(_, b)| b.size() >= bytes)
            .min_by_key(|(_, b)| b.size())
            .map(|(i, _)| i)?;
        Some(list.swap_remove(best))
    }

    /// Keep `buffer` (unmapped) for the next transfer, dropping the smallest kept ones while
    /// the way holds more than `keep` bytes.
    fn give(&mut self, way: Way, buffer: wgpu::Buffer) {
        let keep = self.keep;
        let list = self.list(way);
        list.push(buffer);
        list.sort_by_key(|b| std::cmp::Reverse(b.size()));
        let mut total = 0;
        list.retain(|b| {
            total += b.size();
            total <= keep
        });
    }

    /// Bytes kept each way (up, down).
    pub(crate) fn kept(&self) -> (u64, u64) {
        let sum = |l: &Vec<wgpu::Buffer>| l.iter().map(|b| b.size()).sum();
        (sum(&self.up), sum(&self.down))
    }
}

impl GpuContext {
    /// An unmapped staging buffer of at least `bytes` (a multiple of 4), kept or new.
    pub(crate) fn staging(&self, way: Way, bytes: u64) -> wgpu::Buffer {
        if let Some(b) = self.pool().take(way, bytes) {
            return b;
        }
        let size = bytes
            .next_multiple_of(GRAIN)
            .min(self.caps.limits.max_buffer_size.max(bytes));
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(match way {
                Way::Up => "wavekit.upload",
                Way::Down => "wavekit.readback",
            }),
            size,
            usage: way.usage(),
            mapped_at_creation: false,
        })
    }

    /// Return an unmapped staging buffer to the pool.
    pub(crate) fn unstage(&self, way: Way, buffer: wgpu::Buffer) {
        self.pool().give(way, buffer);
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, StagingPool> {
        self.staging.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes of host-visible staging memory kept for the next transfers (uploads, read-backs).
    pub fn staging_kept(&self) -> (u64, u64) {
        self.pool().kept()
    }

    /// A storage buffer of `bytes` bytes (rounded up to 4, at least 16, the rest zero) filled
    /// with `chunks` one after another, through a kept staging buffer: the chunks are written
    /// straight into mappable memory, so a caller converting its data (a key transform, a
    /// widening) writes each converted chunk there without a whole converted copy. Waits for
    /// the GPU when the staging buffer it reuses is still in use. The chunks must add up to
    /// `bytes` exactly. Native only (a browser cannot wait for a mapping).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn storage_from_chunks<C: AsRef<[u8]>>(
        &self,
        label: &str,
        bytes: u64,
        chunks: impl IntoIterator<Item = C>,
    ) -> Result<wgpu::Buffer> {
        let dst = self.storage_uninit(label, bytes)?;
        let size = dst.size();
        self.write_chunks(label, &dst, size, bytes, chunks)?;
        Ok(dst)
    }

    /// Write `chunks` (adding up to `bytes`) to the start of the caller's `dst` through a kept
    /// staging buffer, as [`GpuContext::storage_from_chunks`] does into a new one: the upload of
    /// a frame or an array each call without allocating mappable memory each call
    /// (`Queue::write_buffer` does). The copy is submitted; later submissions see it. Bytes
    /// past `bytes` up to the next multiple of 4 are written as zeros.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn write_from_chunks<C: AsRef<[u8]>>(
        &self,
        label: &str,
        dst: &wgpu::Buffer,
        bytes: u64,
        chunks: impl IntoIterator<Item = C>,
    ) -> Result<()> {
        let size = bytes.next_multiple_of(4);
        if size > dst.size() {
            return Err(Error::InvalidArgument(format!(
                "writing {bytes} bytes to '{label}', a buffer of {}",
                dst.size()
            )));
        }
        if size == 0 {
            return Ok(());
        }
        self.write_chunks(label, dst, size, bytes, chunks)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn write_chunks<C: AsRef<[u8]>>(
        &self,
        label: &str,
        dst: &wgpu::Buffer,
        size: u64,
        bytes: u64,
        chunks: impl IntoIterator<Item = C>,
    ) -> Result<()> {
        let staging = self.staging(Way::Up, size);
        let (tx, mapped) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Write, ..size, move |r| {
            let _ = tx.send(r.map_err(|e| e.to_string()));
        });
        self.wait()?;
        let state = self.mapping_done(&mapped);
        let fail = |message: String| Error::Readback {
            what: format!("'{label}' (mapping its upload buffer)"),
            message,
        };
        match state {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(fail(e)),
            None => return Err(fail("the mapping did not complete".into())),
        }
        let mut written = 0u64;
        let mut over = false;
        {
            let mut view = staging
                .get_mapped_range_mut(..size)
                .map_err(|e| fail(e.to_string()))?;
            for c in chunks {
                let c = c.as_ref();
                let end = written + c.len() as u64;
                if end > bytes {
                    over = true;
                    break;
                }
                write_bytes(view.slice(written as usize..end as usize), c);
                written = end;
            }
            if !over && written < size {
                let pad = vec![0u8; (size - written) as usize];
                view.slice(written as usize..size as usize)
                    .copy_from_slice(&pad);
            }
        }
        staging.unmap();
        if over || written != bytes {
            self.unstage(Way::Up, staging);
            return Err(Error::InvalidArgument(format!(
                "uploading '{label}': the chunks held {} bytes, not the {bytes} announced",
                if over {
                    format!("more than {bytes}")
                } else {
                    written.to_string()
                }
            )));
        }
        let copied = self.scoped(&format!("uploading '{label}'"), || {
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&staging, 0, dst, 0, size);
            self.queue.submit([enc.finish()]);
        });
        // The next mapping of this buffer waits for the copy.
        self.unstage(Way::Up, staging);
        copied
    }
}

impl GpuContext {
    /// The result of a mapping whose submission the GPU has finished
    /// ([`crate::buffers::await_callback`]); `None` after ten seconds without it (a lost device).
    #[cfg(not(target_arch = "wasm32"))]
    fn mapping_done(
        &self,
        mapped: &std::sync::mpsc::Receiver<std::result::Result<(), String>>,
    ) -> Option<std::result::Result<(), String>> {
        let mut got = None;
        crate::buffers::await_callback(&self.device, |timeout| {
            match mapped.recv_timeout(timeout) {
                Ok(r) => {
                    got = Some(r);
                    true
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => false,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => true,
            }
        });
        got
    }
}

/// Bytes from which a host copy is split over threads (below, one thread: spawning costs more
/// than it saves).
const PARALLEL_COPY_FROM: usize = 8 << 20;

/// Threads for a host copy of `len` bytes: up to 8 where large, one on the web.
fn copy_threads(len: usize) -> usize {
    if cfg!(target_arch = "wasm32") || len < PARALLEL_COPY_FROM {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// `dst.copy_from_slice(src)`, on several threads when large: one thread writes fresh pages and
/// mapped memory at about 2 GB/s on the H200 machine (ADR-0100), which bound the Python
/// package's large transfers.
pub fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "copy_bytes of unequal lengths");
    let threads = copy_threads(src.len());
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let per = src.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(per).zip(src.chunks(per)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// `src` into a mapped upload's `dst` (as `dst.copy_from_slice(src)`), through
/// [`copy_bytes`] (on several threads when large).
#[cfg(not(target_arch = "wasm32"))]
fn write_bytes(mut dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "write_bytes of unequal lengths");
    // `WriteOnly<[u8]>` is neither `Send` nor divisible into plain slices; its memory as a
    // slice that is only written is.
    // SAFETY: the pointer and length are `dst`'s, a live mapping that `dst` borrows
    // exclusively for this call; `copy_bytes` only writes to it.
    let dst =
        unsafe { std::slice::from_raw_parts_mut(dst.as_raw_element_ptr().as_ptr(), src.len()) };
    copy_bytes(dst, src);
}
