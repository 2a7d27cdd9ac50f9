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
use pyo3::types::PyBytes;
use wavekit::histogram::{Histogram, HistogramConfig, Sample};
use wavekit::monoid::{Element, Monoid, Op};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::select::{Keep, Select, SelectConfig};
use wavekit::sort::{RadixSort, SortConfig, SortKey, Values};
use wavekit::{ContextOptions, GpuContext};

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
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
        if let Ok(t) = found.clone().downcast::<T>() {
            return Ok(t);
        }
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

/// A float key in numpy's order: -0.0 as +0.0, every NaN as the one positive NaN (last).
fn numpy_key(x: f32) -> f32 {
    if x.is_nan() {
        f32::NAN
    } else if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// Keys sorted, or with `indices` the stable sorting permutation (u32).
fn sort_on<K: SortKey + Send + Sync>(
    ctx: &GpuContext,
    keys: &[K],
    indices: bool,
) -> Result<Vec<u8>> {
    let n = keys.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let key = format!("sort {:?} {indices}", K::TYPE);
    let sort = cached(&key, || {
        let values = if indices {
            Values::Indices
        } else {
            Values::None
        };
        Ok(RadixSort::new(
            ctx,
            &SortConfig {
                values,
                ..SortConfig::keys(K::TYPE)
            },
        )?)
    })?;
    let kb = ctx.storage_from("sort keys", keys)?;
    let vb = ctx.storage_uninit("sort indices", (n as u64) * 4)?;
    let bound = sort.bind(ctx, &kb, indices.then_some(&vb), n as u64)?;
    ctx.submit_checked("a sort", |enc| bound.record(enc))?;
    Ok(if indices {
        bytemuck::cast_slice(&ctx.read_back::<u32>("sort indices", &vb, n)?).to_vec()
    } else {
        bytemuck::cast_slice(&ctx.read_back::<K>("sort keys", &kb, n)?).to_vec()
    })
}

/// The stable sorting permutation (u32 indices, as bytes).
#[pyfunction]
fn argsort<'py>(py: Python<'py>, data: &[u8], dtype: &str) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let perm = py.detach(|| -> Result<Vec<u8>> {
        match dtype {
            "u4" => sort_on(ctx, &cast::<u32>(data)?, true),
            "i4" => sort_on(ctx, &cast::<i32>(data)?, true),
            "f4" => {
                let keys: Vec<f32> = cast::<f32>(data)?.into_iter().map(numpy_key).collect();
                sort_on(ctx, &keys, true)
            }
            other => Err(Error::dtype("argsort", other)),
        }
    })?;
    Ok(PyBytes::new(py, &perm))
}

/// The sorted integers (floats are sorted through `argsort`, for numpy's order of NaN and -0).
#[pyfunction]
fn sort<'py>(py: Python<'py>, data: &[u8], dtype: &str) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let bytes = py.detach(|| -> Result<Vec<u8>> {
        match dtype {
            "u4" => sort_on(ctx, &cast::<u32>(data)?, false),
            "i4" => sort_on(ctx, &cast::<i32>(data)?, false),
            other => Err(Error::dtype("sort", other)),
        }
    })?;
    Ok(PyBytes::new(py, &bytes))
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

/// 32-bit integers widened to 64-bit (low, high) words: sign-extended for `i4`.
fn widen(data: &[u8], dtype: &str, what: &'static str) -> Result<Vec<[u32; 2]>> {
    Ok(match dtype {
        "u4" => cast::<u32>(data)?.into_iter().map(|x| [x, 0]).collect(),
        "i4" => cast::<i32>(data)?
            .into_iter()
            .map(|x| {
                let w = i64::from(x) as u64;
                [w as u32, (w >> 32) as u32]
            })
            .collect(),
        other => return Err(Error::dtype(what, other)),
    })
}

