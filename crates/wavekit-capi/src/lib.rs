//! The codec's C API (issue 47): what a streaming program written in C or C++ needs to carry
//! frames — a context (a GPU, or the CPU reference), an encoder and a decoder built once for a
//! frame size, and the datagrams of `wavekit_codec::net` (cut a frame, put frames back
//! together). The header is `include/wavekit.h`, made by cbindgen from this file.
//!
//! Conventions: every function returns a [`WkStatus`] (or a pointer, null on failure);
//! [`wk_last_error`] gives the message of the last failure on the calling thread. Output
//! buffers are the caller's, with their capacity: one too small gives
//! [`WkStatus::BufferTooSmall`] and the size needed. Objects are freed by their `_free`
//! function (null is accepted). A panic never crosses into C: it is caught and reported as
//! [`WkStatus::Internal`]. Objects may be used from any thread, one call at a time each.

#![allow(clippy::missing_safety_doc)]

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use wavekit::{ContextOptions, GpuContext};
use wavekit_codec::net::{Assembled, FrameInfo, Receiver};
use wavekit_codec::{Chroma, CodecError, EncodeConfig, Header};

/// What a call returned.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WkStatus {
    /// Done.
    Ok = 0,
    /// An argument the call cannot take (a null pointer, a size, a budget): see the message.
    InvalidArgument = 1,
    /// Bytes that are not a decodable frame (its header).
    Bitstream = 2,
    /// The device failed, or none could be made.
    Device = 3,
    /// An output buffer too small: the size needed is in the length output.
    BufferTooSmall = 4,
    /// Nothing to give yet (no frame ready).
    None = 5,
    /// A bug in wavekit (a panic, caught): please report the message.
    Internal = 6,
}

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: impl Into<String>) {
    let msg = msg.into().replace('\0', " ");
    LAST.with(|l| *l.borrow_mut() = CString::new(msg).unwrap_or_default());
}

/// The message of the calling thread's last failure ("" if none); valid until its next call
/// into wavekit.
#[unsafe(no_mangle)]
pub extern "C" fn wk_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

type Res<T> = Result<T, (WkStatus, String)>;

fn invalid<T>(msg: impl Into<String>) -> Res<T> {
    Err((WkStatus::InvalidArgument, msg.into()))
}

fn codec_err(e: CodecError) -> (WkStatus, String) {
    let status = match &e {
        CodecError::Gpu(_) => WkStatus::Device,
        CodecError::Bitstream(_) => WkStatus::Bitstream,
        _ => WkStatus::InvalidArgument,
    };
    (status, e.to_string())
}

/// Run `f`, turning its error or panic into a status and the thread's message.
fn guard(f: impl FnOnce() -> Res<()>) -> WkStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_error("");
            WkStatus::Ok
        }
        Ok(Err((s, m))) => {
            set_error(m);
            s
        }
        Err(p) => {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            set_error(format!("wavekit panicked (a bug; please report it): {m}"));
            WkStatus::Internal
        }
    }
}

unsafe fn slice<'a>(ptr: *const u8, len: usize, what: &str) -> Res<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return invalid(format!("{what} is null with a length of {len}"));
    }
    // SAFETY: the caller gives `len` readable bytes at `ptr` (the API's contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

unsafe fn out_of<'a, T>(ptr: *mut T, what: &str) -> Res<&'a mut T> {
    // SAFETY: a non-null output pointer points to a writable T (the API's contract).
    unsafe { ptr.as_mut() }.ok_or_else(|| (WkStatus::InvalidArgument, format!("{what} is null")))
}

/// Copy `bytes` into the caller's buffer of `cap` bytes, its length into `len`.
unsafe fn give(bytes: &[u8], out: *mut u8, cap: usize, len: *mut usize, what: &str) -> Res<()> {
    let len = unsafe { out_of(len, "the length output") }?;
    *len = bytes.len();
    if bytes.len() > cap {
        return Err((
            WkStatus::BufferTooSmall,
            format!("{what} needs {} bytes, the buffer has {cap}", bytes.len()),
        ));
    }
    if !bytes.is_empty() {
        if out.is_null() {
            return invalid(format!("the {what} buffer is null"));
        }
        // SAFETY: `out` has `cap` ≥ `bytes.len()` writable bytes (the API's contract).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
    }
    Ok(())
}

/// A device (a GPU through wgpu, or none: the CPU reference codec).
pub struct WkContext {
    gpu: Option<GpuContext>,
}

