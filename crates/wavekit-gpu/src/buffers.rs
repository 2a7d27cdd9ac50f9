//! Buffer helpers: upload, poison, read back (blocking, or as a future for the web). All sizes are checked against the device limits.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};

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
    /// From a mebibyte on (native), the data goes through a kept staging buffer
    /// ([`GpuContext::storage_from_chunks`]), which may wait for the GPU to finish with it.
    pub fn storage_from<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        self.check_storage(label, bytes.len() as u64)?;
        #[cfg(not(target_arch = "wasm32"))]
        if bytes.len() >= 1 << 20 {
            return self.storage_from_chunks(label, bytes.len() as u64, [bytes]);
        }
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

    /// Record commands with `record` into a fresh encoder and submit them (not waiting). An
    /// error wgpu raises goes to the device's uncaptured-error handler (see
    /// [`GpuContext::check_health`]); [`GpuContext::submit_checked`] catches it here instead.
    pub fn submit(&self, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut enc = self.device.create_command_encoder(&Default::default());
        record(&mut enc);
        self.queue.submit([enc.finish()]);
    }

    /// [`GpuContext::submit`] inside validation and out-of-memory error scopes: an error in
    /// these commands is this call's, [`Error::Gpu`] naming `operation`, not a later call's.
    /// wavekit's own host conveniences (`scan`, `sort`, a codec's `encode` …) submit this way.
    pub fn submit_checked(
        &self,
        operation: &str,
        record: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> Result<()> {
        self.scoped(operation, || self.submit(record))
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
    /// Waits for the GPU. Built on [`GpuContext::read_back_async`]; on the web, where nothing
    /// can wait for the GPU, it fails with [`Error::WouldBlock`]: await the async form there.
    pub fn read_back<T: bytemuck::Pod>(
        &self,
        what: &str,
        buffer: &wgpu::Buffer,
        len: usize,
    ) -> Result<Vec<T>> {
        let mut pending = self.read_back_async(what, buffer, len);
        if pending.is_waiting() {
            self.wait()?;
            // Another thread's poll of the device may be running this copy's callback.
            #[cfg(not(target_arch = "wasm32"))]
            pending.block_until_mapped();
        }
        pending.now()
    }

    /// `f` of the first `len` elements of `buffer` (named `what` in errors) where the read-back
    /// left them, and `f`'s result: on native devices the mapped staging memory itself
    /// ([`GpuContext::read_back_mapped`]: no copy into a vector first), on the web the vector
    /// of [`GpuContext::read_back`] (which fails there: await the async form). For callers that
    /// convert the elements into memory of their own. Waits for the GPU.
    pub fn read_back_with<T: bytemuck::Pod, R>(
        &self,
        what: &str,
        buffer: &wgpu::Buffer,
        len: usize,
        f: impl FnOnce(&[T]) -> R,
    ) -> Result<R> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mapped = self.read_back_mapped(what, buffer, len * std::mem::size_of::<T>())?;
            // Mapped ranges are aligned to wgpu's MAP_ALIGNMENT (8 bytes), enough for the
            // elements the kernels write; a copy stands in should one be more aligned.
            mapped.with(|b| match bytemuck::try_cast_slice::<u8, T>(b) {
                Ok(e) => f(e),
                Err(_) => f(&bytemuck::pod_collect_to_vec::<u8, T>(b)),
            })
        }
        #[cfg(target_arch = "wasm32")]
        {
            Ok(f(&self.read_back::<T>(what, buffer, len)?))
        }
    }

    /// The first `bytes` bytes of `buffer` (named `what` in errors), mapped in a kept staging
    /// buffer for the caller to copy where it wants them ([`MappedRead::with`]) without an
    /// intermediate vector; the staging buffer goes back to the pool when the result is
    /// dropped. Waits for the GPU; native only (the web awaits [`GpuContext::read_back_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_back_mapped(
        &self,
        what: &str,
        buffer: &wgpu::Buffer,
        bytes: usize,
    ) -> Result<MappedRead<'_>> {
        let mut pending = self.read_back_async::<u8>(what, buffer, bytes);
        if pending.is_waiting() {
            self.wait()?;
            pending.block_until_mapped();
        }
        match pending.poll_mapped(&mut Context::from_waker(Waker::noop()), false) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(Error::Readback {
                what: what.to_string(),
                message: "the mapping did not complete (a lost device?)".into(),
            }),
        }
    }

    /// A future of the first `len` elements of `buffer` (named `what` in errors): the copy is
    /// submitted at once, the elements arrive when the GPU has finished everything submitted
    /// before. In a browser the event loop completes it. On native devices each poll of the
    /// future polls the device without blocking (and asks to be polled again until the copy is
    /// mapped); [`GpuContext::read_back`] blocks instead.
    pub fn read_back_async<T: bytemuck::Pod>(
        &self,
        what: &str,
        buffer: &wgpu::Buffer,
        len: usize,
    ) -> ReadBack<'_, T> {
        let mut out = ReadBack {
            ctx: self,
            what: what.to_string(),
            state: State::Done,
            bytes: 0,
            slot: Arc::new(Mutex::new(Slot::default())),
            mapped: Arc::new(Condvar::new()),
            _elements: std::marker::PhantomData,
        };
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        if bytes == 0 {
            return out;
        }
        if bytes > buffer.size() {
            out.state = State::Failed(Error::InvalidArgument(format!(
                "reading {bytes} bytes of {what} from a {}-byte buffer",
                buffer.size()
            )));
            return out;
        }
        if let Err(e) = crate::tiling::check_usage(
            &format!("reading {what} back"),
            buffer,
            wgpu::BufferUsages::COPY_SRC,
            "a read-back copies it into a mappable buffer",
        ) {
            out.state = State::Failed(e);
            return out;
        }
        let size = bytes.next_multiple_of(4);
        // A kept buffer where one is large enough (returned to the pool once read).
        let staging = self.staging(crate::staging::Way::Down, size);
        // The copy's own errors are this read-back's.
        let copied = self.scoped(&format!("reading {what} back"), || {
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
            self.queue.submit([enc.finish()]);
        });
        if let Err(e) = copied {
            out.state = State::Failed(e);
            return out;
        }
        let slot = out.slot.clone();
        let mapped = out.mapped.clone();
        staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
            let waker = slot.lock().ok().and_then(|mut s| {
                s.mapped = Some(r.map_err(|e| e.to_string()));
                s.waker.take()
            });
            mapped.notify_all();
            if let Some(w) = waker {
                w.wake();
            }
        });
        out.bytes = bytes as usize;
        out.state = State::Mapping(staging);
        out
    }
}

