// f32 samples: bin = floor((x − lower) · scale), scale = bins / (upper − lower) rounded to f32
// on the host (a range past f32's largest: floor((x/4 − lower/4) · 4 scale)), clamped to the last bin (rounding can reach `bins` just below `upper`). NaN is
// counted apart. The comparisons are made on the bits (WGSL lets a compiler assume no NaN or
// infinity in float arithmetic): NaN by its exponent and mantissa, order by the sortable form
// (−0 taken as +0, as IEEE compares them). Needs params, BELOW, ABOVE, NAN.
alias D = f32;

fn ordered(bits: u32) -> u32 {
    let b = select(bits, 0u, bits == 0x80000000u);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn bin_of(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return NAN;
    }
    let key = ordered(bits);
    if (key < ordered(params.lower)) {
        return BELOW;
    }
    if (key >= ordered(params.upper)) {
        return ABOVE;
    }
    let lower = bitcast<f32>(params.lower);
    let scale = bitcast<f32>(params.scale);
    // A range wider than f32's largest: both scaled by `pre` (1/4) first, so that x − lower
    // cannot overflow (reference.rs: float_bin_form).
    var off = x - lower;
    if (params.ratio != 0u) {
        let pre = bitcast<f32>(params.ratio);
        off = x * pre - lower * pre;
    }
    return min(u32(floor(off * scale)), params.bins - 1u);
}
