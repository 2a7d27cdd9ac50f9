//! The native half of the `wavekit` Python package: the core's one-call conveniences on byte
//! buffers, on one device for the process. The Python half (`python/wavekit/__init__.py`)
//! gives them numpy's interfaces (dtypes, shapes, NaN, the results' dtypes) and is what users
//! import; nothing here is meant to be called directly.
//!
//! Element types: `"u4"`, `"i4"`, `"f4"` (numpy's `uint32`, `int32`, `float32`), the types the
//! core's primitives take. Integer sums are taken in 64 bits (a scan and a reduce of a custom
//! `vec2<u32>` monoid with a carry), as numpy's `sum` and `cumsum` of 32-bit integers give
//! 64-bit results.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use wavekit::histogram::{Histogram, HistogramConfig, Sample};
use wavekit::monoid::{Element, Monoid, Op};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::select::{Keep, Select, SelectConfig};
use wavekit::sort::{RadixSort, SortConfig, SortKey, Values};
use wavekit::wgpu;
use wavekit::{ContextOptions, GpuContext, MappedRead};

mod error;
mod media;
mod spatial;
use error::{Error, Result};

static CONTEXT: OnceLock<std::result::Result<GpuContext, String>> = OnceLock::new();

type Cache = Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>;
static CACHE: OnceLock<Cache> = OnceLock::new();

/// The primitive `key` names, made by `make` the first time: its pipelines are compiled once
/// a process, not once a call.
fn cached<T: Any + Send + Sync>(key: &str, make: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(key)
        && let Ok(t) = found.clone().downcast::<T>()
    {
        return Ok(t);
    }
    let made = Arc::new(make()?);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.to_string(), made.clone());
    Ok(made)
}

fn make(
    adapter: Option<String>,
    disable_subgroups: bool,
) -> std::result::Result<GpuContext, String> {
    let options = ContextOptions {
        adapter,
        disable_subgroups,
        ..Default::default()
    };
    GpuContext::new(&options).map_err(|e| e.to_string())
}

/// The process's context, made with the defaults on first use.
fn ctx() -> Result<&'static GpuContext> {
    CONTEXT
        .get_or_init(|| make(None, false))
        .as_ref()
        .map_err(|e| Error::Device(e.clone()))
}

/// Choose the device before the first call: an adapter index or part of its name, and whether
/// to leave subgroups off. Returns the adapter's description.
#[pyfunction]
#[pyo3(signature = (adapter=None, disable_subgroups=false))]
fn init(adapter: Option<String>, disable_subgroups: bool) -> PyResult<String> {
    let mut fresh = false;
    let got = CONTEXT.get_or_init(|| {
        fresh = true;
        make(adapter.clone(), disable_subgroups)
    });
    if !fresh && (adapter.is_some() || disable_subgroups) {
        return Err(Error::InvalidArgument(
            "wavekit.init() after the device was chosen (by an earlier init or call): call it \
             once, before anything else"
                .into(),
        )
        .into());
    }
    match got {
        Ok(c) => Ok(format!(
            "{} (subgroups: {})",
            c.summary.label(),
            c.caps.subgroups.supported
        )),
        Err(e) => Err(Error::Device(e.clone()).into()),
    }
}

/// The device in use (made now if no call made it yet): its adapter, subgroup widths and the
/// limits that bound a call's sizes.
#[pyfunction]
fn device(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let c = ctx()?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("adapter", c.summary.label())?;
    d.set_item("subgroups", c.caps.subgroups.supported)?;
    d.set_item("subgroup_min_size", c.caps.subgroups.min_size)?;
    d.set_item("subgroup_max_size", c.caps.subgroups.max_size)?;
    d.set_item("max_buffer_size", c.caps.limits.max_buffer_size)?;
    d.set_item(
        "max_storage_buffer_binding_size",
        c.caps.limits.max_storage_buffer_binding_size,
    )?;
    Ok(d)
}

