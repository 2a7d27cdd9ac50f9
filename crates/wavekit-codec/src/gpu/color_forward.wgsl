// The frame's pixels to the codec's planes: the GPU twin of `cpu/color.rs`'s `to_ycbcr`,
// `to_rct` and `ycbcr_to_planes`, the same integer steps. From RGB, one invocation a chroma
// sample: a pixel at 4:4:4, a 2 × 2 block at 4:2:0 (CHROMA_420).
//
// SOURCE 0, RGB: BT.709 YCbCr in fixed point (5 fractional bits, Y shifted by −128), 4:2:0
// chroma the rounded mean of four; LOSSLESS, the reversible colour transform (RCT) instead, in
// whole units (4:4:4). SOURCE 1 or 2, YCbCr in full or limited range: each sample mapped on its
// own (4:2:0 chroma: the block's one sample); LOSSLESS, the sample less 128. A YCbCr source
// takes one invocation an input word: its four samples of one plane, whatever the sampling.
//
// Bindings: 0 the frame (RGB: one word a pixel, R | G << 8 | B << 16; YCbCr: the picture's
// planes as bytes, four to a word, Y (width × height) then Cb and Cr (chroma plane size each),
// each plane from a word boundary: as a y4m holds them, uploaded without conversion), 1 the
// luma plane, 2 the chroma planes (Cb then Cr), 3 params: width, height, chroma width, chroma
// plane size; 4 the rate control's key histogram and 5 the frame, which this first kernel of an
// encode clears for the block encoder's and the packer's or-ing (clear_buffer commands between
// the passes cost more), 6 their words to clear: the histogram's, the frame's, and whether to
// clear only (nonzero where the wavelet reads the picture's bytes itself).
#import codec/ycbcr

@group(0) @binding(0) var<storage, read> words: array<u32>;
@group(0) @binding(1) var<storage, read_write> luma: array<i32>;
@group(0) @binding(2) var<storage, read_write> chroma: array<i32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;
@group(0) @binding(4) var<storage, read_write> hist: array<u32>;
@group(0) @binding(5) var<storage, read_write> frame: array<u32>;
@group(0) @binding(6) var<uniform> clear: vec4<u32>;

// Pixel i's RGB samples (R | G << 8 | B << 16) to its planes.
fn planes_of(p: u32) -> vec3<i32> {
    let s = unpack(p);
    if (LOSSLESS) {
        return rct(s.x, s.y, s.z);
    }
    return rgb_to_ycbcr(s.x, s.y, s.z);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + gid.y * nwg.x * WG_SIZE;
    let all = nwg.x * nwg.y * WG_SIZE;
    for (var j = c; j < clear.x; j += all) {
        hist[j] = 0u;
    }
    for (var j = c; j < clear.y; j += all) {
        frame[j] = 0u;
    }
    if (clear.z != 0u) {
        return;
    }
    if (SOURCE != 0u) {
        ycbcr_word(c);
        return;
    }
    let w = params.x;
    let cw = params.z;
    if (c >= params.w) {
        return;
    }
    let cx = c % cw;
    let cy = c / cw;
    if (!CHROMA_420) {
        let v = planes_of(words[c]);
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
            let v = planes_of(words[i]);
            luma[i] = v.x;
            cb += v.y;
            cr += v.z;
        }
    }
    cb = (cb + 2i) >> 2u;
    cr = (cr + 2i) >> 2u;
    chroma[c] = cb;
    chroma[c + params.w] = cr;
}

// A YCbCr source: input word j's four samples (of the luma plane, or of Cb or Cr) to their
// plane values.
fn ycbcr_word(j: u32) {
    let pixels = params.x * params.y;
    if (j >= planar_words(pixels, params.w)) {
        return;
    }
    let word = words[j];
    let place = planar_place(j, pixels, params.w);
    let is_luma = place.z == 0u;
    // Where a chroma plane's values go.
    let to = select(0u, (place.z - 1u) * params.w, !is_luma);
    for (var b = 0u; b < 4u; b++) {
        let i = place.x + b;
        if (i < place.y) {
            let v = i32((word >> (8u * b)) & 0xffu);
            var p = v - 128i;
            if (!LOSSLESS) {
                p = sample_to_plane(v, is_luma, SOURCE == 2u);
            }
            if (is_luma) {
                luma[i] = p;
            } else {
                chroma[to + i] = p;
            }
        }
    }
}
