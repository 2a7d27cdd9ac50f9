// Device-wide select and partition, single pass: each tile counts its survivors with ballots
// (workgroup/compact.wgsl), the counts are carried across subgroups and, by the decoupled
// look-back with fallback, across tiles; each survivor goes to the slot equal to the number
// of survivors before it, so order is kept. With PARTITION, a rejected element goes to
// total + (rejected before it), so both sides keep their order (the total comes from a
// count pass, select/count.wgsl).
//
// Prepended constants: WG_SIZE, STEPS, MIN_WIDTH, LOOKBACK_SPINS, PARTITION (bool).
// Imported by name: `subgroup/api`, `monoid` (u32 add), `select/io` (D, load_data, keep_at).
#import subgroup/api
#import monoid
#import shared/ballot
#import workgroup/scan
#import workgroup/compact
#import device/lookback

struct Params {
    n: u32,
    tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> tile_state: array<atomic<u32>>;
// [0]: survivors (written by the last tile), [1]: survivors counted beforehand (PARTITION).
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;

#import select/io

const TILE: u32 = WG_SIZE * STEPS;

var<workgroup> sh_tile: u32;

fn num_tiles() -> u32 {
    return params.tiles;
}

// Per step: whether the lane's element survives and its slot among the subgroup chunk's
// survivors. Returns the subgroup's survivors before it in the workgroup; sh_wg_total holds
// the tile's survivors afterwards.
fn count_tile(
    tile: u32,
    l: Lane,
    keeps: ptr<function, array<bool, STEPS>>,
    slots: ptr<function, array<u32, STEPS>>,
) -> u32 {
    let base = tile * TILE + l.sg * l.size * STEPS + l.lane;
    for (var k = 0u; k < STEPS; k++) {
        let i = base + k * l.size;
        (*keeps)[k] = i < params.n && keep_at(i);
    }
    var carry = 0u;
    for (var k = 0u; k < STEPS; k++) {
        let s = sg_slot((*keeps)[k], l.lane);
        (*slots)[k] = carry + s.within;
        carry += s.step_total;
    }
    return wg_exclusive_of_subgroups(carry, l);
}

fn tile_fallback(tile: u32, l: Lane) -> u32 {
    var keeps: array<bool, STEPS>;
    var slots: array<u32, STEPS>;
    _ = count_tile(tile, l, &keeps, &slots);
    return sh_wg_total;
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    if (l.local == 0u) {
        sh_tile = atomicAdd(&tile_state[0], 1u);
    }
    let tile = workgroupUniformLoad(&sh_tile);
    if (tile >= params.tiles) {
        return;
    }
    var keeps: array<bool, STEPS>;
    var slots: array<u32, STEPS>;
    let sg_prefix = count_tile(tile, l, &keeps, &slots);
    let aggregate = sh_wg_total;
    if (l.local == 0u) {
        publish(tile, aggregate, false);
    }
    let prefix = lookback(tile, l, true);
    if (l.local == 0u) {
        publish(tile, prefix + aggregate, true);
        if (tile == params.tiles - 1u) {
            counts[0] = prefix + aggregate;
        }
    }
    let before = prefix + sg_prefix;
    let total = counts[1];
    let base = tile * TILE + l.sg * l.size * STEPS + l.lane;
    for (var k = 0u; k < STEPS; k++) {
        let i = base + k * l.size;
        if (i < params.n) {
            let selected_before = before + slots[k];
            if (keeps[k]) {
                store_data(selected_before, load_data(i));
            } else if (PARTITION) {
                store_data(total + (i - selected_before), load_data(i));
            }
        }
    }
}
