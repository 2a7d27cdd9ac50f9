// Radix sort, second kernel of a pass: a stable local sort of the tile by digit in workgroup
// memory, then coalesced stores: key j of the sorted tile goes to
//   offsets[digit * tiles + tile] + (j − the tile's first position of that digit),
// where offsets (an exclusive scan of the counts, digit-major) holds the keys before it in the
// digit order and in earlier tiles. So each digit's keys leave the tile as one contiguous run.
//
// The tile is WG_SIZE * ITEMS keys laid out by subgroup: subgroup s holds the ITEMS * size
// consecutive keys at s * ITEMS * size, lane i key k * size + i of them in step k (coalesced
// loads). Within a step the lanes with the same digit are found with RADIX_BITS ballots (four
// words each: any width up to 128); the lowest of them adds their number to the subgroup's
// counter for the digit (workgroup memory, 16-bit halves) and shuffles the old value to the
// others. Then the counters are scanned across subgroups digit by digit, the digit totals
// across digits (workgroup scan), and every key has its place in the sorted tile.
//
// Prepended constants: WG_SIZE, ITEMS, MIN_WIDTH, VALUES (0 none, 1 load, 2 indices on the
// first pass). Imported by name: `subgroup/api`, `monoid` (u32 add), `sort/keys`.
#import subgroup/api
#import monoid
#import shared/ballot
#import workgroup/scan
#import sort/keys

@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
const COUNTER_SUBGROUPS: u32 = WG_SIZE / MIN_WIDTH;
const RADIX_BITS: u32 = 8u;
// Words of digit counters per invocation in the scans (two digits per word); with more than
// 128 invocations, the first 128 take one each.
const WORDS_PER_INVOCATION: u32 = max(128u / WG_SIZE, 1u);
const VALUE_SLOTS: u32 = select(1u, TILE, VALUES != 0u);

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

fn half_shift(d: u32) -> u32 {
    return 16u * (d & 1u);
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let tile = wg.x + wg.y * nwg.x;
    if (tile >= params.tiles) {
        return;
    }
    let subgroups = WG_SIZE / l.size;
    for (var w = l.local; w < subgroups * 128u; w += WG_SIZE) {
        atomicStore(&sh_count[w], 0u);
    }
    for (var d = l.local; d < 256u; d += WG_SIZE) {
        sh_base[d] = offsets[d * params.tiles + tile];
    }
    workgroupBarrier();

    var keys: array<vec2<u32>, ITEMS>;
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
                vals[{k}] = values_in[i];
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
        // The lanes of this step whose digit equals this lane's.
        var same = sg_ballot(valid) & valid_lanes;
        for (var b = 0u; b < RADIX_BITS; b++) {
            let bit = ((d >> b) & 1u) == 1u;
            let ones = sg_ballot(bit);
            same &= select(~ones, ones, bit);
        }
        let leader = ballot_first(same);
        var old = 0u;
        if (valid && i32(l.lane) == leader) {
            let add = ballot_count(same) << half_shift(d);
            old = (atomicAdd(&sh_count[l.sg * 128u + d / 2u], add) >> half_shift(d)) & 0xffffu;
        }
        let base = sg_shuffle_u32(old, u32(max(leader, 0i)));
        digits[{k}] = d;
        ranks[{k}] = base + ballot_count(same & below);
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
    }
    // Across digits: where each digit starts in the sorted tile.
    let sg_total = sg_reduce(mine, l.lane, l.size);
    var start = wg_exclusive_of_subgroups(sg_total, l) + sg_exclusive_scan(mine, l.lane, l.size);
    for (var j = 0u; j < 2u * WORDS_PER_INVOCATION && scans_words; j++) {
        sh_start[2u * l.local * WORDS_PER_INVOCATION + j] = start;
        start += totals[j];
    }
    workgroupBarrier();
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        if (i < params.n) {
            let d = digits[{k}];
            let before = (atomicLoad(&sh_count[l.sg * 128u + d / 2u]) >> half_shift(d)) & 0xffffu;
            let p = sh_start[d] + before + ranks[{k}];
            sh_keys[p * KEY_WORDS] = keys[{k}].x;
            if (KEY_WORDS == 2u) {
                sh_keys[p * KEY_WORDS + 1u] = keys[{k}].y;
            }
            if (VALUES != 0u) {
                sh_values[p] = vals[{k}];
            }
        }
    }
#end
    workgroupBarrier();
    // Coalesced: consecutive invocations take consecutive keys of the sorted tile, and keys of
    // one digit go to consecutive addresses.
    let in_tile = min(TILE, params.n - tile * TILE);
    for (var j = l.local; j < in_tile; j += WG_SIZE) {
        var key = vec2<u32>(sh_keys[j * KEY_WORDS], 0u);
        if (KEY_WORDS == 2u) {
            key.y = sh_keys[j * KEY_WORDS + 1u];
        }
        let d = digit_of(key);
        let dst = sh_base[d] + (j - sh_start[d]);
        store_key(dst, key);
        if (VALUES != 0u) {
            values_out[dst] = sh_values[j];
        }
    }
}
