// Test kernel of the workgroup layer's ordered compaction (workgroup/compact.wgsl): each
// workgroup compacts the local indices whose flag is set.
// Prepended constants: WG_SIZE, MIN_WIDTH. Imported: `subgroup/api`, `monoid` (u32 add).
#import subgroup/api
#import monoid
#import workgroup/compact

@group(0) @binding(0) var<storage, read> flags: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let keep = flags[wg.x * WG_SIZE + l.local] != 0u;
    let slot = wg_compact(keep, l);
    if (keep) {
        out[wg.x * WG_SIZE + slot.index] = l.local;
    }
    if (l.local == 0u) {
        totals[wg.x] = slot.total;
    }
}
