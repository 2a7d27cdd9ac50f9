//! The cases: for each, lampshade's objects and buffers, the record calls that are timed, and
//! the check of the whole output against the host reference (after the first run and again
//! after the timed runs).

use std::cell::OnceCell;
use std::time::Duration;

use lampshade::{
    Compactor, Histogram, KeyValue, KeyValueSoaSorter, KeyValueSorter, MaskGenerator, Reducer,
    Scanner, Sorter, U32Predicate, U32Reduction,
};
use wavekit::{GpuContext, GpuTimer, Timing};

use crate::Failure;
use crate::reference as r;
use crate::timing::{self, Record, Setup};

/// Every case, in the order they run. The first seven are the brief's; `select_mask` and
/// `sort_pairs_aos` are lampshade's other ways to the same ends.
pub const CASES: &[&str] = &[
    "reduce",
    "scan_inclusive",
    "scan_exclusive",
    "select",
    "sort_keys",
    "sort_pairs",
    "histogram256_prebinned",
    "select_mask",
    "sort_pairs_aos",
];

/// Lampshade's primitives, built once on wavekit's device through lampshade's `Context`
/// (so that each picks its adapter-specific path, as `from_context` does for a lampshade user).
pub struct Lampshade {
    reducer: Reducer,
    scanner: Scanner,
    compactor: Compactor,
    masks: MaskGenerator,
    sorter: Sorter,
    kv_sorter: KeyValueSorter,
    soa: KeyValueSoaSorter,
    histogram: Histogram,
}

impl Lampshade {
    /// Build every primitive on `ctx`'s device and queue.
    pub fn new(ctx: &GpuContext) -> Result<Self, Failure> {
        let lc = lampshade::Context {
            adapter_info: ctx.adapter.get_info(),
            device: ctx.device.clone(),
            queue: ctx.queue.clone(),
        };
        Ok(ctx.scoped("building lampshade's pipelines", || Self {
            reducer: Reducer::from_context(&lc),
            scanner: Scanner::from_context(&lc),
            compactor: Compactor::from_context(&lc),
            masks: MaskGenerator::from_context(&lc),
            sorter: Sorter::from_context(&lc),
            kv_sorter: KeyValueSorter::from_context(&lc),
            soa: KeyValueSoaSorter::from_context(&lc),
            histogram: Histogram::from_context(&lc),
        })?)
    }

    /// Whether the SoA pair sort runs lampshade's native kernel (not the pack–sort–unpack
    /// bridge).
    pub fn soa_native(&self) -> bool {
        self.soa.is_accelerated()
    }
}

/// One size's input, on the host and on the device, and its references (made when needed).
pub struct Input<'a> {
    /// Elements.
    pub n: u32,
    /// `wavekit::bench::primitives::input(n)`.
    pub data: &'a [u32],
    /// The same on the device.
    pub src: &'a wgpu::Buffer,
    argsort: OnceCell<(Vec<u32>, Vec<u32>)>,
}

impl<'a> Input<'a> {
    /// The input `data`, uploaded as `src`.
    pub fn new(data: &'a [u32], src: &'a wgpu::Buffer) -> Self {
        Self {
            n: data.len() as u32,
            data,
            src,
            argsort: OnceCell::new(),
        }
    }

    /// The stable sort by key: sorted keys, and the input index of each.
    fn argsort(&self) -> &(Vec<u32>, Vec<u32>) {
        self.argsort.get_or_init(|| r::stable_argsort(self.data))
    }

    fn bytes(&self) -> u64 {
        4 * u64::from(self.n)
    }
}

/// Where and how the cases are timed.
pub struct Bench<'a> {
    /// wavekit's context: lampshade's work runs on its device.
    pub ctx: &'a GpuContext,
    /// The GPU-timestamp timer.
    pub timer: &'a GpuTimer,
    /// Measured runs.
    pub runs: u32,
    /// Wall time of back-to-back runs right before measuring.
    pub warm: Duration,
}

