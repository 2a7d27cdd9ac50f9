//! `wavekit stream send` and `wavekit stream recv`: a `.y4m` stream's frames coded on the GPU
//! (or the CPU) and sent over UDP as datagrams of whole blocks (`wavekit_codec::net`), and on
//! the other side put back together and decoded when each frame's last datagram arrives or its
//! deadline passes, the blocks that did not arrive concealed (flat) and reported. Both sides
//! can impair the datagrams (loss, reordering, duplicates) reproducibly, for tests and demos.

use std::io::{BufReader, BufWriter, Write};
use std::net::{ToSocketAddrs, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use wavekit_codec::cpu::{EncodeConfig, encode_ycbcr};
use wavekit_codec::net::{
    Assembled, Conceal, FrameInfo, Impair, Impairer, MAX_DATAGRAM, Receiver, packetize_fec,
};
use wavekit_codec::y4m::{ChromaTag, Reader, StreamInfo, Writer};
use wavekit_codec::{Header, YcbcrImage};

use crate::codec::budget_of;
use crate::codec_y4m::FrameDecoder;
use crate::error::CliError;
use crate::output::{file_err, write_atomic};

/// `wavekit stream …`.
#[derive(clap::Subcommand)]
pub enum StreamCommand {
    /// Code a .y4m stream's frames and send each as UDP datagrams of whole blocks.
    Send(SendArgs),
    /// Receive a stream, decode each frame by its deadline (missing blocks concealed), write
    /// a .y4m.
    Recv(RecvArgs),
}

/// `wavekit stream send`.
#[derive(clap::Args)]
pub struct SendArgs {
    /// The .y4m stream (8-bit 4:2:0 or 4:4:4, coded as it is).
    pub input: PathBuf,
    /// Where to send: HOST:PORT.
    #[arg(long)]
    pub to: String,
    /// Each frame's size at most, in bytes.
    #[arg(long, conflicts_with = "bpp")]
    pub bytes: Option<usize>,
    /// Each frame's size at most, in bits a pixel.
    #[arg(long)]
    pub bpp: Option<f64>,
    /// Frames a second (default: the stream's own rate; 0: as fast as they are coded).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Largest datagram, bytes (256 to 65 507).
    #[arg(long, default_value_t = 1200)]
    pub mtu: usize,
    /// Forward error correction: a parity datagram after every K (the receiver rebuilds any
    /// one of them lost); 0: none.
    #[arg(long, default_value_t = 0)]
    pub fec: usize,
    /// Spread each frame's datagrams over this fraction of the frame interval, in bursts of
    /// 16, instead of sending them back to back (a burst larger than the receiver's socket
    /// buffer, about 200 KB on Linux by default, loses datagrams on a busy receiver); 0: back
    /// to back. Adds up to this fraction of the interval to each frame's transit.
    #[arg(long, default_value_t = 0.25)]
    pub pace: f64,
    /// Start again from the first frame at the end (until --frames, if given).
    #[arg(long = "loop")]
    pub repeat: bool,
    /// Send at most this many frames.
    #[arg(long)]
    pub frames: Option<u64>,
    /// Faults on the way out: loss=5%,reorder=2%,dup=1%,seed=S.
    #[arg(long)]
    pub impair: Option<String>,
    /// The stream's id in every datagram (a receiver keeps to the first it hears).
    #[arg(long, default_value_t = 1)]
    pub stream_id: u32,
    /// Wavelet levels (fewer where the frame is too small).
    #[arg(long, default_value_t = 5)]
    pub levels: u8,
    /// Encode with the CPU reference encoder (no GPU needed; the same bytes).
    #[arg(long)]
    pub cpu: bool,
}

/// One turn of the receiving loop: the datagram taken off the queue (with the time the socket's
/// reader read it), if one came, goes through the impairment into the receiver; then the
/// frames due are handed over. Deadlines are judged by that datagram's stamp, or by now when
/// the queue was empty: a datagram that came while a frame was decoded arrived in time, and
/// frames go out in the order their datagrams came, however far behind the loop is (taking
/// every queued datagram first let a loop 16 frames behind push frames out of the receiver's
/// window). Returns whether any of it was the stream's (for the idle time: garbage and
/// strangers' datagrams do not keep the receiver waiting) and the frames due.
fn step(
    rx: &mut Receiver,
    impair: Option<&mut Impairer>,
    arrived: &mut Vec<Vec<u8>>,
    taken: Option<(Vec<u8>, u64)>,
    deadline_us: u64,
) -> (bool, Vec<Assembled>) {
    let mut heard = false;
    let clock = match taken {
        Some((d, at)) => {
            arrived.clear();
            match impair {
                Some(imp) => imp.pass(d, arrived),
                None => arrived.push(d),
            }
            for d in arrived.iter() {
                heard |= rx.accept(d, at).is_ok();
            }
            at
        }
        None => now_us(),
    };
    (heard, rx.ready(clock, deadline_us))
}

/// `wavekit stream recv`.
#[derive(clap::Args)]
pub struct RecvArgs {
    /// Where to listen: HOST:PORT (port 0: any free port; the address is printed).
    #[arg(long)]
    pub listen: String,
    /// The .y4m to write (in place when the stream ends).
    #[arg(short, long, required_unless_present = "discard")]
    pub output: Option<PathBuf>,
    /// Decode every frame but write none (measurements: no disk in the way).
    #[arg(long, conflicts_with = "output")]
    pub discard: bool,
    /// A frame is decoded this long after its first datagram at the latest, whatever has
    /// arrived by then.
    #[arg(long, default_value_t = 50.0)]
    pub deadline_ms: f64,
    /// One JSON line a frame here, and a summary line at the end.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Stop after this many frames written.
    #[arg(long)]
    pub frames: Option<u64>,
    /// Stop when no datagram of the stream has arrived for this long, once one has.
    #[arg(long, default_value_t = 2000)]
    pub idle_ms: u64,
    /// Faults on the way in: loss=5%,reorder=2%,dup=1%,seed=S.
    #[arg(long)]
    pub impair: Option<String>,
    /// What a missing block becomes: previous (the same block of the frame before, where its
    /// layout is the same) or flat.
    #[arg(long, value_enum, default_value_t = ConcealArg::Previous)]
    pub conceal: ConcealArg,
    /// Decode with the CPU reference decoder (no GPU needed; the same pixels).
    #[arg(long)]
    pub cpu: bool,
}

/// `--conceal`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ConcealArg {
    /// The decoder's damage: the block's coefficients 0.
    Flat,
    /// The same block of the frame before.
    Previous,
}

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

