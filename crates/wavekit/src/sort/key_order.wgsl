// The order of the sort's keys: a key's sortable bits (unsigned integers in the order of the
// keys, largest first when descending) and a digit of them. Shared by the radix passes
// (sort/keys) and the small sorts (sort/tile_sort, sort/merge).
// Needs: KEY_WORDS (1 or 2), KEY_KIND (0 unsigned, 1 i32, 2 f32 in total order, 3 f32 in
// numpy's order: see sort::reference::sortable), and `params.descending`.

// Bits in the order of the keys (see sort::reference::sortable).
fn sortable(k: vec2<u32>) -> vec2<u32> {
    var t = k;
    if (KEY_KIND == 1u) {
        t = vec2<u32>(k.x ^ 0x80000000u, 0u);
    } else if (KEY_KIND == 2u || KEY_KIND == 3u) {
        var x = k.x;
        // numpy's order: every NaN as the one positive NaN (after +inf), -0 as +0.
        if (KEY_KIND == 3u) {
            if ((x & 0x7fffffffu) > 0x7f800000u) {
                x = 0x7fc00000u;
            } else if (x == 0x80000000u) {
                x = 0u;
            }
        }
        // Total order: negative values with every bit flipped, the others with the sign set.
        t = vec2<u32>(select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u), 0u);
    }
    if (params.descending != 0u) {
        return ~t;
    }
    return t;
}

// `bits` (1 to 8) bits of the sortable key from bit `sh`.
fn digit_at(k: vec2<u32>, sh: u32, bits: u32) -> u32 {
    let s = sortable(k);
    var v = s.x >> (sh & 31u);
    if (sh >= 32u) {
        v = s.y >> (sh - 32u);
    } else if (sh > 0u && KEY_WORDS == 2u) {
        v |= s.y << (32u - sh);
    }
    return v & ((1u << bits) - 1u);
}