/// A measured case.
pub struct Measured {
    /// GPU time of the record calls.
    pub timing: Timing,
    /// Warm-up runs before the measurement.
    pub warm_runs: u64,
    /// What differs from wavekit's case of the same name, if anything.
    pub note: Option<String>,
}

/// Read `len` u32 of `buf` back.
fn read(ctx: &GpuContext, what: &str, buf: &wgpu::Buffer, len: usize) -> Result<Vec<u32>, Failure> {
    Ok(ctx.read_back::<u32>(what, buf, len)?)
}

fn check(result: Result<(), String>) -> Result<(), Failure> {
    result.map_err(Failure::Check)
}

/// Run once with `first_setup` (or `setup`), check with `check_first`; warm up and time with
/// `setup`; check the last timed run's output with `check_last`.
fn checked_timing(
    bench: &Bench,
    first_setup: Option<Setup>,
    setup: Setup,
    record: Record,
    check_first: &dyn Fn() -> Result<(), Failure>,
    check_last: &dyn Fn() -> Result<(), Failure>,
) -> Result<(Timing, u64), Failure> {
    match first_setup {
        Some(first) => timing::run_once(bench.ctx, first, &mut *record)?,
        None => timing::run_once(bench.ctx, &mut *setup, &mut *record)?,
    }
    check_first()?;
    let measured = timing::measure(
        bench.ctx,
        bench.timer,
        bench.runs,
        bench.warm,
        setup,
        record,
    )?;
    check_last().map_err(|e| match e {
        Failure::Check(m) => Failure::Check(format!("after the timed runs: {m}")),
        other => other,
    })?;
    Ok(measured)
}

