//! `cargo run -p wavekit-examples --example codec`: see `wavekit_examples::codec`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit_examples::example_context()?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::codec::run(&ctx, 1)?
    );
    Ok(())
}
