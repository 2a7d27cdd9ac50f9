// YCbCr (fixed point, FRAC_BITS = 5 fractional bits, Y shifted by −128) to 8-bit RGBA: the GPU
// twin of `cpu/color.rs`'s `pixel_to_rgb`, one invocation a pixel, the same integer steps.
// 4:2:0 (CHROMA_420) repeats each chroma sample over its 2 × 2 block. LOSSLESS: the inverse of
// the reversible colour transform instead (whole units, 4:4:4).
//
// Bindings: 0 the luma plane, 1 the chroma planes (Cb then Cr), 2 the output (one word a pixel:
// R | G << 8 | B << 16 | 255 << 24), 3 params: width, height, chroma width, chroma plane size.

@group(0) @binding(0) var<storage, read> luma: array<i32>;
@group(0) @binding(1) var<storage, read> chroma: array<i32>;
@group(0) @binding(2) var<storage, read_write> rgba: array<u32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

const LIMIT: i32 = 65536i;
const SHIFT: i32 = 4096i;

fn level(v: i32) -> u32 {
    return u32(clamp((v + SHIFT + 16i) >> 5u, 0i, 255i));
}

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
    let yy = clamp(luma[i], -LIMIT, LIMIT);
    let cb = clamp(chroma[c], -LIMIT, LIMIT);
    let cr = clamp(chroma[c + params.w], -LIMIT, LIMIT);
    if (LOSSLESS) {
        // The RCT's inverse (cpu/color.rs's rct_to_rgb).
        let gg = yy + 128i - ((cb + cr) >> 2u);
        let px = vec3<i32>(clamp(cr + gg, 0i, 255i), clamp(gg, 0i, 255i), clamp(cb + gg, 0i, 255i));
        rgba[i] = u32(px.x) | (u32(px.y) << 8u) | (u32(px.z) << 16u) | (255u << 24u);
        return;
    }
    let r = yy + ((25802i * cr + 8192i) >> 14u);
    let g = yy - ((3069i * cb + 7670i * cr + 8192i) >> 14u);
    let b = yy + ((30402i * cb + 8192i) >> 14u);
    rgba[i] = level(r) | (level(g) << 8u) | (level(b) << 16u) | (255u << 24u);
}
