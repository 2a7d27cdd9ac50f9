//! `wavekit reduce`, `scan`, `select`, `sort`, `histogram`: the primitives on `.npy` files,
//! streamed to and from the GPU in chunks (`stream`), with `--timings` for where the time goes.

use std::path::Path;

use wavekit::GpuContext;
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::reduce::{Reduce, ReduceConfig};
use wavekit::scan::{Scan, ScanConfig};
use wavekit::select::{Keep, Select, SelectConfig};

use crate::error::CliError;
use crate::stream::{self, Dtype, Npy, Progress};

/// The operator names the CLI takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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

/// Phase times of a command, printed to stderr with `--timings`.
pub struct Timings {
    show: bool,
    start: std::time::Instant,
    last: std::time::Instant,
    phases: Vec<(&'static str, f64)>,
}

impl Timings {
    /// Phases counted from `start` (the process's start).
    pub fn new(show: bool, start: std::time::Instant) -> Self {
        Self {
            show,
            start,
            last: start,
            phases: Vec::new(),
        }
    }

    /// The phase called `name` ends now.
    pub fn phase(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.phases.push((name, (now - self.last).as_secs_f64()));
        self.last = now;
    }
}

impl Drop for Timings {
    fn drop(&mut self) {
        if !self.show {
            return;
        }
        for (name, s) in &self.phases {
            eprintln!("timings: {name:<28} {:>9.3} s", s);
        }
        eprintln!(
            "timings: {:<28} {:>9.3} s",
            "total (from process start)",
            self.start.elapsed().as_secs_f64()
        );
    }
}

/// The scalar of a 32-bit data array, or an error naming the file.
fn scalar_of(npy: &Npy, what: &str) -> Result<Scalar, CliError> {
    match npy.dtype {
        Dtype::U32 => Ok(Scalar::U32),
        Dtype::I32 => Ok(Scalar::I32),
        Dtype::F32 => Ok(Scalar::F32),
        Dtype::U64 => Err(only_sort(&npy.path)),
        t => Err(CliError::File {
            path: npy.path.display().to_string(),
            message: format!(
                "dtype {} is not supported for {what}: use uint32, int32 or float32",
                t.name()
            ),
        }),
    }
}

/// Open a 1-D `.npy` of data.
fn open_1d(path: &Path) -> Result<Npy, CliError> {
    let npy = Npy::open(path)?;
    npy.one_d()?;
    Ok(npy)
}

/// Upload with progress.
fn upload(ctx: &GpuContext, npy: &Npy, label: &str) -> Result<wgpu::Buffer, CliError> {
    let mut p = Progress::new(format!("reading {}", npy.path.display()), npy.bytes());
    let b = stream::upload(ctx, npy, label, &mut p)?;
    p.finish();
    Ok(b)
}

/// Download with progress.
fn download(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    dtype: Dtype,
    n: u64,
    path: &Path,
) -> Result<(), CliError> {
    let mut p = Progress::new(format!("writing {}", path.display()), n * dtype.size());
    stream::download(ctx, buffer, dtype, &[n], path, &mut p)?;
    p.finish();
    Ok(())
}

/// Reduce and print the result.
/// The input of a reduce, checked before any device is opened: 1-D, of a type the reduce
/// takes, and not empty where `op` has no value for nothing (numpy's min and max raise there;
/// a sum of nothing is 0, as numpy's).
pub fn reduce_input(input: &Path, op: OpArg) -> Result<Npy, CliError> {
    let npy = open_1d(input)?;
    scalar_of(&npy, "reduce")?;
    if npy.len() == 0 && op != OpArg::Sum {
        let name = if op == OpArg::Min {
            "minimum"
        } else {
            "maximum"
        };
        return Err(CliError::File {
            path: npy.path.display().to_string(),
            message: format!(
                "the array is empty: it has no {name} (numpy raises here too; a sum of nothing \
                 is 0)"
            ),
        });
    }
    Ok(npy)
}

/// Reduce `npy` (from [`reduce_input`]) and print the result.
pub fn reduce(ctx: &GpuContext, npy: &Npy, op: OpArg, t: &mut Timings) -> Result<(), CliError> {
    let scalar = scalar_of(npy, "reduce")?;
    t.phase("header");
    let src = upload(ctx, npy, "reduce input")?;
    t.phase("read + upload");
    let r = Reduce::new(
        ctx,
        &ReduceConfig::new(Monoid::builtin(scalar, Op::from(op))),
    )?;
    t.phase("pipelines");
    let b = r.bind(ctx, &src, npy.len())?;
    ctx.submit(|e| b.record(e));
    let bits: u32 = ctx.read_back("reduce result", b.result(), 1)?[0];
    t.phase("reduce + read back");
    match scalar {
        Scalar::U32 => println!("{bits}"),
        Scalar::I32 => println!("{}", bits as i32),
        Scalar::F32 => println!("{}", f32::from_bits(bits)),
    }
    Ok(())
}

/// Scan into `output`.
pub fn scan<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    input: &Path,
    output: &Path,
    op: OpArg,
    exclusive: bool,
    t: &mut Timings,
) -> Result<(), CliError> {
    let npy = open_1d(input)?;
    let scalar = scalar_of(&npy, "scan")?;
    t.phase("header");
    let ctx = ctx()?;
    let ctx = &*ctx;
    t.phase("device");
    let src = upload(ctx, &npy, "scan input")?;
    t.phase("read + upload");
    let scan = Scan::new(
        ctx,
        &ScanConfig {
            inclusive: !exclusive,
            ..ScanConfig::inclusive(Monoid::builtin(scalar, Op::from(op)))
        },
    )?;
    let dst = ctx.storage_uninit("scan output", npy.bytes())?;
    t.phase("pipelines");
    let b = scan.bind(ctx, &src, Some(&dst), npy.len())?;
    ctx.submit(|e| b.record(e));
    ctx.wait()?;
    drop(src);
    t.phase("scan");
    download(ctx, &dst, npy.dtype, npy.len(), output)?;
    t.phase("read back + write");
    eprintln!("scanned {} elements into {}", npy.len(), output.display());
    Ok(())
}

