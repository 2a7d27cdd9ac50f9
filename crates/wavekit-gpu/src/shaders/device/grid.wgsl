// A coordinate's cell on a grid of 2^bits cells across an extent, exactly: `grid_floor(d, e,
// bits)` is ⌊d·2^bits / e⌋ of the real numbers d and e (the f32s given), clamped to
// 0 ..= 2^bits − 1, with d the offset from the grid's low corner and e its extent (> 0). It
// takes no float division: GPUs round division loosely (Vulkan allows 2.5 ulp; the H200's
// quotient put one point in 10^5 in the next cell of a 2^21 grid), so a grid taken from
// `d / e` differs between devices and from a CPU twin. Here the quotient is an integer long
// division of the mantissas, the same on every device (twin: `wavekit::sim::device::
// grid_floor`). For tree builds: Morton codes, cells.

// (mantissa, exponent) of a finite f32 x > 0: x = m·2^e, m < 2^24.
fn grid_split(x: f32) -> vec2<i32> {
    let b = bitcast<u32>(x);
    let ex = (b >> 23u) & 0xffu;
    let frac = b & 0x7fffffu;
    if (ex == 0u) {
        return vec2<i32>(i32(frac), -149);
    }
    return vec2<i32>(i32(frac | 0x800000u), i32(ex) - 150);
}

// bits ≤ 24.
fn grid_floor(d: f32, e: f32, bits: u32) -> u32 {
    let top = (1u << bits) - 1u;
    // Not a number, or at or below the low corner: the first cell; at or past the extent: the
    // last.
    if (!(d > 0.0)) {
        return 0u;
    }
    if (d >= e) {
        return top;
    }
    let a = grid_split(d);
    let b = grid_split(e);
    // d / e = (ma / mb)·2^(ea − eb) < 1, so the cell is ⌊ma·2^n / mb⌋ with n = ea − eb + bits;
    // n < 0 leaves less than one cell (ma / mb < 2^24 / mb, and mb ≥ 2^23 unless e is tiny).
    let n = a.y - b.y + i32(bits);
    let ma = u32(a.x);
    let mb = u32(b.x);
    if (n < 0 || mb == 0u) {
        return 0u;
    }
    // Restoring division, the quotient's bits one by one (r < mb < 2^24 throughout), in
    // straight-line steps: no loop, so nothing is spent of a software driver's loop limit
    // (llvmpipe's, ADR-0091) by the walks that call it.
    var s = vec2<u32>(ma % mb, ma / mb);
    let m = u32(n);
    s = grid_step(s, mb, m > 0u);
    s = grid_step(s, mb, m > 1u);
    s = grid_step(s, mb, m > 2u);
    s = grid_step(s, mb, m > 3u);
    s = grid_step(s, mb, m > 4u);
    s = grid_step(s, mb, m > 5u);
    s = grid_step(s, mb, m > 6u);
    s = grid_step(s, mb, m > 7u);
    s = grid_step(s, mb, m > 8u);
    s = grid_step(s, mb, m > 9u);
    s = grid_step(s, mb, m > 10u);
    s = grid_step(s, mb, m > 11u);
    s = grid_step(s, mb, m > 12u);
    s = grid_step(s, mb, m > 13u);
    s = grid_step(s, mb, m > 14u);
    s = grid_step(s, mb, m > 15u);
    s = grid_step(s, mb, m > 16u);
    s = grid_step(s, mb, m > 17u);
    s = grid_step(s, mb, m > 18u);
    s = grid_step(s, mb, m > 19u);
    s = grid_step(s, mb, m > 20u);
    s = grid_step(s, mb, m > 21u);
    s = grid_step(s, mb, m > 22u);
    s = grid_step(s, mb, m > 23u);
    return min(s.y, top);
}

// One step of the division: (remainder, quotient) with the next bit, where `on`.
fn grid_step(s: vec2<u32>, mb: u32, on: bool) -> vec2<u32> {
    let r = s.x << 1u;
    let q = s.y << 1u;
    let t = r >= mb;
    return select(s, vec2<u32>(select(r, r - mb, t), q | u32(t)), on);
}
