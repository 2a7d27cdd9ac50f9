// Device-wide scan, single pass: tiles claimed in order from an atomic counter, decoupled
// look-back with fallback (device/lookback.wgsl). A tile is loaded coalesced into workgroup
// memory; each invocation scans its PER_LANE consecutive elements serially, one subgroup
// exclusive scan combines the invocations of a subgroup, the workgroup layer the subgroups,
// the look-back the tiles; results leave through workgroup memory, coalesced again
// (workgroup/tile.wgsl, "blocked").
//
// SELF_CLEAR (the single pass), where the host asks for it (`params.groups` non-zero: chunks
// of few tiles): the last workgroup of a dispatch to finish sets the look-back state back to
// clear for the next run, so that no clearing dispatch comes before it (ADR-0087). Every
// workgroup, a tile of its own or not, counts itself finished as its very last act (after a
// storage barrier: a device-scope release of its descriptors); the one whose count completes
// the grid (`params.groups`) knows that no other will touch the state again in this dispatch,
// and zeroes the tile counter, the count and every word of every descriptor (ADR-0089: the
// first word alone was not enough). The statistics words are left to accumulate.
//
// Prepended constants: WG_SIZE, STEPS, VEC, PER_LANE, MIN_WIDTH, LOOKBACK_SPINS,
// LOOKBACK_BACKOFF, FAULT_SKIP, INCLUSIVE (bool), DIRECT (bool), QUADS (PER_LANE / 4), PASS (0: single pass, 1: aggregates only,
// 2: scan from published aggregates), SELF_CLEAR (bool, single pass only).
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
    // 1 for the first (or only) chunk of the input; later chunks start from the carry.
    first_chunk: u32,
    // Workgroups in the dispatch's grid, whose last clears the state (SELF_CLEAR); 0: a
    // dispatch clears it before.
    groups: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> tile_state: array<atomic<u32>>;
// Inputs larger than one binding are scanned in chunks: carry_in holds the inclusive total of
// the chunks before (as bits), carry_out receives it for the next chunk.
@group(0) @binding(5) var<storage, read> carry_in: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> carry_out: array<vec4<u32>>;

#import scan/io

var<workgroup> sh_tile: u32;

fn num_tiles() -> u32 {
    return params.tiles;
}

// Only the blocked layout keeps the tile here.
const SH_DATA_LEN: u32 = select(TILE_PADDED, 1u, DIRECT);
var<workgroup> sh_data: array<T, SH_DATA_LEN>;

// Loads and scans the tile: afterwards sh_data holds, in tile order, the inclusive (or, with
// !INCLUSIVE, exclusive) scan of the tile on its own, and sh_wg_total the tile's aggregate.
// The values live in workgroup memory, not in registers, while the look-back runs: fewer
// registers, more workgroups in flight to hide its round trips.
fn scan_tile(tile: u32, l: Lane) {
#unroll v PER_LANE
    {
        let i = coalesced(tile, l, {v});
        var x = identity();
        if (i < params.n) {
            x = load(i);
        }
        sh_data[pad({v} * WG_SIZE + l.local)] = x;
    }
#end
    workgroupBarrier();
    var vals: array<T, PER_LANE>;
    var run = identity();
#unroll j PER_LANE
    {
        let before = run;
        run = combine(run, sh_data[pad(blocked(l, {j}))]);
        vals[{j}] = select(before, run, INCLUSIVE);
    }
#end
    let lanes_before = sg_exclusive_scan(run, l.lane, l.size);
    let sg_total = sg_last(combine(lanes_before, run), l.size);
    // Its first barrier also ends every read of sh_data above.
    let p = combine(wg_exclusive_of_subgroups(sg_total, l), lanes_before);
    // Each invocation rewrites only the slots it read.
#unroll j PER_LANE
    sh_data[pad(blocked(l, {j}))] = combine(p, vals[{j}]);
#end
}

// The aggregate of a predecessor tile, from its input (look-back fallback). It must leave
// sh_data alone (it holds this tile's results), so it reads the input directly: subgroup s
// takes chunk s of the tile, lane i element k * size + i of it in step k, one subgroup scan
// per step; slow, and only taken when a predecessor has published nothing for a long time.
fn tile_fallback(tile: u32, l: Lane) -> T {
    var carry = identity();
    for (var k = 0u; k < PER_LANE; k++) {
        let i = tile * TILE + (l.sg * PER_LANE + k) * l.size + l.lane;
        var x = identity();
        if (i < params.n) {
            x = load(i);
        }
        carry = combine(carry, sg_last(sg_inclusive(x, l.lane, l.size), l.size));
    }
    _ = wg_exclusive_of_subgroups(carry, l);
    return sh_wg_total;
}

// Direct layout (DIRECT): no trip through workgroup memory. Subgroup s takes the chunk of
// size * QUADS quads (4 consecutive elements) at s * size * QUADS of the tile; in step k lane
// i holds quad k * size + i of it, loaded at once (`load_quad`: one 16-byte load for one-word
// elements), scanned serially, then one subgroup scan per step carries across the lanes and
// the steps. The values stay in registers (`dvals`), the lane's offset per step in `doffs`.
var<private> dvals: array<T, PER_LANE>;
var<private> doffs: array<T, QUADS>;

