//! `cargo run -p wavekit-examples --example tracer`: see `wavekit_examples::tracer`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit_examples::example_context()?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::tracer::run(&ctx)?
    );
    Ok(())
}
