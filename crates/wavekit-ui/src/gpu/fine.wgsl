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
#import subgroup/api
#import workgroup/compact
#import ui/records
#import ui/shade
#import ui/output

@group(0) @binding(2) var<storage, read> boxes: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read> list: array<u32>;
@group(0) @binding(10) var<storage, read_write> tile_stats: array<u32>;

var<workgroup> sh_items: array<u32, WG_SIZE>;
var<workgroup> sh_range: vec2<u32>;
var<workgroup> sh_cover: atomic<u32>;
var<workgroup> sh_first: u32;
var<workgroup> sh_total: u32;
var<workgroup> sh_count: atomic<u32>;

const NONE: u32 = 0xffffffffu;
// Set on a survivor whose solid box holds the whole tile.
const SOLID: u32 = 0x80000000u;

// Pack this chunk's survivors into sh_items in some order; returns how many there are.
fn compact(keep: bool, item: u32, l: Lane) -> u32 {
    if (COMPACT == 0u) {
        let slot = wg_compact(keep, l);
        if (keep) {
            sh_items[slot.index] = item;
        }
        workgroupBarrier();
        return slot.total;
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
        sh_range = vec2<u32>(
            min(offsets[bin * params.chunks], cap),
            min(offsets[(bin + 1u) * params.chunks], cap),
        );
        atomicStore(&sh_cover, 0u);
    }
    let range = workgroupUniformLoad(&sh_range);
    var first = range.x;
    if (params.cull != 0u) {
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
    var acc = params.background;
    var drawn = 0u;
    let inside = px < params.width && py < params.height;
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
        if (inside) {
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
        store_pixel(px, py, quantise(acc));
    }
    if (STATS && l.local == 0u) {
        tile_stats[ty * params.tiles_x + tx] = drawn;
    }
}
