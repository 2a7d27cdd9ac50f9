//! `cargo run -p wavekit-examples --example wavelet`: see `wavekit_examples::wavelet`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit_examples::example_context()?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::wavelet::run(&ctx, 1)?
    );
    Ok(())
}
