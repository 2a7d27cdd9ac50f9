// Ballot helpers that never assume a subgroup width: a ballot is four 32-bit words
// (up to 128 lanes), and every word is counted.

// Number of set bits in a whole ballot.
fn ballot_count(b: vec4<u32>) -> u32 {
    return countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);
}

// Mask of the lanes strictly below `lane` (0..128), as a ballot.
fn lanes_below(lane: u32) -> vec4<u32> {
    var m = vec4<u32>(0u);
    for (var w = 0u; w < 4u; w++) {
        let lo = w * 32u;
        if (lane >= lo + 32u) {
            m[w] = 0xffffffffu;
        } else if (lane > lo) {
            m[w] = (1u << (lane - lo)) - 1u;
        }
    }
    return m;
}

// Number of set bits of `b` in lanes strictly below `lane`: the exclusive prefix count
// a compaction uses for a survivor's slot within its subgroup.
fn ballot_count_below(b: vec4<u32>, lane: u32) -> u32 {
    return ballot_count(b & lanes_below(lane));
}

// The highest lane whose bit is set, or -1 for an empty ballot.
fn ballot_last(b: vec4<u32>) -> i32 {
    for (var w = 3i; w >= 0i; w--) {
        if (b[w] != 0u) {
            return w * 32i + i32(firstLeadingBit(b[w]));
        }
    }
    return -1i;
}
