// Morton codes and the order-preserving float encoding, shared by the build (tree/) and the
// queries (query/); their CPU twin is reference.rs's `morton`.

// Floats to u32 in the same order (bounds are kept as atomicMax of these).
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

// The 10 low bits of v spread to every third bit.
fn spread(v: u32) -> u32 {
    var x = v & 0x3ffu;
    x = (x | (x << 16u)) & 0x030000ffu;
    x = (x | (x << 8u)) & 0x0300f00fu;
    x = (x | (x << 4u)) & 0x030c30c3u;
    x = (x | (x << 2u)) & 0x09249249u;
    return x;
}

// A 30-bit Morton code of p within the bounds (clamped: queries outside them get the nearest
// cell).
fn morton(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> u32 {
    let c = (p - lo) / max(hi - lo, vec3<f32>(1e-30));
    let q = vec3<u32>(clamp(c * 1024.0, vec3<f32>(0.0), vec3<f32>(1023.0)));
    return (spread(q.x) << 2u) | (spread(q.y) << 1u) | spread(q.z);
}
