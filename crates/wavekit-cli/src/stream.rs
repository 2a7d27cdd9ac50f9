//! `.npy` files streamed to and from the GPU: the header parsed by hand, the data moved in
//! chunks through a small ring of mapped staging buffers, so that a chunk read from the file
//! lands directly in staging memory (one copy) while the GPU copies the previous ones to the
//! device, and the reverse on the way out. Host memory stays at the ring (4 × 16 MiB) whatever
//! the file's size; the elements are never decoded one by one. Progress goes to stderr for
//! jobs over a second.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wavekit::GpuContext;

use crate::error::CliError;

/// Bytes a staging buffer holds: a chunk of the file (16 MiB; `WAVEKIT_STREAM_CHUNK_BYTES`, a
/// multiple of 256, lowers it so the tests take the many-chunk paths on small files).
fn chunk() -> u64 {
    static CHUNK: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *CHUNK.get_or_init(|| {
        wavekit_harness::stream_chunk_bytes(&wavekit_harness::Env)
            .ok()
            .flatten()
            .unwrap_or(16 << 20)
    })
}
/// Staging buffers in flight.
const RING: usize = 4;

/// An element type of a `.npy` file wavekit reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `<u4`
    U32,
    /// `<i4`
    I32,
    /// `<f4`
    F32,
    /// `<u8`
    U64,
    /// `|b1`
    Bool,
    /// `|u1`
    U8,
    /// `|i1`
    I8,
}

impl Dtype {
    /// Bytes an element takes in the file.
    pub fn size(self) -> u64 {
        match self {
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 => 8,
            Dtype::Bool | Dtype::U8 | Dtype::I8 => 1,
        }
    }

    /// The numpy name.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U32 => "uint32",
            Dtype::I32 => "int32",
            Dtype::F32 => "float32",
            Dtype::U64 => "uint64",
            Dtype::Bool => "bool",
            Dtype::U8 => "uint8",
            Dtype::I8 => "int8",
        }
    }

    /// The `descr` of a little-endian file of this type.
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::F32 => "<f4",
            Dtype::U64 => "<u8",
            Dtype::Bool => "|b1",
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
        }
    }

    fn from_descr(d: &str) -> Option<(Dtype, bool)> {
        // (type, byte-swapped): '<' and '=' are little-endian on every host wavekit runs on.
        // Any text may reach here (an empty or non-ASCII descr too): split only on a char
        // boundary.
        if d.is_empty() || !d.is_char_boundary(1) {
            return None;
        }
        let (order, code) = d.split_at(1);
        let swapped = match order {
            "<" | "=" | "|" => false,
            ">" => true,
            _ => return None,
        };
        let t = match code {
            "u4" => Dtype::U32,
            "i4" => Dtype::I32,
            "f4" => Dtype::F32,
            "u8" => Dtype::U64,
            "b1" => Dtype::Bool,
            "u1" => Dtype::U8,
            "i1" => Dtype::I8,
            _ => return None,
        };
        Some((t, swapped && t.size() > 1))
    }
}

/// A `.npy` file's header: what its data is and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Npy {
    /// The file.
    pub path: PathBuf,
    /// Element type.
    pub dtype: Dtype,
    /// Big-endian data (bytes swapped on the way in).
    pub swapped: bool,
    /// Shape (C order).
    pub shape: Vec<u64>,
    /// Byte offset of the data.
    pub offset: u64,
}

