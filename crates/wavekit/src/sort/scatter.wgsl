// Radix sort, last kernel of a pass: a stable local sort of the tile by digit in workgroup
// memory, then coalesced stores: key j of the sorted tile goes to
//   block_offsets[digit * blocks + tile / BLOCK_TILES] + digit_table[tile * 256 + digit]
//   + (j − the tile's first position of that digit),
// the keys before it in the digit order and in earlier blocks (the scan of the blocks' sums),
// plus those of its digit in the block's earlier tiles (sort/blocks.wgsl). So each digit's
// keys leave the tile as one contiguous run. Up to INLINE_BLOCKS blocks, binding 13 holds the
// blocks' sums unscanned and every workgroup sums them itself (`inline_bases`): one dispatch
// fewer per pass; over a single block, it sums the tiles' counts and the blocks kernel does not
// run either.
//
// The tile is WG_SIZE * ITEMS keys laid out by subgroup: subgroup s holds the ITEMS * size
// consecutive keys at s * ITEMS * size, lane i key k * size + i of them in step k (coalesced
// loads). Within a step the lanes with the same digit are found with RADIX_BITS ballots (four
// words each: any width up to 128); the lowest of them adds their number to the subgroup's
// counter for the digit (workgroup memory, 16-bit halves) and shuffles the old value to the
// others. Then the counters are scanned across subgroups digit by digit, the digit totals
// across digits (workgroup scan), and every key has its place in the sorted tile.
//
// Prepended constants: WG_SIZE, ITEMS, MIN_WIDTH, BLOCK_TILES, INLINE_BLOCKS (0 where the
// blocks' sums are always scanned), COLUMN_STEP and INLINE_STEP (divisors of BLOCK_TILES and
// of INLINE_BLOCKS: the few-blocks sums' loads unrolled together), VALUES (0 none, 1 load, 2
// indices on the first pass), STORES_UNROLLED (bool), SINGLE_PASS (bool), LOOKBACK_SPINS, FAULT_SKIP, STATS (single pass:
// count the look-back's rounds in state[2] and state[3]).
// Imported by name: `subgroup/api`, `monoid` (u32 add), `sort/keys`.
#import subgroup/api
#import monoid
#import shared/ballot
#import workgroup/scan
#import sort/keys

// Three-kernel mode: per tile and digit, the digit's keys in the block's earlier tiles
// (tile-major, sort/blocks.wgsl). Single pass: the digit histograms of every pass
// (sort/histograms.wgsl).
@group(0) @binding(3) var<storage, read> digit_table: array<u32>;
// Three-kernel mode: the exclusive scan of the blocks' digit sums (digit-major), or up to
// INLINE_BLOCKS blocks the sums themselves. A placeholder in the single pass.
@group(0) @binding(13) var<storage, read> block_offsets: array<u32>;
// Single pass: [0] the tile counter, [1] fallbacks taken, with STATS [2] rounds of a walk
// without progress and [3] rounds in all; from DESC on one descriptor per tile and digit:
// FLAG_AGGREGATE or FLAG_INCLUSIVE over a 30-bit count.
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;
// Values past the first window (params.window / KEY_WORDS values) are in `sort/windows`.

fn load_value(i: u32) -> u32 {
    let w = params.window / KEY_WORDS;
    if (WINDOWS == 1u || i < w) {
        return values_in[i];
    }
    return value_hi(i - w);
}

fn store_value(i: u32, v: u32) {
    let w = params.window / KEY_WORDS;
    if (WINDOWS == 1u || i < w) {
        values_out[i] = v;
    } else {
        store_value_hi(i - w, v);
    }
}

const TILE: u32 = WG_SIZE * ITEMS;
const COUNTER_SUBGROUPS: u32 = WG_SIZE / MIN_WIDTH;
// Bits per pass (the ranking's `#unroll b 8` follows it).
const RADIX_BITS: u32 = 8u;
// Words of digit counters per invocation in the scans (two digits per word); with more than
// 128 invocations, the first 128 take one each.
const WORDS_PER_INVOCATION: u32 = max(128u / WG_SIZE, 1u);
// With the stores unrolled, the values are staged after the keys have left, in the keys'
// workgroup memory (each invocation keeps its keys' destinations in registers meanwhile):
// a workgroup needs half the memory, so more fit on an SM (ADR-0024). Otherwise they have
// slots of their own.
const SHARED_STAGING: u32 = select(0u, 1u, VALUES != 0u && STORES_UNROLLED);
const VALUE_SLOTS: u32 = select(1u, TILE, VALUES != 0u && SHARED_STAGING == 0u);

