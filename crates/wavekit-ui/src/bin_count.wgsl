// Stage 2a: for each (bin, chunk of WG_SIZE items), how many of the chunk's items touch the
// bin, written bin-major (counts[bin * chunks + chunk]) so that one exclusive scan gives every
// bin's list its place and every chunk its place in the list. A chunk whose union of bins
// misses the bin writes 0 without looking at its items. CPU port: reference::bin_lists.
#import subgroup/api
#import workgroup/compact
#import ui/records

@group(0) @binding(3) var<storage, read> bin_rects: array<u32>;
@group(0) @binding(4) var<storage, read> chunk_bins: array<u32>;
@group(0) @binding(5) var<storage, read_write> counts: array<u32>;

var<workgroup> sh_skip: u32;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let chunk = wg.x;
    let bin = wg.y;
    let bx = bin % params.bins_x;
    let by = bin / params.bins_x;
    if (l.local == 0u) {
        sh_skip = u32(!bins_have(chunk_bins[chunk], bx, by));
    }
    if (workgroupUniformLoad(&sh_skip) != 0u) {
        if (l.local == 0u) {
            counts[bin * params.chunks + chunk] = 0u;
        }
        return;
    }
    let i = chunk * WG_SIZE + l.local;
    let keep = i < params.n_items && bins_have(bin_rects[i], bx, by);
    let slot = wg_compact(keep, l);
    if (l.local == 0u) {
        counts[bin * params.chunks + chunk] = slot.total;
    }
}
