// Stage 2c: each (bin, chunk) writes its items that touch the bin to the bin's list, at the
// place the exclusive scan of the counts gave it, in draw order: the slot of an item within its
// chunk is the number of kept items before it (wg_compact). Each bin's list is therefore its
// items in draw order, with no sort. A workgroup takes EMIT_CHUNKS consecutive chunks of one
// bin (grid: chunk groups x bins) and skips those whose count is 0: most (bin, chunk) pairs
// are empty, and a workgroup that only reads a count and exits still costs its launch. Writes
// past the lists' room are dropped and counted (lists.wgsl, place).
// COVER_FLAGS: a kept item that is opaque over a whole tile of this bin sets the bin's cover
// flag (once a workgroup), and the fine pass walks for covers only in bins that have one (what
// the walk would find is exactly such an item, so a bin without the flag has nothing to find).
#import subgroup/api
#import workgroup/compact
#import ui/records
#import ui/lists

var<workgroup> sh_counts: array<u32, EMIT_CHUNKS>;
var<workgroup> sh_cover: atomic<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let bin = wg.y;
    let first_chunk = wg.x * EMIT_CHUNKS;
    if (l.local < EMIT_CHUNKS) {
        let chunk = first_chunk + l.local;
        var n = 0u;
        if (chunk < params.chunks) {
            n = counts[bin * params.chunks + chunk];
        }
        sh_counts[l.local] = n;
    }
    if (l.local == 0u) {
        atomicStore(&sh_cover, 0u);
    }
    workgroupBarrier();
    let bx = bin % params.bins_x;
    let by = bin / params.bins_x;
    for (var j = 0u; j < EMIT_CHUNKS; j++) {
        if (workgroupUniformLoad(&sh_counts[j]) == 0u) {
            continue;
        }
        let chunk = first_chunk + j;
        let i = chunk * WG_SIZE + l.local;
        let keep = i < params.n_items && bins_have(bin_rects[i], bx, by);
        let slot = wg_compact(keep, l);
        if (COVER_FLAGS && keep && covers_a_tile(boxes[i], bx, by)) {
            atomicStore(&sh_cover, 1u);
        }
        if (keep) {
            place(bin * params.chunks + chunk, slot.index, i);
        }
    }
    if (COVER_FLAGS && workgroupUniformLoad(&sh_cover) != 0u && l.local == 0u) {
        atomicStore(&cover[bin], 1u);
    }
}
