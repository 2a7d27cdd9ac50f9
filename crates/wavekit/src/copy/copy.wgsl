// Device layer: a grid-stride copy of vec4<u32>, read once and written once (also the
// benchmarks' bandwidth yardstick).
// Prepended constants: WG_SIZE.

struct Params {
    len: u32, // in vec4 elements
    stride: u32, // invocations in the whole grid
}

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.len; i += params.stride) {
        dst[i] = src[i];
    }
}
