//! `cargo run -p wavekit-examples --example primitives [-- --own-device]`: see
//! `wavekit_examples::primitives` (and `example_context` for the device).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = wavekit_examples::example_context()?;
    println!(
        "{}: {}",
        ctx.summary.label(),
        wavekit_examples::primitives::run(&ctx, 1)?
    );
    Ok(())
}