/// Select (or partition) into `output`; prints the number kept.
pub fn select<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    input: &Path,
    flags: &Path,
    output: &Path,
    partition: bool,
    t: &mut Timings,
) -> Result<(), CliError> {
    let npy = open_1d(input)?;
    let scalar = scalar_of(&npy, "select")?;
    let f = open_1d(flags)?;
    if matches!(f.dtype, Dtype::F32 | Dtype::U64) {
        return Err(CliError::File {
            path: flags.display().to_string(),
            message: format!(
                "flags dtype {} is not supported: use bool, uint8, int8, uint32 or int32",
                f.dtype.name()
            ),
        });
    }
    if f.len() != npy.len() {
        return Err(CliError::File {
            path: flags.display().to_string(),
            message: format!(
                "{} flags for {} elements in {}: give one flag per element",
                f.len(),
                npy.len(),
                input.display()
            ),
        });
    }
    t.phase("header");
    let ctx = ctx()?;
    let ctx = &*ctx;
    t.phase("device");
    let src = upload(ctx, &npy, "select input")?;
    let fb = upload(ctx, &f, "select flags")?;
    t.phase("read + upload");
    let s = Select::new(ctx, &SelectConfig::new(scalar, Keep::Flags, partition))?;
    let dst = ctx.storage_uninit("select output", npy.bytes())?;
    t.phase("pipelines");
    let b = s.bind(ctx, &src, Some(&fb), &dst, npy.len())?;
    ctx.submit(|e| b.record(e));
    let kept = u64::from(ctx.read_back::<u32>("select count", b.count(), 1)?[0]);
    drop((src, fb));
    t.phase("select");
    let n_out = if partition { npy.len() } else { kept };
    download(ctx, &dst, npy.dtype, n_out, output)?;
    t.phase("read back + write");
    println!("{kept}");
    eprintln!(
        "kept {kept} of {} elements{}; wrote {}",
        npy.len(),
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
#[allow(clippy::too_many_arguments)]
pub fn sort<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    input: &Path,
    output: &Path,
    values: Option<&Path>,
    values_out: Option<&Path>,
    descending: bool,
    bits: Option<(u32, u32)>,
    t: &mut Timings,
) -> Result<(), CliError> {
    use wavekit::sort::{KeyType, RadixSort, SortConfig, Values};
    if values.is_some() && values_out.is_none() {
        return Err(CliError::Usage(
            "--values needs --values-out: where should the reordered values go?".into(),
        ));
    }
    // Every output checked before the work: two outputs never name one file, an output never
    // names the other input (each output may replace its own input: a sort in place).
    let mut outs = vec![("the sorted keys (-o)", output)];
    if let Some(v) = values_out {
        outs.push(("the values (--values-out)", v));
        crate::output::check_output(input, v)?;
    }
    if let Some(v) = values {
        crate::output::check_output(v, output)?;
    }
    crate::output::check_outputs(&outs)?;
    let keys = open_1d(input)?;
    let key = match keys.dtype {
        Dtype::U32 => KeyType::U32,
        Dtype::I32 => KeyType::I32,
        Dtype::F32 => KeyType::F32,
        Dtype::U64 => KeyType::U64,
        t => {
            return Err(CliError::File {
                path: input.display().to_string(),
                message: format!(
                    "dtype {} is not supported for sort keys: use uint32, int32, float32 or \
                     uint64",
                    t.name()
                ),
            });
        }
    };
    // Values of any 32-bit dtype travel as their bits and keep their dtype.
    let vals = match values {
        Some(p) => {
            let v = open_1d(p)?;
            if !matches!(v.dtype, Dtype::U32 | Dtype::I32 | Dtype::F32) {
                return Err(CliError::File {
                    path: p.display().to_string(),
                    message: format!(
                        "dtype {} values: values travel as 32 bits; use uint32, int32 or \
                         float32 (e.g. v.astype(np.uint32))",
                        v.dtype.name()
                    ),
                });
            }
            if v.len() != keys.len() {
                return Err(CliError::File {
                    path: p.display().to_string(),
                    message: format!(
                        "{} values for {} keys in {}: give one value per key",
                        v.len(),
                        keys.len(),
                        input.display()
                    ),
                });
            }
            Some(v)
        }
        None => None,
    };
    t.phase("header");
    let n = keys.len();
    let ctx = ctx()?;
    let ctx = &*ctx;
    t.phase("device");
    let kb = upload(ctx, &keys, "sort keys")?;
    let vb = match (&vals, values_out) {
        (Some(v), _) => Some(upload(ctx, v, "sort values")?),
        (None, Some(_)) => Some(ctx.storage_uninit("sort permutation", n * 4)?),
        (None, None) => None,
    };
    t.phase("read + upload");
    let config = SortConfig {
        values: match (&vals, values_out) {
            (Some(_), _) => Values::U32,
            (None, Some(_)) => Values::Indices,
            (None, None) => Values::None,
        },
        descending,
        bits,
        ..SortConfig::keys(key)
    };
    let sort = RadixSort::new(ctx, &config)?;
    t.phase("pipelines");
    let b = sort.bind(ctx, &kb, vb.as_ref(), n)?;
    ctx.submit(|e| b.record(e));
    ctx.wait()?;
    drop(b);
    t.phase("sort");
    download(ctx, &kb, keys.dtype, n, output)?;
    if let (Some(out), Some(vb)) = (values_out, &vb) {
        let dtype = vals.as_ref().map_or(Dtype::U32, |v| v.dtype);
        download(ctx, vb, dtype, n, out)?;
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
    t.phase("read back + write");
    eprintln!(
        "sorted {n} {} keys{} into {}",
        keys.dtype.name(),
        if descending { ", descending" } else { "" },
        output.display()
    );
    Ok(())
}

/// Histogram of `input` into `output` (counts per bin, uint32); prints the samples counted
/// apart.
pub fn histogram<C: std::ops::Deref<Target = GpuContext>>(
    ctx: impl FnOnce() -> Result<C, CliError>,
    input: &Path,
    bins: u32,
    range: &[String],
    output: &Path,
    t: &mut Timings,
) -> Result<(), CliError> {
    use wavekit::histogram::{Histogram, HistogramConfig, Sample};
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
    fn make<T: Sample + std::str::FromStr>(
        ctx: &GpuContext,
        bins: u32,
        lo: &str,
        hi: &str,
        dtype: &str,
    ) -> Result<Histogram, CliError> {
        let config = HistogramConfig::new(bins, level::<T>(lo, dtype)?, level::<T>(hi, dtype)?);
        Ok(Histogram::new(ctx, &config)?)
    }
    let npy = open_1d(input)?;
    match scalar_of(&npy, "histogram")? {
        Scalar::U32 => drop((level::<u32>(lo, "uint32")?, level::<u32>(hi, "uint32")?)),
        Scalar::I32 => drop((level::<i32>(lo, "int32")?, level::<i32>(hi, "int32")?)),
        Scalar::F32 => drop((level::<f32>(lo, "float32")?, level::<f32>(hi, "float32")?)),
    }
    let ctx = ctx()?;
    let ctx = &*ctx;
    t.phase("device");
    let h = match scalar_of(&npy, "histogram")? {
        Scalar::U32 => make::<u32>(ctx, bins, lo, hi, "uint32")?,
        Scalar::I32 => make::<i32>(ctx, bins, lo, hi, "int32")?,
        Scalar::F32 => make::<f32>(ctx, bins, lo, hi, "float32")?,
    };
    t.phase("header + pipelines");
    let src = upload(ctx, &npy, "histogram samples")?;
    t.phase("read + upload");
    let b = h.bind(ctx, &src, npy.len())?;
    ctx.submit(|e| b.record(e));
    let c = b.read(ctx)?;
    t.phase("histogram + read back");
    npyz::to_file_1d(output, c.bins.iter().copied()).map_err(|e| CliError::File {
        path: output.display().to_string(),
        message: e.to_string(),
    })?;
    t.phase("write");
    println!("below {} above {} nan {}", c.below, c.above, c.nan);
    eprintln!(
        "{} samples: {} in {bins} bins over [{lo}, {hi}) written to {}",
        npy.len(),
        npy.len() - u64::from(c.below + c.above + c.nan),
        output.display()
    );
    Ok(())
}
