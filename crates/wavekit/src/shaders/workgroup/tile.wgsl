// Workgroup layer: the tile layout every tiled kernel shares. A tile is WG_SIZE * STEPS * VEC
// contiguous elements; subgroup s takes the contiguous chunk s * size * STEPS * VEC; in step k
// lane i holds the VEC consecutive elements (k * size + i) * VEC + j of its chunk. Loads are
// coalesced per step, and each lane's values are consecutive, so it can combine them
// serially before one subgroup operation per step.
// Needs WG_SIZE, STEPS, VEC, PER_LANE (= STEPS * VEC, prepended so `#unroll` can use it), Lane.

const TILE: u32 = WG_SIZE * PER_LANE;

// The index of a lane's value v (step v / VEC, element v % VEC) in tile `tile`.
fn element(tile: u32, l: Lane, v: u32) -> u32 {
    let k = v / VEC;
    return tile * TILE + (l.sg * STEPS + k) * l.size * VEC + l.lane * VEC + v % VEC;
}
