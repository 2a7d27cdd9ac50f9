// The codec's colour arithmetic, shared by color_forward.wgsl and color.wgsl: the GPU twins of
// `cpu/color.rs`'s pixel_to_ycbcr, pixel_to_rgb, sample_to_plane and plane_to_sample, the same
// integer steps. Planes hold BT.709 full-range YCbCr with 5 fractional bits, Y shifted by −128
// (lossless: whole units).

const LIMIT: i32 = 65536i;
const SHIFT: i32 = 4096i;

// 8-bit RGB to fixed-point YCbCr (Y shifted).
fn rgb_to_ycbcr(r: i32, g: i32, b: i32) -> vec3<i32> {
    let y = ((13933i * r + 46871i * g + 4732i * b + 1024i) >> 11u) - SHIFT;
    let cb = (-7509i * r - 25259i * g + 32768i * b + 1024i) >> 11u;
    let cr = (32768i * r - 29763i * g - 3005i * b + 1024i) >> 11u;
    return vec3<i32>(y, cb, cr);
}

// A plane value (Y shifted) to an 8-bit level.
fn level(v: i32) -> i32 {
    return clamp((v + SHIFT + 16i) >> 5u, 0i, 255i);
}

// Fixed-point YCbCr to 8-bit RGB.
fn ycbcr_to_rgb(v: vec3<i32>) -> vec3<i32> {
    let yy = clamp(v.x, -LIMIT, LIMIT);
    let cb = clamp(v.y, -LIMIT, LIMIT);
    let cr = clamp(v.z, -LIMIT, LIMIT);
    let r = yy + ((25802i * cr + 8192i) >> 14u);
    let g = yy - ((3069i * cb + 7670i * cr + 8192i) >> 14u);
    let b = yy + ((30402i * cb + 8192i) >> 14u);
    return vec3<i32>(level(r), level(g), level(b));
}

// An 8-bit YCbCr sample (luma or chroma, full or limited range) as a lossy plane value.
fn sample_to_plane(v: i32, luma: bool, limited: bool) -> i32 {
    if (!limited) {
        if (luma) {
            return (v << 5u) - SHIFT;
        }
        return (v - 128i) << 5u;
    }
    if (luma) {
        return (((v - 16i) * 9539i + 128i) >> 8u) - SHIFT;
    }
    return ((v - 128i) * 9326i + 128i) >> 8u;
}

// A lossy plane value as an 8-bit sample in full or limited range.
fn plane_to_sample(p0: i32, luma: bool, limited: bool) -> i32 {
    let p = clamp(p0, -LIMIT, LIMIT);
    var v: i32;
    if (!limited) {
        if (luma) {
            v = (p + SHIFT + 16i) >> 5u;
        } else {
            v = ((p + 16i) >> 5u) + 128i;
        }
    } else if (luma) {
        v = max(438i * (p + SHIFT) + 8160i + 16i * 16320i, 0i) / 16320i;
    } else {
        v = max(448i * p + 8160i + 128i * 16320i, 0i) / 16320i;
    }
    return clamp(v, 0i, 255i);
}

// All three of a pixel's samples.
fn samples_to_planes(s: vec3<i32>, limited: bool) -> vec3<i32> {
    return vec3<i32>(
        sample_to_plane(s.x, true, limited),
        sample_to_plane(s.y, false, limited),
        sample_to_plane(s.z, false, limited),
    );
}

fn planes_to_samples(p: vec3<i32>, limited: bool) -> vec3<i32> {
    return vec3<i32>(
        plane_to_sample(p.x, true, limited),
        plane_to_sample(p.y, false, limited),
        plane_to_sample(p.z, false, limited),
    );
}

// JPEG 2000's reversible colour transform and its inverse (whole units, Y shifted).
fn rct(r: i32, g: i32, b: i32) -> vec3<i32> {
    return vec3<i32>(((r + 2i * g + b) >> 2u) - 128i, b - g, r - g);
}

fn rct_inverse(v: vec3<i32>) -> vec3<i32> {
    let yy = clamp(v.x, -LIMIT, LIMIT);
    let cb = clamp(v.y, -LIMIT, LIMIT);
    let cr = clamp(v.z, -LIMIT, LIMIT);
    let gg = yy + 128i - ((cb + cr) >> 2u);
    return vec3<i32>(clamp(cr + gg, 0i, 255i), clamp(gg, 0i, 255i), clamp(cb + gg, 0i, 255i));
}

// Words a plane of n 8-bit samples takes in the planar YCbCr layout (each plane from a word
// boundary: `format::planar_offsets`).
fn plane_words(n: u32) -> u32 {
    return (n + 3u) / 4u;
}

// Words of the planar layout: luma of `pixels` samples, then Cb and Cr of `chroma` samples
// each, every plane from a word boundary.
fn planar_words(pixels: u32, chroma: u32) -> u32 {
    return plane_words(pixels) + 2u * plane_words(chroma);
}

// Where word j of the planar layout is (luma of `pixels` samples, then Cb and Cr of `chroma`
// samples each, every plane from a word boundary): its first sample's index in its plane, the
// plane's samples, and the plane (0 luma, 1 Cb, 2 Cr).
fn planar_place(j: u32, pixels: u32, chroma: u32) -> vec3<u32> {
    let luma_words = plane_words(pixels);
    if (j < luma_words) {
        return vec3<u32>(4u * j, pixels, 0u);
    }
    let k = j - luma_words;
    let chroma_words = plane_words(chroma);
    let plane = k / chroma_words;
    return vec3<u32>(4u * (k - plane * chroma_words), chroma, 1u + plane);
}

fn pack(v: vec3<i32>) -> u32 {
    return u32(v.x) | (u32(v.y) << 8u) | (u32(v.z) << 16u);
}

fn unpack(p: u32) -> vec3<i32> {
    return vec3<i32>(i32(p & 0xffu), i32((p >> 8u) & 0xffu), i32((p >> 16u) & 0xffu));
}
