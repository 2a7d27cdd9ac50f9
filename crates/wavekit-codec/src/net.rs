//! Frames over a lossy network (issue 47; the datagram format is `docs/codec-bitstream.md`'s
//! "Datagrams"): [`packetize`] cuts a coded frame into datagrams of whole blocks' payloads (a
//! block too large for one is cut into pieces), each with a header that says where its
//! blocks go; a [`Receiver`] puts the frames back together from whatever datagrams arrive, in
//! any order, and hands each frame over when its last datagram is in or its deadline has
//! passed, the blocks that did not arrive marked missing in the frame's offset table (offset
//! 0), so the decoder conceals them as it conceals damage. [`Impairer`] loses, duplicates and
//! reorders datagrams reproducibly, for tests and demos. No sockets here: the CLI's
//! `wavekit stream send` and `recv` carry the datagrams over UDP.

use std::collections::BTreeMap;

use crate::error::{CodecError, Result};
use crate::format::{HEADER_BYTES, Header, Layout, OFFSET_BYTES};

/// The two bytes every datagram starts with.
pub const PACKET_MAGIC: [u8; 2] = *b"WP";
/// The datagram format's version.
pub const PACKET_VERSION: u8 = 1;
/// Bytes of a datagram's fixed header.
pub const PACKET_HEADER_BYTES: usize = 72;
/// Smallest MTU [`packetize`] takes (room for the header and a useful payload).
pub const MIN_MTU: usize = 256;
/// Largest datagram (UDP over IPv4).
pub const MAX_DATAGRAM: usize = 65_507;
/// Largest payload of one block (26 200 bits and its two header bytes, rounded up).
pub const MAX_BLOCK_BYTES: usize = 4096;
/// Frames a [`Receiver`] holds at once; a datagram of a newer frame past them drops the oldest.
pub const FRAMES_IN_FLIGHT: usize = 8;
/// The longest frame a [`Receiver`] takes by default (256 MiB: a lossless 4K frame is under
/// 100 MiB); a datagram announcing a longer one is dropped, so that a sender's claims cannot
/// make it hold more than about twice this a frame.
pub const MAX_FRAME_BYTES: u32 = 1 << 28;

const KIND_BLOCKS: u8 = 1;
const KIND_PIECE: u8 = 2;
const KIND_PARITY: u8 = 3;
/// Most datagrams one parity datagram covers (`--fec K`).
pub const MAX_FEC_GROUP: usize = 64;

/// What the sender says about a frame, in every datagram of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// The stream's id (a receiver keeps to the first it hears).
    pub stream: u32,
    /// The frame's number in the stream.
    pub frame: u32,
    /// When the frame was captured, in microseconds of the sender's clock.
    pub capture_us: u64,
    /// How long its encode took, in microseconds.
    pub encode_us: u32,
    /// The `.y4m` sampling tag (`wavekit_codec::y4m::ChromaTag::byte`).
    pub tag: u8,
    /// Frames a second, as a fraction.
    pub rate: (u32, u32),
}

/// A datagram read ([`parse`]): its header's fields and what its body holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// The frame it belongs to.
    pub info: FrameInfo,
    /// Its index among the frame's datagrams, and their count.
    pub index: u16,
    /// Datagrams the frame was sent in.
    pub count: u16,
    /// The frame's header (the bitstream's 24 bytes).
    pub header: [u8; HEADER_BYTES],
    /// Blocks in the frame.
    pub blocks: u32,
    /// The frame's length as sent.
    pub frame_bytes: u32,
    /// What it holds.
    pub body: Body<'a>,
}

/// A datagram's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    /// Whole payloads of blocks `first ..`, with their sizes.
    Blocks {
        /// The first block.
        first: u32,
        /// Each block's payload size.
        sizes: Vec<u16>,
        /// The payloads, back to back.
        data: &'a [u8],
    },
    /// Forward error correction: the XOR of datagrams `first .. first + lens.len()` of the
    /// frame (each whole, zero-padded to the longest), from which any one of them can be
    /// rebuilt when the others arrived.
    Parity {
        /// The group's first datagram.
        first: u16,
        /// Each datagram's length.
        lens: Vec<u16>,
        /// Their XOR.
        data: &'a [u8],
    },
    /// A piece of one block's payload.
    Piece {
        /// The block.
        block: u32,
        /// Where the piece starts in the block's payload.
        offset: u32,
        /// The block's whole payload size.
        total: u32,
        /// The piece.
        data: &'a [u8],
    },
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn bad(why: String) -> CodecError {
    CodecError::Bitstream(format!("a bad datagram: {why}"))
}

