// Radix sort, second kernel of a pass: every key goes to
//   offsets[digit * tiles + tile]   (keys before it in the digit order and earlier tiles)
// + the keys of its digit in earlier subgroups of the tile
// + the keys of its digit before it in its own subgroup,
// so the pass is stable. A tile is WG_SIZE * ITEMS keys, laid out by subgroup: subgroup s
// holds the ITEMS * size consecutive keys at s * ITEMS * size, lane i key k * size + i of
// them in step k (coalesced loads). Within a step, the lanes with the same digit are found
// with RADIX_BITS ballots (four words each: any width up to 128); the lowest of them adds
// their number to the subgroup's counter for the digit (workgroup memory, 16-bit halves) and
// shuffles the old value to the others. After all steps, the counters are scanned across the
// subgroups, digit by digit.
//
// Prepended constants: WG_SIZE, ITEMS, MIN_WIDTH, VALUES (0 none, 1 load, 2 indices on the
// first pass). Imported by name: `subgroup/api`, `monoid` (u32 add), `sort/keys`.
#import subgroup/api
#import monoid
#import shared/ballot
#import sort/keys

@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
const MAX_SUBGROUPS: u32 = WG_SIZE / MIN_WIDTH;
const RADIX_BITS: u32 = 8u;

// Per subgroup, 256 digit counters as 16-bit halves of 128 words (a tile has fewer than 2^16
// keys); after the scan across subgroups, each holds the keys of its digit in the subgroups
// before.
var<workgroup> sh_count: array<atomic<u32>, MAX_SUBGROUPS * 128u>;
var<workgroup> sh_base: array<u32, 256>;

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
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        let valid = i < params.n;
        var key = vec2<u32>(0u);
        if (valid) {
            key = load_key(i);
        }
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
        keys[{k}] = key;
        digits[{k}] = d;
        ranks[{k}] = base + ballot_count(same & below);
    }
#end
    workgroupBarrier();
    // Across subgroups, digit by digit: each counter becomes the keys of its digit in the
    // subgroups before. An invocation takes both digits of a word, so no one else writes it.
    for (var w = l.local; w < 128u; w += WG_SIZE) {
        var run = vec2<u32>(0u);
        for (var s = 0u; s < subgroups; s++) {
            let c = atomicLoad(&sh_count[s * 128u + w]);
            atomicStore(&sh_count[s * 128u + w], run.x | (run.y << 16u));
            run += vec2<u32>(c & 0xffffu, c >> 16u);
        }
    }
    workgroupBarrier();
#unroll k ITEMS
    {
        let i = tile * TILE + (l.sg * ITEMS + {k}) * l.size + l.lane;
        if (i < params.n) {
            let d = digits[{k}];
            let before = (atomicLoad(&sh_count[l.sg * 128u + d / 2u]) >> half_shift(d)) & 0xffffu;
            let dst = sh_base[d] + before + ranks[{k}];
            store_key(dst, keys[{k}]);
            if (VALUES == 1u || (VALUES == 2u && params.first_pass == 0u)) {
                values_out[dst] = values_in[i];
            } else if (VALUES == 2u) {
                values_out[dst] = i;
            }
        }
    }
#end
}
