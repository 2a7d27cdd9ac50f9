//! `include/wavekit.h` is what cbindgen makes of `src/lib.rs` now (`WAVEKIT_BLESS=1` rewrites
//! it): the header C programs compile against cannot drift from the library.

#[test]
fn the_header_is_cbindgens_of_the_library() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let mut made = Vec::new();
    cbindgen::generate(dir)
        .expect("cbindgen reads src/lib.rs and cbindgen.toml")
        .write(&mut made);
    let path = std::path::Path::new(dir).join("include/wavekit.h");
    if std::env::var_os("WAVEKIT_BLESS").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    let kept = std::fs::read(&path).unwrap_or_default();
    assert!(
        kept == made,
        "include/wavekit.h is not cbindgen's header of src/lib.rs: run \
         WAVEKIT_BLESS=1 cargo test -p wavekit-capi --test header, and commit it"
    );
}