fn impairer(spec: &Option<String>) -> Result<Option<Impairer>, CliError> {
    Ok(match spec {
        Some(s) => Some(Impairer::new(s.parse::<Impair>()?)),
        None => None,
    })
}

fn addr(s: &str, what: &str) -> Result<std::net::SocketAddr, CliError> {
    s.to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| CliError::Usage(format!("{what} {s}: give HOST:PORT (e.g. 127.0.0.1:5000)")))
}

/// `wavekit stream send`.
pub fn send(args: &SendArgs, ctx: Option<&wavekit::GpuContext>) -> Result<(), CliError> {
    let to = addr(&args.to, "--to")?;
    let open = || -> Result<Reader<BufReader<std::fs::File>>, CliError> {
        let f = std::fs::File::open(&args.input).map_err(|e| file_err(&args.input, e))?;
        Reader::new(BufReader::new(f)).map_err(|e| file_err(&args.input, e))
    };
    let mut reader = open()?;
    let info = *reader.info();
    let budget = budget_of((args.bytes, args.bpp), info.width, info.height, false)?;
    let config = EncodeConfig {
        chroma: info.tag.chroma(),
        levels: args.levels,
        budget,
        lossless: false,
        source: if info.limited {
            wavekit_codec::Source::YcbcrLimited
        } else {
            wavekit_codec::Source::YcbcrFull
        },
    };
    let encoder = match ctx {
        Some(ctx) => Some(wavekit_codec::gpu::Encoder::new(
            ctx,
            info.width,
            info.height,
            &config,
        )?),
        None => {
            wavekit_codec::cpu::frame_layout(info.width, info.height, &config)?;
            None
        }
    };
    let fps = args
        .fps
        .unwrap_or(f64::from(info.rate.0) / f64::from(info.rate.1.max(1)));
    if !fps.is_finite() || fps < 0.0 {
        return Err(CliError::Usage(format!(
            "--fps {fps}: give 0 or more frames a second"
        )));
    }
    // Checked before anything is sent.
    wavekit_codec::net::check_mtu(args.mtu).map_err(|e| CliError::Usage(format!("--mtu: {e}")))?;
    if !(args.pace.is_finite() && (0.0..=1.0).contains(&args.pace)) {
        return Err(CliError::Usage(format!(
            "--pace {}: give a fraction of the frame interval from 0 to 1",
            args.pace
        )));
    }
    if args.fec > wavekit_codec::net::MAX_FEC_GROUP {
        return Err(CliError::Usage(format!(
            "--fec {}: give 1 to {} datagrams a parity datagram, or 0 for none",
            args.fec,
            wavekit_codec::net::MAX_FEC_GROUP
        )));
    }
    let mut impair = impairer(&args.impair)?;
    let socket = UdpSocket::bind(if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" })
        .map_err(|e| CliError::Usage(format!("cannot open a UDP socket: {e}")))?;
    socket
        .connect(to)
        .map_err(|e| CliError::Usage(format!("--to {to}: {e}")))?;
    let start = Instant::now();
    let (mut sent_frames, mut sent_datagrams, mut sent_bytes) = (0u64, 0u64, 0u64);
    let mut last_progress = Instant::now();
    let mut out = Vec::new();
    loop {
        if args.frames.is_some_and(|n| sent_frames >= n) {
            break;
        }
        let img = match reader.next_frame().map_err(|e| file_err(&args.input, e))? {
            Some(img) => img,
            None if args.repeat && sent_frames > 0 => {
                reader = open()?;
                continue;
            }
            None => break,
        };
        // Paced: frame n leaves at n / fps.
        if fps > 0.0 {
            let due = start + Duration::from_secs_f64(sent_frames as f64 / fps);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        let capture_us = now_us();
        let t = Instant::now();
        let frame = match (ctx, &encoder) {
            (Some(ctx), Some(enc)) => enc.encode_ycbcr(ctx, &img)?,
            _ => encode_ycbcr(&img, &config)?.0,
        };
        let frame_info = FrameInfo {
            stream: args.stream_id,
            frame: sent_frames as u32,
            capture_us,
            encode_us: t.elapsed().as_micros() as u32,
            tag: info.tag.byte(),
            rate: info.rate,
        };
        let datagrams = packetize_fec(&frame, &frame_info, args.mtu, args.fec)?;
        out.clear();
        match impair.as_mut() {
            Some(imp) => datagrams.into_iter().for_each(|d| imp.pass(d, &mut out)),
            None => out = datagrams,
        }
        // Paced: burst k of the frame's datagrams leaves k / bursts of the window after the
        // frame's first.
        let window = if fps > 0.0 {
            Duration::from_secs_f64(args.pace / fps)
        } else {
            Duration::ZERO
        };
        let bursts = out.len().div_ceil(PACE_BURST).max(1);
        let frame_start = Instant::now();
        for (i, d) in out.iter().enumerate() {
            if i > 0 && i % PACE_BURST == 0 && !window.is_zero() {
                let due = frame_start + window.mul_f64((i / PACE_BURST) as f64 / bursts as f64);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
            }
            send_one(&socket, d)?;
            sent_datagrams += 1;
            sent_bytes += d.len() as u64;
        }
        sent_frames += 1;
        if last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            eprintln!(
                "sent {sent_frames} frames, {sent_datagrams} datagrams, {:.1} Mbit/s",
                sent_bytes as f64 * 8.0 / start.elapsed().as_secs_f64() / 1e6
            );
        }
    }
    if let Some(imp) = impair.as_mut() {
        out.clear();
        imp.flush(&mut out);
        for d in &out {
            send_one(&socket, d)?;
        }
    }
    println!(
        "sent {sent_frames} frames of {} x {} {:?} to {to}: {sent_datagrams} datagrams, {sent_bytes} bytes in {:.2} s",
        info.width,
        info.height,
        info.tag.chroma(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Datagrams sent back to back in a paced frame (`--pace`).
const PACE_BURST: usize = 16;

fn send_one(socket: &UdpSocket, d: &[u8]) -> Result<(), CliError> {
    loop {
        match socket.send(d) {
            Ok(_) => return Ok(()),
            // The local buffer is full: wait for it (no datagram is dropped here on purpose).
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_micros(200));
            }
            // Nobody listens yet (an ICMP refusal of an earlier datagram): keep sending.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return Ok(()),
            Err(e) => return Err(CliError::Usage(format!("sending a datagram: {e}"))),
        }
    }
}

/// One frame's line in `--stats`.
#[derive(serde::Serialize)]
struct FrameStats {
    frame: u32,
    bytes: usize,
    datagrams_sent: u16,
    datagrams_received: u16,
    datagrams_lost: u16,
    /// Lost datagrams rebuilt from parity (`--fec`).
    datagrams_recovered: u16,
    blocks: u32,
    /// Blocks that did not arrive (each concealed).
    blocks_concealed: u32,
    /// Of those, filled from the frame before (`--conceal previous`).
    blocks_from_previous: u32,
    /// Blocks the decoder found damaged (the flat ones among the missing, and any corrupt).
    blocks_damaged: u32,
    complete: bool,
    encode_us: u32,
    transit_us: i64,
    decode_us: u64,
    latency_us: i64,
}

/// `wavekit stream recv`.
pub fn recv(args: &RecvArgs, ctx: Option<&wavekit::GpuContext>) -> Result<(), CliError> {
    let listen = addr(&args.listen, "--listen")?;
    if !(args.deadline_ms.is_finite() && args.deadline_ms >= 0.0) {
        return Err(CliError::Usage(format!(
            "--deadline-ms {}: give 0 or more milliseconds",
            args.deadline_ms
        )));
    }
    let deadline_us = (args.deadline_ms * 1000.0) as u64;
    let mut impair = impairer(&args.impair)?;
    let socket =
        UdpSocket::bind(listen).map_err(|e| CliError::Usage(format!("--listen {listen}: {e}")))?;
    let bound = socket
        .local_addr()
        .map_err(|e| CliError::Usage(format!("--listen {listen}: {e}")))?;
    socket
        .set_read_timeout(Some(Duration::from_millis(1)))
        .map_err(|e| CliError::Usage(format!("--listen {listen}: {e}")))?;
    let mut stats_out = match &args.stats {
        Some(p) => Some(BufWriter::new(
            std::fs::File::create(p).map_err(|e| file_err(p, e))?,
        )),
        None => None,
    };
    let stats_path = args.stats.clone().unwrap_or_default();
    let mut rx = Receiver::with_conceal(match args.conceal {
        ConcealArg::Flat => Conceal::Flat,
        ConcealArg::Previous => Conceal::Previous,
    });
    let mut sink = Sink {
        dec: FrameDecoder::new(ctx),
        info: None,
        writer: None,
        written: 0,
        concealed_frames: 0,
        latencies: Vec::new(),
    };
    // A thread of its own reads the socket, so that datagrams keep being taken off it while a
    // frame decodes (a 4K frame's datagrams are more than a socket's default buffer holds).
    let mut queue = SocketQueue::start(&socket, &args.listen)?;
    // The decoder's kernels are built before the stream is awaited (datagrams that come
    // meanwhile wait in the queue), so a first frame is decoded as fast as the rest.
    sink.dec.warm_up().map_err(|e| {
        CliError::Usage(format!(
            "building the GPU decoder before listening: {e} (--cpu decodes on the CPU)"
        ))
    })?;
    eprintln!("listening on {bound}");
    let mut arrived = Vec::new();
    let mut last_heard: Option<Instant> = None;
    let mut last_progress = Instant::now();
    let shown = args.output.as_ref().map_or_else(
        || "(frames discarded)".to_string(),
        |o| o.display().to_string(),
    );
    let mut run = |tmp: Option<&Path>| -> Result<(), CliError> {
        loop {
            if args.frames.is_some_and(|n| sink.written >= n) {
                break;
            }
            let taken = match queue.datagrams.recv_timeout(Duration::from_millis(1)) {
                Ok(d) => Some(d),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(CliError::Usage(format!(
                        "receiving on {bound}: {}",
                        queue.failure()
                    )));
                }
            };
            let quiet = taken.is_none();
            let (heard, due) = step(&mut rx, impair.as_mut(), &mut arrived, taken, deadline_us);
            if heard {
                last_heard = Some(Instant::now());
            }
            for a in due {
                if args.frames.is_some_and(|n| sink.written >= n) {
                    break;
                }
                sink.take(a, tmp, &shown, stats_out.as_mut(), &stats_path)?;
                // A long decode (the first frame's, say) is not silence: what arrived meanwhile
                // waits in the queue.
                last_heard = Some(Instant::now());
            }
            // Idle: nothing waiting in the socket, and nothing heard for --idle-ms.
            if quiet
                && last_heard.is_some_and(|t| t.elapsed() >= Duration::from_millis(args.idle_ms))
            {
                break;
            }
            if last_progress.elapsed() >= Duration::from_secs(1) {
                last_progress = Instant::now();
                eprintln!(
                    "received {} frames ({} with concealed blocks), {} datagrams dropped",
                    sink.written,
                    sink.concealed_frames,
                    rx.dropped.values().sum::<u64>() + queue.overflowed()
                );
            }
        }
        // A datagram the impairment still holds back is delivered, late, before the end.
        if let Some(imp) = impair.as_mut() {
            arrived.clear();
            imp.flush(&mut arrived);
            for d in &arrived {
                rx.accept(d, now_us()).ok();
            }
        }
        for a in rx.flush() {
            if args.frames.is_some_and(|n| sink.written >= n) {
                break;
            }
            sink.take(a, tmp, &shown, stats_out.as_mut(), &stats_path)?;
        }
        // Frames are written unbuffered (a few writes of whole planes each): nothing to flush.
        match sink.info {
            Some(_) => Ok(()),
            None => Err(CliError::Usage(format!(
                "no frame arrived on {bound}: nothing written to {shown}"
            ))),
        }
    };
    match &args.output {
        Some(o) => write_atomic(o, |tmp| run(Some(tmp)))?,
        None => run(None)?,
    }
    let info = sink.info.expect("a frame was decoded");
    let lat = &mut sink.latencies;
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    // Datagrams dropped by why: the receiver's reasons, then the queue's overflow.
    let overflow = queue.overflowed();
    let dropped: Vec<(String, u64)> = rx
        .dropped
        .iter()
        .map(|(k, v)| (format!("{k:?}"), *v))
        .chain((overflow > 0).then(|| ("QueueOverflow".to_string(), overflow)))
        .collect();
    println!(
        "{}: {} frames of {} x {} {:?}, {} with concealed blocks, {} frames lost; datagrams \
         dropped: {}; latency p50 {:.2} ms, p99 {:.2} ms",
        shown,
        sink.written,
        info.width,
        info.height,
        info.tag.chroma(),
        sink.concealed_frames,
        rx.frames_lost,
        if dropped.is_empty() {
            "none".to_string()
        } else {
            dropped
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        },
        pct(0.5) as f64 / 1000.0,
        pct(0.99) as f64 / 1000.0
    );
    if let Some(s) = stats_out.as_mut() {
        let summary = serde_json::json!({
            "summary": true,
            "frames": sink.written,
            "frames_with_concealed_blocks": sink.concealed_frames,
            "frames_lost": rx.frames_lost,
            "datagrams_dropped": dropped
                .iter()
                .cloned()
                .collect::<std::collections::BTreeMap<_, _>>(),
            "latency_p50_us": pct(0.5),
            "latency_p99_us": pct(0.99),
        });
        serde_json::to_writer(&mut *s, &summary)?;
        writeln!(s).map_err(|e| file_err(&stats_path, e))?;
        s.flush().map_err(|e| file_err(&stats_path, e))?;
    }
    Ok(())
}

/// Datagrams at most held between the socket's reader thread and the decoding loop; more are
/// dropped and counted (`QueueOverflow`).
const QUEUE_DATAGRAMS: usize = 1 << 15;

/// The receiving socket read by a thread of its own into a bounded queue.
struct SocketQueue {
    /// Each datagram with the time it was read off the socket (`now_us`).
    datagrams: std::sync::mpsc::Receiver<(Vec<u8>, u64)>,
    overflow: std::sync::Arc<std::sync::atomic::AtomicU64>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The reader; it ends with the socket's error, if one stopped it.
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl SocketQueue {
    fn start(socket: &UdpSocket, listen: &str) -> Result<Self, CliError> {
        use std::sync::atomic::Ordering;
        let sock = socket
            .try_clone()
            .map_err(|e| CliError::Usage(format!("--listen {listen}: {e}")))?;
        let (tx, datagrams) = std::sync::mpsc::sync_channel(QUEUE_DATAGRAMS);
        let overflow = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (o, st) = (overflow.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut buf = vec![0u8; MAX_DATAGRAM];
            while !st.load(Ordering::Relaxed) {
                match sock.recv_from(&mut buf) {
                    Ok((n, _)) => match tx.try_send((buf[..n].to_vec(), now_us())) {
                        Ok(()) => {}
                        Err(std::sync::mpsc::TrySendError::Full(_)) => {
                            o.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(std::sync::mpsc::TrySendError::Disconnected(_)) => return Ok(()),
                    },
                    // The read timeout: look at the stop flag again.
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(e) => return Err(e.to_string()),
                }
            }
            Ok(())
        });
        Ok(Self {
            datagrams,
            overflow,
            stop,
            thread: Some(thread),
        })
    }

    /// Datagrams dropped because the decoding loop fell behind by a whole queue.
    fn overflowed(&self) -> u64 {
        self.overflow.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Why the reader stopped (it has: the queue was disconnected).
    fn failure(&mut self) -> String {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            _ => "the socket's reader stopped".into(),
        }
    }
}

impl Drop for SocketQueue {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Where the receiver's frames go: decoded, written to the `.y4m` (opened at the first
/// frame, whose header it takes), counted, and a line each in the stats.
struct Sink<'a> {
    dec: FrameDecoder<'a>,
    /// The stream's format, from its first frame.
    info: Option<StreamInfo>,
    /// The `.y4m` (none with `--discard`).
    writer: Option<Writer<std::fs::File>>,
    written: u64,
    concealed_frames: u64,
    latencies: Vec<i64>,
}

impl Sink<'_> {
    fn take(
        &mut self,
        a: Assembled,
        tmp: Option<&Path>,
        output: &str,
        stats: Option<&mut BufWriter<std::fs::File>>,
        stats_path: &Path,
    ) -> Result<(), CliError> {
        let t = Instant::now();
        let decoded = self.dec.decode(&a.bytes);
        let decode_us = t.elapsed().as_micros() as u64;
        let (header, img, report) = match decoded {
            Ok(d) => d,
            Err(wavekit_codec::CodecError::Gpu(e)) => return Err(CliError::Wavekit(e)),
            Err(e) => {
                eprintln!(
                    "warning: frame {} cannot be decoded ({e}); skipped",
                    a.info.frame
                );
                return Ok(());
            }
        };
        let info = *self
            .info
            .get_or_insert_with(|| stream_info(&header, &a.info));
        if let (Some(tmp), None) = (tmp, &self.writer) {
            let f = std::fs::File::create(tmp).map_err(|e| file_err(Path::new(output), e))?;
            let w = Writer::new(f, &info).map_err(|e| file_err(Path::new(output), e))?;
            self.writer = Some(w);
        }
        if (header.width, header.height, header.chroma)
            != (info.width, info.height, info.tag.chroma())
        {
            eprintln!(
                "warning: frame {} changes the stream's size or sampling; skipped",
                a.info.frame
            );
            return Ok(());
        }
        let img = YcbcrImage {
            limited: info.limited,
            ..img
        };
        if let Some(w) = self.writer.as_mut() {
            w.write_frame(&img)
                .map_err(|e| file_err(Path::new(output), e))?;
        }
        let latency = now_us() as i64 - a.info.capture_us as i64;
        self.latencies.push(latency);
        self.written += 1;
        if a.missing > 0 || !report.damaged.is_empty() {
            self.concealed_frames += 1;
        }
        if let Some(s) = stats {
            let line = FrameStats {
                frame: a.info.frame,
                bytes: a.bytes.len(),
                datagrams_sent: a.sent,
                datagrams_received: a.received,
                datagrams_lost: a.sent - a.received,
                datagrams_recovered: a.recovered,
                blocks: a.blocks,
                blocks_concealed: a.missing,
                blocks_from_previous: a.from_previous,
                blocks_damaged: report.damaged.len() as u32,
                complete: a.complete,
                encode_us: a.info.encode_us,
                transit_us: a.last_us as i64
                    - a.info.capture_us as i64
                    - i64::from(a.info.encode_us),
                decode_us,
                latency_us: latency,
            };
            serde_json::to_writer(&mut *s, &line)?;
            writeln!(s).map_err(|e| file_err(stats_path, e))?;
        }
        Ok(())
    }
}

/// The `.y4m` header of the stream a first frame begins.
fn stream_info(header: &Header, info: &FrameInfo) -> StreamInfo {
    let tag = ChromaTag::of_byte(info.tag)
        .filter(|t| t.chroma() == header.chroma)
        .unwrap_or(if header.chroma == wavekit_codec::Chroma::Yuv444 {
            ChromaTag::C444
        } else {
            ChromaTag::C420jpeg
        });
    StreamInfo {
        width: header.width,
        height: header.height,
        tag,
        limited: header.source == wavekit_codec::Source::YcbcrLimited,
        rate: if info.rate.0 > 0 && info.rate.1 > 0 {
            info.rate
        } else {
            (60, 1)
        },
        aspect: (1, 1),
        interlaced: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavekit_codec::Chroma;
    use wavekit_codec::net::packetize;

    /// Every datagram of 40 frames (each cut into about ten) waiting in the queue, stamped as
    /// they came at 120 frames a second: a frame a few bytes of noise, 4:2:0, CPU-coded.
    fn queued(frames: u32) -> Vec<(Vec<u8>, u64)> {
        let (w, h) = (64usize, 48usize);
        let mut rng = fastrand::Rng::with_seed(47);
        let img = YcbcrImage {
            width: w as u32,
            height: h as u32,
            chroma: Chroma::Yuv420,
            limited: false,
            planes: [
                (0..w * h).map(|_| rng.u8(..)).collect(),
                (0..w * h / 4).map(|_| rng.u8(..)).collect(),
                (0..w * h / 4).map(|_| rng.u8(..)).collect(),
            ],
        };
        let config = EncodeConfig {
            chroma: Chroma::Yuv420,
            levels: 3,
            budget: 2000,
            lossless: false,
            source: wavekit_codec::Source::YcbcrFull,
        };
        let (frame, _) = encode_ycbcr(&img, &config).unwrap();
        let t0 = 1_000_000u64;
        (0..frames)
            .flat_map(|f| {
                let info = FrameInfo {
                    stream: 7,
                    frame: f,
                    capture_us: t0 + u64::from(f) * 8333,
                    encode_us: 100,
                    tag: 0,
                    rate: (120, 1),
                };
                packetize(&frame, &info, 300)
                    .unwrap()
                    .into_iter()
                    .enumerate()
                    .map(move |(i, d)| (d, t0 + u64::from(f) * 8333 + 200 + i as u64 * 20))
            })
            .collect()
    }

    /// A receiving loop 40 frames behind (the queue full of datagrams that came in time) hands
    /// over every frame, in order, by the datagrams' stamps: complete without loss, and with
    /// 20 % loss each damaged frame concealed at its deadline, none lost. Taking every queued
    /// datagram before judging any deadline (the loop's first version) loses 24 of the 40.
    #[test]
    fn a_loop_far_behind_delivers_every_frame_by_the_datagrams_stamps() {
        let q = queued(40);
        assert!(q.len() >= 200, "{} datagrams", q.len());
        for loss in [None, Some("loss=20%,seed=3")] {
            let mut imp = loss.map(|s| Impairer::new(s.parse::<Impair>().unwrap()));
            let (mut rx, mut arrived, mut out) = (Receiver::new(), Vec::new(), Vec::new());
            for d in q.clone() {
                let (_, due) = step(&mut rx, imp.as_mut(), &mut arrived, Some(d), 8000);
                out.extend(due);
            }
            out.extend(rx.flush());
            let numbers: Vec<u32> = out.iter().map(|a| a.info.frame).collect();
            assert_eq!(numbers, (0..40).collect::<Vec<_>>(), "{loss:?}");
            assert_eq!(rx.frames_lost, 0, "{loss:?}");
            let whole = out.iter().filter(|a| a.complete).count();
            match loss {
                None => assert_eq!(whole, 40),
                Some(_) => assert!(whole < 40 && whole > 0, "{whole} complete"),
            }
        }
        let mut rx = Receiver::new();
        for (d, at) in &q {
            rx.accept(d, *at).unwrap();
        }
        let mut all = rx.ready(q.last().unwrap().1, 8000);
        all.extend(rx.flush());
        assert_eq!((all.len(), rx.frames_lost), (16, 24));
    }
}
