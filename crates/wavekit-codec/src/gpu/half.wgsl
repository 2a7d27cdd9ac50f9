// 16-bit coefficients (the block coders' C16), two to a word: element e in word e / 2, its low
// half where e is even, as `wavekit_dwt::JointDwt::with_16_bit_coefficients` stores them.

// Element e's half of its word w, sign-extended (arithmetic shifts of i32).
fn half16(w: i32, e: u32) -> i32 {
    return select(w << 16u, w, (e & 1u) == 1u) >> 16u;
}

// The word of two elements (each within −32768 ..= 32767), the even one in the low half.
fn pair16(even: i32, odd: i32) -> i32 {
    return (even & 0xffffi) | (odd << 16u);
}
