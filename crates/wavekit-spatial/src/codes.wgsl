// Morton codes and the order-preserving float encoding, shared by the build (tree/) and the
// queries (query/); their CPU twin is reference.rs's `morton`. Cells come from the prelude's
// `grid_floor` (exact: no float division, the same cell on every device).
#import device/grid

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
    let q = cells_of(p, lo, hi, 10u);
    return (spread(q.x) << 2u) | (spread(q.y) << 1u) | spread(q.z);
}

// A 63-bit Morton code of p within the bounds (21 bits an axis, clamped), as (low word, high
// word): axis bit i of x at code bit 3i + 2, of y at 3i + 1, of z at 3i (the kd-tree's and
// the octree's codes; CPU twin: reference.rs's `morton63`).
fn morton63(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> vec2<u32> {
    let q = grid_cell(p, lo, hi);
    // Axis bits 0..9 fill code bits 0..29; bit 10 lands at 30 (z), 31 (y), 32 (x); bits
    // 11..20 at 33..62.
    let low = (spread(q.x) << 2u) | (spread(q.y) << 1u) | spread(q.z);
    let b10 = (q >> vec3<u32>(10u)) & vec3<u32>(1u);
    let top = (spread(q.x >> 11u) << 2u) | (spread(q.y >> 11u) << 1u) | spread(q.z >> 11u);
    return vec2<u32>(low | (b10.z << 30u) | (b10.y << 31u), b10.x | (top << 1u));
}

// Leading zeros of a 64-bit word (low, high).
fn clz64(v: vec2<u32>) -> u32 {
    return select(32u + countLeadingZeros(v.x), countLeadingZeros(v.y), v.y != 0u);
}

// Digits (3 code bits, from the top) that two 63-bit codes share: 0 to 21.
fn common_digits(a: vec2<u32>, b: vec2<u32>) -> u32 {
    let x = a ^ b;
    if (x.x == 0u && x.y == 0u) {
        return 21u;
    }
    return (clz64(x) - 1u) / 3u;
}

// Digit d (0 the top) of a 63-bit code: the octant, x in bit 2, y in 1, z in 0.
fn digit(c: vec2<u32>, d: u32) -> u32 {
    let at = 60u - 3u * d;
    if (at >= 32u) {
        return (c.y >> (at - 32u)) & 7u;
    }
    if (at == 30u) {
        return ((c.x >> 30u) & 3u) | ((c.y & 1u) << 2u);
    }
    return (c.x >> at) & 7u;
}

// A point's cell on the finest grid of morton63 (21 bits an axis).
fn grid_cell(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> vec3<u32> {
    return cells_of(p, lo, hi, 21u);
}

// p's cell on a grid of 2^bits cells an axis across the bounds, clamped.
fn cells_of(p: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>, bits: u32) -> vec3<u32> {
    let d = p - lo;
    let e = max(hi - lo, vec3<f32>(1e-30));
    return vec3<u32>(grid_floor(d.x, e.x, bits), grid_floor(d.y, e.y, bits), grid_floor(d.z, e.z, bits));
}

// The cell at `level` (0 the whole bounds, 21 the finest) holding point p, within the bounds,
// widened by a margin on every side so that it holds every point whose code has the same
// first `level` digits whatever the rounding of morton63: (low corner, high corner).
// The cell is found by a float division, which may round to the next cell of the finest
// grid: the margin (two such cells at least) covers it, and the walks call this at every
// node, where the exact grid_floor would cost more.
fn cell_box(p: vec3<f32>, level: u32, lo: vec3<f32>, hi: vec3<f32>) -> array<vec3<f32>, 2> {
    let c = (p - lo) / max(hi - lo, vec3<f32>(1e-30));
    let fine = vec3<u32>(clamp(c * 2097152.0, vec3<f32>(0.0), vec3<f32>(2097151.0)));
    let cell = fine >> vec3<u32>(21u - level);
    let ext = max(hi - lo, vec3<f32>(1e-30));
    let size = ext / f32(1u << level);
    let margin = (abs(lo) + abs(hi) + ext) * (1.0 / 1048576.0);
    let a = lo + vec3<f32>(cell) * size;
    return array<vec3<f32>, 2>(a - margin, a + size + margin);
}
