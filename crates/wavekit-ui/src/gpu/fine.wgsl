// Stage 3: one workgroup of WG_SIZE = TILE * TILE invocations per tile, one pixel each. The
// tile walks its bin's list (the bin's items in draw order) in chunks of WG_SIZE: each
// invocation tests one candidate's pixel box against the tile, the survivors are compacted into
// workgroup memory in draw order, then every pixel composites them, source-over, from the
// background up. Any number of items works: the chunks are a loop.
//
// Opaque culling (params.cull): first a walk backwards over the list finds the last opaque item
// whose solid box holds the whole tile; nothing before it is drawn (it overwrites them exactly:
// its alpha is 1 at every pixel of the tile). A survivor whose solid box holds the tile is
// shaded without its edge or clips (their coverage is exactly 1 there).
//
// COMPACT picks how a chunk's survivors are packed: 0 wg_compact (ordered; the default), 1 a
// serial scan by one invocation, 2 an atomic counter (draw order lost: for measurement only).
// STATS: tile_stats[tile] counts the candidates composited (for tests and measurements).
//
// COVER_FLAGS: the walk for covers runs only in bins whose cover flag the binning set (a bin
// without one has no opaque item over a whole tile, so the walk would find nothing).
//
// STAGE_RECORDS (ADR-0114): the survivors' records (ITEM_WORDS words each) and pixel boxes are
// copied into workgroup memory, STAGE_ITEMS at a time, every invocation loading a few words;
// the pixels then read them there (rec_word) instead of each pixel reading each record from the
// scene buffer in turn. Without it rec_word reads the scene buffer.
//
// Slices (ADR-0083): a scene over the renderer's loop budget (software adapters, whose loops
// end after 65 535 iterations in all) is drawn in several dispatches, each over a slice of the
// items in draw order (`slice`: first item, end, flags 1 first and 2 last). A tile finds its
// slice in its list by two binary searches; the colours go from one slice to the next through
// `carry` in f32, so the pixels are the bits one dispatch gives. The culling looks within the
// slice (what lies beneath a cover in an earlier slice was drawn, and the cover overwrites it
// exactly).
#import subgroup/api
#import workgroup/compact
#import ui/records
#import ui/shade
#import ui/output

@group(0) @binding(2) var<storage, read> boxes: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read> list: array<u32>;
@group(0) @binding(10) var<storage, read_write> tile_stats: array<u32>;
@group(0) @binding(11) var<uniform> slice: vec4<u32>;
@group(0) @binding(12) var<storage, read_write> carry: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read> cover: array<u32>;

var<workgroup> sh_items: array<u32, WG_SIZE>;
var<workgroup> sh_range: vec3<u32>;
var<workgroup> sh_cover: atomic<u32>;
var<workgroup> sh_first: u32;
var<workgroup> sh_total: u32;
var<workgroup> sh_count: atomic<u32>;
// STAGE_RECORDS: a batch of survivors' records and pixel boxes (each invocation loads
// STAGE_ITEMS * ITEM_WORDS / WG_SIZE = 4 words and at most one box).
const STAGE_ITEMS: u32 = 4u * WG_SIZE / ITEM_WORDS;
var<workgroup> sh_rec: array<u32, 4u * WG_SIZE>;
var<workgroup> sh_box: array<vec2<u32>, STAGE_ITEMS>;

const NONE: u32 = 0xffffffffu;
// Set on a survivor whose solid box holds the whole tile.
const SOLID: u32 = 0x80000000u;

