// Device-wide reduce, one pass per level: workgroup w reduces the contiguous tiles
// [w * tiles_per_group, ...) in order and writes one partial; the host runs it again over
// the partials until one value is left. Commutative monoids accumulate per lane across all
// their tiles and reduce across lanes once; others combine tile by tile in element order.
//
// Prepended constants: WG_SIZE, STEPS, VEC, MIN_WIDTH, COMMUTATIVE (bool).
// Imported by name: `subgroup/api`, `monoid`.
#import subgroup/api
#import monoid
#import workgroup/scan
#import workgroup/tile

#import device/tile_range

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> partials: array<T>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let range = tile_range(wg, nwg);
    var acc = identity();
    for (var tile = range.first; tile < range.last; tile++) {
        var vals: array<T, PER_LANE>;
#unroll v PER_LANE
        {
            let i = element(tile, l, {v});
            var x = identity();
            if (i < params.n) {
                x = src[i];
            }
            vals[{v}] = x;
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