/// Read a datagram, checking every field against the others and its length (not against the
/// frame's layout, which the [`Receiver`] checks): never panics, whatever the bytes.
pub fn parse(d: &[u8]) -> Result<Packet<'_>> {
    if d.len() < PACKET_HEADER_BYTES || d.len() > MAX_DATAGRAM {
        return Err(bad(format!("{} bytes", d.len())));
    }
    if d[..2] != PACKET_MAGIC {
        return Err(bad("no magic".into()));
    }
    if d[2] != PACKET_VERSION {
        return Err(bad(format!(
            "version {} (this reads {PACKET_VERSION})",
            d[2]
        )));
    }
    let (index, count) = (u16_at(d, 12), u16_at(d, 14));
    if count == 0 || index >= count {
        return Err(bad(format!("datagram {index} of {count}")));
    }
    let header: [u8; HEADER_BYTES] = d[16..40].try_into().expect("24 bytes");
    let (blocks, frame_bytes) = (u32_at(d, 40), u32_at(d, 44));
    let info = FrameInfo {
        stream: u32_at(d, 4),
        frame: u32_at(d, 8),
        capture_us: u64::from_le_bytes(d[48..56].try_into().expect("8 bytes")),
        encode_us: u32_at(d, 56),
        tag: d[60],
        rate: (u32_at(d, 64), u32_at(d, 68)),
    };
    if d[61..64] != [0, 0, 0] {
        return Err(bad("reserved bytes not 0".into()));
    }
    if blocks == 0 || (frame_bytes as usize) < HEADER_BYTES + OFFSET_BYTES * blocks as usize {
        return Err(bad(format!(
            "{blocks} blocks in a frame of {frame_bytes} bytes"
        )));
    }
    let b = &d[PACKET_HEADER_BYTES..];
    let body = match d[3] {
        KIND_BLOCKS => {
            if b.len() < 6 {
                return Err(bad("a block list cut short".into()));
            }
            let (first, n) = (u32_at(b, 0), usize::from(u16_at(b, 4)));
            if n == 0 || u64::from(first) + n as u64 > u64::from(blocks) || b.len() < 6 + 2 * n {
                return Err(bad(format!("blocks {first} + {n} of {blocks}")));
            }
            let sizes: Vec<u16> = (0..n).map(|i| u16_at(b, 6 + 2 * i)).collect();
            let data = &b[6 + 2 * n..];
            let sum: usize = sizes.iter().map(|&s| usize::from(s)).sum();
            if sum != data.len() || sizes.iter().any(|&s| usize::from(s) > MAX_BLOCK_BYTES) {
                return Err(bad(format!(
                    "sizes of {sum} bytes for {} bytes",
                    data.len()
                )));
            }
            Body::Blocks { first, sizes, data }
        }
        KIND_PIECE => {
            if b.len() < 12 {
                return Err(bad("a piece cut short".into()));
            }
            let (block, offset, total) = (u32_at(b, 0), u32_at(b, 4), u32_at(b, 8));
            let data = &b[12..];
            if block >= blocks
                || total as usize > MAX_BLOCK_BYTES
                || data.is_empty()
                || u64::from(offset) + data.len() as u64 > u64::from(total)
            {
                return Err(bad(format!(
                    "a piece of {} bytes at {offset} of block {block}'s {total}",
                    data.len()
                )));
            }
            Body::Piece {
                block,
                offset,
                total,
                data,
            }
        }
        KIND_PARITY => {
            if b.len() < 4 {
                return Err(bad("a parity datagram cut short".into()));
            }
            let (first, n) = (u16_at(b, 0), usize::from(u16_at(b, 2)));
            if n == 0
                || n > MAX_FEC_GROUP
                || usize::from(first) + n > usize::from(count)
                || b.len() < 4 + 2 * n
            {
                return Err(bad(format!("parity of datagrams {first} + {n} of {count}")));
            }
            let lens: Vec<u16> = (0..n).map(|i| u16_at(b, 4 + 2 * i)).collect();
            let data = &b[4 + 2 * n..];
            let longest = lens.iter().copied().max().unwrap_or(0);
            if usize::from(longest) != data.len()
                || lens.iter().any(|&l| usize::from(l) < PACKET_HEADER_BYTES)
            {
                return Err(bad(format!(
                    "parity lengths {lens:?} for {} bytes",
                    data.len()
                )));
            }
            Body::Parity { first, lens, data }
        }
        k => return Err(bad(format!("kind {k}"))),
    };
    Ok(Packet {
        info,
        index,
        count,
        header,
        blocks,
        frame_bytes,
        body,
    })
}

