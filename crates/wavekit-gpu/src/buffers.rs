//! Buffer helpers: upload, poison, read back. All sizes are checked against the device limits.

use wgpu::util::DeviceExt;

use crate::context::GpuContext;
use crate::error::{Error, Result};

/// The value wavekit's tests and self-test fill outputs with before a run, so that an
/// element the kernel never wrote is caught.
pub const POISON: u32 = 0xDEAD_BEEF;

/// Smallest buffer wavekit creates: one `vec4<u32>`, so that an empty input still binds as an
/// array of any element type.
const MIN_BUFFER: u64 = 16;

impl GpuContext {
    /// A storage buffer holding `data` (usable as a copy source and destination too).
    pub fn storage_from<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        self.check_storage(label, bytes.len() as u64)?;
        // wgpu rejects bindings smaller than one element: keep at least one vec4.
        let padded;
        let contents = if bytes.len() < MIN_BUFFER as usize {
            let mut p = [0u8; MIN_BUFFER as usize];
            p[..bytes.len()].copy_from_slice(bytes);
            padded = p;
            &padded[..]
        } else {
            bytes
        };
        self.scoped(&format!("creating buffer '{label}'"), || {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                })
        })
    }

    /// Record commands with `record` into a fresh encoder and submit them (not waiting).
    pub fn submit(&self, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut enc = self.device.create_command_encoder(&Default::default());
        record(&mut enc);
        self.queue.submit([enc.finish()]);
    }

    /// A uniform buffer holding `data`.
    pub fn uniform_from<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
        self.scoped(&format!("creating buffer '{label}'"), || {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytemuck::cast_slice(data),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                })
        })
    }

    /// A storage buffer of `words` u32, every one set to [`POISON`].
    pub fn storage_poisoned(&self, label: &str, words: usize) -> Result<wgpu::Buffer> {
        self.storage_from(label, &vec![POISON; words])
    }

    /// An uninitialised storage buffer of `bytes` bytes (rounded up to 4, at least 16).
    pub fn storage_uninit(&self, label: &str, bytes: u64) -> Result<wgpu::Buffer> {
        self.check_storage(label, bytes)?;
        let size = bytes.max(MIN_BUFFER).next_multiple_of(4);
        self.scoped(&format!("creating buffer '{label}'"), || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
    }

    fn check_storage(&self, label: &str, bytes: u64) -> Result<()> {
        let limit = self.caps.limits.max_buffer_size;
        if bytes > limit {
            return Err(Error::BufferTooLarge {
                what: label.to_string(),
                bytes,
                limit,
            });
        }
        // A buffer may exceed one binding: scan and reduce bind it in chunks, and the other
        // primitives check the binding limit when they are bound.
        Ok(())
    }

    /// Copy the first `len` elements of `buffer` (named `what` in errors) back to the host.
    /// Waits for the GPU.
    pub fn read_back<T: bytemuck::Pod>(
        &self,
        what: &str,
        buffer: &wgpu::Buffer,
        len: usize,
    ) -> Result<Vec<T>> {
        let bytes = (len * std::mem::size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        if bytes > buffer.size() {
            return Err(Error::InvalidArgument(format!(
                "reading {bytes} bytes of {what} from a {}-byte buffer",
                buffer.size()
            )));
        }
        let size = bytes.next_multiple_of(4);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wavekit.readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        let readback_err = |message: String| Error::Readback {
            what: what.to_string(),
            message,
        };
        rx.recv()
            .map_err(|e| readback_err(e.to_string()))?
            .map_err(|e| readback_err(e.to_string()))?;
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| readback_err(e.to_string()))?;
        let out: Vec<T> = bytemuck::pod_collect_to_vec(&view[..bytes as usize]);
        drop(view);
        staging.unmap();
        Ok(out)
    }
}