/// Elements of `dtype` from little-endian bytes.
fn cast<T: bytemuck::Pod>(bytes: &[u8]) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    if !bytes.len().is_multiple_of(size) {
        return Err(Error::InvalidArgument(format!(
            "{} bytes are not whole {size}-byte elements",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

fn out<'py, T: bytemuck::Pod>(py: Python<'py>, v: &[T]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, bytemuck::cast_slice(v))
}

/// A host array's bytes from the Python half's `(address, length)` of a C-contiguous numpy
/// array: read in place, not copied into a `bytes` object first.
fn host<'a>((addr, len): (usize, usize)) -> &'a [u8] {
    if len == 0 || addr == 0 {
        return &[];
    }
    // SAFETY: the Python half (`_host` in python/wavekit/__init__.py) passes the data address
    // and byte length of a C-contiguous array (its `__array_interface__`) that it holds a
    // reference to until this call returns, and numpy neither frees nor moves an array's data
    // while it is referenced. As in numpy's own loops that release the GIL, another Python
    // thread writing to the array meanwhile makes the result meaningless; that is the caller's
    // race, as it is with numpy.
    unsafe { std::slice::from_raw_parts(addr as *const u8, len) }
}

/// A host array's bytes to write, from the Python half's `(address, length)` of a C-contiguous
/// numpy array it allocated for the call's result.
fn host_mut<'a>((addr, len): (usize, usize)) -> &'a mut [u8] {
    if len == 0 || addr == 0 {
        return &mut [];
    }
    // SAFETY: as `host`, and the Python half allocates the array for this call's result and
    // holds the only reference to it until the call returns, so nothing else reads or writes
    // it meanwhile.
    unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) }
}

/// How many `size`-byte elements `data` holds.
fn count(data: &[u8], size: usize) -> Result<usize> {
    if !data.len().is_multiple_of(size) {
        return Err(Error::InvalidArgument(format!(
            "{} bytes are not whole {size}-byte elements",
            data.len()
        )));
    }
    Ok(data.len() / size)
}

/// A storage buffer of `f` of each `I`-byte element of `data` (`O` bytes each), converted a
/// chunk at a time on the way into the staging buffer (no whole converted copy).
fn upload_with<const I: usize, const O: usize>(
    ctx: &GpuContext,
    label: &str,
    data: &[u8],
    f: impl Fn([u8; I]) -> [u8; O],
) -> Result<wgpu::Buffer> {
    let n = count(data, I)?;
    let chunks = data.chunks(I << 14).map(|c| {
        let mut v = Vec::with_capacity(c.len() / I * O);
        for e in c.chunks_exact(I) {
            let mut a = [0u8; I];
            a.copy_from_slice(e);
            v.extend_from_slice(&f(a));
        }
        v
    });
    Ok(ctx.storage_from_chunks(label, (n * O) as u64, chunks)?)
}

/// A 32-bit integer widened to 64 bits (low, high words): sign-extended for `i4`.
fn widen_u32(b: [u8; 4]) -> [u8; 8] {
    u64::from(u32::from_le_bytes(b)).to_le_bytes()
}

fn widen_i32(b: [u8; 4]) -> [u8; 8] {
    i64::from(i32::from_le_bytes(b)).to_le_bytes()
}

/// The first `bytes` bytes of `buffer`, mapped for [`to_py`].
fn mapped(
    ctx: &'static GpuContext,
    what: &str,
    buffer: &wgpu::Buffer,
    bytes: usize,
) -> Result<Option<MappedRead<'static>>> {
    Ok(Some(ctx.read_back_mapped(what, buffer, bytes)?))
}

/// A read-back as a `bytearray` (one copy, from the mapped staging buffer; numpy wraps it
/// writable without another); `None`, an empty array's result, as an empty one.
fn to_py<'py>(py: Python<'py>, m: &Option<MappedRead<'_>>) -> PyResult<Bound<'py, PyByteArray>> {
    let Some(m) = m else {
        return Ok(PyByteArray::new(py, &[]));
    };
    PyByteArray::new_with(py, m.len(), |dst| {
        m.with(|src| wavekit::copy_bytes(dst, src))
            .map_err(|e| PyErr::from(Error::from(e)))
    })
}

