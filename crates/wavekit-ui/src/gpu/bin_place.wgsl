// Stage 2c, one workgroup a chunk (ADR-0116; bin_emit.wgsl is the form with a workgroup a bin
// and eight chunks): the chunk's items go into the lists of the bins they touch, each at the
// place the exclusive scan of the counts gave its (bin, chunk) pair plus its slot there, the
// number of the chunk's items before it on that bin. The lists are then each bin's items in
// draw order, with no sort, and the work follows the item-bin pairs, not bins x items:
// - a pair whose count is 1 holds one item, at slot 0: that item writes itself there;
// - the pairs whose count is 2 or more the workgroup takes one after another (found from the
//   counts, WG_SIZE bins at a time), every invocation testing its item against the bin, and
//   ordered compaction (wg_compact) gives the slots.
// Writes past the lists' room are dropped and counted (lists.wgsl, place).
// COVER_FLAGS: an item opaque over a whole tile of a bin it touches sets the bin's bit in
// workgroup memory; the set bits then go to the bins' cover flags (bin_count cleared them; the
// fine pass walks for covers only in flagged bins).
#import subgroup/api
#import workgroup/compact
#import ui/records
#import ui/lists

// The bins with two or more of the chunk's items, of the WG_SIZE bins looked at.
var<workgroup> sh_multi: array<u32, WG_SIZE>;
// A bit a bin: the chunk holds an item opaque over a whole tile of it (MAX_BIN_WORDS holds
// two bins a word, so this holds every bin of the largest frame).
var<workgroup> sh_cover: array<atomic<u32>, MAX_BIN_WORDS / 16u>;

@compute @workgroup_size(WG_SIZE)
fn main(
    inv: Invocation,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let l = lane_info(inv);
    let chunk = wg.x + wg.y * groups.x;
    let bins = params.bins_x * params.bins_y;
    if (COVER_FLAGS) {
        for (var w = l.local; w < (bins + 31u) / 32u; w += WG_SIZE) {
            atomicStore(&sh_cover[w], 0u);
        }
    }
    // A workgroup past the last chunk (the grid rounds up) has nothing to place.
    if (chunk >= params.chunks) {
        return;
    }
    workgroupBarrier();
    let i = chunk * WG_SIZE + l.local;
    var r = NO_BINS;
    var o = vec4<u32>(0u);
    if (i < params.n_items) {
        r = bin_rects[i];
        if (COVER_FLAGS) {
            o = boxes[i];
        }
    }
    let has = r != NO_BINS;
    // Every item-bin pair: alone on its pair, the item places itself; the cover bits.
    if (has) {
        for (var by = (r >> 8u) & 0xffu; by <= (r >> 24u); by++) {
            for (var bx = r & 0xffu; bx <= ((r >> 16u) & 0xffu); bx++) {
                let b = by * params.bins_x + bx;
                let at = b * params.chunks + chunk;
                if (counts[at] == 1u) {
                    place(at, 0u, i);
                }
                if (COVER_FLAGS && covers_a_tile(o, bx, by)) {
                    atomicOr(&sh_cover[b >> 5u], 1u << (b & 31u));
                }
            }
        }
    }
    // The pairs with two or more items, in order, WG_SIZE bins at a time.
    for (var first = 0u; first < bins; first += WG_SIZE) {
        let b = first + l.local;
        let multi = b < bins && counts[b * params.chunks + chunk] >= 2u;
        let found = wg_compact(multi, l);
        if (multi) {
            sh_multi[found.index] = b;
        }
        // (A barrier; the count is the same on every invocation, as Tint must be shown.)
        let total = workgroupUniformLoad(&sh_wg_total);
        for (var k = 0u; k < total; k++) {
            let mb = sh_multi[k];
            let keep = has && bins_have(r, mb % params.bins_x, mb / params.bins_x);
            let slot = wg_compact(keep, l);
            if (keep) {
                place(mb * params.chunks + chunk, slot.index, i);
            }
        }
        // sh_multi is written again by the next WG_SIZE bins.
        workgroupBarrier();
    }
    if (COVER_FLAGS) {
        workgroupBarrier();
        for (var b = l.local; b < bins; b += WG_SIZE) {
            if ((atomicLoad(&sh_cover[b >> 5u]) & (1u << (b & 31u))) != 0u) {
                atomicStore(&cover[b], 1u);
            }
        }
    }
}
