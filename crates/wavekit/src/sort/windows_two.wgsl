// The second window of the key and value buffers, for sorts past one storage binding
// (WINDOWS = 2): keys past `params.window` words, values past `params.window / KEY_WORDS`.
// The one-window variant (windows_one.wgsl) declares none of these bindings, so that a sort
// within one binding uses at most 7 storage buffers, within WebGPU's per-stage limit of 8.
// Imported by name as `sort/windows`.

@group(0) @binding(9) var<storage, read> keys_in_hi: array<u32>;
@group(0) @binding(10) var<storage, read_write> keys_out_hi: array<u32>;
@group(0) @binding(11) var<storage, read> values_in_hi: array<u32>;
@group(0) @binding(12) var<storage, read_write> values_out_hi: array<u32>;

fn key_word_hi(w: u32) -> u32 {
    return keys_in_hi[w];
}

fn store_key_word_hi(w: u32, v: u32) {
    keys_out_hi[w] = v;
}

fn value_hi(i: u32) -> u32 {
    return values_in_hi[i];
}

fn store_value_hi(i: u32, v: u32) {
    values_out_hi[i] = v;
}
