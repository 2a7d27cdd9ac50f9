//! The native half of `wavekit.spatial.KDTree`: a tree of 3-D f32 points on the device (the
//! BVH of `wavekit-spatial`, periodic where a box is given) and its queries, on bytes. The
//! Python half pads 2-D points to 3-D, checks shapes and dtypes, and gives SciPy's results.

use std::borrow::Cow;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use wavekit_spatial::{PointTree, Spatial, SpatialConfig};

use crate::error::{Error, Result};
use crate::{cached, cast, ctx, host, host_mut, out};

/// Points from bytes of three f32 each: read in place where aligned (numpy's arrays are),
/// copied where not.
fn points_in<'a>(data: &'a [u8], what: &str) -> Result<Cow<'a, [[f32; 3]]>> {
    match bytemuck::try_cast_slice::<u8, [f32; 3]>(data) {
        Ok(p) => Ok(Cow::Borrowed(p)),
        Err(_) => points(data, what).map(Cow::Owned),
    }
}

/// Points from bytes of three f32 each.
fn points(data: &[u8], what: &str) -> Result<Vec<[f32; 3]>> {
    let flat = cast::<f32>(data)?;
    if !flat.len().is_multiple_of(3) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} coordinates are not whole 3-D points",
            flat.len()
        )));
    }
    Ok(flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
}

/// A tree on the device, built once; queries share its pipelines.
#[pyclass(frozen, module = "wavekit._native")]
pub struct Tree {
    spatial: Arc<Spatial>,
    tree: PointTree,
}

#[pymethods]
impl Tree {
    /// Build from `data` (three f32 a point), leaves of `leaf` points (a power of two, 4 to
    /// 256), in a periodic box where `boxsize` is given (each axis's length, 0 for open).
    /// `data` is the Python half's `(address, bytes)` of a C-contiguous float32 array, read in
    /// place.
    #[new]
    #[pyo3(signature = (data, leaf, boxsize=None))]
    fn new(
        py: Python<'_>,
        data: (usize, usize),
        leaf: u32,
        boxsize: Option<[f32; 3]>,
    ) -> PyResult<Self> {
        let ctx = ctx()?;
        let pts = points_in(host(data), "KDTree data")?;
        let built = py.detach(|| -> Result<(Arc<Spatial>, PointTree)> {
            let config = SpatialConfig {
                leaf,
                ..Default::default()
            };
            config.check().map_err(spatial_err)?;
            let spatial = cached(&format!("spatial leaf {leaf}"), || {
                Spatial::new(ctx, &config).map_err(spatial_err)
            })?;
            let tree = match boxsize {
                Some(b) => spatial.build_periodic(ctx, &pts, b),
                None => spatial.build(ctx, &pts),
            }
            .map_err(spatial_err)?;
            Ok((spatial, tree))
        })?;
        Ok(Tree {
            spatial: built.0,
            tree: built.1,
        })
    }

    /// The k nearest points of each query within `max_dist` (inclusive; None: any), written
    /// as SciPy gives them into the caller's arrays, `outputs` = `(distances, indices)` (each
    /// the Python half's `(address, bytes)` of a C-contiguous array of `queries × k` elements,
    /// held by it for the call): float64 distances, sorted (inf where missing), and int64
    /// indices (`n` where missing). Converted from the mapped read-back by several threads: no
    /// copy of the results between.
    #[pyo3(signature = (queries, k, max_dist, n, outputs))]
    fn knn_into(
        &self,
        py: Python<'_>,
        queries: (usize, usize),
        k: u32,
        max_dist: Option<f32>,
        n: i64,
        outputs: ((usize, usize), (usize, usize)),
    ) -> PyResult<()> {
        let (distances, indices) = outputs;
        let ctx = ctx()?;
        let q = points_in(host(queries), "query")?;
        let want = q.len() * k as usize * 8;
        if distances.1 != want || indices.1 != want {
            return Err(Error::InvalidArgument(format!(
                "k-NN outputs of {} and {} bytes for {} queries and k = {k}: each must be {want}",
                distances.1,
                indices.1,
                q.len()
            ))
            .into());
        }
        py.detach(|| {
            // SAFETY of host_mut: the Python half allocated both arrays for this call and
            // holds them until it returns; nothing else refers to them yet.
            let (dout, iout) = (host_mut(distances), host_mut(indices));
            self.spatial
                .knn_with(ctx, &self.tree, &q, k, max_dist, |i, d2| {
                    scipy_knn(i, d2, n, dout, iout)
                })
                .map_err(spatial_err)
        })?;
        Ok(())
    }

