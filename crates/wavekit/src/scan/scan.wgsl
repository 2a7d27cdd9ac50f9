// Device-wide scan, single pass: tiles claimed in order from an atomic counter, decoupled
// look-back with fallback (device/lookback.wgsl). Each tile is WG_SIZE * STEPS elements; each
// subgroup takes a contiguous chunk of size * STEPS, and in step k lane i holds element
// chunk + k * size + i, so every load and store is coalesced and each step is one subgroup
// scan plus a carry.
//
// Prepended constants: WG_SIZE, STEPS, MIN_WIDTH, T_WORDS, LOOKBACK_SPINS, INCLUSIVE (bool),
// PASS (0: single pass, 1: aggregates only, 2: scan from published aggregates).
// Imported by name: `subgroup/api` (hw or emu), `monoid` (T, identity, combine, hooks),
// `scan/io` (load, store: separate buffers or in place).
#import subgroup/api
#import monoid
#import shared/ballot
#import workgroup/scan
#import device/lookback

struct Params {
    n: u32,
    tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> tile_state: array<atomic<u32>>;

#import scan/io

const TILE: u32 = WG_SIZE * STEPS;

var<workgroup> sh_tile: u32;

fn num_tiles() -> u32 {
    return params.tiles;
}

// Scans the tile within each subgroup chunk. `vals` gets, per step, the inclusive (or, with
// !INCLUSIVE, exclusive) scan within the subgroup's chunk; returns the subgroup's exclusive
// prefix within the workgroup; sh_wg_total holds the tile's aggregate afterwards.
fn scan_tile(tile: u32, l: Lane, vals: ptr<function, array<T, STEPS>>) -> T {
    let base = tile * TILE + l.sg * l.size * STEPS + l.lane;
    for (var k = 0u; k < STEPS; k++) {
        let i = base + k * l.size;
        var x = identity();
        if (i < params.n) {
            x = load(i);
        }
        (*vals)[k] = x;
    }
    var carry = identity();
    for (var k = 0u; k < STEPS; k++) {
        let x = (*vals)[k];
        let incl = sg_inclusive(x, l.lane, l.size);
        if (INCLUSIVE) {
            (*vals)[k] = combine(carry, incl);
        } else {
            (*vals)[k] = combine(carry, sg_exclusive(x, incl, l.lane));
        }
        carry = combine(carry, sg_last(incl, l.size));
    }
    return wg_exclusive_of_subgroups(carry, l);
}

// The aggregate of a predecessor tile, from its input (look-back fallback).
fn tile_fallback(tile: u32, l: Lane) -> T {
    var vals: array<T, STEPS>;
    scan_tile(tile, l, &vals);
    return sh_wg_total;
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    if (l.local == 0u) {
        sh_tile = atomicAdd(&tile_state[select(0u, 1u, PASS == 2u)], 1u);
    }
    let tile = workgroupUniformLoad(&sh_tile);
    if (tile >= params.tiles) {
        return;
    }
    var vals: array<T, STEPS>;
    let sg_prefix = scan_tile(tile, l, &vals);
    let aggregate = sh_wg_total;
    if (PASS != 2u && l.local == 0u) {
        publish(tile, aggregate, false);
    }
    if (PASS == 1u) {
        return;
    }
    let prefix = lookback(tile, l, PASS == 0u);
    if (l.local == 0u) {
        publish(tile, combine(prefix, aggregate), true);
    }
    let p = combine(prefix, sg_prefix);
    let base = tile * TILE + l.sg * l.size * STEPS + l.lane;
    for (var k = 0u; k < STEPS; k++) {
        let i = base + k * l.size;
        if (i < params.n) {
            store(i, combine(p, vals[k]));
        }
    }
}
