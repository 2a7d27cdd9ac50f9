// Integer samples: the bin of `off = x − lower` is floor(off · bins / range), exact: an f32
// estimate checked and corrected against 64-bit products (off · bins < 2^44).
// Needs D (u32 or i32), params, BELOW, ABOVE; LESS(a, b) compares as D.

// off · b as (low, high) words, for b < 2^13.
fn mul_wide(off: u32, b: u32) -> vec2<u32> {
    let hi_part = (off >> 16u) * b;
    let lo_part = (off & 0xffffu) * b;
    let low = (hi_part << 16u) + lo_part;
    let carry = select(0u, 1u, low < lo_part);
    return vec2<u32>(low, (hi_part >> 16u) + carry);
}

// a ≤ b for (low, high) pairs.
fn le_wide(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x <= b.x);
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
    let num = mul_wide(off, params.bins);
    // An f32 estimate (off from the exact quotient by less than one), then corrected so that
    // q · range ≤ off · bins < (q + 1) · range exactly.
    var q = min(u32(f32(off) * bitcast<f32>(params.ratio)), params.bins - 1u);
    if (!le_wide(mul_wide(params.scale, q), num)) {
        q -= 1u;
    } else if (q + 1u < params.bins && le_wide(mul_wide(params.scale, q + 1u), num)) {
        q += 1u;
    }
    return q;
}