    /// Every point within `r` (inclusive) of each query, as `bytearray`s that numpy wraps
    /// writable without a copy: int64 offsets (`queries + 1`) and int64 indices, ascending a
    /// query; of any size (taken in pieces where one call cannot return it). The indices are
    /// widened straight from the mapped read-back, on several threads.
    fn radius<'py>(
        &self,
        py: Python<'py>,
        queries: (usize, usize),
        r: f32,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let ctx = ctx()?;
        let q = points_in(host(queries), "query")?;
        let (offsets, indices) = py.detach(|| {
            self.spatial
                .radius_whole_with(ctx, &self.tree, &q, r, |offsets, indices| {
                    // The arrays are made with the GIL, taken back for them; the GPU is done.
                    Python::attach(|py| -> PyResult<_> {
                        let o = PyByteArray::new_with(py, offsets.len() * 8, |dst| {
                            wavekit::copy_bytes(dst, bytemuck::cast_slice(&offsets));
                            Ok(())
                        })?;
                        let i = PyByteArray::new_with(py, indices.len() * 8, |dst| {
                            widen(indices, dst);
                            Ok(())
                        })?;
                        Ok((o.unbind(), i.unbind()))
                    })
                })
                .map_err(|e| PyErr::from(spatial_err(e)))
        })??;
        Ok((offsets.into_bound(py), indices.into_bound(py)))
    }

    /// How many points are within `r` (inclusive) of each query (u32 each).
    fn count<'py>(
        &self,
        py: Python<'py>,
        queries: (usize, usize),
        r: f32,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let ctx = ctx()?;
        let q = points_in(host(queries), "query")?;
        let c = py.detach(|| {
            self.spatial
                .count(ctx, &self.tree, &q, r)
                .map_err(spatial_err)
        })?;
        Ok(out(py, &c))
    }
}

/// k-NN results as SciPy's: each u32 index as int64 (`n` where missing, `u32::MAX`) and each
/// f32 squared distance as its float64 square root (inf where missing), little-endian into
/// `dout` and `iout` (8 bytes an element). Large results are split over the CPU's threads (the
/// conversion is bound by memory; one thread writes about 2 GB/s).
fn scipy_knn(i: &[u32], d2: &[f32], n: i64, dout: &mut [u8], iout: &mut [u8]) {
    let convert = |i: &[u32], d2: &[f32], dout: &mut [u8], iout: &mut [u8]| {
        let outs = dout.chunks_exact_mut(8).zip(iout.chunks_exact_mut(8));
        for ((&i, &d2), (d, o)) in i.iter().zip(d2).zip(outs) {
            let (dist, idx) = if i == u32::MAX {
                (f64::INFINITY, n)
            } else {
                (f64::from(d2).sqrt(), i64::from(i))
            };
            d.copy_from_slice(&dist.to_le_bytes());
            o.copy_from_slice(&idx.to_le_bytes());
        }
    };
    let threads = conversion_threads(i.len());
    if threads == 1 {
        convert(i, d2, dout, iout);
        return;
    }
    let per = i.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts = i
            .chunks(per)
            .zip(d2.chunks(per))
            .zip(dout.chunks_mut(per * 8).zip(iout.chunks_mut(per * 8)));
        for ((i, d2), (dout, iout)) in parts {
            s.spawn(move || convert(i, d2, dout, iout));
        }
    });
}

/// Threads for converting `n` results into numpy's arrays: one below 2^16 (spawning costs
/// more), else the CPU's, at most 16 (the conversion is bound by memory).
fn conversion_threads(n: usize) -> usize {
    if n < 1 << 16 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get().min(16))
}

/// u32 indices as little-endian int64 into `dst` (8 bytes an element), on several threads
/// where they are many.
fn widen(src: &[u32], dst: &mut [u8]) {
    let convert = |src: &[u32], dst: &mut [u8]| {
        for (&i, d) in src.iter().zip(dst.chunks_exact_mut(8)) {
            d.copy_from_slice(&i64::from(i).to_le_bytes());
        }
    };
    let threads = conversion_threads(src.len());
    if threads == 1 {
        convert(src, dst);
        return;
    }
    let per = src.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (src, dst) in src.chunks(per).zip(dst.chunks_mut(per * 8)) {
            s.spawn(move || convert(src, dst));
        }
    });
}

fn spatial_err(e: wavekit_spatial::SpatialError) -> Error {
    Error::Spatial(e)
}