fn bad(path: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

impl Npy {
    /// Elements (the header's shape was checked: its byte count fits a u64).
    pub fn len(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Bytes of data.
    pub fn bytes(&self) -> u64 {
        self.len() * self.dtype.size()
    }

    /// Read and check the header of `path` (any shape; the data must be all there).
    pub fn open(path: &Path) -> Result<Npy, CliError> {
        // The kind of file is asked before it is opened: opening a pipe with no writer waits
        // forever.
        let meta = std::fs::metadata(path).map_err(|e| bad(path, e))?;
        if meta.is_dir() {
            return Err(bad(path, "is a folder: give a .npy file"));
        }
        if !meta.is_file() {
            return Err(bad(
                path,
                "is not a regular file (a pipe or a device?): wavekit reads a .npy file's size \
                 before its data; save the array to a file first",
            ));
        }
        let mut f = std::fs::File::open(path).map_err(|e| bad(path, e))?;
        let mut pre = [0u8; 10];
        f.read_exact(&mut pre)
            .map_err(|_| bad(path, "not a readable .npy file: shorter than a header"))?;
        if &pre[..6] != b"\x93NUMPY" {
            return Err(bad(path, "not a readable .npy file: no NUMPY magic"));
        }
        let (len, start) = match pre[6] {
            1 => (u64::from(u16::from_le_bytes([pre[8], pre[9]])), 10u64),
            2 | 3 => {
                let mut more = [0u8; 2];
                f.read_exact(&mut more)
                    .map_err(|_| bad(path, "not a readable .npy file: truncated header"))?;
                (
                    u64::from(u32::from_le_bytes([pre[8], pre[9], more[0], more[1]])),
                    12,
                )
            }
            v => return Err(bad(path, format!("not a readable .npy file: version {v}"))),
        };
        if len > 1 << 20 {
            return Err(bad(path, "not a readable .npy file: header too long"));
        }
        let mut header = vec![0u8; len as usize];
        f.read_exact(&mut header)
            .map_err(|_| bad(path, "not a readable .npy file: truncated header"))?;
        let header = String::from_utf8_lossy(&header).into_owned();
        let npy = parse_header(path, &header, start + len)?;
        let size = f.metadata().map_err(|e| bad(path, e))?.len();
        if size < npy.offset + npy.bytes() {
            return Err(bad(
                path,
                format!(
                    "truncated: the header says {} elements of {} ({} bytes of data) but the file \
                     holds {}",
                    npy.len(),
                    npy.dtype.name(),
                    npy.bytes(),
                    size.saturating_sub(npy.offset)
                ),
            ));
        }
        Ok(npy)
    }

    /// Fails unless the array is 1-D.
    pub fn one_d(&self) -> Result<(), CliError> {
        if self.shape.len() != 1 {
            return Err(bad(
                &self.path,
                format!(
                    "shape {:?}: expected a 1-D array (flatten it with arr.ravel())",
                    self.shape
                ),
            ));
        }
        Ok(())
    }
}

/// The header dict: `{'descr': '<u4', 'fortran_order': False, 'shape': (5,), }` (keys and
/// the descr in single or double quotes).
fn parse_header(path: &Path, h: &str, offset: u64) -> Result<Npy, CliError> {
    let field = |key: &str| -> Option<&str> {
        let at = h
            .find(&format!("'{key}'"))
            .or_else(|| h.find(&format!("\"{key}\"")))?
            + key.len()
            + 2;
        let rest = h[at..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let quoted = |r: &str| -> Option<String> {
        let q = r.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        r[1..].split(q).next().map(str::to_string)
    };
    let descr_field = field("descr").ok_or_else(|| {
        bad(
            path,
            "not a readable .npy file: no 'descr' key in the header",
        )
    })?;
    let descr = quoted(descr_field).ok_or_else(|| {
        let shown: String = descr_field.chars().take(40).collect();
        bad(
            path,
            format!(
                "dtype {shown}…: not a plain type (a structured or object dtype?); use uint32, \
                 int32 or float32, e.g. arr.astype(np.float32)"
            ),
        )
    })?;
    let descr = descr.as_str();
    let (dtype, swapped) = Dtype::from_descr(descr).ok_or_else(|| {
        bad(
            path,
            format!(
                "dtype '{descr}' is not supported: use uint32, int32 or float32 (uint64 for sort \
                 keys; bool, uint8 or int8 for flags), e.g. arr.astype(np.float32)"
            ),
        )
    })?;
    let fortran = field("fortran_order").is_some_and(|r| r.starts_with("True"));
    let shape_text = field("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .ok_or_else(|| bad(path, "not a readable .npy file: no shape in the header"))?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<u64>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            bad(
                path,
                format!("not a readable .npy file: shape ({shape_text})"),
            )
        })?;
    // The byte count must fit: a shape such as (2^62,) would wrap it past the size check.
    let bytes = shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d));
    if bytes.is_none_or(|b| b > i64::MAX as u64) {
        return Err(bad(
            path,
            format!("shape {shape:?}: more data than any file holds (a damaged header?)"),
        ));
    }
    if fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(bad(
            path,
            "Fortran-ordered arrays are not supported: save with np.ascontiguousarray(arr)",
        ));
    }
    Ok(Npy {
        path: path.to_path_buf(),
        dtype,
        swapped,
        shape,
        offset,
    })
}