/// Make a context: on the GPU `adapter` names (an index or part of its name; null: the best),
/// or, with `cpu` non-zero, on the CPU reference codec (no GPU; the same bytes and pixels).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_context_new(
    adapter: *const c_char,
    cpu: i32,
    out: *mut *mut WkContext,
) -> WkStatus {
    guard(|| {
        let out = unsafe { out_of(out, "the context output") }?;
        *out = std::ptr::null_mut();
        let gpu = if cpu != 0 {
            None
        } else {
            let adapter = if adapter.is_null() {
                None
            } else {
                // SAFETY: a non-null adapter is a NUL-terminated string (the API's contract).
                let s = unsafe { CStr::from_ptr(adapter) };
                Some(
                    s.to_str()
                        .map_err(|_| {
                            (
                                WkStatus::InvalidArgument,
                                "the adapter name is not UTF-8".to_string(),
                            )
                        })?
                        .to_string(),
                )
            };
            let options = ContextOptions {
                adapter,
                ..Default::default()
            };
            Some(GpuContext::new(&options).map_err(|e| (WkStatus::Device, e.to_string()))?)
        };
        *out = Box::into_raw(Box::new(WkContext { gpu }));
        Ok(())
    })
}

/// Free a context (after its encoders and decoders).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_context_free(ctx: *mut WkContext) {
    if !ctx.is_null() {
        // SAFETY: made by wk_context_new and not freed before (the API's contract).
        drop(unsafe { Box::from_raw(ctx) });
    }
}

/// How frames are coded.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WkEncodeConfig {
    /// Frame width, 1 to 16384.
    pub width: u32,
    /// Frame height, 1 to 16384.
    pub height: u32,
    /// Chroma sampling: 420 or 444.
    pub chroma: u32,
    /// Wavelet levels (5 is the usual; fewer where the frame is small).
    pub levels: u32,
    /// Each frame's size at most, in bytes (lossless: a cap, or 0 for none).
    pub budget_bytes: u64,
    /// Non-zero: lossless (the 5/3 and the RCT, 4:4:4).
    pub lossless: i32,
}

/// An encoder for one frame size.
pub struct WkEncoder {
    ctx: *const WkContext,
    width: u32,
    height: u32,
    config: EncodeConfig,
    gpu: Option<wavekit_codec::gpu::Encoder>,
}

fn config_of(c: &WkEncodeConfig) -> Res<EncodeConfig> {
    let chroma = match c.chroma {
        420 => Chroma::Yuv420,
        444 => Chroma::Yuv444,
        x => return invalid(format!("chroma {x}: give 420 or 444")),
    };
    let budget = if c.lossless != 0 && c.budget_bytes == 0 {
        (12 * c.width as usize * c.height as usize + 65_536)
            .min(wavekit_codec::gpu::MAX_FRAME_BYTES)
    } else {
        usize::try_from(c.budget_bytes)
            .map_err(|_| (WkStatus::InvalidArgument, "budget too large".to_string()))?
    };
    Ok(EncodeConfig {
        chroma,
        levels: u8::try_from(c.levels).map_err(|_| {
            (
                WkStatus::InvalidArgument,
                format!("{} levels: give 0 to 8", c.levels),
            )
        })?,
        budget,
        lossless: c.lossless != 0,
        source: wavekit_codec::Source::Rgb,
    })
}

/// Make an encoder for frames of `config` on `ctx` (which must outlive it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_encoder_new(
    ctx: *const WkContext,
    config: *const WkEncodeConfig,
    out: *mut *mut WkEncoder,
) -> WkStatus {
    guard(|| {
        let out = unsafe { out_of(out, "the encoder output") }?;
        *out = std::ptr::null_mut();
        // SAFETY: non-null pointers from wk_context_new and the caller's config.
        let c = unsafe { ctx.as_ref() }
            .ok_or((WkStatus::InvalidArgument, "the context is null".to_string()))?;
        let cfg = unsafe { config.as_ref() }
            .ok_or((WkStatus::InvalidArgument, "the config is null".to_string()))?;
        let config = config_of(cfg)?;
        let gpu = match &c.gpu {
            Some(g) => Some(
                wavekit_codec::gpu::Encoder::new(g, cfg.width, cfg.height, &config)
                    .map_err(codec_err)?,
            ),
            None => {
                wavekit_codec::cpu::frame_layout(cfg.width, cfg.height, &config)
                    .map_err(codec_err)?;
                None
            }
        };
        *out = Box::into_raw(Box::new(WkEncoder {
            ctx,
            width: cfg.width,
            height: cfg.height,
            config,
            gpu,
        }));
        Ok(())
    })
}