fn head(info: &FrameInfo, kind: u8, frame: &[u8], blocks: u32) -> Vec<u8> {
    let mut d = Vec::with_capacity(PACKET_HEADER_BYTES);
    d.extend_from_slice(&PACKET_MAGIC);
    d.extend_from_slice(&[PACKET_VERSION, kind]);
    d.extend_from_slice(&info.stream.to_le_bytes());
    d.extend_from_slice(&info.frame.to_le_bytes());
    d.extend_from_slice(&[0; 4]); // index and count, set when all are known
    d.extend_from_slice(&frame[..HEADER_BYTES]);
    d.extend_from_slice(&blocks.to_le_bytes());
    d.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    d.extend_from_slice(&info.capture_us.to_le_bytes());
    d.extend_from_slice(&info.encode_us.to_le_bytes());
    d.extend_from_slice(&[info.tag, 0, 0, 0]);
    d.extend_from_slice(&info.rate.0.to_le_bytes());
    d.extend_from_slice(&info.rate.1.to_le_bytes());
    debug_assert_eq!(d.len(), PACKET_HEADER_BYTES);
    d
}

/// Each block's payload in `frame` (a frame as the encoders write it: offsets ascending,
/// payloads back to back).
pub fn block_payloads(frame: &[u8]) -> Result<(Header, Vec<&[u8]>)> {
    let header = Header::parse(frame)?;
    let blocks = Layout::of(&header).blocks.len();
    let table = HEADER_BYTES + OFFSET_BYTES * blocks;
    if frame.len() < table {
        return Err(CodecError::Bitstream(format!(
            "a frame of {} bytes: its offset table needs {table}",
            frame.len()
        )));
    }
    let offsets: Vec<usize> = (0..blocks)
        .map(|b| u32_at(frame, HEADER_BYTES + OFFSET_BYTES * b) as usize)
        .chain([frame.len()])
        .collect();
    let mut out = Vec::with_capacity(blocks);
    for b in 0..blocks {
        let (s, e) = (offsets[b], offsets[b + 1]);
        if s < table || e < s || e > frame.len() || e - s > MAX_BLOCK_BYTES {
            return Err(CodecError::Bitstream(format!(
                "block {b}'s payload at {s}..{e} is not where an encoder puts it: packetize \
                 takes frames as the encoders write them"
            )));
        }
        out.push(&frame[s..e]);
    }
    Ok((header, out))
}

/// Fails on an MTU [`packetize`] does not take (256 to 65 507 bytes).
pub fn check_mtu(mtu: usize) -> Result<()> {
    if !(MIN_MTU..=MAX_DATAGRAM).contains(&mtu) {
        return Err(CodecError::InvalidArgument(format!(
            "an MTU of {mtu} bytes: give {MIN_MTU} to {MAX_DATAGRAM}"
        )));
    }
    Ok(())
}

/// A datagram of whole blocks being filled: its header, first block, sizes and payloads.
type Open = (Vec<u8>, u32, Vec<u16>, Vec<u8>);

/// Cut `frame` into datagrams of at most `mtu` bytes: whole blocks' payloads in block order,
/// as many as fit; a block larger than one datagram's room is cut into pieces.
pub fn packetize(frame: &[u8], info: &FrameInfo, mtu: usize) -> Result<Vec<Vec<u8>>> {
    check_mtu(mtu)?;
    let (_, payloads) = block_payloads(frame)?;
    let blocks = payloads.len() as u32;
    let mut out = Vec::new();
    let mut cur: Option<Open> = None;
    let flush = |cur: &mut Option<Open>, out: &mut Vec<Vec<u8>>| {
        if let Some((mut d, first, sizes, data)) = cur.take() {
            d.extend_from_slice(&first.to_le_bytes());
            d.extend_from_slice(&(sizes.len() as u16).to_le_bytes());
            for s in &sizes {
                d.extend_from_slice(&s.to_le_bytes());
            }
            d.extend_from_slice(&data);
            out.push(d);
        }
    };
    let room = mtu - PACKET_HEADER_BYTES;
    for (b, p) in payloads.iter().enumerate() {
        let b = b as u32;
        let used = |c: &Open| 6 + 2 * c.2.len() + c.3.len();
        if cur
            .as_ref()
            .is_some_and(|c| used(c) + 2 + p.len() > room || c.2.len() == usize::from(u16::MAX))
        {
            flush(&mut cur, &mut out);
        }
        if 6 + 2 + p.len() > room {
            // Pieces of one block.
            let each = room - 12;
            for (i, piece) in p.chunks(each).enumerate() {
                let mut d = head(info, KIND_PIECE, frame, blocks);
                d.extend_from_slice(&b.to_le_bytes());
                d.extend_from_slice(&((i * each) as u32).to_le_bytes());
                d.extend_from_slice(&(p.len() as u32).to_le_bytes());
                d.extend_from_slice(piece);
                out.push(d);
            }
            continue;
        }
        let c = cur.get_or_insert_with(|| {
            (
                head(info, KIND_BLOCKS, frame, blocks),
                b,
                Vec::new(),
                Vec::new(),
            )
        });
        c.2.push(p.len() as u16);
        c.3.extend_from_slice(p);
    }
    flush(&mut cur, &mut out);
    let count = out.len();
    if count > usize::from(u16::MAX) {
        return Err(CodecError::InvalidArgument(format!(
            "a frame of {} bytes in {count} datagrams: at most 65 535; give a larger MTU",
            frame.len()
        )));
    }
    for (i, d) in out.iter_mut().enumerate() {
        d[12..14].copy_from_slice(&(i as u16).to_le_bytes());
        d[14..16].copy_from_slice(&(count as u16).to_le_bytes());
    }
    Ok(out)
}