/// A radix sort of `n` keys of `key` in `kb`, with `values` (`"none"`, `"u32"` in `vb`, or
/// `"indices"` written to `vb`), recorded and submitted.
fn radix_sort(
    ctx: &GpuContext,
    key: wavekit::sort::KeyType,
    values: Values,
    (kb, vb): (&wgpu::Buffer, Option<&wgpu::Buffer>),
    n: usize,
) -> Result<()> {
    let name = match values {
        Values::None => "none",
        Values::U32 => "u32",
        Values::Indices => "indices",
    };
    let sort = cached(&format!("sort {key:?} {name}"), || {
        Ok(RadixSort::new(
            ctx,
            &SortConfig {
                values,
                ..SortConfig::keys(key)
            },
        )?)
    })?;
    let bound = sort.bind(ctx, kb, vb, n as u64)?;
    ctx.submit_checked("a sort", |enc| bound.record(enc))?;
    Ok(())
}

fn key_type(dtype: &str, call: &'static str) -> Result<wavekit::sort::KeyType> {
    Ok(match dtype {
        "u4" => u32::TYPE,
        "i4" => i32::TYPE,
        // numpy's order (-0.0 equal to 0.0, every NaN equal and last), made from the floats'
        // bits by the sort itself: the array is uploaded as it is.
        "f4" => wavekit::sort::KeyType::F32Numpy,
        other => return Err(Error::dtype(call, other)),
    })
}

/// The stable sorting permutation (u32 indices, as bytes).
#[pyfunction]
fn argsort<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
) -> PyResult<Bound<'py, PyByteArray>> {
    let ctx = ctx()?;
    let data = host(data);
    let key = key_type(dtype, "argsort")?;
    let m = py.detach(|| -> Result<Option<MappedRead<'static>>> {
        let n = count(data, 4)?;
        if n == 0 {
            return Ok(None);
        }
        let kb = ctx.storage_from("sort keys", data)?;
        let vb = ctx.storage_uninit("sort indices", (n as u64) * 4)?;
        radix_sort(ctx, key, Values::Indices, (&kb, Some(&vb)), n)?;
        mapped(ctx, "sort indices", &vb, n * 4)
    })?;
    to_py(py, &m)
}

/// The array sorted (stable: floats in numpy's order, -0.0 equal to 0.0 and NaN last, each
/// keeping its own bits).
#[pyfunction]
fn sort<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
) -> PyResult<Bound<'py, PyByteArray>> {
    let ctx = ctx()?;
    let data = host(data);
    let key = key_type(dtype, "sort")?;
    let m = py.detach(|| -> Result<Option<MappedRead<'static>>> {
        let n = count(data, 4)?;
        if n == 0 {
            return Ok(None);
        }
        let kb = ctx.storage_from("sort keys", data)?;
        radix_sort(ctx, key, Values::None, (&kb, None), n)?;
        mapped(ctx, "sorted keys", &kb, n * 4)
    })?;
    to_py(py, &m)
}

/// 64-bit sums as pairs of u32 words (low, high), wrapping.
fn sum64() -> Result<Monoid> {
    Ok(Monoid::custom(
        "sum_u64",
        "vec2<u32>",
        "vec2<u32>(0u)",
        "vec2<u32>(a.x + b.x, a.y + b.y + select(0u, 1u, a.x + b.x < a.x))",
        true,
    )?)
}

/// A host array of 32-bit integers widened to 64 bits on its way to the GPU.
fn widened(
    ctx: &GpuContext,
    label: &str,
    data: &[u8],
    dtype: &str,
    call: &'static str,
) -> Result<wgpu::Buffer> {
    match dtype {
        "u4" => upload_with(ctx, label, data, widen_u32),
        "i4" => upload_with(ctx, label, data, widen_i32),
        other => Err(Error::dtype(call, other)),
    }
}

