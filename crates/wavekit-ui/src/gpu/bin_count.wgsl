// Stage 2a: for each chunk of WG_SIZE items, how many of its items touch each bin, written
// bin-major (counts[bin * chunks + chunk]) so that one exclusive scan gives every bin's list its
// place and every chunk its place in that list. One workgroup a chunk: each item adds one to a
// workgroup counter of every bin it touches (order does not matter for a count), then the
// counters go out. Work is the item-bin pairs, not bins x items. CPU port: sim::bin_lists.
// Each invocation first works out its item's boxes and bin rectangle (bbox.wgsl, item_bounds),
// which bin_emit and fine read: one dispatch fewer than a bbox kernel of its own (ADR-0115).
// COVER_FLAGS: chunk 0's workgroup also clears the bins' cover flags, which bin_emit or
// bin_place sets.
#import ui/records
#import ui/bbox

@group(0) @binding(5) var<storage, read_write> counts: array<u32>;
@group(0) @binding(13) var<storage, read_write> cover: array<u32>;

// Two 16-bit counts a word (bin b in word b / 2, the odd bin high): a chunk's count on a bin is
// at most CHUNK (256), and the words of every bin of the largest frame fit workgroup memory.
var<workgroup> sh_counts: array<atomic<u32>, MAX_BIN_WORDS>;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let chunk = wg.x + wg.y * groups.x;
    let bins = params.bins_x * params.bins_y;
    for (var b = local; b < bins; b += WG_SIZE) {
        if ((b & 1u) == 0u) {
            atomicStore(&sh_counts[b >> 1u], 0u);
        }
        if (COVER_FLAGS && chunk == 0u) {
            cover[b] = 0u;
        }
    }
    workgroupBarrier();
    let i = chunk * WG_SIZE + local;
    if (chunk < params.chunks && i < params.n_items) {
        let r = item_bounds(i);
        if (r != NO_BINS) {
            for (var by = (r >> 8u) & 0xffu; by <= (r >> 24u); by++) {
                for (var bx = r & 0xffu; bx <= ((r >> 16u) & 0xffu); bx++) {
                    let b = by * params.bins_x + bx;
                    atomicAdd(&sh_counts[b >> 1u], 1u << ((b & 1u) * 16u));
                }
            }
        }
    }
    workgroupBarrier();
    if (chunk < params.chunks) {
        for (var b = local; b < bins; b += WG_SIZE) {
            counts[b * params.chunks + chunk] =
                (atomicLoad(&sh_counts[b >> 1u]) >> ((b & 1u) * 16u)) & 0xffffu;
        }
    }
}
