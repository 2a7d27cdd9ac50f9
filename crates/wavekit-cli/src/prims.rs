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