/// Run the case `name` on `input`.
pub fn run(
    name: &str,
    ls: &mut Lampshade,
    bench: &Bench,
    input: &Input,
) -> Result<Measured, Failure> {
    let ctx = bench.ctx;
    let (n, data, src) = (input.n, input.data, input.src);
    let nz = input.n as usize;
    let none = &mut |_: &mut wgpu::CommandEncoder| {};
    let mut note = None;
    let (timing, warm_runs) = match name {
        "reduce" => {
            let out = ctx.storage_poisoned("lampshade sum", 1)?;
            let want = r::sum(data);
            let chk = || check(r::compare("sum", &read(ctx, "sum", &out, 1)?, &[want]));
            let mut rec = |e: &mut wgpu::CommandEncoder| {
                ls.reducer.record_reduce(e, src, &out, n, U32Reduction::Sum)
            };
            checked_timing(bench, None, none, &mut rec, &chk, &chk)?
        }
        "scan_inclusive" | "scan_exclusive" => {
            let inclusive = name == "scan_inclusive";
            let out = ctx.storage_poisoned("lampshade scan", nz)?;
            let want = if inclusive {
                r::scan_inclusive(data)
            } else {
                r::scan_exclusive(data)
            };
            let chk = || check(r::compare(name, &read(ctx, name, &out, nz)?, &want));
            let mut rec = |e: &mut wgpu::CommandEncoder| {
                if inclusive {
                    ls.scanner.record_scan(e, src, &out, n)
                } else {
                    ls.scanner.record_exclusive_scan(e, src, &out, n)
                }
            };
            checked_timing(bench, None, none, &mut rec, &chk, &chk)?
        }
        "select" | "select_mask" => {
            let flagged = name == "select";
            let out = ctx.storage_poisoned("lampshade select", nz)?;
            let count = ctx.storage_poisoned("lampshade select count", 1)?;
            let (mask, want) = if flagged {
                let flags: Vec<u32> = data.iter().map(|&x| u32::from(r::keep_odd(x))).collect();
                note = Some(
                    "lampshade's predicates are comparisons and none keeps odd values: the flags \
                     x & 1 are made on the host (untimed) and Compactor::record_compact is timed \
                     alone (it reads the flags; wavekit evaluates the predicate in its one pass)"
                        .to_string(),
                );
                (
                    ctx.storage_from("select flags", &flags)?,
                    r::select(data, r::keep_odd),
                )
            } else {
                note = Some(
                    "MaskGenerator::record_mask (x >= 2^31, lampshade's nearest predicate: about \
                     half kept, as odd values are, but not the same values) then \
                     Compactor::record_compact, timed together"
                        .to_string(),
                );
                (
                    ctx.storage_uninit("select mask", input.bytes())?,
                    r::select(data, |x| x >= r::HIGH_HALF),
                )
            };
            let chk = || {
                let got = read(ctx, "select count", &count, 1)?[0] as usize;
                if got != want.len() {
                    return Err(Failure::Check(format!(
                        "{name}: kept {got}, expected {}",
                        want.len()
                    )));
                }
                check(r::compare(name, &read(ctx, name, &out, got)?, &want))
            };
            let pred = U32Predicate::GreaterThanOrEqual(r::HIGH_HALF);
            let mut rec = |e: &mut wgpu::CommandEncoder| {
                if !flagged {
                    ls.masks.record_mask(e, src, &mask, n, pred)?;
                }
                ls.compactor.record_compact(e, src, &mask, &out, &count, n)
            };
            checked_timing(bench, None, none, &mut rec, &chk, &chk)?
        }
        "sort_keys" => {
            // Lampshade sorts out of place; its input is restored before each run anyway
            // (untimed), as wavekit's in-place sort must, so that both start alike.
            let keys = ctx.storage_uninit("lampshade keys", input.bytes())?;
            let out = ctx.storage_poisoned("lampshade sorted keys", nz)?;
            let mut restore = |e: &mut wgpu::CommandEncoder| {
                e.copy_buffer_to_buffer(src, 0, &keys, 0, Some(input.bytes()))
            };
            let chk = || {
                let got = read(ctx, "sorted keys", &out, nz)?;
                check(r::compare("sorted keys", &got, &input.argsort().0))
            };
            let mut rec = |e: &mut wgpu::CommandEncoder| ls.sorter.record_sort(e, &keys, &out, n);
            checked_timing(bench, None, &mut restore, &mut rec, &chk, &chk)?
        }
        "sort_pairs" => {
            // Separate key and value buffers, sorted in place, as wavekit's pairs are. Checked
            // first with values = input indices (stability shows), timed with values = keys.
            let keys = ctx.storage_uninit("lampshade keys", input.bytes())?;
            let values = ctx.storage_uninit("lampshade values", input.bytes())?;
            let iota: Vec<u32> = (0..input.n).collect();
            let indices = ctx.storage_from("indices", &iota)?;
            drop(iota);
            ls.soa.prepare_sort(&keys, &values, n)?;
            note = Some(format!(
                "KeyValueSoaSorter (keys and values in separate buffers, sorted in place; {})",
                if ls.soa_native() {
                    "lampshade's native SoA kernel"
                } else {
                    "lampshade's portable pack-sort-unpack bridge: no native SoA kernel here"
                }
            ));
            let b = input.bytes();
            let mut first = |e: &mut wgpu::CommandEncoder| {
                e.copy_buffer_to_buffer(src, 0, &keys, 0, Some(b));
                e.copy_buffer_to_buffer(&indices, 0, &values, 0, Some(b));
            };
            let mut restore = |e: &mut wgpu::CommandEncoder| {
                e.copy_buffer_to_buffer(src, 0, &keys, 0, Some(b));
                e.copy_buffer_to_buffer(src, 0, &values, 0, Some(b));
            };
            let chk = |values_are_keys: bool| {
                let (want_keys, want_index) = input.argsort();
                let got = read(ctx, "sorted keys", &keys, nz)?;
                check(r::compare("sorted keys", &got, want_keys))?;
                let got = read(ctx, "sorted values", &values, nz)?;
                let want = if values_are_keys {
                    want_keys
                } else {
                    want_index
                };
                check(r::compare("sorted values", &got, want))
            };
            let soa = &ls.soa;
            let mut rec =
                |e: &mut wgpu::CommandEncoder| soa.record_reserved_sort(e, &keys, &values, n);
            checked_timing(
                bench,
                Some(&mut first),
                &mut restore,
                &mut rec,
                &|| chk(false),
                &|| chk(true),
            )?
        }
        "sort_pairs_aos" => {
            // Interleaved (key, value) records: lampshade's KeyValueSorter, out of place.
            let kv = |value: &dyn Fn(usize, u32) -> u32| -> Vec<KeyValue> {
                data.iter()
                    .enumerate()
                    .map(|(i, &k)| KeyValue::new(k, value(i, k)))
                    .collect()
            };
            let by_index = ctx.storage_from("records (key, index)", &kv(&|i, _| i as u32))?;
            let by_key = ctx.storage_from("records (key, key)", &kv(&|_, k| k))?;
            let b = 2 * input.bytes();
            let records = ctx.storage_uninit("lampshade records", b)?;
            let out = ctx.storage_poisoned("lampshade sorted records", 2 * nz)?;
            note = Some(
                "KeyValueSorter: interleaved (key, value) records, 8 bytes each, out of place"
                    .to_string(),
            );
            let mut first = |e: &mut wgpu::CommandEncoder| {
                e.copy_buffer_to_buffer(&by_index, 0, &records, 0, Some(b))
            };
            let mut restore = |e: &mut wgpu::CommandEncoder| {
                e.copy_buffer_to_buffer(&by_key, 0, &records, 0, Some(b))
            };
            let chk = |values_are_keys: bool| {
                let (want_keys, want_index) = input.argsort();
                let got = read(ctx, "sorted records", &out, 2 * nz)?;
                let keys: Vec<u32> = got.iter().step_by(2).copied().collect();
                let values: Vec<u32> = got.iter().skip(1).step_by(2).copied().collect();
                check(r::compare("sorted record keys", &keys, want_keys))?;
                let want = if values_are_keys {
                    want_keys
                } else {
                    want_index
                };
                check(r::compare("sorted record values", &values, want))
            };
            let mut rec =
                |e: &mut wgpu::CommandEncoder| ls.kv_sorter.record_sort(e, &records, &out, n);
            checked_timing(
                bench,
                Some(&mut first),
                &mut restore,
                &mut rec,
                &|| chk(false),
                &|| chk(true),
            )?
        }
        "histogram256_prebinned" => {
            let binned: Vec<u32> = data.iter().map(|&x| r::bin256(x)).collect();
            let want = r::histogram_direct(&binned, 256);
            let binned = ctx.storage_from("x >> 24", &binned)?;
            let out = ctx.storage_poisoned("lampshade histogram", 256)?;
            note = Some(
                "lampshade counts a value v in bin v (v < 256), not 256 even bins of the u32 \
                 range: it is given x >> 24, made on the host (untimed), which gives the same \
                 counts as wavekit's histogram256 of x (but for x = u32::MAX, which wavekit \
                 counts apart) from the same bytes read, without the binning arithmetic"
                    .to_string(),
            );
            let chk = || check(r::compare(name, &read(ctx, name, &out, 256)?, &want));
            let mut rec = |e: &mut wgpu::CommandEncoder| {
                ls.histogram.record_histogram(e, &binned, &out, n, 256)
            };
            checked_timing(bench, None, none, &mut rec, &chk, &chk)?
        }
        other => {
            return Err(Failure::Check(format!(
                "unknown case '{other}'; choose from {}",
                CASES.join(", ")
            )));
        }
    };
    Ok(Measured {
        timing,
        warm_runs,
        note,
    })
}
