// Device-wide select and partition, single pass. In step v lane i of subgroup s holds element
// (s * PER_LANE + v) * size + i of the tile (ADR-033): one 4-byte load per step, coalesced
// across the subgroup; one ballot per step ranks the step's survivors, so a survivor's slot
// among its subgroup chunk's is the survivors of the chunk's earlier steps plus those of the
// lanes below it, and a step's survivors go out in one store to consecutive slots. The counts
// are carried across subgroups (workgroup layer) and, by the decoupled look-back with
// fallback, across tiles; each survivor goes to the slot equal to the number of survivors
// before it, so order is kept. With PARTITION, a rejected element goes to total + (rejected
// before it), so both sides keep their order (the total comes from a count pass,
// select/count.wgsl). The tile stays in registers through the look-back and is stored from
// there (ADR-024).
//
// Inputs past one storage binding are dispatched in chunks (host-known element offsets); a
// chunk starts from the survivors of the chunks before it, a carry word in `counts` written
// by the previous chunk's last tile (two words used in turn, so no tile of a chunk can read
// the word its chunk's last tile writes). Outputs past one binding go to a second window.
//
// Prepended constants: WG_SIZE, STEPS, VEC (4), PER_LANE (STEPS * VEC elements per lane),
// MIN_WIDTH, LOOKBACK_SPINS, PARTITION (bool).
// Imported by name: `subgroup/api`, `monoid` (u32 add), `select/io` (D, load_data,
// store_data, keep_value, load_quad, keep_quad, kept_in_quad).
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile
#import device/lookback
#import shared/ballot

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

fn num_tiles() -> u32 {
    return params.tiles;
}

// The lane's values and, for each, its slot among its subgroup chunk's survivors with
// KEPT_BIT set if it survives: private arrays indexed only by constants (unrolled), so they
// stay in registers. The look-back's fallback counts from loads of its own.
var<private> vals: array<D, PER_LANE>;
var<private> slots: array<u32, PER_LANE>;

// Element v of the lane in the tile.
fn element_lanes(tile: u32, l: Lane, v: u32) -> u32 {
    return tile * TILE + (l.sg * PER_LANE + v) * l.size + l.lane;
}

// Whether an element survives is the top bit of its slot (no array of flags: fewer
// registers, larger tiles).
const KEPT_BIT: u32 = 0x80000000u;

// Fills vals and slots: every load first (a predicate between them kept the next step's load
// from starting: measured on the scan, ADR-021), then one ballot per step. Returns the
// subgroup's survivors before it in the workgroup; sh_wg_total holds the tile's survivors
// afterwards.
fn count_tile(tile: u32, l: Lane) -> u32 {
#unroll v PER_LANE
    {
        let i = element_lanes(tile, l, {v});
        if (i < params.n) {
            vals[{v}] = load_data(i);
        }
    }
#end
    let below = lanes_below(l.lane);
    var carry = 0u;
#unroll v PER_LANE
    {
        let i = element_lanes(tile, l, {v});
        let keep = i < params.n && keep_value(vals[{v}], i);
        let b = sg_ballot(keep);
        slots[{v}] = (carry + ballot_count(b & below)) | select(0u, KEPT_BIT, keep);
        carry += ballot_count(b);
    }
#end
    return wg_exclusive_of_subgroups(carry, l);
}

// The survivors of a predecessor tile (look-back fallback). It must leave the private arrays
// alone (they hold this tile until it is stored): it counts from its own loads, a quad at a
// time (`kept_in_quad`, as the partition's count kernel), quad q of the tile taken by
// invocation q % WG_SIZE.
fn tile_fallback(tile: u32, l: Lane) -> u32 {
    var count = 0u;
    for (var k = 0u; k < STEPS; k++) {
        count += kept_in_quad(tile * TILE + (k * WG_SIZE + l.local) * VEC, params.n);
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
    // Measurement only (EXPERIMENT_NO_LOOKBACK, wrong results): every tile writes its
    // survivors from the start of its own range, so the stores do not contend.
    var prefix = tile * TILE;
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
    // Rejected elements of earlier chunks and tiles, for PARTITION.
    let rejected_before = (params.chunk_start - carry) + (tile * TILE - prefix);
    let total = sh_total;
#unroll v PER_LANE
    {
        let i = element_lanes(tile, l, {v});
        if (i < params.n) {
            let slot = sg_prefix + (slots[{v}] & ~KEPT_BIT);
            if ((slots[{v}] & KEPT_BIT) != 0u) {
                store_out(carry + prefix + slot, vals[{v}]);
            } else if (PARTITION) {
                store_out(total + rejected_before + (i - tile * TILE) - slot, vals[{v}]);
            }
        }
    }
#end
}
