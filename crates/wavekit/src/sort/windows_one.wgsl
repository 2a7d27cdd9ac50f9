// A sort within one storage binding (WINDOWS = 1): there is no second window, and no binding
// for one (see windows_two.wgsl). The callers branch on WINDOWS and never reach these.
// Imported by name as `sort/windows`.

fn key_word_hi(w: u32) -> u32 {
    return 0u;
}

fn store_key_word_hi(w: u32, v: u32) {}

fn value_hi(i: u32) -> u32 {
    return 0u;
}

fn store_value_hi(i: u32, v: u32) {}
