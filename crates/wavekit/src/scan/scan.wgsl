// Device-wide scan, single pass: tiles claimed in order from an atomic counter, decoupled
// look-back with fallback (device/lookback.wgsl). Each tile is WG_SIZE * STEPS * VEC elements;
// each subgroup takes a contiguous chunk of size * STEPS * VEC, and in step k lane i holds
// the VEC consecutive elements chunk + (k * size + i) * VEC + j. A lane scans its VEC values
// serially, one subgroup scan combines the lanes, and a carry runs across steps: one subgroup
// scan per VEC elements.
//
// Prepended constants: WG_SIZE, STEPS, VEC, MIN_WIDTH, LOOKBACK_SPINS, INCLUSIVE (bool),
// PASS (0: single pass, 1: aggregates only, 2: scan from published aggregates).
// Imported by name: `subgroup/api` (hw or emu), `monoid` (T, identity, combine, hooks),
// `scan/io` (load, store: separate buffers or in place).
#import subgroup/api
#import monoid
#import shared/ballot
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

#import scan/io

var<workgroup> sh_tile: u32;

fn num_tiles() -> u32 {
    return params.tiles;
}

// Scans the tile within each subgroup chunk. `vals` gets the inclusive (or, with !INCLUSIVE,
// exclusive) scan of each value within its subgroup's chunk; returns the subgroup's exclusive
// prefix within the workgroup; sh_wg_total holds the tile's aggregate afterwards.
fn scan_tile(tile: u32, l: Lane, vals: ptr<function, array<T, PER_LANE>>) -> T {
#unroll v PER_LANE
    {
        let i = element(tile, l, {v});
        var x = identity();
        if (i < params.n) {
            x = load(i);
        }
        (*vals)[{v}] = x;
    }
#end
    var carry = identity();
#unroll k STEPS
    {
        // Serial scan of the lane's VEC consecutive values.
        var run = identity();
#unroll j VEC
        {
            let before = run;
            run = combine(run, (*vals)[{k} * VEC + {j}]);
            (*vals)[{k} * VEC + {j}] = select(before, run, INCLUSIVE);
        }
#end
        // The lanes before this one, and the whole step.
        let lanes_before = sg_exclusive_scan(run, l.lane, l.size);
        let step_total = sg_last(combine(lanes_before, run), l.size);
        let p = combine(carry, lanes_before);
#unroll j VEC
        (*vals)[{k} * VEC + {j}] = combine(p, (*vals)[{k} * VEC + {j}]);
#end
        carry = combine(carry, step_total);
    }
#end
    return wg_exclusive_of_subgroups(carry, l);
}

// The aggregate of a predecessor tile, from its input (look-back fallback).
fn tile_fallback(tile: u32, l: Lane) -> T {
    var vals: array<T, PER_LANE>;
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
    var vals: array<T, PER_LANE>;
    let sg_prefix = scan_tile(tile, l, &vals);
    let aggregate = sh_wg_total;
    // Tile 0's aggregate is its inclusive prefix, published by the look-back; the two-pass
    // mode needs every aggregate, tile 0's included.
    if (PASS != 2u && l.local == 0u && (tile != 0u || PASS == 1u)) {
        publish(tile, aggregate, false);
    }
    if (PASS == 1u) {
        return;
    }
    let prefix = lookback(tile, aggregate, l, PASS == 0u);
    let p = combine(prefix, sg_prefix);
#unroll v PER_LANE
    {
        let i = element(tile, l, {v});
        if (i < params.n) {
            store(i, combine(p, vals[{v}]));
        }
    }
#end
}
