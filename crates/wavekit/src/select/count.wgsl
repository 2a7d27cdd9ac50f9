// Survivor count for partition: every workgroup counts a contiguous run of tiles, reduces the
// counts per subgroup and adds them to counts[1] with one atomic per subgroup (u32 addition
// commutes, so the order is irrelevant).
// Prepended constants: WG_SIZE, STEPS, VEC (4), MIN_WIDTH. Imported: `subgroup/api`, `monoid`
// (u32 add), `select/io`.
#import subgroup/api
#import monoid
#import workgroup/tile

#import device/tile_range

// The element index predicates see: from the start of the whole input.
fn index_base() -> u32 {
    return params.base;
}

@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;

#import select/io

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let range = tile_range(wg, nwg);
    var count = 0u;
    for (var tile = range.first; tile < range.last; tile++) {
#unroll k STEPS
        count += kept_in_quad(element(tile, l, {k} * 4u), params.n);
#end
    }
    let sg_count = sg_reduce(count, l.lane, l.size);
    if (l.lane == 0u && sg_count != 0u) {
        atomicAdd(&counts[1], sg_count);
    }
}
