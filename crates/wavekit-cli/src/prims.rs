//! `wavekit reduce`, `wavekit scan`, `wavekit select`: the primitives on `.npy` files.

use std::path::Path;

use wavekit::GpuContext;
use wavekit::monoid::{Element, Op};

use crate::error::CliError;
use crate::npy::{self, Array};

/// The operator names the CLI takes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum OpArg {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

impl From<OpArg> for Op {
    fn from(o: OpArg) -> Op {
        match o {
            OpArg::Sum => Op::Add,
            OpArg::Min => Op::Min,
            OpArg::Max => Op::Max,
        }
    }
}

/// Reduce and print the result.
pub fn reduce(ctx: &GpuContext, input: &Path, op: OpArg) -> Result<(), CliError> {
    fn go<T: Element + std::fmt::Display>(
        ctx: &GpuContext,
        v: &[T],
        op: Op,
    ) -> Result<String, CliError> {
        Ok(wavekit::reduce::reduce_slice(ctx, v, op)?.to_string())
    }
    let a = npy::read(input)?;
    let op = Op::from(op);
    let r = match &a {
        Array::U32(v) => go(ctx, v, op)?,
        Array::I32(v) => go(ctx, v, op)?,
        Array::F32(v) => go(ctx, v, op)?,
        Array::U64(_) => return Err(only_sort(input)),
    };
    println!("{r}");
    Ok(())
}

/// Scan into `output`.
pub fn scan(
    ctx: &GpuContext,
    input: &Path,
    output: &Path,
    op: OpArg,
    exclusive: bool,
) -> Result<(), CliError> {
    let a = npy::read(input)?;
    let op = Op::from(op);
    let inclusive = !exclusive;
    let out = match &a {
        Array::U32(v) => Array::U32(wavekit::scan::scan_slice(ctx, v, op, inclusive)?),
        Array::I32(v) => Array::I32(wavekit::scan::scan_slice(ctx, v, op, inclusive)?),
        Array::F32(v) => Array::F32(wavekit::scan::scan_slice(ctx, v, op, inclusive)?),
        Array::U64(_) => return Err(only_sort(input)),
    };
    npy::write(output, &out)?;
    eprintln!("scanned {} elements into {}", a.len(), output.display());
    Ok(())
}

/// Select (or partition) into `output`; prints the number kept.
pub fn select(
    ctx: &GpuContext,
    input: &Path,
    flags: &Path,
    output: &Path,
    partition: bool,
) -> Result<(), CliError> {
    fn go<T: Element>(
        ctx: &GpuContext,
        v: &[T],
        f: &[u32],
        partition: bool,
    ) -> Result<(Vec<T>, usize), CliError> {
        if partition {
            Ok(wavekit::select::partition_slice(ctx, v, f)?)
        } else {
            let s = wavekit::select::select_slice(ctx, v, f)?;
            let n = s.len();
            Ok((s, n))
        }
    }
    let a = npy::read(input)?;
    let f = npy::read_flags(flags)?;
    if f.len() != a.len() {
        return Err(CliError::File {
            path: flags.display().to_string(),
            message: format!(
                "{} flags for {} elements in {}: give one flag per element",
                f.len(),
                a.len(),
                input.display()
            ),
        });
    }
    let (out, kept) = match &a {
        Array::U32(v) => {
            let (o, k) = go(ctx, v, &f, partition)?;
            (Array::U32(o), k)
        }
        Array::I32(v) => {
            let (o, k) = go(ctx, v, &f, partition)?;
            (Array::I32(o), k)
        }
        Array::F32(v) => {
            let (o, k) = go(ctx, v, &f, partition)?;
            (Array::F32(o), k)
        }
        Array::U64(_) => return Err(only_sort(input)),
    };
    npy::write(output, &out)?;
    println!("{kept}");
    eprintln!(
        "kept {kept} of {} elements{}; wrote {}",
        a.len(),
        if partition {
            " (then the rest, in order)"
        } else {
            ""
        },
        output.display()
    );
    Ok(())
}

fn only_sort(input: &Path) -> CliError {
    CliError::File {
        path: input.display().to_string(),
        message: "uint64 arrays are taken by `wavekit sort` only: use uint32, int32 or float32"
            .into(),
    }
}

/// A bit range `LO..HI` on the command line.
pub fn parse_bits(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}': write the bit range as LO..HI, e.g. 0..16"))?;
    let p = |x: &str| {
        x.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}': '{x}' is not a bit index"))
    };
    Ok((p(a)?, p(b)?))
}