/// The header of a C-ordered little-endian file of `dtype` and `shape`, padded so the data
/// starts on a multiple of 64 bytes.
pub fn header(dtype: Dtype, shape: &[u64]) -> Vec<u8> {
    let dims = match shape {
        [d] => format!("{d},"),
        _ => shape
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    };
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': ({dims}), }}",
        dtype.descr()
    );
    while !(10 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((dict.len() as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out
}

/// Progress on stderr for a job that has run over a second: a line every half second.
pub struct Progress {
    what: String,
    total: u64,
    start: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    /// A job of `total` bytes.
    pub fn new(what: impl Into<String>, total: u64) -> Self {
        let now = Instant::now();
        Self {
            what: what.into(),
            total,
            start: now,
            last: now,
            shown: false,
        }
    }

    /// `done` bytes of the total are done.
    pub fn update(&mut self, done: u64) {
        let now = Instant::now();
        if now - self.start > Duration::from_secs(1) && now - self.last > Duration::from_millis(500)
        {
            self.last = now;
            self.shown = true;
            eprintln!(
                "wavekit: {} {:.2} / {:.2} GiB ({:.0} %)",
                self.what,
                done as f64 / f64::from(1u32 << 30),
                self.total as f64 / f64::from(1u32 << 30),
                100.0 * done as f64 / self.total.max(1) as f64
            );
        }
    }

    /// The job is done.
    pub fn finish(self) {
        if self.shown {
            eprintln!(
                "wavekit: {} done in {:.2} s",
                self.what,
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}

/// How a chunk of the file becomes device words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Convert {
    /// The bytes as they are (4- and 8-byte elements, little-endian).
    Raw,
    /// Big-endian elements of this size, bytes swapped.
    Swap(u64),
    /// One-byte flags widened to u32 (non-zero keeps).
    Flags,
}

/// Staging buffers, mapped for writing (upload) or reading (download), and what is in flight.
struct Ring {
    buffers: Vec<wgpu::Buffer>,
    pending: Vec<Option<std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>>>,
}

impl Ring {
    /// Staging for `total` bytes: as many buffers as chunks, up to [`RING`], none larger than
    /// the data (small files take little memory).
    fn new(ctx: &GpuContext, usage: wgpu::BufferUsages, mapped: bool, total: u64) -> Self {
        let size = chunk().min(total.next_multiple_of(4)).max(4);
        let count = total.div_ceil(size).clamp(1, RING as u64) as usize;
        let buffers = (0..count)
            .map(|i| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("wavekit.staging.{i}")),
                    size,
                    usage,
                    mapped_at_creation: mapped,
                })
            })
            .collect();
        Self {
            pending: (0..count).map(|_| None).collect(),
            buffers,
        }
    }

    /// Ask for slot `i` to be mapped once the GPU is done with it.
    fn map(&mut self, i: usize, mode: wgpu::MapMode) {
        let (tx, rx) = std::sync::mpsc::channel();
        self.buffers[i].map_async(mode, .., move |r| {
            let _ = tx.send(r);
        });
        self.pending[i] = Some(rx);
    }

    /// Wait until slot `i` is mapped.
    fn ready(&mut self, ctx: &GpuContext, i: usize) -> Result<(), CliError> {
        if let Some(rx) = self.pending[i].take() {
            ctx.wait()?;
            rx.recv()
                .map_err(|e| CliError::Usage(format!("staging buffer lost: {e}")))?
                .map_err(|e| CliError::Usage(format!("mapping a staging buffer: {e}")))?;
        }
        Ok(())
    }
}

