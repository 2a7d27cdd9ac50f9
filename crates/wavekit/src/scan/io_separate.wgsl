// Scan input and output in separate buffers.
@group(0) @binding(2) var<storage, read> src: array<T>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;

fn load(i: u32) -> T {
    return src[i];
}

fn store(i: u32, v: T) {
    dst[i] = v;
}
