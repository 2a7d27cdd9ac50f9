// The decoded planes to pixels: the GPU twin of `cpu/color.rs`'s `planes_to_rgb` (YCBCR_OUT
// false) and `planes_to_ycbcr` (true), one invocation a pixel, the same integer steps. 4:2:0
// (CHROMA_420) repeats each chroma sample over its 2 × 2 block. The planes are BT.709 YCbCr
// in fixed point (5 fractional bits, Y shifted by −128); LOSSLESS, whole units: the RCT's when
// SOURCE is 0 (RGB), the samples less 128 when it is 1 or 2 (YCbCr, full or limited range).
//
// Bindings: 0 the luma plane, 1 the chroma planes (Cb then Cr), 2 the output (one word a pixel:
// R | G << 8 | B << 16 | 255 << 24, or Y | Cb << 8 | Cr << 16 of the pixel's samples, in the
// source's range), 3 params: width, height, chroma width, chroma plane size.
#import codec/ycbcr

@group(0) @binding(0) var<storage, read> luma: array<i32>;
@group(0) @binding(1) var<storage, read> chroma: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG_SIZE;
    let w = params.x;
    let h = params.y;
    if (i >= w * h) {
        return;
    }
    let x = i % w;
    let y = i / w;
    var c = y * params.z + x;
    if (CHROMA_420) {
        c = (y / 2u) * params.z + x / 2u;
    }
    let p = vec3<i32>(luma[i], chroma[c], chroma[c + params.w]);
    let limited = SOURCE == 2u;
    var px: vec3<i32>;
    if (LOSSLESS && SOURCE == 0u) {
        let rgb = rct_inverse(p);
        if (YCBCR_OUT) {
            px = planes_to_samples(rgb_to_ycbcr(rgb.x, rgb.y, rgb.z), false);
        } else {
            px = rgb;
        }
    } else if (LOSSLESS) {
        let s = clamp(p + vec3<i32>(128i), vec3<i32>(0i), vec3<i32>(255i));
        if (YCBCR_OUT) {
            px = s;
        } else {
            px = ycbcr_to_rgb(samples_to_planes(s, limited));
        }
    } else if (YCBCR_OUT) {
        px = planes_to_samples(p, limited);
    } else {
        px = ycbcr_to_rgb(p);
    }
    if (YCBCR_OUT) {
        out[i] = pack(px);
    } else {
        out[i] = pack(px) | (255u << 24u);
    }
}
