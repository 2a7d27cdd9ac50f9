//! A frame through the codec on the GPU (`wavekit-codec`): a seeded 320 × 240 image coded at
//! 1 bit a pixel by the GPU encoder, whose bytes equal the CPU encoder's, and decoded by the
//! GPU decoder, whose pixels equal the CPU decoder's; then a lossless round trip, exact.

use wavekit::GpuContext;
use wavekit_codec::gpu::{Decoder, Encoder};
use wavekit_codec::{EncodeConfig, Header, cpu};

use crate::{Result, check};

/// Run it; returns a line saying what was checked.
pub fn run(ctx: &GpuContext, seed: u64) -> Result<String> {
    let (w, h) = (320u32, 240u32);
    let mut rng = fastrand::Rng::with_seed(seed);
    // Smooth gradients with noise, as a rendered frame has.
    let rgb: Vec<u8> = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            let n = rng.u8(..16);
            [
                (x * 255 / w) as u8 / 2 + n,
                (y * 255 / h) as u8 / 2 + n,
                ((x + y) % 256) as u8 / 2,
            ]
        })
        .collect();
    let config = EncodeConfig::bpp(w, h, 1.0);
    let frame = Encoder::new(ctx, w, h, &config)?.encode(ctx, &rgb)?;
    let (cpu_frame, _) = cpu::encode(&rgb, w, h, &config)?;
    check(frame == cpu_frame, "codec", || {
        format!("{} GPU bytes, {} CPU bytes", frame.len(), cpu_frame.len())
    })?;
    let decoder = Decoder::new(ctx, &Header::parse(&frame)?, frame.len())?;
    let (back, report) = decoder.decode(ctx, &frame)?;
    let (_, cpu_back, _) = cpu::decode(&frame)?;
    check(
        back == cpu_back && report.damaged.is_empty(),
        "codec",
        || "the GPU's decode is not the CPU's".into(),
    )?;
    let lossless = EncodeConfig::lossless(w, h);
    let exact = Encoder::new(ctx, w, h, &lossless)?.encode(ctx, &rgb)?;
    let decoder = Decoder::new(ctx, &Header::parse(&exact)?, exact.len())?;
    let (same, _) = decoder.decode(ctx, &exact)?;
    check(same == rgb, "codec", || "lossless is not exact".into())?;
    Ok(format!(
        "{w} x {h} at 1 bpp: {} of {} bytes, PSNR {:.1} dB, the GPU's bytes and pixels the CPU's; \
         lossless in {} bytes, exact",
        frame.len(),
        config.budget,
        cpu::psnr(&rgb, &back),
        exact.len()
    ))
}
