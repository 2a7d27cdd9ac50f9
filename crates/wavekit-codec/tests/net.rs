//! Frames as datagrams (issue 47): cut by `net::packetize`, put back by `net::Receiver` in any
//! order with duplicates, the exact frame; lost datagrams cost exactly their blocks, which the
//! decoder reports as damaged; frames in order, late ones dropped; other streams, floods and
//! garbage counted and dropped with bounded memory; the datagram parser and the receiver
//! fuzzed; the impairment reproducible.

use wavekit_codec::cpu::test_picture as picture;
use wavekit_codec::cpu::{EncodeConfig, decode, encode};
use wavekit_codec::net::{
    Dropped, FRAMES_IN_FLIGHT, FrameInfo, Impair, Impairer, MIN_MTU, Receiver, block_payloads,
    packetize, parse,
};
use wavekit_codec::{Chroma, CodecError};

fn info(frame: u32) -> FrameInfo {
    FrameInfo {
        stream: 0x5eed,
        frame,
        capture_us: 1_000_000 + u64::from(frame),
        encode_us: 321,
        tag: 0,
        rate: (60, 1),
    }
}

/// Coded frames of several sizes, budgets and modes: small blocks, and lossless ones whose
/// blocks outgrow a small datagram (pieces).
fn frames() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (i, (w, h, bytes, lossless, chroma)) in [
        (64u32, 48u32, 1500usize, false, Chroma::Yuv420),
        (97, 61, 6000, false, Chroma::Yuv444),
        (130, 66, 1 << 20, true, Chroma::Yuv444),
        (1, 1, 200, false, Chroma::Yuv444),
    ]
    .into_iter()
    .enumerate()
    {
        let config = EncodeConfig {
            lossless,
            source: wavekit_codec::format::Source::Rgb,
            chroma,
            levels: 3,
            budget: bytes,
        };
        let (frame, _) = encode(&picture(w, h, 40 + i as u64), w, h, &config).unwrap();
        out.push((format!("{w}x{h} lossless {lossless}"), frame));
    }
    out
}

#[test]
fn any_order_with_duplicates_gives_the_frame_back() {
    let mut rng = fastrand::Rng::with_seed(47);
    for (name, frame) in frames() {
        for mtu in [MIN_MTU, 576, 1200, 9000] {
            let mut ds = packetize(&frame, &info(7), mtu).unwrap();
            assert!(ds.iter().all(|d| d.len() <= mtu), "{name} mtu {mtu}");
            // Every block in exactly one whole datagram or in pieces.
            let (_, payloads) = block_payloads(&frame).unwrap();
            if mtu == MIN_MTU && payloads.iter().any(|p| p.len() > MIN_MTU) {
                assert!(ds.iter().any(|d| d[3] == 2), "{name}: no pieces");
            }
            let n = ds.len();
            for _ in 0..n / 3 + 1 {
                let j = rng.usize(..n);
                ds.push(ds[j].clone());
            }
            rng.shuffle(&mut ds);
            let mut rx = Receiver::new();
            let mut got = Vec::new();
            for d in &ds {
                let _ = rx.accept(d, 5);
                got.extend(rx.ready(5, 1_000_000));
            }
            assert_eq!(got.len(), 1, "{name} mtu {mtu}");
            let a = &got[0];
            assert!(a.complete && a.missing == 0 && usize::from(a.received) == n);
            assert_eq!(a.bytes, frame, "{name} mtu {mtu}: not the frame sent");
            assert_eq!(a.info, info(7));
            let dups = rx.dropped.get(&Dropped::Duplicate).copied().unwrap_or(0)
                + rx.dropped.get(&Dropped::Late).copied().unwrap_or(0);
            assert_eq!(dups as usize, ds.len() - n, "{name}: duplicates counted");
        }
    }
}

