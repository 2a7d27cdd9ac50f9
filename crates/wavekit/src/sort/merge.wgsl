// Small sorts, second step (ADR-0090): the tiles sorted by sort/tile_sort merged into one
// order. A key's place is its place in its own tile plus, in every other tile, the keys that
// go before it: the smaller ones, and from an earlier tile the equal ones too (so equal keys
// keep their order: the sort is stable). Each is found by a binary search of that tile; the
// cost grows with the tiles, so only sorts of a few tiles take it.
//
// A workgroup takes WG_SIZE consecutive keys of one tile (a chunk; a tile's last chunk may be
// shorter), one an invocation. Their counts in another tile lie between those of the chunk's
// first and last key (a count grows with the key), found first, one tile an invocation, in
// batches of WG_SIZE tiles. Where that window holds at most WINDOW keys the workgroup loads it
// into workgroup memory and every invocation searches it there; a wider one (many equal keys)
// is searched where it lies.
//
// Keys compare by their sortable bits `begin..end` (sort/key_order) as unsigned (hi, lo).
// Prepended constants: WG_SIZE, TILE (keys per sorted tile), CHUNKS (chunks a tile: TILE /
// WG_SIZE rounded up), WINDOW, KEY_WORDS, KEY_KIND, VALUES (0 none, else moved with the
// keys). Imported by name: `sort/small_io` (the bindings, through sort/small_keys).

#import sort/small_keys

// The bits begin..end of the key's sortable bits, as (lo, hi) of one unsigned number.
fn ordered(k: vec2<u32>) -> vec2<u32> {
    let s = sortable(k);
    let b = params.begin;
    let width = params.end - b;
    var lo = 0u;
    var hi = 0u;
    if (KEY_WORDS == 1u) {
        lo = s.x >> b;
    } else if (b >= 32u) {
        lo = s.y >> (b - 32u);
    } else if (b == 0u) {
        lo = s.x;
        hi = s.y;
    } else {
        lo = (s.x >> b) | (s.y << (32u - b));
        hi = s.y >> b;
    }
    if (width < 32u) {
        lo &= (1u << width) - 1u;
        hi = 0u;
    } else if (width < 64u) {
        hi &= (1u << (width - 32u)) - 1u;
    }
    return vec2<u32>(lo, hi);
}

fn less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// Whether a key of tile `t` at `other` goes before `key` of tile `own`.
fn goes_before(other: vec2<u32>, key: vec2<u32>, t: u32, own: u32) -> bool {
    return less(other, key) || (t < own && !less(key, other));
}

// The keys of tile t, among its positions lo..hi, that go before `key` (a prefix of them),
// searched in place.
fn count_in(key: vec2<u32>, t: u32, own: u32, lo0: u32, hi0: u32) -> u32 {
    var lo = lo0;
    var hi = hi0;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (goes_before(ordered(load_key(mid)), key, t, own)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo - lo0;
}

var<workgroup> sh_lo: array<u32, WG_SIZE>;
var<workgroup> sh_hi: array<u32, WG_SIZE>;
var<workgroup> sh_window: array<vec2<u32>, WINDOW>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let chunk = wg.x + wg.y * nwg.x;
    let own = chunk / CHUNKS;
    if (own >= params.tiles) {
        return;
    }
    let tile_start = own * TILE;
    let tile_end = min(tile_start + TILE, params.n);
    let start = tile_start + (chunk % CHUNKS) * WG_SIZE;
    let end = min(start + WG_SIZE, tile_end);
    if (start >= end) {
        return;
    }
    let i = start + local;
    let in_chunk = i < end;
    var raw = vec2<u32>(0u);
    if (in_chunk) {
        raw = load_key(i);
    }
    let key = ordered(raw);
    let first_key = ordered(load_key(start));
    let last_key = ordered(load_key(end - 1u));
    var rank = i - tile_start;
    for (var batch = 0u; batch < params.tiles; batch += WG_SIZE) {
        // The window of each tile of the batch: the counts of the chunk's first and last key.
        let bt = batch + local;
        if (bt < params.tiles && bt != own) {
            let lo = bt * TILE;
            let hi = min(lo + TILE, params.n);
            let a = count_in(first_key, bt, own, lo, hi);
            sh_lo[local] = lo + a;
            sh_hi[local] = lo + a + count_in(last_key, bt, own, lo + a, hi);
        }
        workgroupBarrier();
        let batch_end = min(batch + WG_SIZE, params.tiles);
        for (var t = batch; t < batch_end; t++) {
            if (t == own) {
                continue;
            }
            // Read by all at once: the window's width decides the barriers below.
            let lo = workgroupUniformLoad(&sh_lo[t - batch]);
            let hi = workgroupUniformLoad(&sh_hi[t - batch]);
            // Every key of the tile before the window goes before this one.
            rank += lo - t * TILE;
            let width = hi - lo;
            if (width <= WINDOW) {
                for (var j = local; j < width; j += WG_SIZE) {
                    sh_window[j] = ordered(load_key(lo + j));
                }
                workgroupBarrier();
                var a = 0u;
                var b = width;
                while (a < b) {
                    let mid = (a + b) / 2u;
                    if (goes_before(sh_window[mid], key, t, own)) {
                        a = mid + 1u;
                    } else {
                        b = mid;
                    }
                }
                rank += a;
                // The next window overwrites this one.
                workgroupBarrier();
            } else {
                rank += count_in(key, t, own, lo, hi);
            }
        }
        // The next batch rewrites the windows.
        workgroupBarrier();
    }
    if (!in_chunk) {
        return;
    }
    store_key(rank, raw);
    if (VALUES != 0u) {
        store_value(rank, src_value(i));
    }
}