/// Encode one frame of 8-bit RGB (3 bytes a pixel, rows top to bottom, `width · height · 3`
/// bytes) into `out` (`cap` bytes; the frame is at most the budget); its length into `len`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_encode_rgb(
    enc: *const WkEncoder,
    rgb: *const u8,
    rgb_len: usize,
    out: *mut u8,
    cap: usize,
    len: *mut usize,
) -> WkStatus {
    guard(|| {
        // SAFETY: a non-null encoder from wk_encoder_new.
        let e = unsafe { enc.as_ref() }
            .ok_or((WkStatus::InvalidArgument, "the encoder is null".to_string()))?;
        let want = e.width as usize * e.height as usize * 3;
        if rgb_len != want {
            return invalid(format!(
                "{rgb_len} bytes of RGB for a {} x {} frame: give {want} (3 a pixel)",
                e.width, e.height
            ));
        }
        let rgb = unsafe { slice(rgb, rgb_len, "the RGB") }?;
        let frame = match &e.gpu {
            Some(g) => {
                // SAFETY: the context outlives its encoders (the API's contract).
                let ctx = unsafe { &*e.ctx };
                g.encode(
                    ctx.gpu.as_ref().expect("a GPU encoder has a GPU context"),
                    rgb,
                )
                .map_err(codec_err)?
            }
            None => {
                wavekit_codec::cpu::encode(rgb, e.width, e.height, &e.config)
                    .map_err(codec_err)?
                    .0
            }
        };
        unsafe { give(&frame, out, cap, len, "the frame") }
    })
}

/// Free an encoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_encoder_free(enc: *mut WkEncoder) {
    if !enc.is_null() {
        // SAFETY: made by wk_encoder_new and not freed before.
        drop(unsafe { Box::from_raw(enc) });
    }
}

/// A frame's size, read from its header (the first 24 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_frame_size(
    frame: *const u8,
    len: usize,
    width: *mut u32,
    height: *mut u32,
) -> WkStatus {
    guard(|| {
        let bytes = unsafe { slice(frame, len, "the frame") }?;
        let h = Header::parse(bytes).map_err(codec_err)?;
        *unsafe { out_of(width, "the width output") }? = h.width;
        *unsafe { out_of(height, "the height output") }? = h.height;
        Ok(())
    })
}

/// A decoder for frames of one header (size, sampling, levels).
pub struct WkDecoder {
    ctx: *const WkContext,
    header: Header,
    gpu: Option<wavekit_codec::gpu::Decoder>,
    capacity: usize,
}

/// Make a decoder for frames like `frame` (its header; frames up to `capacity` bytes, 0: the
/// frame's own length) on `ctx`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_decoder_new(
    ctx: *const WkContext,
    frame: *const u8,
    len: usize,
    capacity: usize,
    out: *mut *mut WkDecoder,
) -> WkStatus {
    guard(|| {
        let out = unsafe { out_of(out, "the decoder output") }?;
        *out = std::ptr::null_mut();
        let c = unsafe { ctx.as_ref() }
            .ok_or((WkStatus::InvalidArgument, "the context is null".to_string()))?;
        let bytes = unsafe { slice(frame, len, "the frame") }?;
        let header = Header::parse(bytes).map_err(codec_err)?;
        let capacity = if capacity == 0 { len } else { capacity };
        let gpu = match &c.gpu {
            Some(g) => {
                Some(wavekit_codec::gpu::Decoder::new(g, &header, capacity).map_err(codec_err)?)
            }
            None => None,
        };
        *out = Box::into_raw(Box::new(WkDecoder {
            ctx,
            header,
            gpu,
            capacity,
        }));
        Ok(())
    })
}

