// Radix sort, single-pass mode, before the passes: the digit histograms of every pass in one
// read of the keys (`hist[pass * 256 + digit]`). Each workgroup takes `params.tiles` keys
// (its run), counts them in workgroup memory, and adds its non-zero counts to the global
// histograms.
//
// Params here: n, tiles = keys per workgroup, shift = the first bit, bits = the bits sorted.
// Prepended constants: WG_SIZE. Imported by name: `subgroup/api`, `monoid` (u32 add),
// `sort/keys`.
#import subgroup/api
#import monoid
#import sort/keys

@group(0) @binding(3) var<storage, read_write> hist: array<atomic<u32>>;

const MAX_PASSES: u32 = 8u;
// Keys an invocation loads before counting them (the `#unroll u 8` below repeat it: the
// composer's unroll counts are literals or prepended constants).
const LOADS: u32 = 8u;

var<workgroup> sh_hist: array<atomic<u32>, MAX_PASSES * 256u>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let group = wg.x + wg.y * nwg.x;
    let passes = (params.bits + 7u) / 8u;
    for (var i = l.local; i < passes * 256u; i += WG_SIZE) {
        atomicStore(&sh_hist[i], 0u);
    }
    workgroupBarrier();
    let first = group * params.tiles;
    let last = min(first + params.tiles, params.n);
    // LOADS keys an invocation in flight at once (all loads of a round before its atomics: one
    // load a round, as first written, left the kernel waiting on memory, ADR-0038).
    for (var i0 = first; i0 < last; i0 += WG_SIZE * LOADS) {
        var keys: array<vec2<u32>, LOADS>;
#unroll u 8
        {
            let i = i0 + {u} * WG_SIZE + l.local;
            if (i < last) {
                keys[{u}] = load_key(i);
            }
        }
#end
#unroll u 8
        if (i0 + {u} * WG_SIZE + l.local < last) {
            for (var p = 0u; p < passes; p++) {
                let sh = params.shift + 8u * p;
                let bits = min(8u, params.shift + params.bits - sh);
                atomicAdd(&sh_hist[p * 256u + digit_at(keys[{u}], sh, bits)], 1u);
            }
        }
#end
    }
    workgroupBarrier();
    for (var i = l.local; i < passes * 256u; i += WG_SIZE) {
        let c = atomicLoad(&sh_hist[i]);
        if (c != 0u) {
            atomicAdd(&hist[i], c);
        }
    }
}
