//! `wavekit bench primitives`: reduce, scan, select, partition, sort and histogram on u32, each
//! beside the copy kernel measured on the same number of bytes in the same run, under the
//! measurement protocol ([`crate::protocol`]).

use serde::{Deserialize, Serialize};

use crate::protocol::{Case, ClockReader, ClockWindow, Protocol, measure};
use wavekit::context::GpuContext;
use wavekit::error::{Error, Result};
use wavekit::histogram::{Histogram, HistogramConfig};
use wavekit::kernel::Kernel;
use wavekit::monoid::{Monoid, Op, Scalar};
use wavekit::record::{self, Recorded};
use wavekit::reduce::{Reduce, ReduceConfig, ReducePolicy};
use wavekit::scan::{Scan, ScanConfig, ScanPolicy};
use wavekit::select::{Keep, Select, SelectConfig, SelectPolicy};
use wavekit::sort::{KeyType, RadixSort, SortConfig, SortPolicy, Values};
use wavekit::tiling::LookbackStats;

/// The primitives benchmarked, by the names the CUB peer prints too.
pub const PRIMITIVES: &[&str] = &[
    "reduce",
    "scan_inclusive",
    "scan_exclusive",
    "select",
    "partition",
];

/// The sort and histogram benchmarks (run with `--only`): u32 keys; keys with u32 values; 256
/// and 4096 even bins over the whole u32 range; and `chain4`, what a frame does: select (the
/// odd inputs) → sort pairs (the selected keys, all n slots, the inputs as values) → inclusive
/// scan (of the sorted keys) → 256-bin histogram (of the scan), recorded into one encoder, as
/// `peer/cub/chain4.cu` does in one stream and one CUDA graph.
pub const SORT_PRIMITIVES: &[&str] = &[
    "sort_keys",
    "sort_pairs",
    "histogram256",
    "histogram4096",
    "chain4",
];

/// The predicate of the select and partition benchmarks (about half the inputs are odd).
pub const ODD: &str = "fn keep(x: u32, i: u32) -> bool { return (x & 1u) == 1u; }";

