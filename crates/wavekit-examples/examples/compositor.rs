//! `cargo run -p wavekit-examples --example compositor [OUT.png]`: see
//! `wavekit_examples::compositor`; writes the GPU's image (default `panel.png`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "panel.png".into());
    let ctx = wavekit_examples::example_context()?;
    let (image, line) = wavekit_examples::compositor::run(&ctx, 0.6)?;
    image.save(&out)?;
    println!("{}: {line}; wrote {out}", ctx.summary.label());
    Ok(())
}
