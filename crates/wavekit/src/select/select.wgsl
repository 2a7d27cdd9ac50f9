// Device-wide select and partition, single pass: each tile counts its survivors (a lane counts
// its VEC consecutive values, a subgroup exclusive sum gives the survivors of the lanes below),
// the counts are carried across subgroups and, by the decoupled look-back with fallback, across tiles; each survivor goes to the slot equal to the number
// of survivors before it, so order is kept. With PARTITION, a rejected element goes to
// total + (rejected before it), so both sides keep their order (the total comes from a
// count pass, select/count.wgsl).
//
// Inputs past one storage binding are dispatched in chunks (host-known element offsets); a
// chunk starts from the survivors of the chunks before it, a carry word in `counts` written
// by the previous chunk's last tile (two words used in turn, so no tile of a chunk can read
// the word its chunk's last tile writes). Outputs past one binding go to a second window.
//
// How survivors are stored (SCATTER, ADR-024): select keeps its tile in registers through
// the look-back and stores each survivor from there to its slot; partition compacts the tile
// in workgroup memory first (survivors, then the rest) and stores it coalesced.
//
// Prepended constants: WG_SIZE, STEPS, VEC (4), MIN_WIDTH, LOOKBACK_SPINS, PARTITION (bool),
// SCATTER (bool).
// Imported by name: `subgroup/api`, `monoid` (u32 add), `select/io` (D, load_data,
// store_data, keep_value, load_quad, keep_quad, kept_in_quad).
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile
#import device/lookback