// The first position in list[lo, hi) whose item is at least `item` (the list is in draw order).
fn lower_bound(lo0: u32, hi0: u32, item: u32) -> u32 {
    var lo = lo0;
    var hi = hi0;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        if (list[mid] < item) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Word w of the record shade reads as r: staged, r is the slot in sh_rec; otherwise the item.
fn rec_word(r: u32, w: u32) -> u32 {
    if (STAGE_RECORDS) {
        return sh_rec[r * ITEM_WORDS + w];
    }
    return scene[params.item_base + r * ITEM_WORDS + w];
}

// One word of the batch of records that starts at sh_items[start]: word `at` of the batch
// (record at / ITEM_WORDS), if the batch has that record.
fn stage_word(start: u32, n: u32, at: u32) {
    let r = at / ITEM_WORDS;
    if (r < n) {
        let it = sh_items[start + r] & ~SOLID;
        sh_rec[at] = scene[params.item_base + it * ITEM_WORDS + at % ITEM_WORDS];
    }
}

// Pack this chunk's survivors into sh_items in some order; returns how many there are.
fn compact(keep: bool, item: u32, l: Lane) -> u32 {
    if (COMPACT == 0u) {
        let slot = wg_compact(keep, l);
        if (keep) {
            sh_items[slot.index] = item;
        }
        // A barrier (sh_items is read next), and the total as a uniform value: the staged
        // loop has barriers in it, which Tint allows only under uniform control flow.
        return workgroupUniformLoad(&sh_wg_total);
    } else if (COMPACT == 1u) {
        // The serial scan ordered compaction replaces: flags to workgroup memory, one
        // invocation walks them.
        workgroupBarrier();
        sh_items[l.local] = select(NONE, item, keep);
        workgroupBarrier();
        if (l.local == 0u) {
            var n = 0u;
            for (var j = 0u; j < WG_SIZE; j++) {
                let v = sh_items[j];
                if (v != NONE) {
                    sh_items[n] = v;
                    n++;
                }
            }
            sh_total = n;
        }
        return workgroupUniformLoad(&sh_total);
    } else {
        // An atomic counter: fast, but the slots come in any order.
        workgroupBarrier();
        if (l.local == 0u) {
            atomicStore(&sh_count, 0u);
        }
        workgroupBarrier();
        if (keep) {
            sh_items[atomicAdd(&sh_count, 1u)] = item;
        }
        workgroupBarrier();
        if (l.local == 0u) {
            sh_total = atomicLoad(&sh_count);
        }
        return workgroupUniformLoad(&sh_total);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let tx = wg.x;
    let ty = wg.y;
    let px = tx * TILE + l.local % TILE;
    let py = ty * TILE + l.local / TILE;
    let tile = vec4<i32>(vec4<u32>(tx * TILE, ty * TILE, (tx + 1u) * TILE, (ty + 1u) * TILE));
    let bin = tx / BIN_TILES + (ty / BIN_TILES) * params.bins_x;
    if (l.local == 0u) {
        let cap = params.capacity;
        var r = vec2<u32>(
            min(offsets[bin * params.chunks], cap),
            min(offsets[(bin + 1u) * params.chunks], cap),
        );
        if (slice.x != 0u || slice.y < params.n_items) {
            r = vec2<u32>(lower_bound(r.x, r.y, slice.x), lower_bound(r.x, r.y, slice.y));
        }
        var walk = params.cull;
        if (COVER_FLAGS && walk != 0u) {
            walk = cover[bin];
        }
        sh_range = vec3<u32>(r, walk);
        atomicStore(&sh_cover, 0u);
    }
    let range = workgroupUniformLoad(&sh_range);
    var first = range.x;
    if (range.z != 0u) {
        var hi = range.y;
        while (hi > range.x) {
            let lo = select(range.x, hi - WG_SIZE, hi - range.x > WG_SIZE);
            let pos = lo + l.local;
            if (pos < hi) {
                let o = boxes[list[pos]];
                let sb = unpack_box(o.z & ~OPAQUE_BIT, o.w);
                if ((o.z & OPAQUE_BIT) != 0u && all(sb.xy <= tile.xy) && all(sb.zw >= tile.zw)) {
                    atomicMax(&sh_cover, pos + 1u);
                }
            }
            workgroupBarrier();
            if (l.local == 0u) {
                sh_first = atomicLoad(&sh_cover);
            }
            let found = workgroupUniformLoad(&sh_first);
            if (found != 0u) {
                first = found - 1u;
                break;
            }
            hi = lo;
        }
    }
    let inside = px < params.width && py < params.height;
    let at = py * params.width + px;
    var acc = params.background;
    if ((slice.z & 1u) == 0u && inside) {
        acc = carry[at];
    }
    var drawn = 0u;
    let pi = vec2<i32>(vec2<u32>(px, py));
    for (var base = first; base < range.y; base += WG_SIZE) {
        let pos = base + l.local;
        var item = 0u;
        var keep = false;
        if (pos < range.y) {
            item = list[pos];
            let o = boxes[item];
            keep = !box_empty(box_and(unpack_box(o.x, o.y), tile));
            // Solid on the whole tile: no edge and no clip to evaluate (coverage exactly 1).
            let sb = unpack_box(o.z & ~OPAQUE_BIT, o.w);
            if (all(sb.xy <= tile.xy) && all(sb.zw >= tile.zw)) {
                item |= SOLID;
            }
        }
        let total = compact(keep, item, l);
        drawn += total;
        if (STAGE_RECORDS) {
            for (var start = 0u; start < total; start += STAGE_ITEMS) {
                let n = min(STAGE_ITEMS, total - start);
                // The previous batch's pixels are done with sh_rec.
                workgroupBarrier();
                stage_word(start, n, l.local);
                stage_word(start, n, l.local + WG_SIZE);
                stage_word(start, n, l.local + 2u * WG_SIZE);
                stage_word(start, n, l.local + 3u * WG_SIZE);
                if (l.local < n) {
                    sh_box[l.local] = boxes[sh_items[start + l.local] & ~SOLID].xy;
                }
                workgroupBarrier();
                if (inside) {
                    for (var k = 0u; k < n; k++) {
                        let o = sh_box[k];
                        let ob = unpack_box(o.x, o.y);
                        if (all(pi >= ob.xy) && all(pi < ob.zw)) {
                            acc = over(shade(k, px, py, sh_items[start + k] >= SOLID), acc);
                        }
                    }
                }
            }
        } else if (inside) {
            for (var k = 0u; k < total; k++) {
                let v = sh_items[k];
                let it = v & ~SOLID;
                let o = boxes[it];
                let ob = unpack_box(o.x, o.y);
                if (all(pi >= ob.xy) && all(pi < ob.zw)) {
                    acc = over(shade(it, px, py, v >= SOLID), acc);
                }
            }
        }
    }
    if (inside) {
        if ((slice.z & 2u) != 0u) {
            store_pixel(px, py, quantise(acc));
        } else {
            carry[at] = acc;
        }
    }
    if (STATS && l.local == 0u) {
        let t = ty * params.tiles_x + tx;
        if ((slice.z & 1u) != 0u) {
            tile_stats[t] = drawn;
        } else {
            tile_stats[t] += drawn;
        }
    }
}
