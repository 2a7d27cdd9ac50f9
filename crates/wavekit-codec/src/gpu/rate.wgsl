// The rate control, step 1 of 2 (its CPU twin: `cpu/rate.rs`; the split over tiles:
// `sim::place_in_tiles`). One workgroup a tile of TILE blocks, one invocation a block:
//   - θ, from the histogram of the planes' bytes by key that the block encoder filled: the
//     lowest key bin ≥ 1 whose suffix fits the room (the bytes beyond the blocks' two header
//     bytes), found by every workgroup alike; workgroup 0 writes it and the room left under it
//     to control[0] and control[1];
//   - each block's planes of key ≥ θ (`high`), the bytes of its ties (its planes of key θ − 1,
//     which follow them), and its payload's bytes without its ties;
//   - the tile's totals of both, for pack.wgsl.
//
// Bindings: 0 the records, 1 the histogram (KEY_BINS words), 2 control (out: θ, room left),
// 3 each block's ties' bytes (out), 4 each block's planes of key ≥ θ (out), 5 each tile's
// ties' bytes and bytes without ties (out, two words a tile), 6 params: blocks, the blocks'
// header bytes (2 a block), the room for payloads.
#import subgroup/api
#import codec/scan
#import codec/layout

@group(0) @binding(0) var<storage, read> records: array<u32>;
@group(0) @binding(1) var<storage, read> hist: array<u32>;
@group(0) @binding(2) var<storage, read_write> control: array<u32>;
@group(0) @binding(3) var<storage, read_write> ties: array<u32>;
@group(0) @binding(4) var<storage, read_write> high: array<u32>;
@group(0) @binding(5) var<storage, read_write> tiles: array<u32>;
@group(0) @binding(6) var<uniform> params: vec4<u32>;

const PER: u32 = KEY_BINS / WG_SIZE;

var<workgroup> sh_over: atomic<u32>;
var<workgroup> sh_left: u32;

// θ and the room left under it, on every invocation (barriers inside).
fn threshold(l: Lane) -> vec2<u32> {
    let base = params.y;
    let room = params.z;
    if (l.local == 0u) {
        atomicStore(&sh_over, 0u);
    }
    // Invocation t holds the t-th chunk of bins from the top, so an exclusive scan gives the
    // bytes of every bin above its chunk.
    let lo = KEY_BINS - (l.local + 1u) * PER;
    var mine = 0u;
    for (var j = 0u; j < PER; j++) {
        mine += hist[lo + j];
    }
    let above = wg_exclusive(mine, l);
    // Bins that do not fit: base + (their suffix) > room; they are the low ones.
    var suffix = above;
    var over = 0u;
    for (var j = PER; j > 0u; j--) {
        let k = lo + j - 1u;
        suffix += hist[k];
        if (k >= 1u && base + suffix > room) {
            over += 1u;
        }
    }
    atomicAdd(&sh_over, over);
    workgroupBarrier();
    let theta = 1u + atomicLoad(&sh_over);
    // The suffix at θ (none when θ is past the last bin).
    suffix = above;
    for (var j = PER; j > 0u; j--) {
        let k = lo + j - 1u;
        suffix += hist[k];
        if (k == theta) {
            sh_left = room - base - suffix;
        }
    }
    if (l.local == 0u && theta >= KEY_BINS) {
        sh_left = room - base;
    }
    return vec2<u32>(theta, workgroupUniformLoad(&sh_left));
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let tile = wg.x;
    let chosen = threshold(l);
    let theta = chosen.x;
    if (tile == 0u && l.local == 0u) {
        control[0] = theta;
        control[1] = chosen.y;
    }
    let b = tile * TILE + l.local;
    var t = 0u;
    var bytes = 0u;
    if (l.local < TILE && b < params.x) {
        let r = b * RECORD;
        let planes = records[r];
        var n = 0u;
        while (n < planes && records[r + 26u + n] >= theta) {
            n += 1u;
        }
        let tie = theta - 1u;
        for (var j = n; j < planes; j++) {
            if (tie == 0u || records[r + 26u + j] != tie) {
                break;
            }
            t += plane_bytes(r, j + 1u);
        }
        bytes = bytes_of(records[r + 1u + n]);
        ties[b] = t;
        high[b] = n;
    }
    _ = wg_exclusive(t, l);
    let tile_ties = sh_wg_total;
    _ = wg_exclusive(bytes, l);
    if (l.local == 0u) {
        tiles[2u * tile] = tile_ties;
        tiles[2u * tile + 1u] = sh_wg_total;
    }
}
