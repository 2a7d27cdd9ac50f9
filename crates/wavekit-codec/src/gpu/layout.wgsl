// The encoder's block records, shared by block_encode.wgsl, rate.wgsl and pack.wgsl. STRIDE
// (words of a block's bit string), RECORD (words of its record) and KEY_BINS are prepended by
// the builder from gpu/encoder.rs, the one place that sizes the buffers.

// A payload's bytes with `end` bits of planes: P and n, then the bits, padded to a byte.
fn bytes_of(end: u32) -> u32 {
    return 2u + (end + 7u) / 8u;
}

// Bytes of plane n (1 ..= P) of the block at record `r` of the importer's `records` (every
// importer binds them: the block encoders, rate.wgsl, pack.wgsl).
fn plane_bytes(r: u32, n: u32) -> u32 {
    return bytes_of(records[r + 1u + n]) - bytes_of(records[r + n]);
}