// Per subgroup, 256 digit counters as 16-bit halves of 128 words (a tile has fewer than 2^16
// keys); after the scan across subgroups, each holds the keys of its digit in the subgroups
// before.
var<workgroup> sh_count: array<atomic<u32>, COUNTER_SUBGROUPS * 128u>;
// Per digit: the global destination of the tile's first key of it, and its first position in
// the sorted tile.
var<workgroup> sh_base: array<u32, 256>;
var<workgroup> sh_start: array<u32, 256>;
// The tile sorted by digit.
var<workgroup> sh_keys: array<u32, TILE * KEY_WORDS>;
var<workgroup> sh_values: array<u32, VALUE_SLOTS>;
// Single pass: this tile's count per digit, and the look-back's shared decisions. One slot
// each otherwise, so that the three-kernel mode does not pay for them in workgroup memory.
const SP_DIGITS: u32 = select(1u, 256u, SINGLE_PASS);
var<workgroup> sh_tile_count: array<u32, SP_DIGITS>;
var<workgroup> sh_fallback_count: array<atomic<u32>, SP_DIGITS>;
var<workgroup> sh_pending: atomic<u32>;
var<workgroup> sh_stuck: atomic<u32>;
var<workgroup> sh_decision: vec2<u32>;
var<workgroup> sh_tile: u32;

const DESC: u32 = 64u;
const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;
// Digits per invocation in the look-back.
const DIGITS_PER_INVOCATION: u32 = max(256u / WG_SIZE, 1u);

fn half_shift(d: u32) -> u32 {
    return 16u * (d & 1u);
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    var tile = wg.x + wg.y * nwg.x;
    if (SINGLE_PASS) {
        // Tiles in the order workgroups start, so a tile's predecessors are running or done.
        if (l.local == 0u) {
            sh_tile = atomicAdd(&state[0], 1u);
        }
        tile = workgroupUniformLoad(&sh_tile);
    }
    if (tile >= params.tiles) {
        return;
    }
    let subgroups = WG_SIZE / l.size;
    for (var w = l.local; w < subgroups * 128u; w += WG_SIZE) {
        atomicStore(&sh_count[w], 0u);
    }
    if (!SINGLE_PASS) {
        let blocks = (params.tiles + BLOCK_TILES - 1u) / BLOCK_TILES;
        // (INLINE_BLOCKS is 0 in the pipeline that scans: no code for the other path there.)
        if (INLINE_BLOCKS > 0u && blocks <= INLINE_BLOCKS) {
            inline_bases(tile, blocks, l);
        } else {
            for (var d = l.local; d < 256u; d += WG_SIZE) {
                let block_base = block_offsets[d * blocks + tile / BLOCK_TILES];
                sh_base[d] = block_base + digit_table[tile * 256u + d];
            }
        }
    }
    workgroupBarrier();

    var keys: array<vec2<u32>, ITEMS>;
    // A key's rank in its subgroup's step, then its place in the sorted tile.
    var ranks: array<u32, ITEMS>;
    var digits: array<u32, ITEMS>;
    let valid_lanes = sg_ballot(true);
    let below = lanes_below(l.lane);
    // All loads first, values too, so that they are in flight together.
    var vals: array<u32, ITEMS>;
    let load_values = VALUES == 1u || (VALUES == 2u && params.first_pass == 0u);
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        keys[{k}] = vec2<u32>(0u);
        if (i < params.n) {
            keys[{k}] = load_key(i);
            if (load_values) {
                vals[{k}] = load_value(i);
            } else {
                vals[{k}] = i;
            }
        }
    }
#end
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        let valid = i < params.n;
        let key = keys[{k}];
        let d = digit_of(key);
        // The lanes of this step whose digit equals this lane's (the digit's bits unrolled:
        // as a loop, the sort ran 5 % slower on the H200).
        var same = sg_ballot(valid) & valid_lanes;
#unroll b 8
        {
            let bit = ((d >> {b}) & 1u) == 1u;
            let ones = sg_ballot(bit);
            same &= select(~ones, ones, bit);
        }
#end
        let leader = ballot_first(same);
        let count = ballot_count(same);
        let lower = ballot_count(same & below);
        var old = 0u;
        if (valid && i32(l.lane) == leader) {
            let add = count << half_shift(d);
            old = (atomicAdd(&sh_count[l.sg * 128u + d / 2u], add) >> half_shift(d)) & 0xffffu;
        }
        let base = sg_shuffle_u32(old, u32(max(leader, 0i)));
        digits[{k}] = d;
        ranks[{k}] = base + lower;
    }
