// Workgroup layer: the tile layouts the tiled kernels share. A tile is WG_SIZE * PER_LANE
// contiguous elements.
//
// Blocked through workgroup memory (scan): invocations load and store coalesced
// (`coalesced`: step v covers WG_SIZE consecutive elements) through a padded workgroup array,
// and in between invocation t holds the PER_LANE consecutive elements `blocked(t, j)`, so it
// combines them serially and needs one subgroup operation per tile. Subgroups are laid out
// linearly (ADR-0004), so the invocations of a subgroup hold a contiguous chunk, in order.
//
// Direct (reduce, the partition's count): subgroup s takes the chunk s * size * PER_LANE; in step
// k lane i holds the VEC consecutive elements (k * size + i) * VEC + j of it (`element`).
// (Select holds one element per lane and step instead: `element_lanes`, select/select.wgsl.)
// Needs WG_SIZE, STEPS, VEC, PER_LANE (prepended so `#unroll` can use it), Lane.

const TILE: u32 = WG_SIZE * PER_LANE;
// One padding word per 32 keeps both access patterns free of bank conflicts.
const TILE_PADDED: u32 = TILE + TILE / 32u;

fn pad(i: u32) -> u32 {
    return i + i / 32u;
}

// Global index of this invocation's element in coalesced step v.
fn coalesced(tile: u32, l: Lane, v: u32) -> u32 {
    return tile * TILE + v * WG_SIZE + l.local;
}

// Position in the tile of this invocation's j-th consecutive element.
fn blocked(l: Lane, j: u32) -> u32 {
    return l.local * PER_LANE + j;
}

// The index of a lane's value v (step v / VEC, element v % VEC) in tile `tile`.
fn element(tile: u32, l: Lane, v: u32) -> u32 {
    let k = v / VEC;
    return tile * TILE + (l.sg * STEPS + k) * l.size * VEC + l.lane * VEC + v % VEC;
}
