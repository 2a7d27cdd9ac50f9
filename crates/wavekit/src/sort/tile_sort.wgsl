// Small sorts, first step (ADR-0090): each workgroup sorts one tile of TILE = WG_SIZE * ITEMS
// keys, and their values, in workgroup memory, stable, least-significant digit first in
// digits of DIGIT_BITS bits of the keys' sortable bits `begin..end` (sort/key_order). One
// dispatch sorts an input of one tile (in place); more tiles are merged by sort/merge.
//
// Invocation t holds keys t * ITEMS .. t * ITEMS + ITEMS - 1 of the tile in registers, so
// that the tile's order is (invocation, item). A digit pass counts the invocation's digits in
// eight 16-bit counters packed in a vec4<u32> (a tile is below 2^16 keys). One exclusive scan
// of those vectors across its subgroup, and the sum of the totals of the subgroups before its
// own (every invocation reads all the subgroups' totals from workgroup memory: one barrier,
// where the workgroup layer's scan of them takes three), give every invocation the keys of
// each digit before its own, and the sum of all totals each digit's first slot; each key goes
// to its digit's first slot plus the keys of its digit before it, through workgroup memory,
// and every invocation reads its ITEMS keys back: two barriers a pass. Slots past the input
// (the last tile) take the largest digit in every pass, so they stay behind the keys, in
// order.
//
// Prepended constants: WG_SIZE, ITEMS, MIN_WIDTH, DIGIT_BITS (at most 3: eight counters),
// KEY_WORDS, KEY_KIND, VALUES (0 none, 1 loaded, 2 the keys' indices). Imported by name:
// `subgroup/api`, `monoid` (vec4<u32> addition), `sort/small_io` (the bindings, through
// sort/small_keys).
#import subgroup/api
#import monoid

#import sort/small_keys

const TILE: u32 = WG_SIZE * ITEMS;
// Workgroup memory is padded by a word every 32, so that the invocations of a subgroup reading
// their ITEMS consecutive keys (strided by ITEMS) spread over the banks.
fn slot(i: u32) -> u32 {
    return i + (i >> 5u);
}
const SH_KEYS: u32 = TILE * KEY_WORDS + TILE * KEY_WORDS / 32u + 1u;
const SH_VALUES: u32 = select(1u, TILE + TILE / 32u + 1u, VALUES != 0u);
var<workgroup> sh_keys: array<u32, SH_KEYS>;
var<workgroup> sh_values: array<u32, SH_VALUES>;

// Each subgroup's packed counts of a pass (subgroups of at least MIN_WIDTH lanes).
var<workgroup> sh_counts: array<vec4<u32>, WG_SIZE / MIN_WIDTH>;

var<private> keys: array<vec2<u32>, ITEMS>;
var<private> values: array<u32, ITEMS>;

fn sh_key(i: u32) -> vec2<u32> {
    if (KEY_WORDS == 1u) {
        return vec2<u32>(sh_keys[slot(i)], 0u);
    }
    return vec2<u32>(sh_keys[slot(2u * i)], sh_keys[slot(2u * i + 1u)]);
}

fn set_sh_key(i: u32, k: vec2<u32>) {
    sh_keys[slot(KEY_WORDS * i)] = k.x;
    if (KEY_WORDS == 2u) {
        sh_keys[slot(2u * i + 1u)] = k.y;
    }
}

fn sh_value(i: u32) -> u32 {
    return sh_values[slot(i)];
}

fn set_sh_value(i: u32, v: u32) {
    sh_values[slot(i)] = v;
}

// Digit d's counter: 1 in the 16-bit field d of the packed counters.
fn one_of(d: u32) -> vec4<u32> {
    let b = 1u << ((d & 1u) * 16u);
    let w = d >> 1u;
    return vec4<u32>(select(0u, b, w == 0u), select(0u, b, w == 1u), select(0u, b, w == 2u),
        select(0u, b, w == 3u));
}

// Field d of packed counters.
fn field(v: vec4<u32>, d: u32) -> u32 {
    return (v[d >> 1u] >> ((d & 1u) * 16u)) & 0xffffu;
}

// Reads the invocation's keys (and values) back from workgroup memory.
fn read_back(first: u32) {
#unroll k ITEMS
    {
        keys[{k}] = sh_key(first + {k});
        if (VALUES != 0u) {
            values[{k}] = sh_value(first + {k});
        }
    }
#end
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let tile = wg.x + wg.y * nwg.x;
    if (tile >= params.tiles) {
        return;
    }
    let base = tile * TILE;
    let count = min(params.n - base, TILE);
    // Loaded coalesced, in tile order.
#unroll v ITEMS
    {
        let i = {v} * WG_SIZE + l.local;
        if (i < count) {
            set_sh_key(i, load_key(base + i));
            if (VALUES == 1u) {
                set_sh_value(i, src_value(base + i));
            } else if (VALUES == 2u) {
                set_sh_value(i, base + i);
            }
        }
    }
#end
    workgroupBarrier();
    let first = l.local * ITEMS;
    read_back(first);
    for (var sh = params.begin; sh < params.end; sh += DIGIT_BITS) {
        let bits = min(DIGIT_BITS, params.end - sh);
        let last_digit = (1u << bits) - 1u;
        var digits: array<u32, ITEMS>;
        var mine = vec4<u32>(0u);
#unroll k ITEMS
        {
            let d = select(last_digit, digit_at(keys[{k}], sh, bits), first + {k} < count);
            digits[{k}] = d;
            mine += one_of(d);
        }
#end
        var before = sg_exclusive_scan(mine, l.lane, l.size);
        let sg_total = sg_last(combine(before, mine), l.size);
        if (l.lane == 0u) {
            sh_counts[l.sg] = sg_total;
        }
        // Also ends every read of workgroup memory of the pass before (the keys read back, and
        // the counts, which are rewritten only after the next barrier).
        workgroupBarrier();
        var total = vec4<u32>(0u);
        for (var s = 0u; s < WG_SIZE / l.size; s++) {
            let c = sh_counts[s];
            before += select(vec4<u32>(0u), c, s < l.sg);
            total += c;
        }
        // Each digit's first slot (the keys of the smaller digits), packed like the counters,
        // so that a key's slot is one field of a packed sum (no array indexed by its digit).
        var starts = vec4<u32>(0u);
        var run = 0u;
#unroll d 8
        {
            starts += one_of({d}) * run;
            run += field(total, {d});
        }
#end
        before += starts;
#unroll k ITEMS
        {
            let d = digits[{k}];
            let at = field(before, d);
            before += one_of(d);
            set_sh_key(at, keys[{k}]);
            if (VALUES != 0u) {
                set_sh_value(at, values[{k}]);
            }
        }
#end
        workgroupBarrier();
        read_back(first);
    }
    // Workgroup memory holds the sorted tile: out coalesced.
#unroll v ITEMS
    {
        let i = {v} * WG_SIZE + l.local;
        if (i < count) {
            store_key(base + i, sh_key(i));
            if (VALUES != 0u) {
                store_value(base + i, sh_value(i));
            }
        }
    }
#end
}