/// One measurement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PrimitiveResult {
    /// Primitive name (see [`PRIMITIVES`]).
    pub primitive: String,
    /// Elements (u32).
    pub n: u64,
    /// Median GPU time (all rounds).
    pub median_ns: f64,
    /// 10th percentile.
    pub p10_ns: f64,
    /// 90th percentile.
    pub p90_ns: f64,
    /// Elements per second at the median.
    #[serde(default)]
    pub elements_per_s: f64,
    /// Bytes the primitive must move at least (read + write), per second, in GB/s.
    #[serde(default)]
    pub gbps: f64,
    /// The copy kernel's GB/s on 4n bytes in the same run.
    #[serde(default)]
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`.
    #[serde(default)]
    pub copy_fraction: f64,
    /// Each round's median (the protocol interleaves the cases round by round).
    #[serde(default)]
    pub round_medians_ns: Vec<f64>,
    /// (largest − smallest round median) / median.
    #[serde(default)]
    pub spread: f64,
    /// The GPU's clock during the timed runs, where it could be read.
    #[serde(default)]
    pub clock: Option<ClockWindow>,
    /// Timed below 90 % of the maximum clock: suspect.
    #[serde(default)]
    pub clock_low: bool,
    /// What the look-back did in the last run (single-pass primitives).
    #[serde(default)]
    pub lookback: Option<LookbackStats>,
    /// What one run records: compute passes, dispatches, buffer clears and copies.
    #[serde(default)]
    pub recorded: Recorded,
    /// The floor those commands and bytes set in this run ([`Floor`]), ns.
    #[serde(default)]
    pub floor_ns: f64,
    /// The output's fingerprint ([`fingerprint`] of [`reference_words`]'s words, in hex):
    /// wavekit's output was read back after the timed runs and found equal to the CPU
    /// reference's; a peer's record carries its own, to be compared (`None` where nothing was
    /// checked: the chain).
    #[serde(default)]
    pub check: Option<String>,
}

/// What the platform costs, measured in the same run as the primitives (interleaved with them,
/// under the same protocol): the floor under a primitive is the first dispatch, each further
/// dependent dispatch, each clear or copy, and its bytes at the copy kernel's rate (issue 31).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Floor {
    /// A timed run that records nothing.
    pub empty_ns: f64,
    /// One dispatch (132 workgroups of a trivial kernel, one pass).
    pub one_ns: f64,
    /// Two dependent dispatches in one pass.
    pub two_ns: f64,
    /// A dispatch, a clear of 16 KiB, a dispatch.
    pub clear_ns: f64,
}

impl Floor {
    /// A run's fixed cost: the first dispatch (with the timing around it).
    pub fn first(&self) -> f64 {
        self.one_ns
    }

    /// Each further dependent dispatch.
    pub fn dependent(&self) -> f64 {
        (self.two_ns - self.one_ns).max(0.0)
    }

    /// Each clear or copy between dispatches.
    pub fn command(&self) -> f64 {
        (self.clear_ns - self.two_ns).max(0.0)
    }

    /// The floor under `recorded` moving `bytes`, with the copy kernel's time `copy_ns` for
    /// `copy_bytes` at the same size (its own first dispatch taken out).
    pub fn under(&self, recorded: &Recorded, bytes: u64, copy_ns: f64, copy_bytes: u64) -> f64 {
        if recorded.dispatches == 0 && recorded.clears + recorded.copies == 0 {
            return self.empty_ns;
        }
        let data = (copy_ns - self.first()).max(0.0) * bytes as f64 / copy_bytes.max(1) as f64;
        self.first()
            + f64::from(recorded.dispatches.saturating_sub(1)) * self.dependent()
            + f64::from(recorded.clears + recorded.copies) * self.command()
            + data
    }
}

/// The policies the benchmark builds the primitives with (the CLI fills them from its tuning
/// knobs; default: each primitive's).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Policies {
    /// The scans'.
    pub scan: ScanPolicy,
    /// Reduce's.
    pub reduce: ReducePolicy,
    /// Select's and partition's.
    pub select: SelectPolicy,
    /// The sorts'.
    pub sort: SortPolicy,
}

/// The inputs both wavekit and the CUB peer use: a hash of the index.
pub fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| {
            let mut x = i.wrapping_mul(2_654_435_761) ^ 0x9e37_79b9;
            x ^= x >> 16;
            x = x.wrapping_mul(0x7feb_352d);
            x ^= x >> 15;
            x = x.wrapping_mul(0x846c_a68b);
            x ^ (x >> 16)
        })
        .collect()
}

/// FNV-1a (64-bit) over u32 words: the fingerprint of a primitive's output that the bench
/// and its peers print (`peer/cub/common.cuh` computes the same), so that a peer is checked to
/// compute what wavekit does, not only timed.
pub fn fingerprint(words: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        h ^= u64::from(w);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The words a primitive's fingerprint covers, computed on the CPU from its input `data`:
/// reduce its sum; a scan every output; select the count, then the kept (odd) values in order;
/// partition the count, the kept values, then the others, both in input order (a peer whose
/// rejected side comes out reversed, as CUB's does, puts it back first); the sorts the sorted
/// keys (and their values, the keys themselves); a histogram its bins. `None` for the chain.
pub fn reference_words(primitive: &str, data: &[u32]) -> Option<Vec<u32>> {
    let odd = |x: &&u32| **x & 1 == 1;
    Some(match primitive {
        "reduce" => vec![data.iter().fold(0u32, |a, &x| a.wrapping_add(x))],
        "scan_inclusive" | "scan_exclusive" => {
            let inclusive = primitive == "scan_inclusive";
            let mut run = 0u32;
            data.iter()
                .map(|&x| {
                    let before = run;
                    run = run.wrapping_add(x);
                    if inclusive { run } else { before }
                })
                .collect()
        }
        "select" | "partition" => {
            let kept: Vec<u32> = data.iter().filter(odd).copied().collect();
            let mut w = vec![kept.len() as u32];
            w.extend(kept);
            if primitive == "partition" {
                w.extend(data.iter().filter(|x| !odd(x)));
            }
            w
        }
        "sort_keys" | "sort_pairs" => {
            let mut k = data.to_vec();
            k.sort_unstable();
            if primitive == "sort_pairs" {
                k.extend_from_within(..);
            }
            k
        }
        "histogram256" | "histogram4096" => {
            let bins = if primitive == "histogram256" {
                256
            } else {
                4096
            };
            wavekit::histogram::reference::histogram(data, bins, 0u32, u32::MAX).bins
        }
        _ => return None,
    })
}

/// Run `b` once more (with the sorts' untimed set-up) and read back the words its fingerprint
/// covers, in [`reference_words`]' order.
fn output_words(ctx: &GpuContext, name: &str, b: &Bound, s: &Size) -> Result<Option<Vec<u32>>> {
    let n = s.n as usize;
    if matches!(b, Bound::Chain(_)) {
        return Ok(None);
    }
    ctx.submit(|e| {
        if let Bound::Sort(_) = b {
            // (The values buffer has room only when pairs are measured.)
            s.restore(e, name == "sort_pairs");
        }
        b.record(e);
    });
    Ok(Some(match b {
        Bound::Reduce(b) => ctx.read_back("reduce result", b.result(), 1)?,
        Bound::Scan(_) => ctx.read_back("scan output", &s.dst, n)?,
        Bound::Select(b) => {
            let count = ctx.read_back::<u32>("select count", b.count(), 1)?[0];
            let out: Vec<u32> = ctx.read_back("select output", &s.dst, n)?;
            let end = if name == "partition" {
                n
            } else {
                (count as usize).min(n)
            };
            std::iter::once(count)
                .chain(out[..end].iter().copied())
                .collect()
        }
        Bound::Sort(_) => {
            let mut k: Vec<u32> = ctx.read_back("sorted keys", &s.keys, n)?;
            if name == "sort_pairs" {
                k.extend(ctx.read_back::<u32>("sorted values", &s.values, n)?);
            }
            k
        }
        Bound::Histogram(b) => b.read(ctx)?.bins,
        Bound::Chain(_) => return Ok(None),
    }))
}

/// Minimum bytes moved: reads plus writes.
fn bytes_moved(primitive: &str, n: u64, kept: u64) -> u64 {
    match primitive {
        "reduce" => 4 * n,
        "select" => 4 * n + 4 * kept,
        "histogram256" | "histogram4096" => 4 * n,
        "sort_pairs" => 16 * n,
        // select, sort pairs, scan, histogram.
        "chain4" => (4 * n + 4 * kept) + 16 * n + 8 * n + 4 * n,
        _ => 8 * n,
    }
}

/// What one size needs: its input and output buffers and every chosen primitive bound to them.
struct Size {
    lg: u32,
    n: u64,
    kept: u64,
    src: wgpu::Buffer,
    /// The output of the scans, select and partition.
    dst: wgpu::Buffer,
    copy: wavekit::copy::BoundCopy,
    bound: Vec<(String, Bound)>,
    /// Sorts work in place: their keys (and values), restored from `src` before every run.
    keys: wgpu::Buffer,
    values: wgpu::Buffer,
}

enum Bound {
    Reduce(wavekit::reduce::BoundReduce),
    Scan(wavekit::scan::BoundScan),
    Select(wavekit::select::BoundSelect),
    Sort(Box<wavekit::sort::BoundSort>),
    Histogram(wavekit::histogram::BoundHistogram),
    Chain(Box<Chain>),
}

/// The four primitives of `chain4`, bound one after another, and the buffers between them.
struct Chain {
    select: wavekit::select::BoundSelect,
    sort: wavekit::sort::BoundSort,
    scan: wavekit::scan::BoundScan,
    histogram: wavekit::histogram::BoundHistogram,
    /// The selected keys (sorted in place; cleared before each run, untimed, so that the slots
    /// past the selected ones hold zeros, as CUB's input does).
    selected: wgpu::Buffer,
    /// The sort's values, restored from the input before each run (untimed).
    values: wgpu::Buffer,
    _scanned: wgpu::Buffer,
}

impl Bound {
    fn record(&self, e: &mut wgpu::CommandEncoder) {
        match self {
            Bound::Reduce(b) => b.record(e),
            Bound::Scan(b) => b.record(e),
            Bound::Select(b) => b.record(e),
            Bound::Sort(b) => b.record(e),
            Bound::Histogram(b) => b.record(e),
            Bound::Chain(c) => c.record(e),
        }
    }
}

impl Size {
    /// The sorts work in place: their keys (and, for pairs, values) restored from the input.
    fn restore(&self, e: &mut wgpu::CommandEncoder, pairs: bool) {
        e.copy_buffer_to_buffer(&self.src, 0, &self.keys, 0, Some(4 * self.n));
        if pairs {
            e.copy_buffer_to_buffer(&self.src, 0, &self.values, 0, Some(4 * self.n));
        }
    }
}

impl Chain {
    fn record(&self, e: &mut wgpu::CommandEncoder) {
        self.select.record(e);
        self.sort.record(e);
        self.scan.record(e);
        self.histogram.record(e);
    }
}

/// The floor cases' kernel and buffers: a trivial kernel on 132 workgroups (one an SM of the
/// H200), and a 16 KiB buffer to clear.
struct FloorKernel {
    kernel: Kernel,
    bind: wgpu::BindGroup,
    _data: wgpu::Buffer,
    scratch: wgpu::Buffer,
}

const FLOOR_WORKGROUPS: u32 = 132;

impl FloorKernel {
    fn new(ctx: &GpuContext) -> Result<Self> {
        let kernel = Kernel::new(ctx, &crate::chain::composed()?)?;
        let data = ctx.storage_from(
            "floor data",
            &vec![0u32; (FLOOR_WORKGROUPS * crate::chain::WORKGROUP) as usize],
        )?;
        let bind = kernel.bind(ctx, &[(0, &data)])?;
        let scratch = ctx.storage_uninit("floor clear", 16 << 10)?;
        Ok(Self {
            kernel,
            bind,
            _data: data,
            scratch,
        })
    }

    fn dispatches(&self, e: &mut wgpu::CommandEncoder, n: u32, clear: bool) {
        let mut pass = record::compute_pass(e, "wavekit.floor");
        self.kernel
            .dispatch(&mut pass, &self.bind, FLOOR_WORKGROUPS);
        if clear {
            drop(pass);
            record::clear(e, &self.scratch, 0, None);
            pass = record::compute_pass(e, "wavekit.floor");
        }
        for _ in 1..n {
            self.kernel
                .dispatch(&mut pass, &self.bind, FLOOR_WORKGROUPS);
        }
    }
}

/// Run the chosen primitives at each `2^log2` size under `protocol` (each size's copy kernel
/// is a case too, interleaved with the rest, and so are the floor cases: see [`Floor`]), and
/// count what each records. `progress` gets a line per case and round.
pub fn run(
    ctx: &GpuContext,
    log2_sizes: &[u32],
    which: &[String],
    policies: &Policies,
    protocol: &Protocol,
    clock: &dyn ClockReader,
    progress: &mut dyn FnMut(String),
) -> Result<(Vec<PrimitiveResult>, Floor)> {
    for w in which {
        if !PRIMITIVES.contains(&w.as_str()) && !SORT_PRIMITIVES.contains(&w.as_str()) {
            return Err(Error::InvalidArgument(format!(
                "unknown primitive '{w}'; choose from {}, {}",
                PRIMITIVES.join(", "),
                SORT_PRIMITIVES.join(", ")
            )));
        }
    }
    if let Some(lg) = log2_sizes.iter().find(|&&lg| lg > 31) {
        return Err(Error::InvalidArgument(format!(
            "2^{lg} elements: at most 2^31"
        )));
    }
    let add = Monoid::builtin(Scalar::U32, Op::Add);
    let wants = |name: &str| which.iter().any(|w| w == name);
    let reduce = Reduce::new(
        ctx,
        &ReduceConfig {
            monoid: add.clone(),
            policy: Some(policies.reduce),
        },
    )?;
    let scan = |inclusive| {
        let config = ScanConfig {
            policy: Some(policies.scan),
            inclusive,
            ..ScanConfig::inclusive(add.clone())
        };
        Scan::new(ctx, &config)
    };
    let (incl, excl) = (scan(true)?, scan(false)?);
    let odd = Keep::Predicate(ODD.into());
    let select = Select::new(
        ctx,
        &SelectConfig {
            scalar: Scalar::U32,
            keep: odd.clone(),
            partition: false,
            policy: Some(policies.select),
        },
    )?;
    let partition = Select::new(
        ctx,
        &SelectConfig {
            scalar: Scalar::U32,
            keep: odd.clone(),
            partition: true,
            policy: Some(policies.select),
        },
    )?;
    let keys = SortConfig {
        policy: Some(policies.sort),
        ..SortConfig::keys(KeyType::U32)
    };
    let sort_keys = RadixSort::new(ctx, &keys)?;
    let sort_pairs = RadixSort::new(
        ctx,
        &SortConfig {
            values: Values::U32,
            ..keys
        },
    )?;
    let hist256 = Histogram::new(ctx, &HistogramConfig::new(256, 0u32, u32::MAX))?;
    let hist4096 = Histogram::new(ctx, &HistogramConfig::new(4096, 0u32, u32::MAX))?;
    let copy_kernel = wavekit::copy::CopyKernel::new(ctx)?;

    // Every size's buffers and bound primitives first: the cases are interleaved.
    let mut sizes = Vec::new();
    for &lg in log2_sizes {
        let n = 1u64 << lg;
        progress(format!("preparing 2^{lg} …"));
        let data = input(n as usize);
        let kept = data.iter().filter(|x| *x & 1 == 1).count() as u64;
        let src = ctx.storage_from("bench input", &data)?;
        drop(data);
        let dst = ctx.storage_uninit("bench output", 4 * n)?;
        let sorts = wants("sort_keys") || wants("sort_pairs");
        let keys = ctx.storage_uninit("bench keys", if sorts { 4 * n } else { 4 })?;
        let values =
            ctx.storage_uninit("bench values", if wants("sort_pairs") { 4 * n } else { 4 })?;
        let mut bound = Vec::new();
        for name in which {
            let b = match name.as_str() {
                "reduce" => Bound::Reduce(reduce.bind(ctx, &src, n)?),
                "scan_inclusive" => Bound::Scan(incl.bind(ctx, &src, Some(&dst), n)?),
                "scan_exclusive" => Bound::Scan(excl.bind(ctx, &src, Some(&dst), n)?),
                "select" => Bound::Select(select.bind(ctx, &src, None, &dst, n)?),
                "partition" => Bound::Select(partition.bind(ctx, &src, None, &dst, n)?),
                "sort_keys" => Bound::Sort(Box::new(sort_keys.bind(ctx, &keys, None, n)?)),
                "sort_pairs" => {
                    Bound::Sort(Box::new(sort_pairs.bind(ctx, &keys, Some(&values), n)?))
                }
                "histogram256" => Bound::Histogram(hist256.bind(ctx, &src, n)?),
                "histogram4096" => Bound::Histogram(hist4096.bind(ctx, &src, n)?),
                _ => {
                    let selected = ctx.storage_uninit("chain selected", 4 * n)?;
                    let values = ctx.storage_uninit("chain values", 4 * n)?;
                    let scanned = ctx.storage_uninit("chain scanned", 4 * n)?;
                    Bound::Chain(Box::new(Chain {
                        select: select.bind(ctx, &src, None, &selected, n)?,
                        sort: sort_pairs.bind(ctx, &selected, Some(&values), n)?,
                        scan: incl.bind(ctx, &selected, Some(&scanned), n)?,
                        histogram: hist256.bind(ctx, &scanned, n)?,
                        selected,
                        values,
                        _scanned: scanned,
                    }))
                }
            };
            bound.push((name.clone(), b));
        }
        let copy = copy_kernel.bind(ctx, &src, &dst, 4 * n)?;
        sizes.push(Size {
            lg,
            n,
            kept,
            src,
            dst,
            copy,
            bound,
            keys,
            values,
        });
    }
    let floor_kernel = FloorKernel::new(ctx)?;
    let fk = &floor_kernel;
    let mut cases = vec![
        Case::new("floor: nothing", |_| {}),
        Case::new("floor: 1 dispatch", |e| fk.dispatches(e, 1, false)),
        Case::new("floor: 2 dispatches", |e| fk.dispatches(e, 2, false)),
        Case::new("floor: dispatch, clear, dispatch", |e| {
            fk.dispatches(e, 2, true)
        }),
    ];
    for s in &sizes {
        let lg = s.lg;
        cases.push(Case::new(format!("copy 2^{lg}"), |e| s.copy.record(e)));
        for (name, b) in &s.bound {
            let case_name = format!("{name} 2^{lg}");
            let case = Case::new(case_name, |e| b.record(e));
            let case = match b {
                Bound::Chain(c) => case.with_setup(move |e| {
                    e.clear_buffer(&c.selected, 0, None);
                    e.copy_buffer_to_buffer(&s.src, 0, &c.values, 0, Some(4 * s.n));
                }),
                // Sorted in place: the input is restored before every run, untimed.
                Bound::Sort(_) => {
                    let pairs = name == "sort_pairs";
                    case.with_setup(move |e| s.restore(e, pairs))
                }
                _ => case,
            };
            cases.push(case);
        }
    }
    let measured = measure(ctx, &mut cases, protocol, clock, progress)?;
    drop(cases);
    let mut out = Vec::new();
    let mut m = measured.into_iter();
    let mut floor_case = || m_next(&mut m).timing.median_ns;
    let floor = Floor {
        empty_ns: floor_case(),
        one_ns: floor_case(),
        two_ns: floor_case(),
        clear_ns: floor_case(),
    };
    // Every output checked against the CPU reference after the timed runs, and fingerprinted.
    let mut checks = Vec::new();
    for s in &sizes {
        let data = input(s.n as usize);
        for (name, b) in &s.bound {
            progress(format!(
                "checking {name} 2^{} against the CPU reference …",
                s.lg
            ));
            let check = match (output_words(ctx, name, b, s)?, reference_words(name, &data)) {
                (Some(got), Some(want)) => {
                    if let Some(i) =
                        (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i))
                    {
                        return Err(Error::InvalidArgument(format!(
                            "{name} at 2^{}: the output differs from the CPU reference at word \
                             {i} ({:?} against {:?}): a wrong result is not timed; please report \
                             it with `wavekit probe` and the policy knobs set",
                            s.lg,
                            got.get(i),
                            want.get(i)
                        )));
                    }
                    Some(format!("{:016x}", fingerprint(got)))
                }
                _ => None,
            };
            checks.push(check);
        }
    }
    let mut checks = checks.into_iter();
    for s in &sizes {
        let copy = m.next().expect("a copy case per size");
        let copy_gbps = 2.0 * 4.0 * s.n as f64 / copy.timing.median_ns;
        for (name, b) in &s.bound {
            let r = m.next().expect("a case per primitive");
            let lookback = match b {
                Bound::Scan(b) => Some(b.lookback_stats(ctx)?),
                Bound::Select(b) => Some(b.lookback_stats(ctx)?),
                Bound::Sort(b) => b.lookback_stats(ctx)?,
                _ => None,
            };
            let recorded = record::count(|| {
                b.record(&mut ctx.device.create_command_encoder(&Default::default()))
            });
            let bytes = bytes_moved(name, s.n, s.kept);
            let floor_ns = floor.under(&recorded, bytes, copy.timing.median_ns, 8 * s.n);
            let t = &r.timing;
            let gbps = bytes as f64 / t.median_ns;
            out.push(PrimitiveResult {
                primitive: name.clone(),
                n: s.n,
                median_ns: t.median_ns,
                p10_ns: t.p10_ns,
                p90_ns: t.p90_ns,
                elements_per_s: s.n as f64 / t.median_ns * 1e9,
                gbps,
                copy_gbps,
                copy_fraction: gbps / copy_gbps,
                round_medians_ns: r.round_medians_ns.clone(),
                spread: r.spread,
                clock: r.clock,
                clock_low: r.clock_low || copy.clock_low,
                lookback,
                recorded,
                floor_ns,
                check: checks.next().flatten(),
            });
        }
    }
    Ok((out, floor))
}

fn m_next(m: &mut impl Iterator<Item = crate::protocol::Measured>) -> crate::protocol::Measured {
    m.next().expect("the floor cases come first")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fingerprint is FNV-1a over the words, as `peer/cub/common.cuh` computes it; the
    /// reference words follow the order the peers are asked for.
    #[test]
    fn fingerprints_and_reference_words() {
        assert_eq!(fingerprint([]), 0xcbf2_9ce4_8422_2325);
        // One step by hand: (basis ^ 1) * prime.
        assert_eq!(
            fingerprint([1]),
            (0xcbf2_9ce4_8422_2325u64 ^ 1).wrapping_mul(0x100_0000_01b3)
        );
        assert_ne!(fingerprint([1, 2]), fingerprint([2, 1]), "order counts");
        let d = [4u32, 3, u32::MAX, 5, 8];
        let w = |p| reference_words(p, &d).unwrap();
        assert_eq!(w("reduce"), [19]);
        assert_eq!(w("scan_inclusive"), [4, 7, 6, 11, 19]);
        assert_eq!(w("scan_exclusive"), [0, 4, 7, 6, 11]);
        assert_eq!(w("select"), [3, 3, u32::MAX, 5]);
        assert_eq!(w("partition"), [3, 3, u32::MAX, 5, 4, 8]);
        assert_eq!(w("sort_keys"), [3, 4, 5, 8, u32::MAX]);
        assert_eq!(
            w("sort_pairs"),
            [3, 4, 5, 8, u32::MAX, 3, 4, 5, 8, u32::MAX]
        );
        let h = w("histogram256");
        assert_eq!(
            (h.len(), h[0], h[255]),
            (256, 4, 0),
            "u32::MAX is not below the top"
        );
        assert_eq!(w("histogram4096").iter().sum::<u32>(), 4);
        assert!(reference_words("chain4", &d).is_none());
    }
}