/// Sort `input` into `output`; values travel along (or, with only `values_out`, the
/// permutation is written).
pub fn sort(
    ctx: &GpuContext,
    input: &Path,
    output: &Path,
    values: Option<&Path>,
    values_out: Option<&Path>,
    descending: bool,
    bits: Option<(u32, u32)>,
) -> Result<(), CliError> {
    use wavekit::sort::{SortKey, sort_pairs_slice, sort_slice};
    fn go<K: SortKey>(
        ctx: &GpuContext,
        keys: &[K],
        values: Option<&[u32]>,
        with_values: bool,
        descending: bool,
        bits: Option<(u32, u32)>,
    ) -> Result<(Vec<K>, Option<Vec<u32>>), CliError> {
        if with_values {
            let (k, v) = sort_pairs_slice(ctx, keys, values, descending, bits)?;
            Ok((k, Some(v)))
        } else {
            Ok((sort_slice(ctx, keys, descending, bits)?, None))
        }
    }
    if values.is_some() && values_out.is_none() {
        return Err(CliError::Usage(
            "--values needs --values-out: where should the reordered values go?".into(),
        ));
    }
    let keys = npy::read(input)?;
    // Values of any 32-bit dtype travel as their bits and keep their dtype.
    let vals = match values {
        Some(p) => {
            let a = npy::read(p)?;
            if a.len() != keys.len() {
                return Err(CliError::File {
                    path: p.display().to_string(),
                    message: format!(
                        "{} values for {} keys in {}: give one value per key",
                        a.len(),
                        keys.len(),
                        input.display()
                    ),
                });
            }
            Some(a)
        }
        None => None,
    };
    let bits_of = |a: &Array| -> Result<Vec<u32>, CliError> {
        Ok(match a {
            Array::U32(v) => v.clone(),
            Array::I32(v) => bytemuck::cast_slice(v).to_vec(),
            Array::F32(v) => bytemuck::cast_slice(v).to_vec(),
            Array::U64(_) => {
                return Err(CliError::Usage(
                    "values are 32-bit: use uint32, int32 or float32 values".into(),
                ));
            }
        })
    };
    let v32 = vals.as_ref().map(bits_of).transpose()?;
    let with_values = values_out.is_some();
    let v = v32.as_deref();
    let (sorted, moved) = match &keys {
        Array::U32(k) => {
            let (s, m) = go(ctx, k, v, with_values, descending, bits)?;
            (Array::U32(s), m)
        }
        Array::I32(k) => {
            let (s, m) = go(ctx, k, v, with_values, descending, bits)?;
            (Array::I32(s), m)
        }
        Array::F32(k) => {
            let (s, m) = go(ctx, k, v, with_values, descending, bits)?;
            (Array::F32(s), m)
        }
        Array::U64(k) => {
            let (s, m) = go(ctx, k, v, with_values, descending, bits)?;
            (Array::U64(s), m)
        }
    };
    npy::write(output, &sorted)?;
    if let (Some(out), Some(m)) = (values_out, moved) {
        let a = match &vals {
            Some(Array::I32(_)) => Array::I32(bytemuck::cast_slice(&m).to_vec()),
            Some(Array::F32(_)) => Array::F32(bytemuck::cast_slice(&m).to_vec()),
            _ => Array::U32(m),
        };
        npy::write(out, &a)?;
        eprintln!(
            "wrote {} ({})",
            out.display(),
            if vals.is_some() {
                "the values, reordered"
            } else {
                "the stable sorting permutation"
            }
        );
    }
    eprintln!(
        "sorted {} {} keys{} into {}",
        keys.len(),
        keys.dtype(),
        if descending { ", descending" } else { "" },
        output.display()
    );
    Ok(())
}

/// Histogram of `input` into `output` (counts per bin, uint32); prints the samples counted
/// apart.
pub fn histogram(
    ctx: &GpuContext,
    input: &Path,
    bins: u32,
    range: &[String],
    output: &Path,
) -> Result<(), CliError> {
    use wavekit::histogram::{Counts, histogram_slice};
    let [lo, hi] = range else {
        return Err(CliError::Usage("--range takes two values: LO HI".into()));
    };
    fn level<T: std::str::FromStr>(s: &str, dtype: &str) -> Result<T, CliError> {
        s.parse::<T>().map_err(|_| {
            CliError::Usage(format!(
                "--range value '{s}' is not a valid {dtype} level (the samples' dtype)"
            ))
        })
    }
    let a = npy::read(input)?;
    let c: Counts = match &a {
        Array::U32(v) => histogram_slice(ctx, v, bins, level(lo, "uint32")?, level(hi, "uint32")?)?,
        Array::I32(v) => histogram_slice(ctx, v, bins, level(lo, "int32")?, level(hi, "int32")?)?,
        Array::F32(v) => {
            histogram_slice(ctx, v, bins, level(lo, "float32")?, level(hi, "float32")?)?
        }
        Array::U64(_) => return Err(only_sort(input)),
    };
    npy::write(output, &Array::U32(c.bins.clone()))?;
    println!("below {} above {} nan {}", c.below, c.above, c.nan);
    eprintln!(
        "{} samples: {} in {bins} bins over [{lo}, {hi}) written to {}",
        a.len(),
        a.len() as u64 - u64::from(c.below + c.above + c.nan),
        output.display()
    );
    Ok(())
}