#end
    workgroupBarrier();
    // Across subgroups, digit by digit: each counter becomes the keys of its digit in the
    // subgroups before. Invocation t takes the consecutive words t * WORDS_PER_INVOCATION…
    // (both digits of each, so no one else writes them) and sums its digits' tile totals.
    var totals: array<u32, 2u * WORDS_PER_INVOCATION>;
    var mine = 0u;
    let scans_words = l.local * WORDS_PER_INVOCATION < 128u;
    for (var j = 0u; j < WORDS_PER_INVOCATION && scans_words; j++) {
        let w = l.local * WORDS_PER_INVOCATION + j;
        var run = vec2<u32>(0u);
        for (var s = 0u; s < subgroups; s++) {
            let c = atomicLoad(&sh_count[s * 128u + w]);
            atomicStore(&sh_count[s * 128u + w], run.x | (run.y << 16u));
            run += vec2<u32>(c & 0xffffu, c >> 16u);
        }
        totals[2u * j] = run.x;
        totals[2u * j + 1u] = run.y;
        mine += run.x + run.y;
        if (SINGLE_PASS) {
            sh_tile_count[2u * w] = run.x;
            sh_tile_count[2u * w + 1u] = run.y;
        }
    }
    // Across digits: where each digit starts in the sorted tile.
    let sg_total = sg_reduce(mine, l.lane, l.size);
    var start = wg_exclusive_of_subgroups(sg_total, l) + sg_exclusive_scan(mine, l.lane, l.size);
    for (var j = 0u; j < 2u * WORDS_PER_INVOCATION && scans_words; j++) {
        sh_start[2u * l.local * WORDS_PER_INVOCATION + j] = start;
        start += totals[j];
    }
    workgroupBarrier();
    if (SINGLE_PASS) {
        single_pass_bases(tile, l);
    }
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        if (i < params.n) {
            let d = digits[{k}];
            let before = (atomicLoad(&sh_count[l.sg * 128u + d / 2u]) >> half_shift(d)) & 0xffffu;
            let p = sh_start[d] + before + ranks[{k}];
            ranks[{k}] = p;
            sh_keys[p * KEY_WORDS] = keys[{k}].x;
            if (KEY_WORDS == 2u) {
                sh_keys[p * KEY_WORDS + 1u] = keys[{k}].y;
            }
            if (VALUES != 0u && SHARED_STAGING == 0u) {
                sh_values[p] = vals[{k}];
            }
        }
    }
#end
    workgroupBarrier();
    // Coalesced: consecutive invocations take consecutive keys of the sorted tile, and keys of
    // one digit go to consecutive addresses.
    let in_tile = min(TILE, params.n - tile * TILE);
    if (SHARED_STAGING != 0u) {
        // The keys first, each one's destination kept; then the values through the same
        // memory, once every key has been read from it.
        var dsts: array<u32, ITEMS>;
#unroll k ITEMS
        dsts[{k}] = store_sorted_key({k} * WG_SIZE + l.local, in_tile);
#end
        workgroupBarrier();
#unroll k ITEMS
        {
            let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
            if (i < params.n) {
                sh_keys[ranks[{k}]] = vals[{k}];
            }
        }
#end
        workgroupBarrier();
#unroll k ITEMS
        {
            let j = {k} * WG_SIZE + l.local;
            if (j < in_tile) {
                store_value(dsts[{k}], sh_keys[j]);
            }
        }
#end
    } else if (STORES_UNROLLED) {
#unroll k ITEMS
        store_sorted({k} * WG_SIZE + l.local, in_tile);
#end
    } else {
        for (var j = l.local; j < in_tile; j += WG_SIZE) {
            store_sorted(j, in_tile);
        }
    }
}

const INLINE_SLOTS: u32 = max(INLINE_BLOCKS, 1u);

