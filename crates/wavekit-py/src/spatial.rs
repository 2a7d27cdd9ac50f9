//! The native half of `wavekit.spatial.KDTree`: a tree of 3-D f32 points on the device (the
//! BVH of `wavekit-spatial`, periodic where a box is given) and its queries, on bytes. The
//! Python half pads 2-D points to 3-D, checks shapes and dtypes, and gives SciPy's results.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wavekit_spatial::{PointTree, Spatial, SpatialConfig};

use crate::error::{Error, Result};
use crate::{cached, cast, ctx, out};

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
    #[new]
    #[pyo3(signature = (data, leaf, boxsize=None))]
    fn new(py: Python<'_>, data: &[u8], leaf: u32, boxsize: Option<[f32; 3]>) -> PyResult<Self> {
        let ctx = ctx()?;
        let pts = points(data, "KDTree data")?;
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

    /// The k nearest points of each query within `max_dist` (inclusive; None: any): k u32
    /// indices (u32::MAX where missing) and k f32 squared distances a query, sorted.
    #[pyo3(signature = (queries, k, max_dist=None))]
    fn knn<'py>(
        &self,
        py: Python<'py>,
        queries: &[u8],
        k: u32,
        max_dist: Option<f32>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let ctx = ctx()?;
        let q = points(queries, "query")?;
        let (i, d) = py.detach(|| {
            self.spatial
                .knn_any(ctx, &self.tree, &q, k, max_dist)
                .map_err(spatial_err)
        })?;
        Ok((out(py, &i), out(py, &d)))
    }

    /// Every point within `r` (inclusive) of each query: u64 offsets (`queries + 1`; read as
    /// int64, their values far below 2^63) and u32 indices, ascending a query; of any size
    /// (taken in pieces).
    fn radius<'py>(
        &self,
        py: Python<'py>,
        queries: &[u8],
        r: f32,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let ctx = ctx()?;
        let q = points(queries, "query")?;
        let (offsets, indices) = py.detach(|| {
            self.spatial
                .radius_whole(ctx, &self.tree, &q, r)
                .map_err(spatial_err)
        })?;
        Ok((out(py, &offsets), out(py, &indices)))
    }

    /// How many points are within `r` (inclusive) of each query (u32 each).
    fn count<'py>(&self, py: Python<'py>, queries: &[u8], r: f32) -> PyResult<Bound<'py, PyBytes>> {
        let ctx = ctx()?;
        let q = points(queries, "query")?;
        let c = py.detach(|| {
            self.spatial
                .count(ctx, &self.tree, &q, r)
                .map_err(spatial_err)
        })?;
        Ok(out(py, &c))
    }
}

fn spatial_err(e: wavekit_spatial::SpatialError) -> Error {
    Error::Spatial(e)
}
