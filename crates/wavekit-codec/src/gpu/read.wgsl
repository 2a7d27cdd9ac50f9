// The block decoders' shared pieces (block.wgsl, block_sg.wgsl): bytes of the importer's
// `frame` (packed four to a word, little-endian), words in stream order, and the integer
// reconstruction (cpu/block.rs: reconstruct).

fn byte_at(i: u32) -> u32 {
    return (frame[i / 4u] >> (8u * (i % 4u))) & 0xffu;
}

fn swap(x: u32) -> u32 {
    return (x << 24u) | ((x & 0xff00u) << 8u) | ((x >> 8u) & 0xff00u) | (x >> 24u);
}

fn reconstruct(t: u32, dropped: u32, step: u32) -> i32 {
    if (t == 0u) {
        return 0i;
    }
    // Shifts of 32 or more would be undefined: the CPU's wrapping_shl takes the amount mod 32.
    let v = ((t * 2u) | 1u) << (dropped % 32u);
    return i32((v * step) >> 9u);
}