/// Running sums: 64-bit for integers (`u8`/`i8` bytes), f32 for floats; exclusive where asked.
#[pyfunction]
#[pyo3(signature = (data, dtype, exclusive=false))]
fn cumsum<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
    exclusive: bool,
) -> PyResult<Bound<'py, PyByteArray>> {
    let ctx = ctx()?;
    let data = host(data);
    let m = py.detach(|| -> Result<Option<MappedRead<'static>>> {
        let n = count(data, 4)?;
        let float = dtype == "f4";
        if !float && !matches!(dtype, "u4" | "i4") {
            return Err(Error::dtype("cumsum", dtype));
        }
        if n == 0 {
            return Ok(None);
        }
        let (scan, src, out) = if float {
            let scan = cached(&format!("scan f32 {exclusive}"), || {
                let config = ScanConfig {
                    inclusive: !exclusive,
                    ..ScanConfig::inclusive(Monoid::builtin(f32::SCALAR, Op::Add))
                };
                Ok(Scan::new(ctx, &config)?)
            })?;
            (scan, ctx.storage_from("cumsum input", data)?, 4)
        } else {
            let scan = cached(&format!("scan u64 {exclusive}"), || {
                let config = ScanConfig {
                    inclusive: !exclusive,
                    ..ScanConfig::inclusive(sum64()?)
                };
                Ok(Scan::new(ctx, &config)?)
            })?;
            (
                scan,
                widened(ctx, "cumsum input", data, dtype, "cumsum")?,
                8,
            )
        };
        let dst = ctx.storage_uninit("cumsum output", (n * out) as u64)?;
        let bound = scan.bind(ctx, &src, Some(&dst), n as u64)?;
        ctx.submit_checked("a cumsum", |enc| bound.record(enc))?;
        // 64-bit sums come back as (low, high) words: little-endian u64 already.
        mapped(ctx, "cumsum output", &dst, n * out)
    })?;
    to_py(py, &m)
}