// Up to INLINE_BLOCKS blocks: each digit's first destination in this tile, the keys of smaller
// digits in the whole pass (digit totals, scanned across digits in chunks of WG_SIZE with a
// carry) plus those of the digit in earlier tiles. Over one block (at most BLOCK_TILES tiles)
// no blocks kernel has run: both come from the tiles' own counts in digit_table. Over more,
// from the blocks' unscanned digit sums (`block_offsets[digit * blocks + block]`) and the
// tile's row, which the blocks kernel scanned. Called by every invocation (uniform: `blocks`
// comes from the parameters).
fn inline_bases(tile: u32, blocks: u32, l: Lane) {
    let block = tile / BLOCK_TILES;
    var carry = 0u;
    for (var c = 0u; c < 256u; c += WG_SIZE) {
        let d = c + l.local;
        let mine = d < 256u;
        var total = 0u;
        var earlier = 0u;
        // Every load first (unrolled), so that they are in flight together; in steps of
        // COLUMN_STEP (INLINE_STEP), a loop, where the sort policy says so (as in
        // sort/blocks.wgsl).
        if (blocks == 1u) {
            var counts: array<u32, BLOCK_TILES>;
#unroll t BLOCK_TILES by COLUMN_STEP
            {
                counts[{t}] = 0u;
                if (mine && {t} < params.tiles) {
                    counts[{t}] = digit_table[{t} * 256u + d];
                }
            }
#end
#unroll t BLOCK_TILES by COLUMN_STEP
            {
                earlier += select(0u, counts[{t}], {t} < tile);
                total += counts[{t}];
            }
#end
        } else {
            var sums: array<u32, INLINE_SLOTS>;
#unroll b INLINE_BLOCKS by INLINE_STEP
            {
                sums[{b}] = 0u;
                if (mine && {b} < blocks) {
                    sums[{b}] = block_offsets[d * blocks + {b}];
                }
            }
#end
            if (mine) {
                earlier = digit_table[tile * 256u + d];
            }
#unroll b INLINE_BLOCKS by INLINE_STEP
            {
                earlier += select(0u, sums[{b}], {b} < block);
                total += sums[{b}];
            }
#end
        }
        let lanes_before = sg_exclusive_scan(total, l.lane, l.size);
        let before = wg_exclusive_of_subgroups(sg_reduce(total, l.lane, l.size), l);
        if (mine) {
            sh_base[d] = carry + before + lanes_before + earlier;
        }
        carry += sh_wg_total;
    }
}

// Key j of the sorted tile to its place, which it returns (0 past the tile).
fn store_sorted_key(j: u32, in_tile: u32) -> u32 {
    if (j >= in_tile) {
        return 0u;
    }
    var key = vec2<u32>(sh_keys[j * KEY_WORDS], 0u);
    if (KEY_WORDS == 2u) {
        key.y = sh_keys[j * KEY_WORDS + 1u];
    }
    let d = digit_of(key);
    let dst = sh_base[d] + (j - sh_start[d]);
    store_key(dst, key);
    return dst;
}

// Key j of the sorted tile (and its value) to its place.
fn store_sorted(j: u32, in_tile: u32) {
    let dst = store_sorted_key(j, in_tile);
    if (VALUES != 0u && j < in_tile) {
        store_value(dst, sh_values[j]);
    }
}

// Digit d's inclusive count for `tile`: its keys in tiles before (`prefix`) and in this one.
fn publish_inclusive(tile: u32, d: u32, prefix: u32, skip: bool) {
    if (!skip && tile != 0u) {
        atomicStore(&state[DESC + tile * 256u + d], FLAG_INCLUSIVE | (prefix + sh_tile_count[d]));
    }
}

