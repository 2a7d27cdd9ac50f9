// Scan in place: one buffer, read then overwritten (two-pass mode only: a look-back
// fallback must never read a tile whose owner may already have overwritten it).
@group(0) @binding(2) var<storage, read_write> data: array<T>;

fn load(i: u32) -> T {
    return data[i];
}

fn store(i: u32, v: T) {
    data[i] = v;
}