/// Decode a frame into 8-bit RGB (`width · height · 3` bytes into `rgb`, `cap` bytes); the
/// number of damaged (or missing) blocks, concealed as flat, into `damaged` (may be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_decode_rgb(
    dec: *const WkDecoder,
    frame: *const u8,
    len: usize,
    rgb: *mut u8,
    cap: usize,
    damaged: *mut u32,
) -> WkStatus {
    guard(|| {
        let d = unsafe { dec.as_ref() }
            .ok_or((WkStatus::InvalidArgument, "the decoder is null".to_string()))?;
        let bytes = unsafe { slice(frame, len, "the frame") }?;
        let header = Header::parse(bytes).map_err(codec_err)?;
        if header != d.header {
            return invalid(format!(
                "a {} x {} frame for a decoder of {} x {} frames: make a decoder for it",
                header.width, header.height, d.header.width, d.header.height
            ));
        }
        if len > d.capacity {
            return invalid(format!(
                "a frame of {len} bytes for a decoder of {}",
                d.capacity
            ));
        }
        let (pixels, report) = match &d.gpu {
            Some(g) => {
                let ctx = unsafe { &*d.ctx };
                g.decode(
                    ctx.gpu.as_ref().expect("a GPU decoder has a GPU context"),
                    bytes,
                )
                .map_err(codec_err)?
            }
            None => {
                let (_, p, r) = wavekit_codec::cpu::decode(bytes).map_err(codec_err)?;
                (p, r)
            }
        };
        if !damaged.is_null() {
            // SAFETY: a non-null output pointer (the API's contract).
            unsafe { *damaged = report.damaged.len() as u32 };
        }
        let mut n = 0usize;
        unsafe { give(&pixels, rgb, cap, &mut n, "the RGB") }
    })
}

/// Free a decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_decoder_free(dec: *mut WkDecoder) {
    if !dec.is_null() {
        // SAFETY: made by wk_decoder_new and not freed before.
        drop(unsafe { Box::from_raw(dec) });
    }
}

/// What the sender says about a frame (every datagram carries it).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WkFrameInfo {
    /// The stream's id.
    pub stream: u32,
    /// The frame's number.
    pub frame: u32,
    /// Capture time, microseconds of the sender's clock.
    pub capture_us: u64,
    /// Encode time, microseconds.
    pub encode_us: u32,
    /// The .y4m sampling tag (0 for 4:2:0 JPEG siting, 4 for 4:4:4).
    pub tag: u8,
    /// Frames a second: numerator.
    pub rate_num: u32,
    /// Frames a second: denominator.
    pub rate_den: u32,
}

impl From<WkFrameInfo> for FrameInfo {
    fn from(i: WkFrameInfo) -> Self {
        FrameInfo {
            stream: i.stream,
            frame: i.frame,
            capture_us: i.capture_us,
            encode_us: i.encode_us,
            tag: i.tag,
            rate: (i.rate_num, i.rate_den),
        }
    }
}

impl From<FrameInfo> for WkFrameInfo {
    fn from(i: FrameInfo) -> Self {
        WkFrameInfo {
            stream: i.stream,
            frame: i.frame,
            capture_us: i.capture_us,
            encode_us: i.encode_us,
            tag: i.tag,
            rate_num: i.rate.0,
            rate_den: i.rate.1,
        }
    }
}

/// A datagram, handed to the caller's function (which sends it).
pub type WkDatagramFn =
    Option<unsafe extern "C" fn(user: *mut c_void, datagram: *const u8, len: usize)>;

/// Cut `frame` into datagrams of at most `mtu` bytes (256 to 65 507), each handed to `emit`
/// with `user`, in order.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_packetize(
    frame: *const u8,
    len: usize,
    info: *const WkFrameInfo,
    mtu: usize,
    emit: WkDatagramFn,
    user: *mut c_void,
) -> WkStatus {
    // No parity: the same call with groups of none.
    unsafe { wk_packetize_fec(frame, len, info, mtu, 0, emit, user) }
}

/// [`wk_packetize`] with forward error correction: after every `k` datagrams (1 to 64; 0:
/// none) a parity datagram from which the receiver rebuilds any one of them lost.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_packetize_fec(
    frame: *const u8,
    len: usize,
    info: *const WkFrameInfo,
    mtu: usize,
    k: usize,
    emit: WkDatagramFn,
    user: *mut c_void,
) -> WkStatus {
    guard(|| {
        let bytes = unsafe { slice(frame, len, "the frame") }?;
        let i = unsafe { info.as_ref() }.ok_or((
            WkStatus::InvalidArgument,
            "the frame info is null".to_string(),
        ))?;
        let emit = emit.ok_or((
            WkStatus::InvalidArgument,
            "the emit function is null".to_string(),
        ))?;
        for d in wavekit_codec::net::packetize_fec(bytes, &FrameInfo::from(*i), mtu, k)
            .map_err(codec_err)?
        {
            // SAFETY: the caller's function, called with its own user pointer.
            unsafe { emit(user, d.as_ptr(), d.len()) };
        }
        Ok(())
    })
}

/// Puts frames back together from datagrams.
pub struct WkReceiver {
    rx: Receiver,
    ready: std::collections::VecDeque<Assembled>,
}

