//! The `wavekit` command line.

mod bench;
mod codec;
mod codec_y4m;
mod demo;
mod dwt;
mod error;
mod net;
mod npy;
mod output;
mod prims;
mod probe;
mod selftest;
mod spatial;
mod stream;
mod trace;
mod ui;

use clap::{Parser, Subcommand};

use error::CliError;

/// Subgroup-accelerated GPU compute on wgpu: probe the GPU, test it, benchmark it.
#[derive(Parser)]
#[command(name = "wavekit", version, about)]
struct Cli {
    /// Adapter to use: an index from `wavekit probe --list` or part of its name
    /// (default: $WAVEKIT_ADAPTER, else the best GPU).
    #[arg(long, global = true)]
    adapter: Option<String>,

    /// Print where the time went (reading, device, pipelines, GPU work, writing) to stderr.
    #[arg(long, global = true)]
    timings: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe the adapter: backend, driver, subgroup widths, features and limits.
    Probe {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// List every adapter instead of describing the chosen one.
        #[arg(long)]
        list: bool,
    },
    /// Check every subgroup operation family on the GPU against host-computed values, and
    /// subgroup operations right after loops whose trip count differs by lane (ADR-0092).
    Selftest {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Seed of the random inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Reduce a 1-D .npy array (uint32, int32, float32) and print the result.
    Reduce {
        /// Input array.
        input: std::path::PathBuf,
        /// Operator.
        #[arg(long, value_enum, default_value = "sum")]
        op: prims::OpArg,
    },
    /// Scan a 1-D .npy array into another.
    Scan {
        /// Input array.
        input: std::path::PathBuf,
        /// Output array (same dtype).
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Exclusive scan (default: inclusive).
        #[arg(long)]
        exclusive: bool,
        /// Operator.
        #[arg(long, value_enum, default_value = "sum")]
        op: prims::OpArg,
    },
    /// Keep the elements whose flag is non-zero, in order; print how many.
    Select {
        /// Input array.
        input: std::path::PathBuf,
        /// Flags, one per element (bool, uint8, int8, uint32, int32).
        #[arg(long)]
        flags: std::path::PathBuf,
        /// Output array.
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Write the rejected elements after the kept ones (both in order).
        #[arg(long)]
        partition: bool,
    },
    /// Sort keys (uint32, int32, float32 in total order, uint64), stably; values travel along.
    Sort {
        /// Keys.
        input: std::path::PathBuf,
        /// Sorted keys.
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Values, one per key (any 32-bit dtype); needs --values-out.
        #[arg(long)]
        values: Option<std::path::PathBuf>,
        /// Where the reordered values go; without --values, the sorting permutation
        /// (original indices, uint32).
        #[arg(long)]
        values_out: Option<std::path::PathBuf>,
        /// Largest first (equal keys keep their order).
        #[arg(long)]
        descending: bool,
        /// Only these key bits count, LO..HI (e.g. 0..16): fewer bits, fewer passes.
        #[arg(long, value_parser = prims::parse_bits)]
        bits: Option<(u32, u32)>,
    },
    /// Histogram with even bins over [LO, HI); prints the samples below, above and NaN.
    Histogram {
        /// Samples (uint32, int32, float32).
        input: std::path::PathBuf,
        /// Number of bins, 1 to 4096.
        #[arg(long)]
        bins: u32,
        /// Lower and upper level, in the samples' type.
        #[arg(long, num_args = 2, value_names = ["LO", "HI"], allow_negative_numbers = true)]
        range: Vec<String>,
        /// Counts per bin (uint32).
        #[arg(short, long)]
        output: std::path::PathBuf,
    },
    /// The 2D wavelet transform of JPEG 2000 (5/3 or 9/7): forward, inverse, round trip.
    #[command(subcommand)]
    Dwt(DwtCommand),
    /// Encode a PNG frame, or a .y4m stream frame by frame, into the codec's bitstream at a
    /// byte budget a frame, on the GPU (--cpu: the reference, the same bytes;
    /// docs/codec-bitstream.md); prints each frame's size and PSNR.
    Encode {
        /// A PNG (8-bit RGB; alpha is dropped), or a .y4m stream (8-bit 4:2:0 or 4:4:4, coded
        /// as YCbCr as it is, limited range unless tagged XCOLORRANGE=FULL).
        input: std::path::PathBuf,
        /// The coded frame (from a PNG), or the stream of frames (from a .y4m).
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Each frame's size at most, in bytes.
        #[arg(long, conflicts_with = "bpp")]
        bytes: Option<usize>,
        /// The frame's size at most, in bits a pixel.
        #[arg(long)]
        bpp: Option<f64>,
        /// Chroma sampling of a PNG (default 420; 444 when lossless); a .y4m keeps its own.
        #[arg(long, value_enum)]
        chroma: Option<codec::ChromaArg>,
        /// Wavelet levels (fewer where the frame is too small).
        #[arg(long, default_value_t = 5)]
        levels: u8,
        /// Lossless: the 5/3, every plane, decoded bit for bit; a PNG with the reversible
        /// colour transform at 4:4:4, a .y4m's samples as they are (--bytes/--bpp, if given,
        /// are a cap each frame must fit).
        #[arg(long)]
        lossless: bool,
        /// Encode with the CPU reference encoder instead (no GPU needed; the same bytes).
        #[arg(long)]
        cpu: bool,
    },
    /// The codec's benchmark.
    #[command(subcommand)]
    Codec(CodecCommand),
    /// Decode a coded frame to a PNG or a .y4m, or a stream of frames to a .y4m, on the GPU
    /// (the same pixels as the CPU reference); damaged blocks are decoded as flat and
    /// reported.
    Decode {
        /// The coded frame or stream.
        input: std::path::PathBuf,
        /// The PNG or .y4m to write (by its extension; a stream needs .y4m).
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Decode with the CPU reference decoder instead (no GPU needed).
        #[arg(long)]
        cpu: bool,
    },
    /// Everything on this machine, end to end: probe, selftest, and the primitives checked
    /// against the CPU.
    Demo,
    /// Benchmarks, timed on the GPU.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Ray tracing on a BVH: render a mesh (-o OUT.png), trace your rays (--rays-in,
    /// --hits-out), or benchmark the kernels (wavekit trace bench).
    Trace(trace::TraceCmd),
    /// k nearest neighbours of each query among the points (.npy in and out), on the GPU.
    Knn(spatial::KnnArgs),
    /// Every point within a radius of each query, as CSR (.npy offsets and indices).
    Radius(spatial::RadiusArgs),
    /// The point queries' benchmark.
    #[command(subcommand)]
    Spatial(spatial::SpatialCommand),
    /// The compute-shader UI compositor: render a JSON scene, the demo panel, the benchmark.
    #[command(subcommand)]
    Ui(ui::UiCommand),
    /// Frames over UDP: send a .y4m stream's coded frames as datagrams, receive and decode
    /// them by their deadline.
    #[command(subcommand)]
    Stream(net::StreamCommand),
}

/// `wavekit codec …`.
#[derive(clap::Subcommand)]
enum CodecCommand {
    /// The GPU decoder's time (median, p99) on the benchmark protocol, the CPU encoder's wall
    /// time, bytes, PSNR-Y and PSNR-RGB, at each size, chroma sampling and budget.
    Bench {
        /// PNG frames (default: synthetic frames at 1920x1080, 2560x1440 and 3840x2160).
        #[arg(long, value_delimiter = ',')]
        frames: Vec<std::path::PathBuf>,
        /// Budgets in bits a pixel.
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        bpp: Vec<f64>,
        /// Chroma samplings.
        #[arg(long, value_delimiter = ',', default_value = "420,444")]
        chroma: Vec<codec::ChromaArg>,
        /// Invocations of the block encoder's workgroups, one row set each (powers of two,
        /// 64 to 512), paired in order with --decode-workgroup.
        #[arg(long, value_delimiter = ',', default_value = "256")]
        encode_workgroup: Vec<u32>,
        /// Invocations of the block decoder's workgroups (powers of two, 64 to 512), paired
        /// in order with --encode-workgroup (the last repeats).
        #[arg(long, value_delimiter = ',', default_value = "512")]
        decode_workgroup: Vec<u32>,
        /// Block kernels to time (the encoder's and the decoder's alike), each with every
        /// workgroup pair: subgroup (one subgroup a block, where the device's subgroup width is
        /// fixed and at most 32; elsewhere the workgroup kernels run) and workgroup.
        #[arg(long, value_delimiter = ',', default_value = "subgroup")]
        block_kernel: Vec<codec::BlockKernelArg>,
        /// Bits of the coders' coefficients, each a row set: 32 (the default) and 16 (where
        /// the frame allows it: a lossy frame from RGB or full-range YCbCr whose widths halve
        /// evenly at every level; else 32).
        #[arg(long, value_delimiter = ',', default_value = "32")]
        coefficient_bits: Vec<u32>,
        /// Also time each stage alone (encode: colour, wavelet, blocks, rate control and
        /// packing; decode: blocks, wavelet, colour), as differences of prefixes.
        #[arg(long)]
        stages: bool,
        /// What the coders take and give: rgb (8-bit RGB in, RGBA out) or ycbcr (8-bit
        /// planar YCbCr in full range in and out, each frame's BT.709 samples as a .y4m holds
        /// them: the form PyroWave's coders take and give).
        #[arg(long, value_enum, default_value = "rgb")]
        pixels: codec::PixelsArg,
        /// Instead of the protocol's timings: decode N frames back to back (made from each
        /// frame, up to 32 distinct ones in turn, uploaded from the host one by one) with
        /// --in-flight decoders in turn, and report frames a second and each frame's latency
        /// (median, p99, largest) from its upload to its decode done.
        #[arg(long, value_name = "N")]
        stream: Option<usize>,
        /// Frames in flight in a --stream run.
        #[arg(long, default_value_t = 3)]
        in_flight: usize,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// One JSON line a case instead of the table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum DwtCommand {
    /// Image (PNG 8/16-bit gray or RGB, PGM, PPM) or 2-D/3-D .npy in, coefficients out
    /// (.npy of shape (planes, H, W): int32 for 5/3, float32 for 9/7).
    Forward {
        /// Input image or array.
        input: std::path::PathBuf,
        /// Coefficients (.npy).
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Wavelet.
        #[arg(long, value_enum)]
        wavelet: dwt::WaveletArg,
        /// Levels (at most until LL is 1 × 1).
        #[arg(long)]
        levels: u32,
        /// JPEG 2000's colour transform of an RGB input, fused into the first level: rct
        /// (reversible, with 5/3) or ict (irreversible, with 9/7).
        #[arg(long, value_enum, default_value = "none")]
        color: dwt::ColorArg,
    },
    /// Coefficients in, image (PNG, PGM, PPM) or .npy out.
    Inverse {
        /// Coefficients (.npy).
        input: std::path::PathBuf,
        /// Output image or array.
        #[arg(short, long)]
        output: std::path::PathBuf,
        /// Wavelet (the one the coefficients were made with: a file from `dwt forward`
        /// notes it, and other settings are refused).
        #[arg(long, value_enum)]
        wavelet: dwt::WaveletArg,
        /// Levels (those the coefficients were made with).
        #[arg(long)]
        levels: u32,
        /// Bits per sample of an image output (8 or 16).
        #[arg(long, default_value_t = 8)]
        bits: u32,
        /// The colour transform the coefficients were made with (undone in the last level).
        #[arg(long, value_enum, default_value = "none")]
        color: dwt::ColorArg,
    },
    /// Forward then inverse on the GPU; exit 1 unless 5/3 is exact and 9/7 within 1e-4 of
    /// the samples' range.
    Roundtrip {
        /// Input image or array.
        input: std::path::PathBuf,
        /// Wavelet.
        #[arg(long, value_enum)]
        wavelet: dwt::WaveletArg,
        /// Levels.
        #[arg(long)]
        levels: u32,
        /// JPEG 2000's colour transform of an RGB input, fused into the first level.
        #[arg(long, value_enum, default_value = "none")]
        color: dwt::ColorArg,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// The wavelet transform (both wavelets, forward and inverse) at video sizes: GPU time,
    /// samples/s, and the fraction of an ideal transform's memory traffic at the copy
    /// kernel's speed in the same run.
    Dwt {
        /// Sizes: 360p, 1080p, 1440p, 4k, 8k.
        #[arg(long, value_delimiter = ',', default_values_t = ["1080p".to_string(), "1440p".into(), "4k".into(), "8k".into()])]
        sizes: Vec<String>,
        /// Plane counts.
        #[arg(long, value_delimiter = ',', default_values_t = [1u32, 3])]
        planes: Vec<u32>,
        /// Levels.
        #[arg(long, default_value_t = 5)]
        levels: u32,
        /// Bindings: separate, "in place", 8-bit.
        #[arg(long, value_delimiter = ',', default_values_t = ["separate".to_string(), "in place".into(), "8-bit".into()])]
        bindings: Vec<String>,
        /// Also the three-plane cases with JPEG 2000's colour transform fused into the first
        /// level (RCT with 5/3, ICT with 9/7).
        #[arg(long)]
        color: bool,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// Peers' results (JSON lines: peer, size, planes, wavelet, direction, median_ns), e.g.
        /// from peer/python/dwt_peers.py; adds the faster peer's time over wavekit's.
        #[arg(long)]
        peer: Option<std::path::PathBuf>,
        /// Also write the results as JSON to this file.
        #[arg(long)]
        save: Option<std::path::PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The WGSL copy kernel: the bandwidth every other benchmark is a fraction of.
    Copy {
        /// Sizes in bytes to copy (each rounded up to 16).
        #[arg(long, value_delimiter = ',', default_values_t = [1u64 << 24, 1 << 28, 1 << 30])]
        bytes: Vec<u64>,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The look-back's basic step, measured apart: one dependent window read per round, with
    /// 1, 2, 4 or 8 loads per lane, atomic or plain, on shared or private lines, with the GPU
    /// idle or streaming memory in the same workgroups (measurement only).
    Probe {
        /// Dependent window reads per workgroup (`--rounds` is the protocol's).
        #[arg(long, default_value_t = 2000)]
        reads: u32,
        /// Workgroups (256 invocations each).
        #[arg(long, default_value_t = 1056)]
        workgroups: u32,
        /// Bytes of each background-copy buffer.
        #[arg(long, default_value_t = 1 << 28)]
        background_bytes: u64,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// What a dependent dispatch costs: the GPU time of 0 to N dispatches of a trivial kernel
    /// in one compute pass, each reading what the one before wrote, for each dispatch size
    /// (measurement only).
    Chain {
        /// Workgroups (256 invocations each) per dispatch.
        #[arg(long, value_delimiter = ',', default_values_t = [1u32, 132, 1056, 8448])]
        workgroups: Vec<u32>,
        /// Longest chain (0 to this many dispatches are timed; at most 64).
        #[arg(long, default_value_t = 8)]
        dispatches: u32,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Occupancy, measured: the most workgroups resident at once for each workgroup size,
    /// amount of workgroup memory and number of values live per invocation (every combination
    /// of the lists). Each workgroup counts itself in and out of a counter; the peak is what the
    /// device holds (measurement only).
    Occupancy {
        /// Invocations per workgroup.
        #[arg(long, value_delimiter = ',', default_values_t = [256u32])]
        workgroup: Vec<u32>,
        /// Bytes of workgroup memory per workgroup (multiples of 4) [default: 4, 8192, 12288,
        /// 16384, 16640, 24320, 24832, 32768, 49152, those the device allows].
        #[arg(long, value_delimiter = ',')]
        shared_bytes: Vec<u32>,
        /// Values held live per invocation through the work (1 to 256; registers, roughly).
        #[arg(long, value_delimiter = ',', default_values_t = [1u32])]
        streams: Vec<u32>,
        /// Workgroups per dispatch: more than the device holds at once.
        #[arg(long, default_value_t = 16384)]
        workgroups: u32,
        /// Steps of work per invocation (shared among its live values): long enough that the
        /// first wave is all launched before any of it ends.
        #[arg(long, default_value_t = 20000)]
        spin: u32,
        /// Dispatches per case (the highest peak is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Reduce, scan, select and partition on u32 at sizes 2^16..2^28, each beside the copy
    /// kernel on the same bytes in the same run (and a peer's times, with --peer).
    Primitives {
        /// Sizes as powers of two.
        #[arg(long, value_delimiter = ',', default_values_t = [16u32, 20, 24, 28])]
        log2: Vec<u32>,
        #[command(flatten)]
        protocol: bench::ProtocolArgs,
        /// Only these primitives (reduce, scan_inclusive, scan_exclusive, select, partition,
        /// sort_keys, sort_pairs, histogram256, histogram4096).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// A peer's results (JSON lines: primitive, n, median_ns), e.g. from
        /// peer/cub/primitives.cu; adds the ratio peer time / wavekit time.
        #[arg(long)]
        peer: Option<std::path::PathBuf>,
        /// Draw throughput against size to this SVG file.
        #[arg(long)]
        plot: Option<std::path::PathBuf>,
        /// Also write the results as JSON to this file.
        #[arg(long)]
        save: Option<std::path::PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// The device, from `--adapter` and the environment knobs (`WAVEKIT_ADAPTER`,
/// `WAVEKIT_NO_SUBGROUPS`, … : see the wavekit-harness crate).
fn context(adapter: Option<String>) -> Result<CliContext, CliError> {
    let options = wavekit_harness::context_options(&wavekit_harness::Env)?.with_adapter(adapter);
    Ok(CliContext(wavekit::GpuContext::new(&options)?))
}

/// The command's device; with `WAVEKIT_PIPELINE_CACHE=DIR` its pipeline cache is saved when the
/// command is done, so the next process starts without compiling them again.
struct CliContext(wavekit::GpuContext);

impl std::ops::Deref for CliContext {
    type Target = wavekit::GpuContext;
    fn deref(&self) -> &wavekit::GpuContext {
        &self.0
    }
}

impl Drop for CliContext {
    fn drop(&mut self) {
        if let Err(e) = self.0.save_pipeline_cache() {
            eprintln!("wavekit: {e}");
        }
    }
}

fn run(cli: Cli, start: std::time::Instant) -> Result<(), CliError> {
    // A bad value of a knob the CLI reads is an error before any work, as the README says.
    wavekit_harness::stream_chunk_bytes(&wavekit_harness::Env)?;
    let mut t = prims::Timings::new(cli.timings, start);
    match cli.command {
        Command::Probe { json, list } => {
            if list {
                probe::list(json)
            } else {
                probe::probe(&*context(cli.adapter)?, json)
            }
        }
        Command::Selftest { json, seed } => selftest::selftest(&*context(cli.adapter)?, seed, json),
        Command::Reduce { input, op } => {
            let npy = prims::reduce_input(&input, op)?;
            let ctx = context(cli.adapter)?;
            t.phase("device");
            prims::reduce(&ctx, &npy, op, &mut t)
        }
        Command::Scan {
            input,
            output,
            exclusive,
            op,
        } => prims::scan(
            || context(cli.adapter),
            &input,
            &output,
            op,
            exclusive,
            &mut t,
        ),
        Command::Select {
            input,
            flags,
            output,
            partition,
        } => prims::select(
            || context(cli.adapter),
            &input,
            &flags,
            &output,
            partition,
            &mut t,
        ),
        Command::Sort {
            input,
            output,
            values,
            values_out,
            descending,
            bits,
        } => prims::sort(
            || context(cli.adapter),
            &input,
            &output,
            values.as_deref(),
            values_out.as_deref(),
            descending,
            bits,
            &mut t,
        ),
        Command::Histogram {
            input,
            bins,
            range,
            output,
        } => prims::histogram(
            || context(cli.adapter),
            &input,
            bins,
            &range,
            &output,
            &mut t,
        ),
        Command::Dwt(DwtCommand::Forward {
            input,
            output,
            wavelet,
            levels,
            color,
        }) => dwt::forward(
            || context(cli.adapter),
            &input,
            &output,
            (wavelet, levels, color),
            &mut t,
        ),
        Command::Dwt(DwtCommand::Inverse {
            input,
            output,
            wavelet,
            levels,
            bits,
            color,
        }) => dwt::inverse(
            || context(cli.adapter),
            &input,
            &output,
            (wavelet, levels, color),
            bits,
        ),
        Command::Dwt(DwtCommand::Roundtrip {
            input,
            wavelet,
            levels,
            color,
        }) => dwt::roundtrip(&*context(cli.adapter)?, &input, (wavelet, levels, color)),
        Command::Encode {
            input,
            output,
            bytes,
            bpp,
            chroma,
            levels,
            lossless,
            cpu,
        } => {
            let ctx = if cpu {
                None
            } else {
                Some(context(cli.adapter)?)
            };
            let mode = codec::Mode {
                chroma,
                levels,
                lossless,
            };
            codec::encode_png(&input, &output, (bytes, bpp), mode, ctx.as_deref())
        }
        Command::Codec(CodecCommand::Bench {
            frames,
            bpp,
            chroma,
            encode_workgroup,
            decode_workgroup,
            block_kernel,
            coefficient_bits,
            stages,
            pixels,
            stream,
            in_flight,
            protocol,
            json,
        }) => {
            // The arguments checked before any GPU work.
            let policies = codec::policies(
                &encode_workgroup,
                &decode_workgroup,
                &block_kernel,
                &coefficient_bits,
            )?;
            let ctx = context(cli.adapter)?;
            let options = wavekit_bench::codec::Options {
                policies,
                stages,
                ycbcr: pixels == codec::PixelsArg::Ycbcr,
            };
            if let Some(frames_n) = stream {
                return codec::bench_stream(
                    &ctx,
                    &frames,
                    &bpp,
                    &chroma,
                    &options,
                    (frames_n, in_flight),
                    json,
                );
            }
            codec::bench(
                &ctx,
                &frames,
                &bpp,
                &chroma,
                &options,
                &protocol.protocol()?,
                json,
            )
        }
        Command::Decode { input, output, cpu } => {
            if cpu {
                codec::decode_png(&input, &output, None)
            } else {
                codec::decode_png(&input, &output, Some(&*context(cli.adapter)?))
            }
        }
        Command::Demo => demo::demo(&*context(cli.adapter)?),
        Command::Trace(tr) => trace::run(tr, || context(cli.adapter)),
        Command::Knn(a) => spatial::knn(&*context(cli.adapter)?, &a),
        Command::Radius(a) => spatial::radius(&*context(cli.adapter)?, &a),
        Command::Spatial(spatial::SpatialCommand::Bench(a)) => {
            spatial::bench(&*context(cli.adapter)?, &a)
        }
        Command::Ui(cmd) => ui::run(cmd, || context(cli.adapter)),
        Command::Stream(net::StreamCommand::Send(args)) => {
            let ctx = if args.cpu {
                None
            } else {
                Some(context(cli.adapter)?)
            };
            net::send(&args, ctx.as_deref())
        }
        Command::Stream(net::StreamCommand::Recv(args)) => {
            let ctx = if args.cpu {
                None
            } else {
                Some(context(cli.adapter)?)
            };
            net::recv(&args, ctx.as_deref())
        }
        Command::Bench(BenchCommand::Primitives {
            log2,
            protocol,
            only,
            peer,
            plot,
            save,
            json,
        }) => bench::primitives(
            &*context(cli.adapter)?,
            &bench::PrimitivesArgs {
                log2,
                protocol,
                only,
                peer,
                plot,
                save,
                json,
            },
        ),
        Command::Bench(BenchCommand::Dwt {
            sizes,
            planes,
            levels,
            bindings,
            color,
            protocol,
            peer,
            save,
            json,
        }) => dwt::bench(
            &*context(cli.adapter)?,
            &dwt::BenchArgs {
                sizes,
                planes,
                levels,
                bindings,
                color,
                protocol,
                peer,
                save,
                json,
            },
        ),
        Command::Bench(BenchCommand::Probe {
            reads,
            workgroups,
            background_bytes,
            protocol,
            json,
        }) => bench::probe(
            &*context(cli.adapter)?,
            &wavekit_bench::probe::ProbeConfig {
                rounds: reads,
                workgroups,
                background_bytes,
                protocol: protocol.protocol()?,
            },
            json,
        ),
        Command::Bench(BenchCommand::Chain {
            workgroups,
            dispatches,
            protocol,
            json,
        }) => bench::chain(
            &*context(cli.adapter)?,
            &workgroups,
            dispatches,
            &protocol.protocol()?,
            json,
        ),
        Command::Bench(BenchCommand::Occupancy {
            workgroup,
            shared_bytes,
            streams,
            workgroups,
            spin,
            runs,
            json,
        }) => {
            let ctx = context(cli.adapter)?;
            let shared_bytes = if shared_bytes.is_empty() {
                let limit = ctx.device.limits().max_compute_workgroup_storage_size;
                [4, 8192, 12288, 16384, 16640, 24320, 24832, 32768, 49152]
                    .into_iter()
                    .filter(|&b| b <= limit)
                    .collect()
            } else {
                shared_bytes
            };
            let mut cases = Vec::new();
            for &w in &workgroup {
                for &s in &streams {
                    for &b in &shared_bytes {
                        cases.push(wavekit_bench::occupancy::OccupancyCase {
                            workgroup: w,
                            shared_bytes: b,
                            streams: s,
                        });
                    }
                }
            }
            bench::occupancy(
                &ctx,
                &cases,
                &wavekit_bench::occupancy::OccupancyConfig {
                    workgroups,
                    spin,
                    runs,
                },
                json,
            )
        }
        Command::Bench(BenchCommand::Copy {
            bytes,
            protocol,
            json,
        }) => {
            let ctx = context(cli.adapter)?;
            let protocol = protocol.protocol()?;
            let clock = bench::clock_reader(&ctx);
            let mut results = Vec::new();
            for (i, &b) in bytes.iter().enumerate() {
                eprintln!("[{}/{}] copy {} bytes ...", i + 1, bytes.len(), b);
                let r = wavekit_bench::bench_copy(&ctx, b, &protocol, &*clock)?;
                if !json {
                    println!(
                        "copy {:>12} B  median {:>10.1} us  (p10 {:.1}, p90 {:.1})  {:>8.1} GB/s  \
                         clock {} MHz  [{:?}]",
                        r.bytes,
                        r.timing.median_ns / 1e3,
                        r.timing.p10_ns / 1e3,
                        r.timing.p90_ns / 1e3,
                        r.gbps,
                        bench::clock_text(r.clock, r.clock_low),
                        r.timing.method
                    );
                }
                results.push(r);
            }
            if json {
                #[derive(serde::Serialize)]
                struct Out<'a> {
                    adapter: &'a wavekit::AdapterSummary,
                    copy: &'a [wavekit_bench::CopyBench],
                }
                let out = Out {
                    adapter: &ctx.summary,
                    copy: &results,
                };
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("adapter: {}", ctx.summary.label());
            }
            Ok(())
        }
    }
}

fn main() {
    let start = std::time::Instant::now();
    let cli = Cli::parse();
    if let Err(e) = run(cli, start) {
        eprintln!("wavekit: {e}");
        std::process::exit(e.exit_code());
    }
}
