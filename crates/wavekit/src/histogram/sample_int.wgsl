// Integer samples: the bin of `off = x − lower` is floor(off · bins / range) computed exactly
// in 64 bits (off · bins < 2^44), by a restoring division whose quotient has at most 13 bits.
// Needs D (u32 or i32), params, BELOW, ABOVE; LESS(a, b) compares as D.

// off · b as (low, high) words, for b < 2^13.
fn mul_wide(off: u32, b: u32) -> vec2<u32> {
    let hi_part = (off >> 16u) * b;
    let lo_part = (off & 0xffffu) * b;
    let low = (hi_part << 16u) + lo_part;
    let carry = select(0u, 1u, low < lo_part);
    return vec2<u32>(low, (hi_part >> 16u) + carry);
}

fn div_wide(n: vec2<u32>, d: u32) -> u32 {
    var rem = n;
    var q = 0u;
    for (var k = 13i; k >= 0i; k--) {
        let s = u32(k);
        let dl = d << s;
        let dh = select(d >> (32u - s), 0u, s == 0u);
        if (rem.y > dh || (rem.y == dh && rem.x >= dl)) {
            let borrow = select(0u, 1u, rem.x < dl);
            rem = vec2<u32>(rem.x - dl, rem.y - dh - borrow);
            q |= 1u << s;
        }
    }
    return q;
}

fn bin_of(x: D) -> u32 {
    let lower = bitcast<D>(params.lower);
    let upper = bitcast<D>(params.upper);
    if (x < lower) {
        return BELOW;
    }
    if (x >= upper) {
        return ABOVE;
    }
    let off = bitcast<u32>(x) - params.lower;
    return div_wide(mul_wide(off, params.bins), params.scale);
}
