// Device-wide reduce in one dispatch: workgroup w reduces the contiguous tiles
// [w * tiles_per_group, ...) in order and publishes one partial; the last workgroup to finish
// (the one whose count of finished workgroups reaches the total) combines every partial in
// workgroup order, writes the result, and sets the count back to 0 for the next run, so
// nothing is cleared between runs (ADR-0080). Commutative monoids accumulate per lane across
// all their tiles and reduce across lanes once; others combine tile by tile in element order.
// No workgroup waits for another: no forward progress between workgroups is assumed.
//
// A partial is published as T_WORDS atomic words, then a storage barrier (a device-scope
// release) comes before the count's increment; the last workgroup's storage barrier after its
// increment (an acquire) comes before it loads the partials, again as atomics.
//
// One-word elements (QUADS) are loaded as 16-byte quads where a lane's VEC = 4 consecutive
// elements are all there (binding 3 views the input's whole quads).
//
// Prepended constants: WG_SIZE, STEPS, VEC, MIN_WIDTH, COMMUTATIVE (bool), QUADS (bool),
// QUAD_LOADS (1 with QUADS, else 0).
// Imported by name: `subgroup/api`, `monoid`.
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile

#import device/tile_range

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> partials: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> src4: array<vec4<u32>>;
// [0]: workgroups of this run that have published their partial (0 between runs).
@group(0) @binding(4) var<storage, read_write> finished: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> result: array<T>;

var<workgroup> sh_last: u32;

fn publish_partial(group: u32, v: T) {
    let b = to_bits(v);
#unroll j 4
    if ({j} < T_WORDS) {
        atomicStore(&partials[group * T_WORDS + {j}], b[{j}]);
    }
#end
}

fn load_partial(group: u32) -> T {
    var b = vec4<u32>(0u);
#unroll j 4
    if ({j} < T_WORDS) {
        b[{j}] = atomicLoad(&partials[group * T_WORDS + {j}]);
    }
#end
    return from_bits(b);
}

// The workgroups' partials combined in workgroup order (called by the whole workgroup): lane
// i of the workgroup takes a contiguous run of them, the runs are combined in lane order.
fn combine_partials(groups: u32, l: Lane) -> T {
    let per = (groups + WG_SIZE - 1u) / WG_SIZE;
    let first = min(l.local * per, groups);
    let last = min(first + per, groups);
    var run = identity();
    for (var g = first; g < last; g++) {
        run = combine(run, load_partial(g));
    }
    _ = wg_exclusive_of_subgroups(sg_last(sg_inclusive(run, l.lane, l.size), l.size), l);
    return sh_wg_total;
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let range = tile_range(wg, nwg);
    var acc = identity();
    for (var tile = range.first; tile < range.last; tile++) {
        var vals: array<T, PER_LANE>;
        // A whole tile (all but the last): its quads without a bound check each.
        let whole = QUADS && (tile + 1u) * TILE <= params.n;
#unroll k STEPS
        {
            let i0 = element(tile, l, {k} * VEC);
            if (whole || (QUADS && i0 + 3u < params.n)) {
                // Emitted only with QUADS (QUAD_LOADS 1): the indices below need VEC = 4.
#unroll qd QUAD_LOADS
                {
                    let q = src4[i0 / 4u];
                    vals[{k} * VEC] = from_bits(vec4<u32>(q.x, 0u, 0u, 0u));
                    vals[{k} * VEC + 1u] = from_bits(vec4<u32>(q.y, 0u, 0u, 0u));
                    vals[{k} * VEC + 2u] = from_bits(vec4<u32>(q.z, 0u, 0u, 0u));
                    vals[{k} * VEC + 3u] = from_bits(vec4<u32>(q.w, 0u, 0u, 0u));
                }
#end
            } else {
#unroll j VEC
                {
                    let i = i0 + {j};
                    var x = identity();
                    if (i < params.n) {
                        x = src[i];
                    }
                    vals[{k} * VEC + {j}] = x;
                }
#end
            }
        }
#end
        if (COMMUTATIVE) {
#unroll v PER_LANE
            acc = combine(acc, vals[{v}]);
#end
        } else {
            // Element order: subgroup chunks, then steps, then lanes, then a lane's values.
            var carry = identity();
#unroll k STEPS
            {
                var run = identity();
#unroll j VEC
                run = combine(run, vals[{k} * VEC + {j}]);
#end
                carry = combine(carry, sg_last(sg_inclusive(run, l.lane, l.size), l.size));
            }
#end
            _ = wg_exclusive_of_subgroups(carry, l);
            acc = combine(acc, sh_wg_total);
        }
    }
    if (COMMUTATIVE) {
        _ = wg_exclusive_of_subgroups(sg_reduce(acc, l.lane, l.size), l);
        acc = sh_wg_total;
    }
    // The workgroups with tiles (a 2-D grid may have a few past the end).
    let groups = (params.tiles + params.tiles_per_group - 1u) / params.tiles_per_group;
    if (range.group >= groups) {
        return;
    }
    if (l.local == 0u) {
        publish_partial(range.group, acc);
    }
    storageBarrier();
    if (l.local == 0u) {
        sh_last = u32(atomicAdd(&finished[0], 1u) == groups - 1u);
    }
    if (workgroupUniformLoad(&sh_last) == 0u) {
        return;
    }
    storageBarrier();
    let total = combine_partials(groups, l);
    if (l.local == 0u) {
        result[0] = total;
        atomicStore(&finished[0], 0u);
    }
}
