// Device-wide reduce, one pass per level: workgroup w reduces the contiguous tiles
// [w * tiles_per_group, ...) in order and writes one partial; the host runs it again over
// the partials until one value is left. Commutative monoids accumulate per lane across all
// their tiles and reduce across lanes once; others combine tile by tile in element order.
//
// One-word elements (QUADS) are loaded as 16-byte quads where a lane's VEC = 4 consecutive
// elements are all there (binding 3 views the input's whole quads).
//
// Prepended constants: WG_SIZE, STEPS, VEC, MIN_WIDTH, COMMUTATIVE (bool), QUADS (bool).
// Imported by name: `subgroup/api`, `monoid`.
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile

#import device/tile_range

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> partials: array<T>;
@group(0) @binding(3) var<storage, read> src4: array<vec4<u32>>;

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
                let q = src4[i0 / 4u];
                vals[{k} * VEC] = from_bits(vec4<u32>(q.x, 0u, 0u, 0u));
                vals[{k} * VEC + 1u] = from_bits(vec4<u32>(q.y, 0u, 0u, 0u));
                vals[{k} * VEC + 2u] = from_bits(vec4<u32>(q.z, 0u, 0u, 0u));
                vals[{k} * VEC + 3u] = from_bits(vec4<u32>(q.w, 0u, 0u, 0u));
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
    if (l.local == 0u && range.first < params.tiles) {
        partials[range.group] = acc;
    }
}
