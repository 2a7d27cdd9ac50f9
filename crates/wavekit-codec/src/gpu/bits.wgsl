// The block encoders' shared pieces (block_encode.wgsl, block_encode_sg.wgsl): writing bits
// into the importer's workgroup bit string `out: array<atomic<u32>, N>`, and the rate
// control's error, log and key (cpu/block.rs: err2, ilog, keys).

// n bits of v (n ≤ 32), most significant first, at bit `at` of the slot starting at word `o`.
fn put_bits(o: u32, at: u32, v: u32, n: u32) {
    if (n == 0u) {
        return;
    }
    let w = o + at / 32u;
    let off = at % 32u;
    if (off + n <= 32u) {
        atomicOr(&out[w], v << (32u - off - n));
    } else {
        let n1 = 32u - off;
        atomicOr(&out[w], v >> (n - n1));
        atomicOr(&out[w + 1u], v << (32u - (n - n1)));
    }
}

// Twice a magnitude's error in steps with s planes dropped (cpu/block.rs: err2).
fn err2(m: u32, s: u32) -> u32 {
    let t = m >> s;
    var r = 0u;
    if (t != 0u) {
        r = (2u * t + 1u) << s;
    }
    let x = 2u * m + 1u;
    return select(r - x, x - r, x >= r);
}

// log2 in 1/32 octave steps, in integers (cpu/block.rs: ilog).
fn ilog(x: u32) -> u32 {
    let e = 31u - countLeadingZeros(x);
    var frac = 0u;
    if (e >= 5u) {
        frac = (x >> (e - 5u)) & 31u;
    } else {
        frac = (x << (5u - e)) & 31u;
    }
    return 32u * e + frac;
}

// A plane's key: the error it removes, dd (in units of (step/2)², each sample's magnitude
// shifted right by sh first, cpu/block.rs: keys), per byte it costs, dr, as a bin 1 ..=
// KEY_BINS − 1 (1: it removes none; a plane of no bytes that removes some takes the top).
fn plane_key(dd: i32, dr: u32, sh: u32) -> u32 {
    if (dd <= 0i) {
        return 1u;
    }
    if (dr == 0u) {
        return KEY_BINS - 1u;
    }
    let up = ilog(u32(dd)) + 64u * sh + 416u;
    let down = ilog(dr);
    return clamp(select(0u, up - down, up > down), 1u, KEY_BINS - 1u);
}