/// A frame put back together ([`wk_receiver_next`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WkAssembledInfo {
    /// The sender's fields.
    pub info: WkFrameInfo,
    /// Blocks in the frame.
    pub blocks: u32,
    /// Blocks that did not arrive.
    pub missing: u32,
    /// Of those, taken from the previous frame (the rest are flat, counted as damaged).
    pub from_previous: u32,
    /// Datagrams rebuilt from parity.
    pub datagrams_recovered: u32,
    /// Datagrams the frame was sent in.
    pub datagrams_sent: u32,
    /// Datagrams that arrived.
    pub datagrams_received: u32,
    /// Non-zero when every datagram arrived.
    pub complete: i32,
}

/// A receiver (frames in order, at most 8 held, bad datagrams counted and dropped); a missing
/// block is taken from the previous frame where `previous` is non-zero (else flat: the
/// decoder counts it as damaged).
#[unsafe(no_mangle)]
pub extern "C" fn wk_receiver_new(previous: i32) -> *mut WkReceiver {
    let conceal = if previous != 0 {
        wavekit_codec::net::Conceal::Previous
    } else {
        wavekit_codec::net::Conceal::Flat
    };
    Box::into_raw(Box::new(WkReceiver {
        rx: Receiver::with_conceal(conceal),
        ready: Default::default(),
    }))
}

/// Take a datagram received at `now_us` (microseconds of the receiver's clock): `WK_STATUS_OK` if it
/// was used, `WK_STATUS_INVALID_ARGUMENT` (and why, in the message) if it was dropped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_receiver_accept(
    r: *mut WkReceiver,
    datagram: *const u8,
    len: usize,
    now_us: u64,
) -> WkStatus {
    guard(|| {
        let r = unsafe { out_of(r, "the receiver") }?;
        let d = unsafe { slice(datagram, len, "the datagram") }?;
        r.rx.accept(d, now_us).map_err(|why| {
            (
                WkStatus::InvalidArgument,
                format!("datagram dropped: {why:?}"),
            )
        })
    })
}

/// The next frame due at `now_us` (every datagram in, or `deadline_us` after its first): its
/// bytes into `frame` (`cap` bytes, its length into `len`) and what it is into `info`;
/// `WK_STATUS_NONE` when no frame is due. Decode it with [`wk_decode_rgb`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_receiver_next(
    r: *mut WkReceiver,
    now_us: u64,
    deadline_us: u64,
    frame: *mut u8,
    cap: usize,
    len: *mut usize,
    info: *mut WkAssembledInfo,
) -> WkStatus {
    guard(|| {
        let r = unsafe { out_of(r, "the receiver") }?;
        let due = r.rx.ready(now_us, deadline_us);
        r.ready.extend(due);
        let Some(a) = r.ready.front() else {
            *unsafe { out_of(len, "the length output") }? = 0;
            return Err((WkStatus::None, "no frame is due".into()));
        };
        unsafe { give(&a.bytes, frame, cap, len, "the frame") }?;
        if !info.is_null() {
            // SAFETY: a non-null output pointer (the API's contract).
            unsafe {
                *info = WkAssembledInfo {
                    info: WkFrameInfo::from(a.info),
                    blocks: a.blocks,
                    missing: a.missing,
                    from_previous: a.from_previous,
                    datagrams_recovered: u32::from(a.recovered),
                    datagrams_sent: u32::from(a.sent),
                    datagrams_received: u32::from(a.received),
                    complete: i32::from(a.complete),
                };
            }
        }
        r.ready.pop_front();
        Ok(())
    })
}

/// Datagrams the receiver dropped so far, and frames it never handed over.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_receiver_counts(
    r: *const WkReceiver,
    dropped: *mut u64,
    frames_lost: *mut u64,
) -> WkStatus {
    guard(|| {
        let r = unsafe { r.as_ref() }.ok_or((
            WkStatus::InvalidArgument,
            "the receiver is null".to_string(),
        ))?;
        *unsafe { out_of(dropped, "the dropped output") }? = r.rx.dropped.values().sum();
        *unsafe { out_of(frames_lost, "the frames-lost output") }? = r.rx.frames_lost;
        Ok(())
    })
}

/// Free a receiver.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wk_receiver_free(r: *mut WkReceiver) {
    if !r.is_null() {
        // SAFETY: made by wk_receiver_new and not freed before.
        drop(unsafe { Box::from_raw(r) });
    }
}