/// [`packetize`] with forward error correction: after every `k` datagrams (1 to
/// [`MAX_FEC_GROUP`]; 0: none) one parity datagram, their XOR, from which the receiver
/// rebuilds any one of them lost. The data datagrams are cut smaller so that the parity ones
/// fit `mtu` too.
pub fn packetize_fec(frame: &[u8], info: &FrameInfo, mtu: usize, k: usize) -> Result<Vec<Vec<u8>>> {
    if k == 0 {
        return packetize(frame, info, mtu);
    }
    check_mtu(mtu)?;
    if k > MAX_FEC_GROUP {
        return Err(CodecError::InvalidArgument(format!(
            "FEC groups of {k} datagrams: give 1 to {MAX_FEC_GROUP} (or 0 for none)"
        )));
    }
    let overhead = PACKET_HEADER_BYTES + 4 + 2 * k;
    let data_mtu = mtu
        .checked_sub(overhead)
        .filter(|m| *m >= MIN_MTU)
        .ok_or_else(|| {
            CodecError::InvalidArgument(format!(
                "an MTU of {mtu} bytes with FEC groups of {k}: give at least {}",
                MIN_MTU + overhead
            ))
        })?;
    let data = packetize(frame, info, data_mtu)?;
    let (_, payloads) = block_payloads(frame)?;
    let mut out = Vec::with_capacity(data.len() + data.len().div_ceil(k));
    for (g, group) in data.chunks(k).enumerate() {
        let longest = group.iter().map(Vec::len).max().unwrap_or(0);
        let mut xor = vec![0u8; longest];
        for d in group {
            for (x, b) in xor.iter_mut().zip(d) {
                *x ^= b;
            }
        }
        let first = (g * k) as u16;
        let mut p = head(info, KIND_PARITY, frame, payloads.len() as u32);
        p[12..14].copy_from_slice(&first.to_le_bytes());
        p[14..16].copy_from_slice(&group[0][14..16]);
        p.extend_from_slice(&first.to_le_bytes());
        p.extend_from_slice(&(group.len() as u16).to_le_bytes());
        for d in group {
            p.extend_from_slice(&(d.len() as u16).to_le_bytes());
        }
        p.extend_from_slice(&xor);
        out.extend(group.iter().cloned());
        out.push(p);
    }
    Ok(out)
}

/// Why a datagram was not used (each counted by the [`Receiver`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dropped {
    /// Not a datagram of this format ([`parse`] refused it).
    Malformed,
    /// Of another stream than the one the receiver keeps to.
    OtherStream,
    /// Of a frame already handed over, or older than one handed over.
    Late,
    /// A datagram already received.
    Duplicate,
    /// Its fields disagree with the frame's other datagrams or with the frame's layout.
    Inconsistent,
}

/// What a missing block is replaced with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Conceal {
    /// Nothing: offset 0, which the decoder conceals as damage (the block's coefficients 0: a
    /// flat patch) and reports.
    #[default]
    Flat,
    /// The same block's payload of the last frame handed over, where it had one and its
    /// layout is this frame's (size, sampling, levels, mode; the quantizer step may differ,
    /// so the block comes back at that frame's scale). Else flat.
    Previous,
}

