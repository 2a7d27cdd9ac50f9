// Ballot helpers that never assume a subgroup width: a ballot is four 32-bit words
// (up to 128 lanes), and every word is counted.

// Number of set bits in a whole ballot.
fn ballot_count(b: vec4<u32>) -> u32 {
    return countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);
}

// Mask of the lanes strictly below `lane` (0..128), as a ballot. Written without indexing a
// vector by a variable, which would keep it in memory rather than in registers.
fn lanes_below(lane: u32) -> vec4<u32> {
    let lo = vec4<u32>(0u, 32u, 64u, 96u);
    let full = vec4<u32>(lane) >= lo + vec4<u32>(32u);
    let part = (vec4<u32>(1u) << ((vec4<u32>(lane) - lo) & vec4<u32>(31u))) - vec4<u32>(1u);
    let none = vec4<u32>(lane) <= lo;
    return select(select(part, vec4<u32>(0xffffffffu), full), vec4<u32>(0u), none);
}

// Number of set bits of `b` in lanes strictly below `lane`: the exclusive prefix count
// a compaction uses for a survivor's slot within its subgroup.
fn ballot_count_below(b: vec4<u32>, lane: u32) -> u32 {
    return ballot_count(b & lanes_below(lane));
}

// The highest lane whose bit is set, or -1 for an empty ballot.
fn ballot_last(b: vec4<u32>) -> i32 {
    if (b.w != 0u) {
        return 96i + i32(firstLeadingBit(b.w));
    }
    if (b.z != 0u) {
        return 64i + i32(firstLeadingBit(b.z));
    }
    if (b.y != 0u) {
        return 32i + i32(firstLeadingBit(b.y));
    }
    if (b.x != 0u) {
        return i32(firstLeadingBit(b.x));
    }
    return -1i;
}

// The lowest lane whose bit is set, or -1 for an empty ballot.
fn ballot_first(b: vec4<u32>) -> i32 {
    if (b.x != 0u) {
        return i32(firstTrailingBit(b.x));
    }
    if (b.y != 0u) {
        return 32i + i32(firstTrailingBit(b.y));
    }
    if (b.z != 0u) {
        return 64i + i32(firstTrailingBit(b.z));
    }
    if (b.w != 0u) {
        return 96i + i32(firstTrailingBit(b.w));
    }
    return -1i;
}