#[test]
fn a_lost_datagram_costs_exactly_its_blocks() {
    for (name, frame) in frames() {
        let ds = packetize(&frame, &info(3), 576).unwrap();
        if ds.len() == 1 {
            // Its only datagram lost: the receiver never hears of the frame.
            continue;
        }
        let (_, payloads) = block_payloads(&frame).unwrap();
        for lost in [0, ds.len() / 2, ds.len() - 1] {
            let p = parse(&ds[lost]).unwrap();
            let gone: Vec<usize> = match p.body {
                wavekit_codec::net::Body::Blocks { first, sizes, .. } => {
                    (first as usize..first as usize + sizes.len()).collect()
                }
                wavekit_codec::net::Body::Piece { block, .. } => vec![block as usize],
            };
            let mut rx = Receiver::new();
            for (i, d) in ds.iter().enumerate() {
                if i != lost {
                    rx.accept(d, 10).unwrap();
                }
            }
            assert!(
                rx.ready(10, 100).is_empty() || ds.len() == 1,
                "{name}: not due yet"
            );
            let got = rx.ready(110, 100);
            assert_eq!(got.len(), 1, "{name}");
            let a = &got[0];
            assert!(!a.complete);
            assert_eq!(a.missing as usize, gone.len(), "{name} lost {lost}");
            let (_, _, report) = decode(&a.bytes).unwrap();
            assert_eq!(
                report.damaged, gone,
                "{name} lost {lost}: the decoder's damage"
            );
            // The blocks that arrived are the frame's.
            let (_, back) = block_payloads_lenient(&a.bytes, payloads.len());
            for (b, p) in payloads.iter().enumerate() {
                if !gone.contains(&b) {
                    assert_eq!(back[b], Some(p.to_vec()), "{name}: block {b}");
                }
            }
        }
    }
}

/// Each block's payload of an assembled frame (None where its offset is 0).
fn block_payloads_lenient(frame: &[u8], blocks: usize) -> ((), Vec<Option<Vec<u8>>>) {
    let at =
        |b: usize| u32::from_le_bytes(frame[24 + 4 * b..28 + 4 * b].try_into().unwrap()) as usize;
    let present: Vec<usize> = (0..blocks).filter(|&b| at(b) != 0).collect();
    let mut out = vec![None; blocks];
    for (j, &b) in present.iter().enumerate() {
        let end = present.get(j + 1).map_or(frame.len(), |&n| at(n));
        out[b] = Some(frame[at(b)..end].to_vec());
    }
    ((), out)
}

#[test]
fn frames_go_out_in_order_and_late_ones_are_dropped() {
    let (_, frame) = frames().remove(0);
    let d: Vec<Vec<Vec<u8>>> = (0..4)
        .map(|f| packetize(&frame, &info(f), 576).unwrap())
        .collect();
    let mut rx = Receiver::new();
    // Frame 0 half, frame 2 whole: 2 goes out, 0 is lost; then frame 0's rest and frame 1 are
    // late.
    for x in &d[0][..d[0].len() / 2] {
        rx.accept(x, 0).unwrap();
    }
    for x in &d[2] {
        rx.accept(x, 1).unwrap();
    }
    let out = rx.ready(2, 1000);
    assert_eq!(out.iter().map(|a| a.info.frame).collect::<Vec<_>>(), [2]);
    assert_eq!(rx.frames_lost, 1);
    assert_eq!(rx.accept(&d[0][d[0].len() - 1], 3), Err(Dropped::Late));
    assert_eq!(rx.accept(&d[1][0], 3), Err(Dropped::Late));
    for x in &d[3] {
        rx.accept(x, 4).unwrap();
    }
    assert_eq!(rx.ready(4, 1000)[0].info.frame, 3);
    // Another stream's datagram is dropped and counted.
    let other = packetize(
        &frame,
        &FrameInfo {
            stream: 9,
            ..info(9)
        },
        576,
    )
    .unwrap();
    assert_eq!(rx.accept(&other[0], 5), Err(Dropped::OtherStream));
    // A flood of frames: never more than FRAMES_IN_FLIGHT held, the oldest pushed out.
    let mut rx = Receiver::new();
    for f in 10..200 {
        let ds = packetize(&frame, &info(f), 576).unwrap();
        rx.accept(&ds[0], 0).unwrap();
    }
    assert_eq!(rx.frames_lost as usize, 190 - FRAMES_IN_FLIGHT);
    assert_eq!(rx.flush().len(), FRAMES_IN_FLIGHT);
}