/// A frame put back together.
#[derive(Clone, Debug)]
pub struct Assembled {
    /// The sender's fields.
    pub info: FrameInfo,
    /// The frame, its missing blocks at offset 0 (decoded as damage: flat, and reported).
    pub bytes: Vec<u8>,
    /// Blocks in the frame, and how many did not arrive whole.
    pub blocks: u32,
    /// Blocks missing (not arrived whole).
    pub missing: u32,
    /// Of those, the blocks filled from the previous frame ([`Conceal::Previous`]); the rest
    /// are at offset 0 (flat, reported by the decoder as damaged).
    pub from_previous: u32,
    /// Datagrams sent (parity not counted).
    pub sent: u16,
    /// Datagrams received (duplicates and parity not counted).
    pub received: u16,
    /// Datagrams rebuilt from parity (forward error correction).
    pub recovered: u16,
    /// When its first and last datagrams arrived (the receiver's microseconds).
    pub first_us: u64,
    /// When its last datagram arrived.
    pub last_us: u64,
    /// Whether every datagram arrived (else the deadline passed).
    pub complete: bool,
}

/// A frame's header and each block's payload (None: missing).
type Previous = ([u8; HEADER_BYTES], Vec<Option<Vec<u8>>>);

struct Partial {
    info: FrameInfo,
    header: [u8; HEADER_BYTES],
    blocks: u32,
    frame_bytes: u32,
    count: u16,
    seen: Vec<bool>,
    received: u16,
    payloads: Vec<Option<Vec<u8>>>,
    /// Blocks arriving in pieces: the bytes so far, and which bytes arrived.
    pieces: BTreeMap<u32, (Vec<u8>, Vec<bool>)>,
    /// The data datagrams as they arrived (for rebuilding a lost one from parity).
    raw: Vec<Option<Vec<u8>>>,
    /// Parity datagrams by their group's first datagram: lengths and XOR.
    parity: BTreeMap<u16, (Vec<u16>, Vec<u8>)>,
    /// Data datagrams rebuilt from parity (counted in `received` too).
    recovered: u16,
    /// Bytes held in `payloads` and `pieces` (kept as they change: summing them for each
    /// datagram cost a 4K frame's 12 437 blocks a datagram).
    held: usize,
    first_us: u64,
    last_us: u64,
}

/// Puts frames back together from datagrams (see the module's docs); every datagram it cannot
/// use is counted by why, and memory stays bounded: [`FRAMES_IN_FLIGHT`] frames, each no
/// larger than its header says.
#[derive(Default)]
pub struct Receiver {
    stream: Option<u32>,
    frames: BTreeMap<u32, Partial>,
    /// The newest frame handed over.
    shown: Option<u32>,
    layouts: Vec<([u8; HEADER_BYTES], u32)>,
    /// Datagrams not used, by why.
    pub dropped: BTreeMap<Dropped, u64>,
    /// Frames never handed over (pushed out by a ninth frame in flight while eight pushed out
    /// before were still waiting for [`Receiver::ready`]).
    pub frames_lost: u64,
    /// What missing blocks are replaced with.
    pub conceal: Conceal,
    /// The longest frame taken (0: [`MAX_FRAME_BYTES`]).
    pub max_frame_bytes: u32,
    /// The last frame handed over: its header and each block's payload (for
    /// [`Conceal::Previous`]).
    previous: Option<Previous>,
    /// Frames pushed out by a newer one while frames in flight were at their most, handed
    /// over with their missing blocks concealed, for [`Receiver::ready`] to give first.
    early: Vec<Assembled>,
}

impl Receiver {
    /// A receiver that keeps to the first stream it hears; missing blocks flat.
    pub fn new() -> Self {
        Self::default()
    }

    /// A receiver that conceals missing blocks as `conceal` says.
    pub fn with_conceal(conceal: Conceal) -> Self {
        Self {
            conceal,
            ..Self::default()
        }
    }

    fn hand_over(&mut self, mut f: Partial) -> Assembled {
        let missing = f.payloads.iter().filter(|p| p.is_none()).count() as u32;
        let mut from_previous = 0;
        if self.conceal == Conceal::Previous
            && let Some((h, prev)) = &self.previous
        {
            // The same layout: every header byte but the quantizer step's.
            let same = h[..16] == f.header[..16] && h[20..] == f.header[20..];
            if same && prev.len() == f.payloads.len() {
                for (p, q) in f.payloads.iter_mut().zip(prev) {
                    if p.is_none() && q.is_some() {
                        *p = q.clone();
                        from_previous += 1;
                    }
                }
            }
        }
        let a = assemble(&f, missing, from_previous);
        if self.conceal == Conceal::Previous {
            // Kept for the next frame: moved, not copied.
            self.previous = Some((f.header, f.payloads));
        }
        a
    }

    fn drop_one(&mut self, why: Dropped) -> Dropped {
        *self.dropped.entry(why).or_default() += 1;
        why
    }

