//! `cargo run -p wavekit-examples --example spatial`: see `wavekit_examples::spatial`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit_examples::example_context()?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::spatial::run(&ctx, 1)?
    );
    Ok(())
}
