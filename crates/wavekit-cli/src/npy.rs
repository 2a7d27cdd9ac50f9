//! `.npy` files in and out: 1-D arrays of uint32, int32 or float32 (flags: also bool, uint8,
//! int8). Anything else is a clear error.

use std::path::Path;

use crate::error::CliError;

/// A 1-D array of one of the element types wavekit computes on.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    /// `uint32`
    U32(Vec<u32>),
    /// `int32`
    I32(Vec<i32>),
    /// `float32`
    F32(Vec<f32>),
    /// `uint64` (sort keys; radius offsets past 2^32)
    U64(Vec<u64>),
}

fn bad(path: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

fn open(
    path: &Path,
) -> Result<(npyz::NpyFile<std::io::BufReader<std::fs::File>>, String), CliError> {
    let file = std::fs::File::open(path).map_err(|e| bad(path, e))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| bad(path, format!("not a readable .npy file: {e}")))?;
    if npy.shape().len() != 1 {
        return Err(bad(
            path,
            format!(
                "shape {:?}: expected a 1-D array (flatten it with arr.ravel())",
                npy.shape()
            ),
        ));
    }
    let dtype = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => format!("{other:?}"),
    };
    check_holds(path, npy.shape(), if dtype == "<u8" { 8 } else { 4 })?;
    Ok((npy, dtype))
}

/// Read a 1-D uint32, int32 or float32 array.
pub fn read(path: &Path) -> Result<Array, CliError> {
    let (npy, dtype) = open(path)?;
    let err = |e: std::io::Error| bad(path, format!("reading the data: {e}"));
    match dtype.as_str() {
        "<u4" => Ok(Array::U32(npy.into_vec().map_err(err)?)),
        "<i4" => Ok(Array::I32(npy.into_vec().map_err(err)?)),
        "<f4" => Ok(Array::F32(npy.into_vec().map_err(err)?)),
        "<u8" => Ok(Array::U64(npy.into_vec().map_err(err)?)),
        _ => Err(bad(
            path,
            format!(
                "dtype '{dtype}' is not supported: use uint32, int32 or float32 \
                 (little-endian; uint64 for sort keys), e.g. arr.astype(np.float32)"
            ),
        )),
    }
}

/// Write a 1-D array.
pub fn write(path: &Path, array: &Array) -> Result<(), CliError> {
    let r = match array {
        Array::U32(v) => npyz::to_file_1d(path, v.iter().copied()),
        Array::I32(v) => npyz::to_file_1d(path, v.iter().copied()),
        Array::F32(v) => npyz::to_file_1d(path, v.iter().copied()),
        Array::U64(v) => npyz::to_file_1d(path, v.iter().copied()),
    };
    r.map_err(|e| bad(path, e))
}

/// Fails unless the file at `path` can hold the data its header declares: `shape` elements of
/// `item` bytes (a hostile shape would otherwise ask for an allocation of exabytes, an abort).
pub fn check_holds(path: &Path, shape: &[u64], item: u64) -> Result<(), CliError> {
    let size = std::fs::metadata(path).map_err(|e| bad(path, e))?.len();
    let bytes = shape.iter().try_fold(item, |acc, &d| acc.checked_mul(d));
    match bytes {
        Some(b) if b <= size => Ok(()),
        _ => Err(bad(
            path,
            format!(
                "truncated: the header says shape {shape:?} ({} bytes of data) but the file \
                 holds {size} bytes in all",
                bytes.map_or("more than 2^64".into(), |b| b.to_string())
            ),
        )),
    }
}

/// Read points: a float32 array of shape `[N, 3]` (C or Fortran order), every coordinate
/// finite.
pub fn read_points(path: &Path) -> Result<Vec<[f32; 3]>, CliError> {
    let file = std::fs::File::open(path).map_err(|e| bad(path, e))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| bad(path, format!("not a readable .npy file: {e}")))?;
    let shape = npy.shape().to_vec();
    if shape.len() != 2 || shape[1] != 3 {
        return Err(bad(
            path,
            format!("shape {shape:?}: expected points of shape [N, 3] (x, y, z a row)"),
        ));
    }
    check_holds(path, &shape, 4)?;
    let dtype = match npy.dtype() {
        npyz::DType::Plain(t) => t.to_string(),
        other => format!("{other:?}"),
    };
    if dtype != "<f4" {
        return Err(bad(
            path,
            format!("dtype '{dtype}': expected float32 points (arr.astype(np.float32))"),
        ));
    }
    let n = usize::try_from(shape[0]).map_err(|_| bad(path, "too many points"))?;
    let fortran = npy.order() == npyz::Order::Fortran;
    let data: Vec<f32> = npy
        .into_vec()
        .map_err(|e| bad(path, format!("reading the data: {e}")))?;
    if data.len() != 3 * n {
        return Err(bad(path, format!("{} values for {n} points", data.len())));
    }
    let points: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            if fortran {
                [data[i], data[n + i], data[2 * n + i]]
            } else {
                [data[3 * i], data[3 * i + 1], data[3 * i + 2]]
            }
        })
        .collect();
    if let Some(i) = points.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
        return Err(bad(
            path,
            format!(
                "point {i} is {:?}: every coordinate must be finite (no NaN or infinity)",
                points[i]
            ),
        ));
    }
    Ok(points)
}

/// Write a 2-D array of `rows × cols` (C order).
pub fn write_2d<T: npyz::AutoSerialize + Copy>(
    path: &Path,
    data: &[T],
    rows: usize,
    cols: usize,
) -> Result<(), CliError> {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).map_err(|e| bad(path, e))?;
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[rows as u64, cols as u64])
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .map_err(|e| bad(path, e))?;
    w.extend(data.iter().copied()).map_err(|e| bad(path, e))?;
    w.finish().map_err(|e| bad(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_clear_errors() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-npy-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        for a in [
            Array::U32(vec![1, 2, 3]),
            Array::I32(vec![-1, 0, 7]),
            Array::F32(vec![0.5, -2.0]),
            Array::U32(vec![]),
        ] {
            let p = dir.join("a.npy");
            write(&p, &a).unwrap();
            assert_eq!(read(&p).unwrap(), a);
        }
        let p = dir.join("f64.npy");
        npyz::to_file_1d(&p, [1.0f64, 2.0]).unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("dtype '<f8' is not supported"), "{e}");
        // A 2x2 float32 array, header written by hand.
        let p = dir.join("2d.npy");
        let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
        let mut header = dict.to_string();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend([0u8; 16]);
        std::fs::write(&p, bytes).unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("shape [2, 2]: expected a 1-D array"), "{e}");
        let p = dir.join("junk.npy");
        std::fs::write(&p, b"not numpy").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("not a readable .npy file"), "{e}");
        let e = read(&dir.join("missing.npy")).unwrap_err().to_string();
        assert!(e.contains("missing.npy"), "{e}");
    }
}