    /// Blocks in a frame of `header`, from a small cache (a layout is made once a format).
    fn blocks_of(&mut self, header: &[u8; HEADER_BYTES]) -> Option<u32> {
        if let Some((_, b)) = self.layouts.iter().find(|(h, _)| h == header) {
            return Some(*b);
        }
        let h = Header::parse(header).ok()?;
        let b = Layout::of(&h).blocks.len() as u32;
        if self.layouts.len() >= 4 {
            self.layouts.remove(0);
        }
        self.layouts.push((*header, b));
        Some(b)
    }

    /// Take one datagram, received at `now_us`; a datagram lost from a group whose parity and
    /// other datagrams are in is rebuilt and taken too.
    pub fn accept(&mut self, datagram: &[u8], now_us: u64) -> std::result::Result<(), Dropped> {
        let frame = self.accept_one(datagram, now_us)?;
        for rebuilt in self.rebuildable(frame) {
            if self.accept_one(&rebuilt, now_us).is_ok()
                && let Some(f) = self.frames.get_mut(&frame)
            {
                f.recovered += 1;
            }
        }
        Ok(())
    }

    /// The datagrams of `frame` that its parity can rebuild now: each group with exactly one
    /// missing, whose other datagrams have the lengths the parity says.
    fn rebuildable(&self, frame: u32) -> Vec<Vec<u8>> {
        let Some(f) = self.frames.get(&frame) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (&first, (lens, xor)) in &f.parity {
            let group = usize::from(first)..usize::from(first) + lens.len();
            let missing: Vec<usize> = group.clone().filter(|&i| f.raw[i].is_none()).collect();
            let [m] = missing[..] else {
                continue;
            };
            let mut r = xor.clone();
            let mut fits = true;
            for i in group.clone().filter(|&i| i != m) {
                let d = f.raw[i].as_ref().expect("present");
                if d.len() != usize::from(lens[i - group.start]) {
                    fits = false;
                    break;
                }
                for (x, b) in r.iter_mut().zip(d) {
                    *x ^= b;
                }
            }
            if fits {
                r.truncate(usize::from(lens[m - group.start]));
                out.push(r);
            }
        }
        out
    }

