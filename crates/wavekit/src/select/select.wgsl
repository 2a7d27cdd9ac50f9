// Device-wide select and partition, single pass. A tile is loaded coalesced into workgroup
// memory; each invocation tests its PER_LANE consecutive elements and counts the survivors;
// one subgroup exclusive sum, the workgroup layer and the decoupled look-back with fallback
// give every survivor its slot (the number of survivors before it), so order is kept. The
// survivors are compacted in workgroup memory and leave coalesced. With PARTITION the
// rejected elements follow at total + (rejected before them), so both sides keep their
// order (the total comes from a count pass, select/count.wgsl).
//
// Prepended constants: WG_SIZE, STEPS, VEC, PER_LANE, MIN_WIDTH, LOOKBACK_SPINS,
// LOOKBACK_BACKOFF, FAULT_SKIP, PARTITION (bool).
// Imported by name: `subgroup/api`, `monoid` (u32 add), `select/io` (D, load_data,
// store_data, keep_value).
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile
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

var<workgroup> sh_tile: u32;

fn num_tiles() -> u32 {
    return params.tiles;
}

var<workgroup> sh_data: array<D, TILE_PADDED>;

// Loads the tile and counts its survivors: per consecutive element of this invocation its
// value, whether it survives, and its slot among the survivors of the subgroup's chunk.
// Returns the subgroup's survivors before it in the workgroup; sh_wg_total holds the tile's
// survivors afterwards.
fn count_tile(
    tile: u32,
    l: Lane,
    vals: ptr<function, array<D, PER_LANE>>,
    keeps: ptr<function, array<bool, PER_LANE>>,
    slots: ptr<function, array<u32, PER_LANE>>,
) -> u32 {
#unroll v PER_LANE
    {
        let i = coalesced(tile, l, {v});
        if (i < params.n) {
            sh_data[pad({v} * WG_SIZE + l.local)] = load_data(i);
        }
    }
#end
    workgroupBarrier();
    var count = 0u;
#unroll j PER_LANE
    {
        let i = tile * TILE + blocked(l, {j});
        var keep = false;
        if (i < params.n) {
            let x = sh_data[pad(blocked(l, {j}))];
            (*vals)[{j}] = x;
            keep = keep_value(x, i);
        }
        (*keeps)[{j}] = keep;
        (*slots)[{j}] = count;
        count += u32(keep);
    }
#end
    let lanes_before = sg_exclusive_scan(count, l.lane, l.size);
#unroll j PER_LANE
    (*slots)[{j}] += lanes_before;
#end
    // Its first barrier also ends every read of sh_data above.
    return wg_exclusive_of_subgroups(sg_last(lanes_before + count, l.size), l);
}

fn tile_fallback(tile: u32, l: Lane) -> u32 {
    var vals: array<D, PER_LANE>;
    var keeps: array<bool, PER_LANE>;
    var slots: array<u32, PER_LANE>;
    _ = count_tile(tile, l, &vals, &keeps, &slots);
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
    var vals: array<D, PER_LANE>;
    var keeps: array<bool, PER_LANE>;
    var slots: array<u32, PER_LANE>;
    let sg_prefix = count_tile(tile, l, &vals, &keeps, &slots);
    let kept = sh_wg_total;
    if (l.local == 0u && tile != 0u) {
        publish(tile, kept, false);
    }
    let prefix = lookback(tile, kept, l, true);
    if (l.local == 0u && tile == params.tiles - 1u) {
        counts[0] = prefix + kept;
    }
    // Compact in workgroup memory: survivors first, then (PARTITION) the rest, in order.
#unroll j PER_LANE
    {
        let slot = sg_prefix + slots[{j}];
        if (keeps[{j}]) {
            sh_data[pad(slot)] = vals[{j}];
        } else if (PARTITION && tile * TILE + blocked(l, {j}) < params.n) {
            sh_data[pad(kept + blocked(l, {j}) - slot)] = vals[{j}];
        }
    }
#end
    workgroupBarrier();
    let in_tile = min(TILE, params.n - tile * TILE);
    // Rejected elements of earlier tiles, for PARTITION.
    let rejected_before = tile * TILE - prefix;
    let total = counts[1];
#unroll v PER_LANE
    {
        let k = {v} * WG_SIZE + l.local;
        if (k < kept) {
            store_data(prefix + k, sh_data[pad(k)]);
        } else if (PARTITION && k < in_tile) {
            store_data(total + rejected_before + (k - kept), sh_data[pad(k)]);
        }
    }
#end
}