#[test]
fn lying_datagrams_are_dropped_not_trusted() {
    let (_, frame) = frames().remove(1);
    let ds = packetize(&frame, &info(1), 576).unwrap();
    let mut rx = Receiver::new();
    rx.accept(&ds[0], 0).unwrap();
    // The same index and frame with another count, another frame header, a block count that
    // is not the layout's, a bad version, a cut datagram.
    let mut liar = ds[1].clone();
    liar[14] ^= 1;
    assert_eq!(rx.accept(&liar, 0), Err(Dropped::Inconsistent));
    let mut liar = ds[1].clone();
    liar[40] ^= 1;
    assert_eq!(rx.accept(&liar, 0), Err(Dropped::Inconsistent));
    let mut liar = ds[1].clone();
    liar[2] = 2;
    assert_eq!(rx.accept(&liar, 0), Err(Dropped::Malformed));
    assert_eq!(rx.accept(&ds[1][..40], 0), Err(Dropped::Malformed));
    // The real one still goes in, and the frame comes out whole.
    for d in &ds[1..] {
        rx.accept(d, 0).unwrap();
    }
    assert_eq!(rx.ready(0, 10)[0].bytes, frame);
    assert!(matches!(
        packetize(&frame, &info(1), 100),
        Err(CodecError::InvalidArgument(_))
    ));
}

#[test]
fn fuzz_the_datagram_parser_and_receiver() {
    let mut seeds = Vec::new();
    for (name, frame) in frames() {
        for (i, d) in packetize(&frame, &info(2), 300)
            .unwrap()
            .into_iter()
            .enumerate()
            .take(4)
        {
            seeds.push((format!("{name} datagram {i}"), d));
        }
    }
    let mut rx = Receiver::new();
    let mut t = 0;
    wavekit_harness::fuzz::fuzz_with("net_datagram", seeds, 20_000, |b| {
        let parsed = parse(b).is_ok();
        t += 1;
        let accepted = rx.accept(b, t).is_ok();
        for a in rx.ready(t, 50) {
            // Whatever came in, a frame handed over decodes or is refused, never panics.
            let _ = decode(&a.bytes);
        }
        parsed || accepted
    });
}

#[test]
fn impairment_is_reproducible_and_parsed() {
    let cfg: Impair = "loss=10%,reorder=5%,dup=2%,seed=9".parse().unwrap();
    assert_eq!(
        cfg,
        Impair {
            loss: 0.10,
            reorder: 0.05,
            dup: 0.02,
            seed: 9
        }
    );
    let run = |cfg: Impair| {
        let mut imp = Impairer::new(cfg);
        let mut out = Vec::new();
        for i in 0..20_000u32 {
            imp.pass(i.to_le_bytes().to_vec(), &mut out);
        }
        imp.flush(&mut out);
        out
    };
    let a = run(cfg);
    assert_eq!(a, run(cfg), "the same seed, the same faults");
    let lost = 20_000 - a.len() as i64
        + (a.len() as i64 - {
            let mut u: Vec<_> = a.clone();
            u.sort();
            u.dedup();
            u.len() as i64
        });
    assert!((1600..2400).contains(&lost), "about 10 % lost: {lost}");
    let reordered = a
        .windows(2)
        .filter(|w| {
            u32::from_le_bytes(w[0][..].try_into().unwrap())
                > u32::from_le_bytes(w[1][..].try_into().unwrap())
        })
        .count();
    assert!(reordered > 500, "reordered: {reordered}");
    for bad in ["loss", "loss=150%", "jitter=1", "seed=x", "dup=abc"] {
        assert!(bad.parse::<Impair>().is_err(), "{bad}");
    }
}