    /// Take one datagram: the frame it belongs to, or why it was dropped.
    fn accept_one(&mut self, datagram: &[u8], now_us: u64) -> std::result::Result<u32, Dropped> {
        let Ok(p) = parse(datagram) else {
            return Err(self.drop_one(Dropped::Malformed));
        };
        match self.stream {
            Some(s) if s != p.info.stream => return Err(self.drop_one(Dropped::OtherStream)),
            _ => self.stream = Some(p.info.stream),
        }
        if self.shown.is_some_and(|s| p.info.frame <= s) {
            return Err(self.drop_one(Dropped::Late));
        }
        if self.blocks_of(&p.header) != Some(p.blocks) {
            return Err(self.drop_one(Dropped::Inconsistent));
        }
        let most = if self.max_frame_bytes == 0 {
            MAX_FRAME_BYTES
        } else {
            self.max_frame_bytes
        };
        if p.frame_bytes > most {
            return Err(self.drop_one(Dropped::Inconsistent));
        }
        if !self.frames.contains_key(&p.info.frame) {
            if self.frames.len() >= FRAMES_IN_FLIGHT {
                // Room for the newest: the oldest frame is handed over as it is (its missing
                // blocks concealed: a receiver that fell behind, say while its first frame's
                // decoder was built, delivers every frame), or dropped if that many wait.
                if self.frames.keys().next().is_some_and(|&f| f > p.info.frame) {
                    return Err(self.drop_one(Dropped::Late));
                }
                let (n, oldest) = self.frames.pop_first().expect("full");
                if self.early.len() < FRAMES_IN_FLIGHT {
                    let a = self.hand_over(oldest);
                    self.early.push(a);
                } else {
                    self.frames_lost += 1;
                }
                self.shown = Some(n);
            }
            self.frames.insert(
                p.info.frame,
                Partial {
                    info: p.info,
                    header: p.header,
                    blocks: p.blocks,
                    frame_bytes: p.frame_bytes,
                    count: p.count,
                    seen: vec![false; usize::from(p.count)],
                    received: 0,
                    payloads: vec![None; p.blocks as usize],
                    pieces: BTreeMap::new(),
                    raw: vec![None; usize::from(p.count)],
                    parity: BTreeMap::new(),
                    recovered: 0,
                    held: 0,
                    first_us: now_us,
                    last_us: now_us,
                },
            );
        }
        let f = self.frames.get_mut(&p.info.frame).expect("inserted above");
        if (f.info, f.header, f.blocks, f.frame_bytes, f.count)
            != (p.info, p.header, p.blocks, p.frame_bytes, p.count)
        {
            return Err(self.drop_one(Dropped::Inconsistent));
        }
        if let Body::Parity { first, lens, data } = &p.body {
            // Kept for rebuilding; at most one a group.
            if f.parity.contains_key(first) {
                return Err(self.drop_one(Dropped::Duplicate));
            }
            let held: usize = f.parity.values().map(|(_, x)| x.len()).sum();
            if held + data.len()
                > f.frame_bytes as usize + usize::from(f.count) * 2 * PACKET_HEADER_BYTES
            {
                return Err(self.drop_one(Dropped::Inconsistent));
            }
            f.parity.insert(*first, (lens.clone(), data.to_vec()));
            f.last_us = now_us;
            return Ok(p.info.frame);
        }
        if f.seen[usize::from(p.index)] {
            return Err(self.drop_one(Dropped::Duplicate));
        }
        // The payloads may not add up past the frame's length.
        let held = f.held;
        let adding = match &p.body {
            Body::Blocks { data, .. } => data.len(),
            Body::Piece { block, total, .. } if !f.pieces.contains_key(block) => *total as usize,
            Body::Piece { .. } | Body::Parity { .. } => 0,
        };
        if held + adding > f.frame_bytes as usize {
            return Err(self.drop_one(Dropped::Inconsistent));
        }
        match p.body {
            Body::Blocks { first, sizes, data } => {
                let range = first as usize..first as usize + sizes.len();
                if f.payloads[range.clone()].iter().any(Option::is_some)
                    || f.pieces
                        .range(first..first + sizes.len() as u32)
                        .next()
                        .is_some()
                {
                    return Err(self.drop_one(Dropped::Inconsistent));
                }
                let mut at = 0;
                for (j, s) in sizes.iter().enumerate() {
                    let s = usize::from(*s);
                    f.payloads[first as usize + j] = Some(data[at..at + s].to_vec());
                    at += s;
                }
                f.held += at;
            }
            Body::Piece {
                block,
                offset,
                total,
                data,
            } => {
                if f.payloads[block as usize].is_some() {
                    return Err(self.drop_one(Dropped::Inconsistent));
                }
                let (buf, got) = f.pieces.entry(block).or_insert_with(|| {
                    f.held += total as usize;
                    (vec![0; total as usize], vec![false; total as usize])
                });
                if buf.len() != total as usize {
                    return Err(self.drop_one(Dropped::Inconsistent));
                }
                let r = offset as usize..offset as usize + data.len();
                buf[r.clone()].copy_from_slice(data);
                got[r].iter_mut().for_each(|g| *g = true);
                if got.iter().all(|&g| g) {
                    let (buf, _) = f.pieces.remove(&block).expect("present");
                    f.payloads[block as usize] = Some(buf);
                }
            }
            Body::Parity { .. } => unreachable!("taken above"),
        }
        f.seen[usize::from(p.index)] = true;
        f.raw[usize::from(p.index)] = Some(datagram.to_vec());
        f.received += 1;
        f.last_us = now_us;
        Ok(p.info.frame)
    }

    /// The frames to hand over at `now_us`, in frame order: each whose datagrams all arrived,
    /// each whose first datagram is `deadline_us` old, and each older than one of those (its
    /// missing blocks concealed: what it lacks would come after a later frame was complete).
    pub fn ready(&mut self, now_us: u64, deadline_us: u64) -> Vec<Assembled> {
        let mut out = std::mem::take(&mut self.early);
        let newest = self
            .frames
            .iter()
            .rev()
            .find(|(_, f)| {
                f.received == f.count || now_us >= f.first_us.saturating_add(deadline_us)
            })
            .map(|(&n, _)| n);
        let Some(newest) = newest else {
            return out;
        };
        // Every due frame goes out in order, and with it every frame still waiting that is
        // older than the newest due one: what it lacks would arrive after a later frame was
        // complete (its datagrams were lost, or are late enough to be dropped then), so it is
        // decoded now with those blocks concealed, in its place before the newer one.
        let newer = newest
            .checked_add(1)
            .map_or_else(BTreeMap::new, |after| self.frames.split_off(&after));
        for f in std::mem::replace(&mut self.frames, newer).into_values() {
            out.push(self.hand_over(f));
        }
        self.shown = Some(newest);
        out
    }