fn scan64(ctx: &GpuContext, pairs: &[[u32; 2]], inclusive: bool) -> Result<Vec<u64>> {
    let scan = cached(&format!("scan u64 {inclusive}"), || {
        let config = ScanConfig {
            inclusive,
            ..ScanConfig::inclusive(sum64()?)
        };
        Ok(Scan::new(ctx, &config)?)
    })?;
    let n = pairs.len();
    let src = ctx.storage_from("cumsum input", pairs)?;
    let dst = ctx.storage_uninit("cumsum output", (n as u64).max(1) * 8)?;
    let bound = scan.bind(ctx, &src, Some(&dst), n as u64)?;
    ctx.submit_checked("a cumsum", |enc| bound.record(enc))?;
    let words: Vec<[u32; 2]> = ctx.read_back("cumsum output", &dst, n)?;
    Ok(words
        .into_iter()
        .map(|[lo, hi]| u64::from(lo) | (u64::from(hi) << 32))
        .collect())
}

/// Running sums: 64-bit for integers (`u8`/`i8` bytes), f32 for floats; exclusive where asked.
#[pyfunction]
#[pyo3(signature = (data, dtype, exclusive=false))]
fn cumsum<'py>(
    py: Python<'py>,
    data: &[u8],
    dtype: &str,
    exclusive: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let bytes = py.detach(|| -> Result<Vec<u8>> {
        if dtype == "f4" {
            let v = cast::<f32>(data)?;
            if v.is_empty() {
                return Ok(Vec::new());
            }
            let scan = cached(&format!("scan f32 {exclusive}"), || {
                let config = ScanConfig {
                    inclusive: !exclusive,
                    ..ScanConfig::inclusive(Monoid::builtin(f32::SCALAR, Op::Add))
                };
                Ok(Scan::new(ctx, &config)?)
            })?;
            let src = ctx.storage_from("cumsum input", &v)?;
            let dst = ctx.storage_uninit("cumsum output", (v.len() as u64) * 4)?;
            let bound = scan.bind(ctx, &src, Some(&dst), v.len() as u64)?;
            ctx.submit_checked("a cumsum", |enc| bound.record(enc))?;
            let s: Vec<f32> = ctx.read_back("cumsum output", &dst, v.len())?;
            return Ok(bytemuck::cast_slice(&s).to_vec());
        }
        let pairs = widen(data, dtype, "cumsum")?;
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        Ok(bytemuck::cast_slice(&scan64(ctx, &pairs, !exclusive)?).to_vec())
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The sum (8 bytes: a 64-bit integer's, or an f64 holding the f32 sum), the minimum or the
/// maximum (4 bytes, the element type), of a non-empty array.
#[pyfunction]
fn reduce<'py>(
    py: Python<'py>,
    data: &[u8],
    dtype: &str,
    op: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let op = match op {
        "sum" => Op::Add,
        "min" => Op::Min,
        "max" => Op::Max,
        other => {
            return Err(Error::InvalidArgument(format!("reduce: no operation '{other}'")).into());
        }
    };
    let bytes = py.detach(|| -> Result<Vec<u8>> {
        fn reduce_on<T: Element>(ctx: &GpuContext, v: &[T], op: Op) -> Result<T> {
            let r = cached(&format!("reduce {:?} {}", T::SCALAR, op.name()), || {
                Ok(Reduce::new(
                    ctx,
                    &ReduceConfig::new(Monoid::builtin(T::SCALAR, op)),
                )?)
            })?;
            let src = ctx.storage_from("reduce input", v)?;
            let bound = r.bind(ctx, &src, v.len() as u64)?;
            ctx.submit_checked("a reduce", |enc| bound.record(enc))?;
            Ok(ctx.read_back::<T>("reduce result", bound.result(), 1)?[0])
        }
        Ok(match (dtype, op) {
            ("f4", _) => reduce_on(ctx, &cast::<f32>(data)?, op)?
                .to_le_bytes()
                .to_vec(),
            ("u4" | "i4", Op::Add) => {
                // A reduce of the 64-bit carry monoid on the widened words.
                let pairs = widen(data, dtype, "sum")?;
                let s = if pairs.is_empty() {
                    0
                } else {
                    let r = cached("reduce u64 sum", || {
                        Ok(Reduce::new(ctx, &ReduceConfig::new(sum64()?))?)
                    })?;
                    let src = ctx.storage_from("sum input", &pairs)?;
                    let bound = r.bind(ctx, &src, pairs.len() as u64)?;
                    ctx.submit_checked("a sum", |enc| bound.record(enc))?;
                    let [lo, hi] = ctx.read_back::<[u32; 2]>("sum result", bound.result(), 1)?[0];
                    u64::from(lo) | (u64::from(hi) << 32)
                };
                s.to_le_bytes().to_vec()
            }
            ("u4", _) => reduce_on(ctx, &cast::<u32>(data)?, op)?
                .to_le_bytes()
                .to_vec(),
            ("i4", _) => reduce_on(ctx, &cast::<i32>(data)?, op)?
                .to_le_bytes()
                .to_vec(),
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
    data: &[u8],
    dtype: &str,
    flags: &[u8],
    both: bool,
) -> PyResult<(Bound<'py, PyBytes>, usize)> {
    let ctx = ctx()?;
    let flags: Vec<u32> = flags.iter().map(|&f| u32::from(f != 0)).collect();
    let (bytes, kept) = py.detach(|| -> Result<(Vec<u8>, usize)> {
        fn run<T: wavekit::monoid::Element>(
            ctx: &GpuContext,
            v: &[T],
            flags: &[u32],
            both: bool,
        ) -> Result<(Vec<u8>, usize)> {
            if v.is_empty() {
                return Ok((Vec::new(), 0));
            }
            let s = cached(&format!("select {:?} {both}", T::SCALAR), || {
                Ok(Select::new(
                    ctx,
                    &SelectConfig::new(T::SCALAR, Keep::Flags, both),
                )?)
            })?;
            let src = ctx.storage_from("select input", v)?;
            let f = ctx.storage_from("select flags", flags)?;
            let dst = ctx.storage_uninit("select output", std::mem::size_of_val(v) as u64)?;
            let bound = s.bind(ctx, &src, Some(&f), &dst, v.len() as u64)?;
            ctx.submit_checked("a select", |enc| bound.record(enc))?;
            let kept = ctx.read_back::<u32>("select count", bound.count(), 1)?[0] as usize;
            let len = if both { v.len() } else { kept };
            let out: Vec<T> = ctx.read_back("select output", &dst, len)?;
            Ok((bytemuck::cast_slice(&out).to_vec(), kept))
        }
        match dtype {
            "u4" => run(ctx, &cast::<u32>(data)?, &flags, both),
            "i4" => run(ctx, &cast::<i32>(data)?, &flags, both),
            "f4" => run(ctx, &cast::<f32>(data)?, &flags, both),
            other => Err(Error::dtype("compress", other)),
        }
    })?;
    Ok((PyBytes::new(py, &bytes), kept))
}

/// Counts of `bins` equal bins over [lower, upper) (u32 each), then those below, at or above
/// upper, and NaN.
#[pyfunction]
fn histogram<'py>(
    py: Python<'py>,
    data: &[u8],
    dtype: &str,
    bins: u32,
    lower: f64,
    upper: f64,
) -> PyResult<Bound<'py, PyBytes>> {
    let ctx = ctx()?;
    let counts = py.detach(|| -> Result<wavekit::histogram::Counts> {
        /// One histogram's pipelines a type, re-ranged for each call.
        fn run<T: Sample>(
            ctx: &GpuContext,
            samples: &[T],
            bins: u32,
            (lower, upper): (T, T),
            (zero, one): (T, T),
        ) -> Result<wavekit::histogram::Counts> {
            let base = cached(&format!("histogram {:?}", T::SCALAR), || {
                Ok(Histogram::new(ctx, &HistogramConfig::new(1, zero, one))?)
            })?;
            let h = base.with_range(bins, lower, upper)?;
            let buf = ctx.storage_from("histogram samples", samples)?;
            let bound = h.bind(ctx, &buf, samples.len() as u64)?;
            ctx.submit_checked("a histogram", |enc| bound.record(enc))?;
            Ok(bound.read(ctx)?)
        }
        match dtype {
            "u4" => run(
                ctx,
                &cast::<u32>(data)?,
                bins,
                (lower as u32, upper as u32),
                (0, 1),
            ),
            "i4" => run(
                ctx,
                &cast::<i32>(data)?,
                bins,
                (lower as i32, upper as i32),
                (0, 1),
            ),
            "f4" => run(
                ctx,
                &cast::<f32>(data)?,
                bins,
                (lower as f32, upper as f32),
                (0.0, 1.0),
            ),
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
    m.add_function(wrap_pyfunction!(media::dwt, m)?)?;
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