/// A read-back's bytes, mapped ([`GpuContext::read_back_mapped`]); unmapped and its staging
/// buffer kept for the next read-back when dropped.
#[derive(Debug)]
pub struct MappedRead<'a> {
    ctx: &'a GpuContext,
    what: String,
    staging: Option<wgpu::Buffer>,
    bytes: usize,
}

impl MappedRead<'_> {
    /// How many bytes were read back.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether nothing was read back.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// `f` of the bytes read back.
    pub fn with<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let Some(staging) = &self.staging else {
            return Ok(f(&[]));
        };
        let size = (self.bytes as u64).next_multiple_of(4);
        let view = staging
            .get_mapped_range(..size)
            .map_err(|e| Error::Readback {
                what: self.what.clone(),
                message: e.to_string(),
            })?;
        Ok(f(&view[..self.bytes]))
    }
}

impl Drop for MappedRead<'_> {
    fn drop(&mut self) {
        if let Some(staging) = self.staging.take() {
            staging.unmap();
            self.ctx.unstage(crate::staging::Way::Down, staging);
        }
    }
}

/// The output of `future` if one poll completes it, which it does where nothing in it waits
/// (a blocking form built on its async twin); otherwise [`Error::WouldBlock`] naming
/// `operation` and the async form to await, `instead`.
pub fn complete_now<T>(
    future: impl Future<Output = Result<T>>,
    operation: &str,
    instead: &'static str,
) -> Result<T> {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(r) => r,
        Poll::Pending => Err(Error::WouldBlock {
            operation: operation.to_string(),
            instead,
        }),
    }
}

#[derive(Default)]
struct Slot {
    mapped: Option<std::result::Result<(), String>>,
    waker: Option<Waker>,
}

enum State {
    Mapping(wgpu::Buffer),
    Failed(Error),
    Done,
}

/// A read-back in flight, from [`GpuContext::read_back_async`]: a future of the elements.
#[must_use = "a read-back does nothing unless awaited"]
pub struct ReadBack<'a, T> {
    ctx: &'a GpuContext,
    what: String,
    state: State,
    bytes: usize,
    slot: Arc<Mutex<Slot>>,
    // Signalled when the copy is mapped (native blocking read-backs wait on it).
    mapped: Arc<Condvar>,
    _elements: std::marker::PhantomData<fn() -> T>,
}

impl<'a, T: bytemuck::Pod> ReadBack<'a, T> {
    /// Whether the copy is still to be mapped (the GPU has not been waited for).
    fn is_waiting(&self) -> bool {
        matches!(self.state, State::Mapping(_))
            && self
                .slot
                .lock()
                .map(|s| s.mapped.is_none())
                .unwrap_or(false)
    }

