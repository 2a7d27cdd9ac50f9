// Device-wide select and partition, single pass. In step v lane i of subgroup s holds element
// (s * PER_LANE + v) * size + i of the tile (ADR-0033): one 4-byte load per step, coalesced
// across the subgroup; one ballot per step ranks the step's survivors, so a survivor's slot
// among its subgroup chunk's is the survivors of the chunk's earlier steps plus those of the
// lanes below it, and a step's survivors go out in one store to consecutive slots. The counts
// are carried across subgroups (workgroup layer) and, by the decoupled look-back with
// fallback, across tiles; each survivor goes to the slot equal to the number of survivors
// before it, so order is kept. With PARTITION, a rejected element goes to total + (rejected
// before it), so both sides keep their order (the total comes from a count pass,
// select/count.wgsl). The tile stays in registers through the look-back (ADR-0024) with one
// keep bit per element; the ballots rank it only after the look-back (ADR-0035), as it is
// stored in batches through workgroup memory in runs aligned to lines (STAGE_STEPS > 0, the
// default, ADR-0034) or straight from registers.
//
// SELF_CLEAR, where the host asks for it (`params.groups` non-zero: an input of one chunk of
// few tiles): the last workgroup of the dispatch to finish sets the look-back state, and for
// PARTITION the survivors counted beforehand, back to zero for the next run, so that no
// clearing dispatch comes before it (ADR-0089, as the scan's ADR-0087): every workgroup counts
// itself finished as its last act, after a storage barrier; the one whose count completes the
// grid zeroes the tile counter, every word of every descriptor and counts[1]. The
// survivors (counts[0]) and the indirect arguments are written whole by the last tile each
// run, and the first chunk reads no carry word, so nothing else needs clearing.
//
// Inputs past one storage binding are dispatched in chunks (host-known element offsets); a
// chunk starts from the survivors of the chunks before it, a carry word in `counts` written
// by the previous chunk's last tile (two words used in turn, so no tile of a chunk can read
// the word its chunk's last tile writes). Outputs past one binding go to a second window.
//
// Prepended constants: WG_SIZE, STEPS, VEC (4), PER_LANE (STEPS * VEC elements per lane),
// MIN_WIDTH, LOOKBACK_SPINS, PARTITION (bool), SELF_CLEAR (bool), STAGE_STEPS (elements per lane and batch; 0:
// no staging), STAGE_BATCHES (PER_LANE / STAGE_STEPS).
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
    // Workgroups in the dispatch's grid, whose last clears the state (SELF_CLEAR); 0: a
    // dispatch clears it before.
    groups: u32,
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

// The lane's values and whether each survives (bit v % 32 of keeps[v / 32]): private arrays
// indexed only by constants (unrolled), so they stay in registers. The ranks are computed
// after the look-back, when the tile is stored, so that only one bit per element is live
// through it (ADR-0035: a slot per element held select to 128 registers, two workgroups an
// SM). The look-back's fallback counts from loads of its own.
var<private> vals: array<D, PER_LANE>;
var<private> keeps: array<u32, KEEP_WORDS>;

fn survives(v: u32) -> bool {
    return ((keeps[v / 32u] >> (v % 32u)) & 1u) != 0u;
}

// Staged stores (STAGE_STEPS > 0): subgroup s stages a batch of STAGE_STEPS steps at
// sh_stage[s * size * (STAGE_STEPS + STAGE_SIDES) ..], each side shifted so that its stores
// start on a line of min(size, 32) words: one word per invocation and step, plus a line per
// side and subgroup.
const STAGE_SIDES: u32 = select(1u, 2u, PARTITION);
// Plus one word per invocation where it puts what it does not stage (branch-free staging).
const STAGE_LEN: u32 = select(1u, WG_SIZE * (STAGE_STEPS + STAGE_SIDES + 1u), STAGE_STEPS > 0u);
const STAGE_TRASH: u32 = WG_SIZE * (STAGE_STEPS + STAGE_SIDES);
var<workgroup> sh_stage: array<D, STAGE_LEN>;

// Element v of the lane in the tile.
fn element_lanes(tile: u32, l: Lane, v: u32) -> u32 {
    return tile * TILE + (l.sg * PER_LANE + v) * l.size + l.lane;
}