// Single pass (Onesweep): publishes this tile's digit counts, finds for every digit the keys of
// it in earlier tiles by a decoupled look-back (one walk per digit, each on its own, reading
// LOOK_WINDOW predecessors per round trip), publishes each digit's inclusive count as soon as
// it is known, and leaves in sh_base each digit's
// first global destination: the keys of smaller digits in the whole input (this pass's
// histogram) plus those of the digit in earlier tiles. A predecessor that has published
// nothing for LOOKBACK_SPINS reads is counted here from its keys by the whole workgroup (the
// fallback), so nothing waits on a workgroup that may never run. Called by every invocation.
fn single_pass_bases(tile: u32, l: Lane) {
    let skip = FAULT_SKIP != 0u && (tile + 1u) % max(FAULT_SKIP, 1u) == 0u;
    for (var d = l.local; d < 256u; d += WG_SIZE) {
        let flag = select(FLAG_AGGREGATE, FLAG_INCLUSIVE, tile == 0u);
        if (!skip) {
            atomicStore(&state[DESC + tile * 256u + d], flag | sh_tile_count[d]);
        }
    }
    // This pass's digits before each digit, over the whole input.
    var mine = 0u;
    for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
        let d = l.local * DIGITS_PER_INVOCATION + j;
        if (d < 256u) {
            mine += digit_table[params.pass_index * 256u + d];
        }
    }
    let sg_total = sg_reduce(mine, l.lane, l.size);
    var global = wg_exclusive_of_subgroups(sg_total, l) + sg_exclusive_scan(mine, l.lane, l.size);
    for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
        let d = l.local * DIGITS_PER_INVOCATION + j;
        if (d < 256u) {
            sh_base[d] = global;
            global += digit_table[params.pass_index * 256u + d];
        }
    }
    // The walks: digit d looks at tile look[j] - 1 next. Each invocation walks its digits on
    // its own, without barriers, and publishes a digit's inclusive count as soon as it has
    // it, so that successors' walks of that digit need not wait for this tile's other digits.
    // The workgroup meets only when every walk has ended or stalled: a predecessor silent for
    // LOOKBACK_SPINS reads is then counted from its keys by everyone (the fallback).
    var look: array<u32, DIGITS_PER_INVOCATION>;
    var prefix: array<u32, DIGITS_PER_INVOCATION>;
    var spins: array<u32, DIGITS_PER_INVOCATION>;
    for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
        look[j] = tile;
        prefix[j] = 0u;
        spins[j] = 0u;
    }
    var rounds = 0u;
    var stalled = 0u;
    loop {
        if (l.local == 0u) {
            atomicStore(&sh_pending, 0u);
            atomicStore(&sh_stuck, 0u);
        }
        workgroupBarrier();
        for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
            let d = l.local * DIGITS_PER_INVOCATION + j;
            if (d >= 256u || look[j] == 0u) {
                continue;
            }
            loop {
                // The LOOK_WINDOW nearest predecessors at once (all loads in flight
                // together), then taken newest first up to the first inclusive count or
                // silent tile.
                var v: array<u32, LOOK_WINDOW>;
#unroll w LOOK_WINDOW
                {
                    v[{w}] = FLAG_INCLUSIVE;
                    if (look[j] > {w}) {
                        v[{w}] = atomicLoad(&state[DESC + (look[j] - 1u - {w}) * 256u + d]);
                    }
                }
#end
                var moved = false;
                var walking = true;
                rounds += 1u;
#unroll w LOOK_WINDOW
                if (walking) {
                    let x = v[{w}];
                    if ((x & FLAG_INCLUSIVE) != 0u) {
                        prefix[j] += x & VALUE_MASK;
                        look[j] = 0u;
                        walking = false;
                    } else if ((x & FLAG_AGGREGATE) != 0u) {
                        prefix[j] += x & VALUE_MASK;
                        look[j] -= 1u;
                        moved = true;
                    } else {
                        walking = false;
                    }
                }
#end
                if (look[j] == 0u) {
                    publish_inclusive(tile, d, prefix[j], skip);
                    break;
                }
                if (moved) {
                    spins[j] = 0u;
                    continue;
                }
                stalled += 1u;
                spins[j] += 1u;
                if (spins[j] >= LOOKBACK_SPINS) {
                    // Tile look - 1 is silent: ask for it (the newest such tile first).
                    atomicMax(&sh_stuck, look[j]);
                    break;
                }
            }
            if (look[j] != 0u) {
                atomicAdd(&sh_pending, 1u);
            }
        }
        workgroupBarrier();
        if (l.local == 0u) {
            sh_decision = vec2<u32>(atomicLoad(&sh_pending), atomicLoad(&sh_stuck));
        }
        let decision = workgroupUniformLoad(&sh_decision);
        if (decision.x == 0u) {
            break;
        }
        if (decision.y != 0u) {
            // Count the silent tile's keys here, every digit at once.
            let silent = decision.y - 1u;
            for (var d = l.local; d < 256u; d += WG_SIZE) {
                atomicStore(&sh_fallback_count[d], 0u);
            }
            if (l.local == 0u) {
                atomicAdd(&state[1], 1u);
            }
            workgroupBarrier();
            for (var i = silent * TILE + l.local; i < min((silent + 1u) * TILE, params.n); i += WG_SIZE) {
                atomicAdd(&sh_fallback_count[digit_of(load_key(i))], 1u);
            }
            workgroupBarrier();
            for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
                let d = l.local * DIGITS_PER_INVOCATION + j;
                if (d < 256u && look[j] == decision.y) {
                    prefix[j] += atomicLoad(&sh_fallback_count[d]);
                    look[j] -= 1u;
                    spins[j] = 0u;
                    if (look[j] == 0u) {
                        publish_inclusive(tile, d, prefix[j], skip);
                    }
                }
            }
        }
    }
    for (var j = 0u; j < DIGITS_PER_INVOCATION; j++) {
        let d = l.local * DIGITS_PER_INVOCATION + j;
        if (d < 256u) {
            sh_base[d] += prefix[j];
        }
    }
    if (STATS) {
        // One atomic per subgroup and counter (measurement only).
        let sg_stalled = sg_reduce(stalled, l.lane, l.size);
        let sg_rounds = sg_reduce(rounds, l.lane, l.size);
        if (l.lane == 0u) {
            atomicAdd(&state[2], sg_stalled);
            atomicAdd(&state[3], sg_rounds);
        }
    }
    workgroupBarrier();
}
