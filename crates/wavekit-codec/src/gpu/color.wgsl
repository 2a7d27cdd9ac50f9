// The decoded planes to pixels: the GPU twin of `cpu/color.rs`'s `planes_to_rgb` (YCBCR_OUT
// false) and `planes_to_ycbcr` (true), one invocation a pixel, the same integer steps. 4:2:0
// (CHROMA_420) repeats each chroma sample over its 2 × 2 block. The planes are BT.709 YCbCr
// in fixed point (5 fractional bits, Y shifted by −128); LOSSLESS, whole units: the RCT's when
// SOURCE is 0 (RGB), the samples less 128 when it is 1 or 2 (YCbCr, full or limited range).
//
// Bindings: 0 the luma plane, 1 the chroma planes (Cb then Cr), 2 the output (RGB: one word a
// pixel, R | G << 8 | B << 16 | 255 << 24; YCBCR_OUT: the 8-bit planes as a y4m holds them, Y
// then Cb then Cr, each from a word boundary, four samples a word and one invocation a word,
// a 4:2:0 chroma sample that of its block's top-left pixel, in the source's range), 3 params:
// width, height, chroma width, chroma plane size. Where each output sample depends on its own
// plane value only (all but the RCT's lossless frames), an output word is four samples of one
// plane, read from that plane alone.
#import codec/ycbcr

@group(0) @binding(0) var<storage, read> luma: array<i32>;
@group(0) @binding(1) var<storage, read> chroma: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

// Pixel i's output samples: RGB, or the RCT's YCbCr (separate_word takes the other YCbCr
// outputs).
fn pixel(i: u32) -> vec3<i32> {
    let w = params.x;
    let x = i % w;
    let y = i / w;
    var c = y * params.z + x;
    if (CHROMA_420) {
        c = (y / 2u) * params.z + x / 2u;
    }
    let p = vec3<i32>(luma[i], chroma[c], chroma[c + params.w]);
    let limited = SOURCE == 2u;
    if (LOSSLESS && SOURCE == 0u) {
        let rgb = rct_inverse(p);
        if (YCBCR_OUT) {
            return planes_to_samples(rgb_to_ycbcr(rgb.x, rgb.y, rgb.z), false);
        }
        return rgb;
    } else if (LOSSLESS) {
        let s = clamp(p + vec3<i32>(128i), vec3<i32>(0i), vec3<i32>(255i));
        return ycbcr_to_rgb(samples_to_planes(s, limited));
    }
    return ycbcr_to_rgb(p);
}

// Sample b (0 to 3) of output word j of the planar YCbCr output.
fn planar_sample(j: u32, b: u32) -> u32 {
    let place = planar_place(j, params.x * params.y, params.w);
    let i = place.x + b;
    if (i >= place.y) {
        return 0u;
    }
    if (place.z == 0u) {
        return u32(pixel(i).x);
    }
    var step = 1u;
    if (CHROMA_420) {
        step = 2u;
    }
    let px = pixel(step * (i / params.z) * params.x + step * (i % params.z));
    return u32(select(px.y, px.z, place.z == 2u));
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = gid.x + gid.y * nwg.x * WG_SIZE;
    if (!YCBCR_OUT) {
        if (j >= params.x * params.y) {
            return;
        }
        out[j] = pack(pixel(j)) | (255u << 24u);
        return;
    }
    if (j >= planar_words(params.x * params.y, params.w)) {
        return;
    }
    if (!(LOSSLESS && SOURCE == 0u)) {
        out[j] = separate_word(j);
        return;
    }
    var word = 0u;
    for (var b = 0u; b < 4u; b++) {
        word |= (planar_sample(j, b) & 0xffu) << (8u * b);
    }
    out[j] = word;
}

// Output word j of the planar YCbCr output where each sample is its own plane value's (not
// the RCT's): four consecutive samples of one plane.
fn separate_word(j: u32) -> u32 {
    let place = planar_place(j, params.x * params.y, params.w);
    let is_luma = place.z == 0u;
    // Where a chroma plane's values are.
    let at = select(0u, (place.z - 1u) * params.w, !is_luma);
    var word = 0u;
    for (var b = 0u; b < 4u; b++) {
        let i = place.x + b;
        if (i < place.y) {
            var p: i32;
            if (is_luma) {
                p = luma[i];
            } else {
                p = chroma[at + i];
            }
            var v = clamp(p + 128i, 0i, 255i);
            if (!LOSSLESS) {
                v = plane_to_sample(p, is_luma, SOURCE == 2u);
            }
            word |= u32(v) << (8u * b);
        }
    }
    return word;
}