struct Params {
    // Elements and tiles of this chunk.
    n: u32,
    tiles: u32,
    // Items per workgroup of the caller's indirect dispatch over the survivors.
    indirect_items: u32,
    // Index of the chunk's first element in the whole input.
    chunk_start: u32,
    // Which carry word (counts[5 + carry_in]) holds the survivors of earlier chunks; this
    // chunk's last tile writes the other.
    carry_in: u32,
    // Output elements in the first window (`dst`); the rest go to `dst_hi`.
    window: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> tile_state: array<atomic<u32>>;
// [0]: survivors (written by the last tile), [1]: survivors counted beforehand (PARTITION),
// [2..5): indirect dispatch arguments (ceil(survivors / indirect_items), 1, 1), [5..7): the
// carry words of chunked inputs.
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
// The output past the first window (a placeholder when it fits one binding).
@group(0) @binding(8) var<storage, read_write> dst_hi: array<D>;

fn index_base() -> u32 {
    return params.chunk_start;
}

fn store_out(pos: u32, v: D) {
    if (pos < params.window) {
        store_data(pos, v);
    } else {
        dst_hi[pos - params.window] = v;
    }
}

#import select/io

var<workgroup> sh_tile: u32;
var<workgroup> sh_total: u32;
var<workgroup> sh_carry: u32;
// Only the compaction through workgroup memory (!SCATTER) keeps the tile here.
var<workgroup> sh_data: array<D, select(TILE_PADDED, 1u, SCATTER)>;

fn num_tiles() -> u32 {
    return params.tiles;
}

// The lane's values, whether each survives, and its slot among the subgroup chunk's
// survivors: private arrays indexed only by constants (unrolled), so they stay in registers.
// Without SCATTER a fallback (`tile_fallback`) overwrites them, but by then the tile is
// compacted in sh_data; with SCATTER the fallback counts from loads of its own.
var<private> vals: array<D, PER_LANE>;
var<private> keeps: array<bool, PER_LANE>;
var<private> slots: array<u32, PER_LANE>;

// Fills vals, keeps and slots. Returns the subgroup's survivors before it in the workgroup;
// sh_wg_total holds the tile's survivors afterwards.
fn count_tile(tile: u32, l: Lane) -> u32 {
    // VEC is 4: in each step a lane loads one quad, with one 16-byte load where it is whole.
    // Every load is issued before any predicate looks at a value (a predicate between them
    // kept the next step's load from starting: measured on the scan, ADR-021).
#unroll k STEPS
    {
        let i0 = element(tile, l, {k} * 4u);
        var x: vec4<D>;
        if (i0 + 3u < params.n) {
            x = load_quad(i0 / 4u);
        } else {
            // Constant indices only (unrolled): a vector indexed by a variable would be kept
            // in memory rather than in registers, on the fast path too.
#unroll j 4
            if (i0 + {j} < params.n) {
                x[{j}] = load_data(i0 + {j});
            }
#end
        }
#unroll j 4
        vals[{k} * 4u + {j}] = x[{j}];
#end
    }
#end
#unroll k STEPS
    {
        let i0 = element(tile, l, {k} * 4u);
        let x = vec4<D>(vals[{k} * 4u], vals[{k} * 4u + 1u], vals[{k} * 4u + 2u], vals[{k} * 4u + 3u]);
        var keep = vec4<bool>(false);
        if (i0 + 3u < params.n) {
            keep = keep_quad(x, i0 / 4u);
        } else {
#unroll j 4
            if (i0 + {j} < params.n) {
                keep[{j}] = keep_value(x[{j}], i0 + {j});
            }
#end
        }
#unroll j 4
        keeps[{k} * 4u + {j}] = keep[{j}];
#end
    }
#end
    var carry = 0u;
#unroll k STEPS
    {
        var count = 0u;
#unroll j VEC
        {
            slots[{k} * VEC + {j}] = count;
            count += u32(keeps[{k} * VEC + {j}]);
        }
#end
        let lanes_before = sg_exclusive_scan(count, l.lane, l.size);
        let base = carry + lanes_before;
#unroll j VEC
        slots[{k} * VEC + {j}] += base;
#end
        carry += sg_last(lanes_before + count, l.size);
    }
#end
    return wg_exclusive_of_subgroups(carry, l);
}

// The survivors of a predecessor tile (look-back fallback). With SCATTER it must leave the
// private arrays alone (they hold this tile until it is stored): it counts from its own
// loads, a quad at a time (`kept_in_quad`, as the partition's count kernel).
fn tile_fallback(tile: u32, l: Lane) -> u32 {
    if (!SCATTER) {
        _ = count_tile(tile, l);
        return sh_wg_total;
    }
    var count = 0u;
    for (var k = 0u; k < STEPS; k++) {
        count += kept_in_quad(element(tile, l, k * 4u), params.n);
    }
    _ = wg_exclusive_of_subgroups(sg_reduce(count, l.lane, l.size), l);
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
    let sg_prefix = count_tile(tile, l);
    let kept = sh_wg_total;
    // Compact in workgroup memory before the look-back, so the values need no registers while
    // it runs: the tile's survivors at their slots in the tile, then (PARTITION) the rest.
    // With SCATTER they stay in registers and go straight to their output slots afterwards.
#unroll v PER_LANE
    if (!SCATTER) {
        let i = element(tile, l, {v});
        if (i < params.n) {
            let slot = sg_prefix + slots[{v}];
            if (keeps[{v}]) {
                sh_data[pad(slot)] = vals[{v}];
            } else if (PARTITION) {
                sh_data[pad(kept + (i - tile * TILE) - slot)] = vals[{v}];
            }
        }
    }
#end
    if (l.local == 0u && tile != 0u) {
        publish(tile, kept, false);
    }
    // One invocation reads the survivors' total (PARTITION) and shares it after the barrier
    // below, rather than every invocation loading the same word.
    if (l.local == 0u) {
        sh_carry = counts[5u + params.carry_in];
        if (PARTITION) {
            sh_total = counts[1];
        }
    }
    var prefix = 0u;
    if (!EXPERIMENT_NO_LOOKBACK) {
        prefix = lookback(tile, kept, l, true);
    }
    if (tile == 0u || EXPERIMENT_NO_LOOKBACK) {
        // The look-back has barriers, but not for tile 0.
        workgroupBarrier();
    }
    // Read after the look-back's barriers (or the one above).
    let carry = sh_carry;
    if (l.local == 0u && tile == params.tiles - 1u) {
        let kept_all = carry + prefix + kept;
        counts[0] = kept_all;
        counts[5u + 1u - params.carry_in] = kept_all;
        counts[2] = (kept_all + params.indirect_items - 1u) / params.indirect_items;
        counts[3] = 1u;
        counts[4] = 1u;
    }
    let in_tile = min(TILE, params.n - tile * TILE);
    // Rejected elements of earlier chunks and tiles, for PARTITION.
    let rejected_before = (params.chunk_start - carry) + (tile * TILE - prefix);
    let total = sh_total;
    if (SCATTER) {
#unroll v PER_LANE
        {
            let i = element(tile, l, {v});
            if (i < params.n) {
                let slot = sg_prefix + slots[{v}];
                if (keeps[{v}]) {
                    store_out(carry + prefix + slot, vals[{v}]);
                } else if (PARTITION) {
                    store_out(total + rejected_before + (i - tile * TILE) - slot, vals[{v}]);
                }
            }
        }
#end
        return;
    }
#unroll v PER_LANE
    {
        let k = {v} * WG_SIZE + l.local;
        if (k < kept) {
            store_out(carry + prefix + k, sh_data[pad(k)]);
        } else if (PARTITION && k < in_tile) {
            store_out(total + rejected_before + (k - kept), sh_data[pad(k)]);
        }
    }
#end
}
