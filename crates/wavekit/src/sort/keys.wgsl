// The sort's keys: the pass's parameters, the key buffers, and the digit of a key.
//
// Buffers past one storage binding are bound as two windows of `params.window` words (keys)
// and `params.window / KEY_WORDS` (values); a window holds whole keys.
// Prepended constants: KEY_WORDS (1 or 2), KEY_KIND (0 unsigned, 1 i32, 2 f32 in total order:
// see sort::reference::sortable), WINDOWS (1, or 2 past one binding). Imported: sort/key_order
// (the keys' sortable bits and their digits).

struct Params {
    n: u32,
    tiles: u32,
    shift: u32,
    bits: u32,
    descending: u32,
    first_pass: u32,
    pass_index: u32,
    // Words of keys in the first window of each key buffer.
    window: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
// The second windows' bindings and accessors, or stubs with one window (sort/windows_*.wgsl).
#import sort/windows

fn key_word(w: u32) -> u32 {
    if (WINDOWS == 1u || w < params.window) {
        return keys_in[w];
    }
    return key_word_hi(w - params.window);
}

fn store_key_word(w: u32, v: u32) {
    if (WINDOWS == 1u || w < params.window) {
        keys_out[w] = v;
    } else {
        store_key_word_hi(w - params.window, v);
    }
}

fn load_key(i: u32) -> vec2<u32> {
    if (KEY_WORDS == 1u) {
        return vec2<u32>(key_word(i), 0u);
    }
    return vec2<u32>(key_word(2u * i), key_word(2u * i + 1u));
}

fn store_key(i: u32, k: vec2<u32>) {
    if (KEY_WORDS == 1u) {
        store_key_word(i, k.x);
    } else {
        store_key_word(2u * i, k.x);
        store_key_word(2u * i + 1u, k.y);
    }
}

#import sort/key_order

// The digit of this pass.
fn digit_of(k: vec2<u32>) -> u32 {
    return digit_at(k, params.shift, params.bits);
}
