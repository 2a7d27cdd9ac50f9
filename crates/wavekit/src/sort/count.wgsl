// Radix sort, first kernel of a pass: each tile counts its keys per digit and writes the
// counts as one row, tile-major (`counts[tile * 256 + digit]`: 1 KiB written whole; written
// digit-major, each tile's 256 words landed in 256 different sectors and the kernel took half
// again as long, ADR-0026). sort/blocks.wgsl and a scan turn them into destinations.
//
// Prepended constants: WG_SIZE, ITEMS, MIN_WIDTH. Imported by name: `subgroup/api`, `monoid` (u32 add),
// `sort/keys` (load_key, digit_of, Params and its binding).
#import subgroup/api
#import monoid
#import sort/keys

@group(0) @binding(3) var<storage, read_write> counts: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;

var<workgroup> sh_count: array<atomic<u32>, 256>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let tile = wg.x + wg.y * nwg.x;
    if (tile >= params.tiles) {
        return;
    }
    for (var d = l.local; d < 256u; d += WG_SIZE) {
        atomicStore(&sh_count[d], 0u);
    }
    workgroupBarrier();
    // All loads first (unrolled), so that they are in flight together.
    var keys: array<vec2<u32>, ITEMS>;
#unroll s ITEMS
    {
        let i = tile * TILE + {s} * WG_SIZE + l.local;
        if (i < params.n) {
            keys[{s}] = load_key(i);
        }
    }
#end
#unroll s ITEMS
    if (tile * TILE + {s} * WG_SIZE + l.local < params.n) {
        atomicAdd(&sh_count[digit_of(keys[{s}])], 1u);
    }
#end
    workgroupBarrier();
    for (var d = l.local; d < 256u; d += WG_SIZE) {
        counts[tile * 256u + d] = atomicLoad(&sh_count[d]);
    }
}