/// Upload the data of `npy` (flags widened to u32) into a new storage buffer.
pub fn upload(
    ctx: &GpuContext,
    npy: &Npy,
    label: &str,
    progress: &mut Progress,
) -> Result<wgpu::Buffer, CliError> {
    let convert = match (npy.dtype, npy.swapped) {
        (Dtype::Bool | Dtype::U8 | Dtype::I8, _) => Convert::Flags,
        (t, true) => Convert::Swap(t.size()),
        _ => Convert::Raw,
    };
    let per_in = npy.dtype.size();
    let per_out = if convert == Convert::Flags { 4 } else { per_in };
    let n = npy.len();
    let device_bytes = n * per_out;
    let buffer = ctx.storage_uninit(label, device_bytes)?;
    let mut file = std::fs::File::open(&npy.path).map_err(|e| bad(&npy.path, e))?;
    file.seek(SeekFrom::Start(npy.offset))
        .map_err(|e| bad(&npy.path, e))?;
    let mut ring = Ring::new(
        ctx,
        wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        true,
        device_bytes,
    );
    // Elements a chunk holds once on the device (a multiple of 4 so offsets stay aligned).
    let per_chunk = chunk() / per_out / 4 * 4;
    // Host copies for the conversions (byte swaps, widened flags); raw data needs none.
    let mut host: Vec<u8> = Vec::new();
    let mut words: Vec<u32> = Vec::new();
    let mut done = 0u64;
    let mut i = 0usize;
    while done < n {
        let count = (n - done).min(per_chunk);
        let slot = i % ring.buffers.len();
        ring.ready(ctx, slot)?;
        let out_bytes = (count * per_out).next_multiple_of(4);
        {
            let staging = &ring.buffers[slot];
            let mut view = staging
                .get_mapped_range_mut(..out_bytes)
                .map_err(|e| CliError::Usage(format!("mapping a staging buffer: {e}")))?;
            let read_err = |e: std::io::Error| bad(&npy.path, format!("reading the data: {e}"));
            match convert {
                Convert::Raw => {
                    let len = (count * per_in) as usize;
                    let mut dst = view.slice(..len);
                    // SAFETY: the mapped range is valid for `len` bytes while `view` lives, and
                    // it is only written (by the read system call), never read: what wgpu's
                    // write-only view asks. Reading straight into it saves a copy.
                    let bytes = unsafe {
                        std::slice::from_raw_parts_mut(dst.as_raw_element_ptr().as_ptr(), len)
                    };
                    file.read_exact(bytes).map_err(read_err)?;
                }
                Convert::Swap(size) => {
                    host.resize((count * per_in) as usize, 0);
                    file.read_exact(&mut host).map_err(read_err)?;
                    for e in host.chunks_exact_mut(size as usize) {
                        e.reverse();
                    }
                    view.slice(..host.len()).copy_from_slice(&host);
                }
                Convert::Flags => {
                    host.resize(count as usize, 0);
                    file.read_exact(&mut host).map_err(read_err)?;
                    words.clear();
                    words.extend(host.iter().map(|&f| u32::from(f != 0)));
                    view.slice(..(count * 4) as usize)
                        .copy_from_slice(bytemuck::cast_slice(&words));
                }
            }
        }
        ring.buffers[slot].unmap();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(
            &ring.buffers[slot],
            0,
            &buffer,
            done * per_out,
            Some(out_bytes.min(device_bytes - done * per_out)),
        );
        ctx.queue.submit([enc.finish()]);
        ring.map(slot, wgpu::MapMode::Write);
        done += count;
        i += 1;
        progress.update(done * per_in);
    }
    ctx.wait()?;
    Ok(buffer)
}

