// 8-bit RGB(A) to YCbCr planes in fixed point (5 fractional bits, Y shifted by −128): the GPU
// twin of `cpu/color.rs`'s `to_ycbcr`, the same integer steps. One invocation a chroma sample:
// a pixel at 4:4:4, a 2 × 2 block at 4:2:0 (CHROMA_420; its chroma the rounded mean of four).
//
// LOSSLESS: the reversible colour transform (RCT) instead, in whole units (4:4:4).
//
// Bindings: 0 the frame (one word a pixel: R | G << 8 | B << 16, alpha ignored), 1 the luma
// plane, 2 the chroma planes (Cb then Cr), 3 params: width, height, chroma width, chroma plane.

@group(0) @binding(0) var<storage, read> rgba: array<u32>;
@group(0) @binding(1) var<storage, read_write> luma: array<i32>;
@group(0) @binding(2) var<storage, read_write> chroma: array<i32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

fn ycbcr(p: u32) -> vec3<i32> {
    let r = i32(p & 0xffu);
    let g = i32((p >> 8u) & 0xffu);
    let b = i32((p >> 16u) & 0xffu);
    if (LOSSLESS) {
        // JPEG 2000's reversible colour transform, whole units.
        return vec3<i32>(((r + 2i * g + b) >> 2u) - 128i, b - g, r - g);
    }
    let y = ((13933i * r + 46871i * g + 4732i * b + 1024i) >> 11u) - 4096i;
    let cb = (-7509i * r - 25259i * g + 32768i * b + 1024i) >> 11u;
    let cr = (32768i * r - 29763i * g - 3005i * b + 1024i) >> 11u;
    return vec3<i32>(y, cb, cr);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + gid.y * nwg.x * WG_SIZE;
    let w = params.x;
    let cw = params.z;
    if (c >= params.w) {
        return;
    }
    let cx = c % cw;
    let cy = c / cw;
    if (!CHROMA_420) {
        let v = ycbcr(rgba[c]);
        luma[c] = v.x;
        chroma[c] = v.y;
        chroma[c + params.w] = v.z;
        return;
    }
    var cb = 0i;
    var cr = 0i;
    for (var dy = 0u; dy < 2u; dy++) {
        for (var dx = 0u; dx < 2u; dx++) {
            let i = (2u * cy + dy) * w + 2u * cx + dx;
            let v = ycbcr(rgba[i]);
            luma[i] = v.x;
            cb += v.y;
            cr += v.z;
        }
    }
    chroma[c] = (cb + 2i) >> 2u;
    chroma[c + params.w] = (cr + 2i) >> 2u;
}