// Fills vals and keeps: every load first (a predicate between them kept the next step's load
// from starting: measured on the scan, ADR-0021), then the predicates. Returns the subgroup's
// survivors before it in the workgroup; sh_wg_total holds the tile's survivors afterwards.
fn count_tile(tile: u32, l: Lane) -> u32 {
    if ((tile + 1u) * TILE <= params.n) {
        // A whole tile (all but the last): no bound check per element.
#unroll v PER_LANE
        vals[{v}] = load_data(element_lanes(tile, l, {v}));
#end
#unroll v PER_LANE
        {
            let keep = keep_value(vals[{v}], element_lanes(tile, l, {v}));
            keeps[{v} / 32u] |= select(0u, 1u << ({v} % 32u), keep);
        }
#end
    } else {
#unroll v PER_LANE
        {
            let i = element_lanes(tile, l, {v});
            if (i < params.n) {
                vals[{v}] = load_data(i);
            }
        }
#end
#unroll v PER_LANE
        {
            let i = element_lanes(tile, l, {v});
            let keep = i < params.n && keep_value(vals[{v}], i);
            keeps[{v} / 32u] |= select(0u, 1u << ({v} % 32u), keep);
        }
#end
    }
    var count = 0u;
#unroll w KEEP_WORDS
    count += countOneBits(keeps[{w}]);
#end
    return wg_exclusive_of_subgroups(sg_reduce(count, l.lane, l.size), l);
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

// Stores the tile through workgroup memory (STAGE_STEPS > 0), one batch of STAGE_STEPS steps
// at a time: each subgroup stages the batch's kept elements at their ranks, shifted by the
// misalignment of the batch's first destination (and, for PARTITION, the rejected ones after
// them, likewise), and after a barrier writes each side out `size` words per store from a line
// boundary, so every store but a side's first and last in the batch covers whole lines
// (stores straight from registers write each step's run starting anywhere, which cost select
// 435 µs of its 1008 at 2^28 on the H200: ADR-0034). `kept_base` and `rejected_base` are where
// this subgroup's kept rank 0 and rejected rank 0 go. Called by every invocation (barriers
// inside).
fn store_staged(tile: u32, l: Lane, kept_base: u32, rejected_base: u32) {
    // This subgroup's elements below n, and its region of sh_stage.
    let chunk = l.sg * PER_LANE * l.size;
    let avail = min(params.n - min(params.n, tile * TILE + chunk), PER_LANE * l.size);
    let line = min(l.size, 32u);
    let region = l.sg * l.size * (STAGE_STEPS + STAGE_SIDES);
    let below = lanes_below(l.lane);
    // This subgroup's kept elements before the batch (k0) and after it (k1).
    var k0 = 0u;
#unroll b STAGE_BATCHES
    {
        let e0 = min({b} * STAGE_STEPS * l.size, avail);
        let e1 = min(({b} + 1u) * STAGE_STEPS * l.size, avail);
        // Each side: its rank at the batch's start, where the first goes, its shift and
        // where it starts in the region (the rejected side after the kept one, so partition
        // counts the batch's survivors first).
        let kept_at = kept_base + k0;
        let kept_m = kept_at % line;
        let rejected_r0 = e0 - k0;
        let rejected_at = rejected_base + rejected_r0;
        let rejected_m = rejected_at % line;
        var batch_kept = 0u;
        if (PARTITION) {
            var mine = 0u;
#unroll k STAGE_STEPS
            mine += select(0u, 1u, survives({b} * STAGE_STEPS + {k}));
#end
            batch_kept = sg_reduce(mine, l.lane, l.size);
        }
        let rejected_start = region + line + batch_kept;
        // One ballot per step ranks its survivors: those of the earlier steps, then those of
        // the lanes below. The staging has no branches (an element that is not staged goes to
        // the invocation's trash word), so the subgroup never splits between the ballots.
        var rank = k0;
        let trash = STAGE_TRASH + l.local;
#unroll k STAGE_STEPS
        {
            let v = {b} * STAGE_STEPS + {k};
            let keep = survives(v);
            let ballot = sg_ballot(keep);
            let kept_rank = rank + ballot_count(ballot & below);
            rank += ballot_count(ballot);
            let e = v * l.size + l.lane;
            var at = select(trash, region + kept_m + kept_rank - k0, keep);
            if (PARTITION) {
                at = select(rejected_start + rejected_m + (e - kept_rank) - rejected_r0, at, keep);
            }
            sh_stage[select(trash, at, e < avail)] = vals[v];
        }
#end
        let k1 = rank;
        workgroupBarrier();
        for (var j = l.lane; j < kept_m + k1 - k0; j += l.size) {
            if (j >= kept_m) {
                store_out(kept_at - kept_m + j, sh_stage[region + j]);
            }
        }
        if (PARTITION) {
            let rejected_end = rejected_m + (e1 - k1) - rejected_r0;
            for (var j = l.lane; j < rejected_end; j += l.size) {
                if (j >= rejected_m) {
                    store_out(rejected_at - rejected_m + j, sh_stage[rejected_start + j]);
                }
            }
        }
        // The next batch rewrites the region.
        workgroupBarrier();
        k0 = k1;
    }
#end
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    select_workgroup(l);
    if (SELF_CLEAR && params.groups != 0u) {
        // The survivors counted beforehand, too: every workgroup has read them.
        if (clear_when_last(l, params.groups, params.tiles) && PARTITION && l.local == 0u) {
            counts[1] = 0u;
        }
    }
}

fn select_workgroup(l: Lane) {
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
        // The first chunk starts from nothing: its carry word is never read (nor cleared).
        sh_carry = select(counts[5u + params.carry_in], 0u, params.chunk_start == 0u);
        if (PARTITION) {
            sh_total = counts[1];
        }
    }
    let prefix = lookback(tile, kept, l, true);
    if (tile == 0u) {
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
    if (STAGE_STEPS > 0u) {
        store_staged(tile, l, carry + prefix + sg_prefix,
            total + rejected_before + l.sg * PER_LANE * l.size - sg_prefix);
        return;
    }
    let below = lanes_below(l.lane);
    var rank = 0u;
#unroll v PER_LANE
    {
        let i = element_lanes(tile, l, {v});
        let keep = survives({v});
        let ballot = sg_ballot(keep);
        let slot = sg_prefix + rank + ballot_count(ballot & below);
        rank += ballot_count(ballot);
        if (i < params.n) {
            if (keep) {
                store_out(carry + prefix + slot, vals[{v}]);
            } else if (PARTITION) {
                store_out(total + rejected_before + (i - tile * TILE) - slot, vals[{v}]);
            }
        }
    }
#end
}