/// The sum (8 bytes, a 64-bit integer's, for integers; 4, the f32 sum, for floats), the
/// minimum or the maximum (4 bytes, the element type), of a non-empty array.
#[pyfunction]
fn reduce<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
    op: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let data = host(data);
    let op = match op {
        "sum" => Op::Add,
        "min" => Op::Min,
        "max" => Op::Max,
        other => {
            return Err(Error::InvalidArgument(format!("reduce: no operation '{other}'")).into());
        }
    };
    let bytes = py.detach(|| -> Result<Vec<u8>> {
        fn reduce_on<T: Element>(ctx: &GpuContext, data: &[u8], op: Op) -> Result<Vec<u8>> {
            let n = count(data, std::mem::size_of::<T>())?;
            let r = cached(&format!("reduce {:?} {}", T::SCALAR, op.name()), || {
                Ok(Reduce::new(
                    ctx,
                    &ReduceConfig::new(Monoid::builtin(T::SCALAR, op)),
                )?)
            })?;
            let src = ctx.storage_from("reduce input", data)?;
            let bound = r.bind(ctx, &src, n as u64)?;
            ctx.submit_checked("a reduce", |enc| bound.record(enc))?;
            Ok(
                bytemuck::cast_slice(&ctx.read_back::<T>("reduce result", bound.result(), 1)?)
                    .to_vec(),
            )
        }
        Ok(match (dtype, op) {
            ("f4", _) => reduce_on::<f32>(ctx, data, op)?,
            ("u4" | "i4", Op::Add) => {
                // A reduce of the 64-bit carry monoid on the widened words.
                let n = count(data, 4)?;
                let s = if n == 0 {
                    0
                } else {
                    let r = cached("reduce u64 sum", || {
                        Ok(Reduce::new(ctx, &ReduceConfig::new(sum64()?))?)
                    })?;
                    let src = widened(ctx, "sum input", data, dtype, "sum")?;
                    let bound = r.bind(ctx, &src, n as u64)?;
                    ctx.submit_checked("a sum", |enc| bound.record(enc))?;
                    let [lo, hi] = ctx.read_back::<[u32; 2]>("sum result", bound.result(), 1)?[0];
                    u64::from(lo) | (u64::from(hi) << 32)
                };
                s.to_le_bytes().to_vec()
            }
            ("u4", _) => reduce_on::<u32>(ctx, data, op)?,
            ("i4", _) => reduce_on::<i32>(ctx, data, op)?,
            (other, _) => return Err(Error::dtype("reduce", other)),
        })
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// Kept elements (flags one byte each, non-zero keeps), and with `both` the rest after them,
/// each side in order; and how many were kept.
#[pyfunction]
fn select<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
    flags: (usize, usize),
    both: bool,
) -> PyResult<(Bound<'py, PyByteArray>, usize)> {
    let ctx = ctx()?;
    let (data, flags) = (host(data), host(flags));
    let (m, kept) = py.detach(|| -> Result<(Option<MappedRead<'static>>, usize)> {
        fn run<T: wavekit::monoid::Element>(
            ctx: &'static GpuContext,
            data: &[u8],
            flags: &[u8],
            both: bool,
        ) -> Result<(Option<MappedRead<'static>>, usize)> {
            let n = count(data, std::mem::size_of::<T>())?;
            if flags.len() != n {
                return Err(Error::InvalidArgument(format!(
                    "{} flags for {n} elements: give one an element",
                    flags.len()
                )));
            }
            if n == 0 {
                return Ok((None, 0));
            }
            let s = cached(&format!("select {:?} {both}", T::SCALAR), || {
                Ok(Select::new(
                    ctx,
                    &SelectConfig::new(T::SCALAR, Keep::Flags, both),
                )?)
            })?;
            let src = ctx.storage_from("select input", data)?;
            let f = upload_with(ctx, "select flags", flags, |[b]: [u8; 1]| {
                u32::from(b != 0).to_le_bytes()
            })?;
            let dst = ctx.storage_uninit("select output", data.len() as u64)?;
            let bound = s.bind(ctx, &src, Some(&f), &dst, n as u64)?;
            ctx.submit_checked("a select", |enc| bound.record(enc))?;
            let kept = ctx.read_back::<u32>("select count", bound.count(), 1)?[0] as usize;
            let len = if both { n } else { kept };
            Ok((
                mapped(ctx, "select output", &dst, len * std::mem::size_of::<T>())?,
                kept,
            ))
        }
        match dtype {
            "u4" => run::<u32>(ctx, data, flags, both),
            "i4" => run::<i32>(ctx, data, flags, both),
            "f4" => run::<f32>(ctx, data, flags, both),
            other => Err(Error::dtype("compress", other)),
        }
    })?;
    Ok((to_py(py, &m)?, kept))
}

/// Counts of `bins` equal bins over [lower, upper) (u32 each), then those below, at or above
/// upper, and NaN.
#[pyfunction]
fn histogram<'py>(
    py: Python<'py>,
    data: (usize, usize),
    dtype: &str,
    bins: u32,
    lower: f64,
    upper: f64,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let data = host(data);
    let counts = py.detach(|| -> Result<wavekit::histogram::Counts> {
        /// One histogram's pipelines a type, re-ranged for each call.
        fn run<T: Sample>(
            ctx: &GpuContext,
            data: &[u8],
            bins: u32,
            (lower, upper): (T, T),
            (zero, one): (T, T),
        ) -> Result<wavekit::histogram::Counts> {
            let n = count(data, std::mem::size_of::<T>())?;
            let base = cached(&format!("histogram {:?}", T::SCALAR), || {
                Ok(Histogram::new(ctx, &HistogramConfig::new(1, zero, one))?)
            })?;
            let h = base.with_range(bins, lower, upper)?;
            let buf = ctx.storage_from("histogram samples", data)?;
            let bound = h.bind(ctx, &buf, n as u64)?;
            ctx.submit_checked("a histogram", |enc| bound.record(enc))?;
            Ok(bound.read(ctx)?)
        }
        match dtype {
            "u4" => run(ctx, data, bins, (lower as u32, upper as u32), (0u32, 1)),
            "i4" => run(ctx, data, bins, (lower as i32, upper as i32), (0i32, 1)),
            "f4" => run(ctx, data, bins, (lower as f32, upper as f32), (0.0f32, 1.0)),
            other => Err(Error::dtype("histogram", other)),
        }
    })?;
    let mut all = counts.bins;
    all.extend([counts.below, counts.above, counts.nan]);
    Ok(out(py, &all))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(init, m)?)?;
    m.add_function(wrap_pyfunction!(device, m)?)?;
    m.add_function(wrap_pyfunction!(argsort, m)?)?;
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add_function(wrap_pyfunction!(histogram, m)?)?;
    m.add_class::<spatial::Tree>()?;
    m.add_function(wrap_pyfunction!(media::dwt_into, m)?)?;
    m.add_function(wrap_pyfunction!(media::codec_encode, m)?)?;
    m.add_function(wrap_pyfunction!(media::codec_decode, m)?)?;
    Ok(())
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::InvalidArgument(_) | Error::Dtype { .. } => PyValueError::new_err(e.to_string()),
            Error::Wavekit(wavekit::Error::InvalidArgument(_))
            | Error::Spatial(wavekit_spatial::SpatialError::InvalidArgument(_)) => {
                PyValueError::new_err(e.to_string())
            }
            _ => PyRuntimeError::new_err(e.to_string()),
        }
    }
}