fn quad_of(tile: u32, l: Lane, k: u32) -> u32 {
    return tile * (TILE / 4u) + (l.sg * QUADS + k) * l.size + l.lane;
}

// The quad's four elements, identity past the end.
fn load_quad_checked(q: u32) -> array<T, 4> {
    if (q * 4u + 3u < params.n) {
        return load_quad(q);
    }
    // Constant indices only (unrolled): an array indexed by a variable would be kept in
    // memory rather than in registers.
    var x = array<T, 4>(identity(), identity(), identity(), identity());
#unroll j 4
    if (q * 4u + {j} < params.n) {
        x[{j}] = load(q * 4u + {j});
    }
#end
    return x;
}

// Issues the loads of the lane's quads into dvals.
fn load_tile_direct(tile: u32, l: Lane) {
    // A whole tile (all but the last) loads its quads without a bound check each, in a copy
    // of the loop of its own, which has no branch at all (ADR-0036: the checks had cost
    // registers). A chunk holds at most 2^31 elements, so (tile + 1) * TILE cannot wrap.
    if ((tile + 1u) * TILE <= params.n) {
#unroll k QUADS
        {
            let x = load_quad(quad_of(tile, l, {k}));
#unroll j 4
            dvals[{k} * 4u + {j}] = x[{j}];
#end
        }
#end
        return;
    }
#unroll k QUADS
    {
        let x = load_quad_checked(quad_of(tile, l, {k}));
#unroll j 4
        dvals[{k} * 4u + {j}] = x[{j}];
#end
    }
#end
}

// Scans the loaded tile in dvals/doffs; leaves the tile's aggregate in sh_wg_total and returns
// the prefix of this subgroup within the tile.
fn scan_tile_direct(l: Lane) -> T {
    var totals: array<T, QUADS>;
#unroll k QUADS
    {
        var run = identity();
#unroll j 4
        {
            let before = run;
            run = combine(run, dvals[{k} * 4u + {j}]);
            dvals[{k} * 4u + {j}] = select(before, run, INCLUSIVE);
        }
#end
        totals[{k}] = run;
    }
#end
    var carry = identity();
#unroll k QUADS
    {
        let incl = sg_inclusive(totals[{k}], l.lane, l.size);
        doffs[{k}] = combine(carry, sg_exclusive(totals[{k}], incl, l.lane));
        carry = combine(carry, sg_last(incl, l.size));
    }
#end
    return wg_exclusive_of_subgroups(carry, l);
}

fn store_tile_direct(tile: u32, l: Lane, p: T) {
    // A whole tile stores its quads unchecked, as it loaded them.
    if ((tile + 1u) * TILE <= params.n) {
#unroll k QUADS
        {
            let q = quad_of(tile, l, {k});
            let o = combine(p, doffs[{k}]);
            var y: array<T, 4>;
#unroll j 4
            y[{j}] = combine(o, dvals[{k} * 4u + {j}]);
#end
            store_quad(q, y);
        }
#end
        return;
    }
#unroll k QUADS
    {
        let q = quad_of(tile, l, {k});
        let o = combine(p, doffs[{k}]);
        var y: array<T, 4>;
#unroll j 4
        y[{j}] = combine(o, dvals[{k} * 4u + {j}]);
#end
        if (q * 4u + 3u < params.n) {
            store_quad(q, y);
        } else {
#unroll j 4
            if (q * 4u + {j} < params.n) {
                store(q * 4u + {j}, y[{j}]);
            }
#end
        }
    }
#end
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    scan_workgroup(l);
    if (SELF_CLEAR && params.groups != 0u) {
        _ = clear_when_last(l, params.groups, params.tiles * select(1u, 2u, SPLIT_REGIONS));
    }
}

fn scan_workgroup(l: Lane) {
    if (l.local == 0u) {
        sh_tile = atomicAdd(&tile_state[select(0u, 1u, PASS == 2u)], 1u);
    }
    let tile = workgroupUniformLoad(&sh_tile);
    if (tile >= params.tiles) {
        return;
    }
    var sg_prefix = identity();
    if (DIRECT) {
        load_tile_direct(tile, l);
        sg_prefix = scan_tile_direct(l);
    } else {
        scan_tile(tile, l);
    }
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
    var carry = identity();
    if (params.first_chunk == 0u) {
        carry = from_bits(carry_in[0]);
    }
    if (l.local == 0u && tile == params.tiles - 1u) {
        carry_out[0] = to_bits(combine(carry, combine(prefix, aggregate)));
    }
    let p = combine(carry, prefix);
    if (DIRECT) {
        store_tile_direct(tile, l, combine(p, sg_prefix));
        return;
    }
    if (tile == 0u) {
        // The look-back has barriers, but not for tile 0.
        workgroupBarrier();
    }
#unroll v PER_LANE
    {
        let i = coalesced(tile, l, {v});
        if (i < params.n) {
            store(i, combine(p, sh_data[pad({v} * WG_SIZE + l.local)]));
        }
    }
#end
}