    /// Every frame still held, handed over as it is (at the end of a stream).
    pub fn flush(&mut self) -> Vec<Assembled> {
        let mut out = std::mem::take(&mut self.early);
        let all: Vec<Partial> = std::mem::take(&mut self.frames).into_values().collect();
        if let Some(f) = all.last() {
            self.shown = Some(f.info.frame);
        }
        out.extend(all.into_iter().map(|f| self.hand_over(f)));
        out
    }
}

/// The frame's bytes from what arrived (and what concealment filled in): the header, the
/// offset table, the payloads in block order; a block without one at offset 0, which points
/// into the header (the decoder's damage, concealed and reported).
fn assemble(f: &Partial, missing: u32, from_previous: u32) -> Assembled {
    let blocks = f.blocks as usize;
    let table = HEADER_BYTES + OFFSET_BYTES * blocks;
    let mut bytes = Vec::with_capacity(f.frame_bytes as usize);
    bytes.extend_from_slice(&f.header);
    bytes.resize(table, 0);
    for (b, p) in f.payloads.iter().enumerate() {
        if let Some(p) = p {
            let at = bytes.len() as u32;
            bytes[HEADER_BYTES + OFFSET_BYTES * b..][..OFFSET_BYTES]
                .copy_from_slice(&at.to_le_bytes());
            bytes.extend_from_slice(p);
        }
    }
    Assembled {
        info: f.info,
        bytes,
        blocks: f.blocks,
        missing,
        from_previous,
        sent: f.count,
        received: f.received - f.recovered,
        recovered: f.recovered,
        first_us: f.first_us,
        last_us: f.last_us,
        complete: f.received == f.count,
    }
}

/// A network's faults, reproducible (`--impair loss=5%,reorder=2%,dup=1%,seed=S`): each
/// datagram is lost with probability `loss`, else sent twice with probability `dup`, else
/// held back behind the next one with probability `reorder`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impair {
    /// Probability a datagram is lost.
    pub loss: f64,
    /// Probability it is held back behind the next.
    pub reorder: f64,
    /// Probability it arrives twice.
    pub dup: f64,
    /// The seed of the faults' random numbers.
    pub seed: u64,
}

impl std::str::FromStr for Impair {
    type Err = CodecError;

    fn from_str(s: &str) -> Result<Self> {
        let mut out = Impair::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                CodecError::InvalidArgument(format!(
                    "--impair {s}: '{part}' is not key=value (loss=5%,reorder=2%,dup=1%,seed=7)"
                ))
            })?;
            let p = || -> Result<f64> {
                let x: f64 = v.trim_end_matches('%').parse().map_err(|_| {
                    CodecError::InvalidArgument(format!("--impair {s}: '{v}' is not a number"))
                })?;
                let x = if v.ends_with('%') { x / 100.0 } else { x };
                if !(0.0..=1.0).contains(&x) {
                    return Err(CodecError::InvalidArgument(format!(
                        "--impair {s}: {k}={v} is not a probability (0 to 100 %)"
                    )));
                }
                Ok(x)
            };
            match k {
                "loss" => out.loss = p()?,
                "reorder" => out.reorder = p()?,
                "dup" => out.dup = p()?,
                "seed" => {
                    out.seed = v.parse().map_err(|_| {
                        CodecError::InvalidArgument(format!(
                            "--impair {s}: seed '{v}' is not a whole number"
                        ))
                    })?
                }
                other => {
                    return Err(CodecError::InvalidArgument(format!(
                        "--impair {s}: no fault '{other}' (loss, reorder, dup, seed)"
                    )));
                }
            }
        }
        Ok(out)
    }
}

/// Applies an [`Impair`] to datagrams as they pass.
pub struct Impairer {
    cfg: Impair,
    rng: fastrand::Rng,
    held: Option<Vec<u8>>,
}

impl Impairer {
    /// The faults of `cfg`, from its seed.
    pub fn new(cfg: Impair) -> Self {
        Self {
            cfg,
            rng: fastrand::Rng::with_seed(cfg.seed),
            held: None,
        }
    }

    /// What the network delivers of `d`, in order, into `out` (none, one, two, or a datagram
    /// held back before).
    pub fn pass(&mut self, d: Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if self.rng.f64() < self.cfg.loss {
            return;
        }
        if self.rng.f64() < self.cfg.dup {
            out.push(d.clone());
            out.push(d);
        } else if self.held.is_none() && self.rng.f64() < self.cfg.reorder {
            self.held = Some(d);
            return;
        } else {
            out.push(d);
        }
        if let Some(h) = self.held.take() {
            out.push(h);
        }
    }

    /// A datagram still held back.
    pub fn flush(&mut self, out: &mut Vec<Vec<u8>>) {
        if let Some(h) = self.held.take() {
            out.push(h);
        }
    }
}
