//! `cargo run -p wavekit-examples --example primitives`: see `wavekit_examples::primitives`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit::GpuContext::new(&wavekit::ContextOptions::default())?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::primitives::run(&ctx, 1)?
    );
    Ok(())
}