/// Write `shape` elements of `dtype` from `buffer` (its first bytes) to a new `.npy` file.
pub fn download(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    dtype: Dtype,
    shape: &[u64],
    path: &Path,
    progress: &mut Progress,
) -> Result<(), CliError> {
    let n: u64 = shape.iter().product();
    let total = n * dtype.size();
    if total > buffer.size() {
        return Err(CliError::Usage(format!(
            "writing {total} bytes from a {}-byte buffer",
            buffer.size()
        )));
    }
    let mut file = std::io::BufWriter::with_capacity(
        1 << 20,
        std::fs::File::create(path).map_err(|e| bad(path, e))?,
    );
    let write_err = |e: std::io::Error| bad(path, format!("writing: {e}"));
    file.write_all(&header(dtype, shape)).map_err(write_err)?;
    let mut ring = Ring::new(
        ctx,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        false,
        total,
    );
    let slots = ring.buffers.len();
    let chunk = chunk().min(total.next_multiple_of(4)).max(4);
    let chunks = total.div_ceil(chunk).max(1);
    let span = |c: u64| {
        let start = c * chunk;
        (start, (total - start).min(chunk))
    };
    let request = |ring: &mut Ring, c: u64| {
        let (start, len) = span(c);
        let slot = (c as usize) % ring.buffers.len();
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(
            buffer,
            start,
            &ring.buffers[slot],
            0,
            Some(len.next_multiple_of(4)),
        );
        ctx.queue.submit([enc.finish()]);
        ring.map(slot, wgpu::MapMode::Read);
    };
    if total > 0 {
        for c in 0..chunks.min(slots as u64) {
            request(&mut ring, c);
        }
        for c in 0..chunks {
            let slot = (c as usize) % slots;
            ring.ready(ctx, slot)?;
            let (start, len) = span(c);
            {
                let view = ring.buffers[slot]
                    .get_mapped_range(..len.next_multiple_of(4))
                    .map_err(|e| CliError::Usage(format!("mapping a staging buffer: {e}")))?;
                file.write_all(&view[..len as usize]).map_err(write_err)?;
            }
            ring.buffers[slot].unmap();
            if c + (slots as u64) < chunks {
                request(&mut ring, c + slots as u64);
            }
            progress.update(start + len);
        }
    }
    file.flush().map_err(write_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_and_round_trip() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-stream-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        for (dtype, shape) in [
            (Dtype::U32, vec![5u64]),
            (Dtype::F32, vec![3, 4]),
            (Dtype::U64, vec![0]),
            (Dtype::Bool, vec![7]),
        ] {
            let p = dir.join("h.npy");
            let mut bytes = header(dtype, &shape);
            assert_eq!(bytes.len() % 64, 0);
            let n: u64 = shape.iter().product();
            bytes.extend(vec![0u8; (n * dtype.size()) as usize]);
            std::fs::write(&p, &bytes).unwrap();
            let h = Npy::open(&p).unwrap();
            assert_eq!((h.dtype, h.shape.clone(), h.swapped), (dtype, shape, false));
            assert_eq!(h.offset as usize, bytes.len() - (n * dtype.size()) as usize);
        }
        // numpy's own file, by npyz: the same header reading.
        let p = dir.join("npyz.npy");
        npyz::to_file_1d(&p, [1u32, 2, 3]).unwrap();
        let h = Npy::open(&p).unwrap();
        assert_eq!((h.dtype, h.len()), (Dtype::U32, 3));
        // Big-endian: swapped on the way in.
        let mut big = header(Dtype::U32, &[2]);
        let text = String::from_utf8(big.clone()).unwrap_or_default();
        assert!(text.is_empty() || text.contains("<u4"));
        let at = big.windows(3).position(|w| w == b"<u4").unwrap();
        big[at] = b'>';
        big.extend([0, 0, 0, 1, 0, 0, 0, 2]);
        std::fs::write(&p, &big).unwrap();
        let h = Npy::open(&p).unwrap();
        assert!(h.swapped);
        // Errors that say what is wrong.
        let mut short = header(Dtype::F32, &[10]);
        short.extend([0u8; 8]);
        std::fs::write(&p, &short).unwrap();
        let e = Npy::open(&p).unwrap_err().to_string();
        assert!(e.contains("truncated: the header says 10 elements"), "{e}");
        let mut f8 = header(Dtype::F32, &[1]);
        let at = f8.windows(3).position(|w| w == b"<f4").unwrap();
        f8[at + 2] = b'8';
        f8.extend([0u8; 8]);
        std::fs::write(&p, &f8).unwrap();
        let e = Npy::open(&p).unwrap_err().to_string();
        assert!(e.contains("dtype '<f8' is not supported"), "{e}");
        std::fs::write(&p, b"not numpy").unwrap();
        let e = Npy::open(&p).unwrap_err().to_string();
        assert!(e.contains("not a readable .npy file"), "{e}");
        // A folder, a device and a pipe with no writer (opening it would wait forever): said
        // as such.
        let e = Npy::open(&std::env::temp_dir()).unwrap_err().to_string();
        assert!(e.contains("is a folder: give a .npy file"), "{e}");
        #[cfg(unix)]
        {
            let e = Npy::open(Path::new("/dev/null")).unwrap_err().to_string();
            assert!(e.contains("is not a regular file"), "{e}");
            let fifo = p.with_extension("fifo.npy");
            let _ = std::fs::remove_file(&fifo);
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e = Npy::open(&fifo).unwrap_err().to_string();
                assert!(e.contains("is not a regular file"), "{e}");
                std::fs::remove_file(&fifo).unwrap();
            }
        }
        // Hostile headers (issue 32): errors, never a panic. Each file has 64 bytes of data.
        let raw = |dict: &str| {
            let mut d = dict.as_bytes().to_vec();
            while !(10 + d.len() + 1).is_multiple_of(64) {
                d.push(b' ');
            }
            d.push(b'\n');
            let mut out = b"\x93NUMPY\x01\x00".to_vec();
            out.extend((d.len() as u16).to_le_bytes());
            out.extend(d);
            out.extend([0u8; 64]);
            out
        };
        for (dict, needle) in [
            (
                "{'descr': '', 'fortran_order': False, 'shape': (3,), }",
                "dtype '' is not supported",
            ),
            (
                "{'descr': '\u{e9}4', 'fortran_order': False, 'shape': (3,), }",
                "is not supported",
            ),
            (
                "{'descr': '<', 'fortran_order': False, 'shape': (3,), }",
                "is not supported",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                "more data than any file holds",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (65536, 65536, 65536, 65536), }",
                "more data than any file holds",
            ),
            (
                "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (3,), }",
                "not a plain type",
            ),
            (
                "{'fortran_order': False, 'shape': (3,), }",
                "no 'descr' key",
            ),
        ] {
            std::fs::write(&p, raw(dict)).unwrap();
            let e = Npy::open(&p).unwrap_err().to_string();
            assert!(e.contains(needle), "{dict}: {e}");
        }
        // Double-quoted keys, as some writers make them, read.
        std::fs::write(
            &p,
            raw("{\"descr\": \"<u4\", \"fortran_order\": False, \"shape\": (16,), }"),
        )
        .unwrap();
        let h = Npy::open(&p).unwrap();
        assert_eq!((h.dtype, h.len()), (Dtype::U32, 16));
    }
}
