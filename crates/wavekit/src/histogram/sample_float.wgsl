// f32 samples: bin = floor((x − lower) · scale), scale = bins / (upper − lower) rounded to f32
// on the host, clamped to the last bin (rounding can reach `bins` just below `upper`). NaN is
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
    return min(u32(floor((x - lower) * scale)), params.bins - 1u);
}
