// Device layer: up to four buffers set to zero by one grid-stride dispatch, recorded inside a
// primitive's compute pass instead of `clear_buffer` (a clear between dispatches cost about
// 8 µs on the H200, a dependent dispatch about 2 µs: ADR-0081).
// Prepended constants: WG_SIZE.

struct Params {
    // Words of each binding to clear (0 for an unused one).
    words: vec4<u32>,
    // Invocations in the whole grid.
    stride: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> a: array<u32>;
@group(0) @binding(2) var<storage, read_write> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> c: array<u32>;
@group(0) @binding(4) var<storage, read_write> d: array<u32>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.words.x; i += params.stride) {
        a[i] = 0u;
    }
    for (var i = gid.x; i < params.words.y; i += params.stride) {
        b[i] = 0u;
    }
    for (var i = gid.x; i < params.words.z; i += params.stride) {
        c[i] = 0u;
    }
    for (var i = gid.x; i < params.words.w; i += params.stride) {
        d[i] = 0u;
    }
}
