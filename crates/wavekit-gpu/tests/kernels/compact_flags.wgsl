// An application kernel on wavekit's prelude (the example of `wavekit::prelude`): each
// workgroup writes the local indices whose flag is set, in order, to the front of its block of
// `out`, and its number of survivors to `totals`.
#import subgroup/api
#import workgroup/compact

@group(0) @binding(0) var<storage, read> flags: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let keep = flags[wg.x * WG_SIZE + l.local] != 0u;
    // Every invocation calls it: it has barriers, and subgroup operations inside.
    let slot = wg_compact(keep, l);
    if (keep) {
        out[wg.x * WG_SIZE + slot.index] = l.local;
    }
    if (l.local == 0u) {
        totals[wg.x] = slot.total;
    }
}