    /// Wait until the copy's callback has run (after the device was waited for, another
    /// thread polling the same device may still be running it): [`await_callback`].
    #[cfg(not(target_arch = "wasm32"))]
    fn block_until_mapped(&self) {
        await_callback(&self.ctx.device, |timeout| {
            let Ok(slot) = self.slot.lock() else {
                return true;
            };
            if slot.mapped.is_some() {
                return true;
            }
            // The lock is given up while waiting (the callback takes it) and when this
            // returns, before the device is polled.
            match self.mapped.wait_timeout(slot, timeout) {
                Ok((slot, _)) => slot.mapped.is_some(),
                Err(_) => true,
            }
        });
    }

    /// The elements if the copy is mapped now; [`Error::WouldBlock`] if it is not.
    fn now(&mut self) -> Result<Vec<T>> {
        let mut cx = Context::from_waker(Waker::noop());
        match self.poll_once(&mut cx, false) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(Error::WouldBlock {
                operation: format!("reading back {}", self.what),
                instead: "GpuContext::read_back_async",
            }),
        }
    }

    fn poll_once(&mut self, cx: &mut Context<'_>, poll_device: bool) -> Poll<Result<Vec<T>>> {
        self.poll_mapped(cx, poll_device).map(|m| {
            m.and_then(|m| {
                m.with(|b| {
                    let mut v = vec![T::zeroed(); b.len() / std::mem::size_of::<T>()];
                    crate::staging::copy_bytes(bytemuck::cast_slice_mut(&mut v), b);
                    v
                })
            })
        })
    }

    /// The copy, mapped, once it is (its staging buffer back to the pool when the result is
    /// dropped); nothing mapped for an empty read-back.
    fn poll_mapped(
        &mut self,
        cx: &mut Context<'_>,
        poll_device: bool,
    ) -> Poll<Result<MappedRead<'a>>> {
        let readback_err = |what: &str, message: String| Error::Readback {
            what: what.to_string(),
            message,
        };
        let mapped = {
            let Ok(mut slot) = self.slot.lock() else {
                return Poll::Ready(Err(readback_err(&self.what, "a lock was poisoned".into())));
            };
            if slot.mapped.is_none() && poll_device {
                drop(slot);
                // Native devices run map callbacks only inside a poll (the web needs none).
                let _ = self.ctx.device.poll(wgpu::PollType::Poll);
                slot = match self.slot.lock() {
                    Ok(s) => s,
                    Err(_) => {
                        let e = readback_err(&self.what, "a lock was poisoned".into());
                        return Poll::Ready(Err(e));
                    }
                };
            }
            match slot.mapped.take() {
                Some(m) => m,
                None if matches!(self.state, State::Mapping(_)) => {
                    slot.waker = Some(cx.waker().clone());
                    drop(slot);
                    if poll_device && !cfg!(target_arch = "wasm32") {
                        // Nothing wakes a native task but the next poll of the device.
                        cx.waker().wake_by_ref();
                    }
                    return Poll::Pending;
                }
                None => Ok(()),
            }
        };
        let done = |staging| MappedRead {
            ctx: self.ctx,
            what: self.what.clone(),
            staging,
            bytes: self.bytes,
        };
        match std::mem::replace(&mut self.state, State::Done) {
            State::Done => Poll::Ready(Ok(done(None))),
            State::Failed(e) => Poll::Ready(Err(e)),
            State::Mapping(staging) => Poll::Ready(match mapped {
                Ok(()) => Ok(done(Some(staging))),
                Err(message) => Err(readback_err(&self.what, message)),
            }),
        }
    }
}

impl<T: bytemuck::Pod> Future for ReadBack<'_, T> {
    type Output = Result<Vec<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().poll_once(cx, true)
    }
}

/// Wait for a mapping's callback that work the GPU has finished makes due: another thread
/// polling the same device may be the one to run it, a little after this thread's wait for the
/// device returned. `ready(timeout)` waits up to `timeout` for the callback and says whether it
/// has run (or never can); between tries the device is polled, in case nothing else polls it.
/// `false` after ten seconds without it (a lost device). The one wait of the read-backs and of
/// the kept staging buffers' uploads.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn await_callback(
    device: &wgpu::Device,
    mut ready: impl FnMut(std::time::Duration) -> bool,
) -> bool {
    for _ in 0..2000 {
        if ready(std::time::Duration::from_millis(5)) {
            return true;
        }
        let _ = device.poll(wgpu::PollType::Poll);
    }
    false
}
