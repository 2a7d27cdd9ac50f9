// The rate control, step 2 of 2, and the frame's bytes (its CPU twins: the end of
// `cpu::encode` and `cpu/rate.rs`'s `choose`; the split over tiles: `sim::place_in_tiles`).
// One workgroup a tile of TILE blocks, as rate.wgsl's, each on its own from the tiles' totals:
//   - the ties' bytes and the bytes without ties of the tiles before this one (each invocation
//     sums a run of tiles, a workgroup scan joins them);
//   - x, the tie bytes of the whole frame: the first tile whose ties do not all fit the room
//     left, and in it the one block whose ties cross it (its ties before ≤ room < with its
//     own), which takes its ties while they fit;
//   - each block's ties taken while they fit after every earlier block's ties, and its
//     payload's offset: the earlier blocks' bytes without ties plus min(ties before it, x);
//   - the header (tile 0), each block's entry of the offset table, and the payloads (P, n,
//     then the first bits of the block's bit string, the last byte's bits past the n planes
//     cleared), a word an invocation: a word that a neighbouring tile shares is or-ed into the
//     frame, which the encoder clears first.
//
// Bindings: 0 the header (6 words), 1 the records, 2 the bit strings, 3 control (in: θ, the
// room left; out, [2]: the frame's bytes), 4 each block's ties' bytes, 5 each block's planes of
// key ≥ θ, 6 the tiles' totals, 7 the frame (out), 8 params: blocks, overhead, tiles.
#import subgroup/api
#import codec/scan
#import codec/layout

@group(0) @binding(0) var<storage, read> head: array<u32>;
@group(0) @binding(1) var<storage, read> records: array<u32>;
@group(0) @binding(2) var<storage, read> bits: array<u32>;
@group(0) @binding(3) var<storage, read_write> control: array<u32>;
@group(0) @binding(4) var<storage, read> ties: array<u32>;
@group(0) @binding(5) var<storage, read> high: array<u32>;
@group(0) @binding(6) var<storage, read> tiles: array<u32>;
@group(0) @binding(7) var<storage, read_write> frame: array<atomic<u32>>;
@group(0) @binding(8) var<uniform> params: vec4<u32>;

var<workgroup> sh_cut: atomic<u32>;
var<workgroup> sh_cut_before: u32;
var<workgroup> sh_x: u32;
// The tile's blocks: payload offsets (from the first payload), planes sent.
var<workgroup> sh_off: array<u32, TILE>;
var<workgroup> sh_sent: array<u32, TILE>;
// Their payloads' bytes, P, and the bits of their planes sent.
var<workgroup> sh_size: array<u32, TILE>;
var<workgroup> sh_planes: array<u32, TILE>;
var<workgroup> sh_bits: array<u32, TILE>;
var<workgroup> sh_end: u32;

// Block b's ties taken while they fit the room `left` after `before` bytes of ties: its
// planes sent, and the tie bytes up to its end.
fn take(b: u32, before: u32, theta: u32, left: u32) -> vec2<u32> {
    let r = b * RECORD;
    let planes = records[r];
    let tie = theta - 1u;
    var n = high[b];
    var used = before;
    for (var j = n; j < planes; j++) {
        if (tie == 0u || records[r + 26u + j] != tie) {
            break;
        }
        let dr = plane_bytes(r, j + 1u);
        if (used + dr > left) {
            break;
        }
        used += dr;
        n = j + 1u;
    }
    return vec2<u32>(n, used);
}

// Payload byte q of the tile's block k (P, n, then its bit string).
fn payload_byte(k: u32, b: u32, q: u32) -> u32 {
    if (q == 0u) {
        return sh_planes[k];
    }
    if (q == 1u) {
        return sh_sent[k];
    }
    let j = q - 2u;
    var v = (bits[b * STRIDE + j / 4u] >> (24u - 8u * (j % 4u))) & 0xffu;
    let end = sh_bits[k];
    if (j == (end - 1u) / 8u && end % 8u != 0u) {
        v &= ~(0xffu >> (end % 8u)) & 0xffu;
    }
    return v;
}

// Bytes j .. j + 3 of block b's bit string as a little-endian word (all of them whole bytes of
// it, none its last): one or two words of the string, shifted, their bytes swapped.
fn string_word(b: u32, j: u32) -> u32 {
    let w = b * STRIDE + j / 4u;
    let sh = 8u * (j % 4u);
    var s = bits[w];
    if (sh != 0u) {
        s = (s << sh) | (bits[w + 1u] >> (32u - sh));
    }
    return (s << 24u) | ((s & 0xff00u) << 8u) | ((s >> 8u) & 0xff00u) | (s >> 24u);
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    let tile = wg.x;
    let blocks = params.x;
    let overhead = params.y;
    let count = params.z;
    let theta = control[0];
    let left = control[1];
    if (l.local == 0u) {
        atomicStore(&sh_cut, 0xffffffffu);
    }
    // The tiles before this one, and the first whose ties cross the room left: invocation i
    // holds tiles [i·per, (i + 1)·per).
    let per = (count + WG_SIZE - 1u) / WG_SIZE;
    let first = l.local * per;
    var mine = 0u;
    var ties_before = 0u;
    var bytes_before = 0u;
    for (var j = 0u; j < per; j++) {
        let t = first + j;
        if (t < count) {
            let v = tiles[2u * t];
            mine += v;
            if (t < tile) {
                ties_before += v;
                bytes_before += tiles[2u * t + 1u];
            }
        }
    }
    var run = wg_exclusive(mine, l);
    let all_ties = sh_wg_total;
    var cut = 0xffffffffu;
    for (var j = 0u; j < per; j++) {
        let t = first + j;
        if (t < count && cut == 0xffffffffu) {
            let v = tiles[2u * t];
            if (run + v > left) {
                cut = t;
            } else {
                run += v;
            }
        }
    }
    atomicMin(&sh_cut, cut);
    _ = wg_exclusive(ties_before, l);
    ties_before = sh_wg_total;
    _ = wg_exclusive(bytes_before, l);
    bytes_before = sh_wg_total;
    // sh_cut is settled (barriers above); its finder gives the ties before it.
    if (cut != 0xffffffffu && cut == atomicLoad(&sh_cut)) {
        sh_cut_before = run;
    }
    if (l.local == 0u) {
        sh_x = all_ties;
    }
    workgroupBarrier();
    // x: the cut tile's block whose ties cross the room (none: every tie fits, x = all).
    let ct = atomicLoad(&sh_cut);
    let has_cut = ct < count;
    let cb = select(0u, ct, has_cut) * TILE + l.local;
    var ct_ties = 0u;
    if (has_cut && l.local < TILE && cb < blocks) {
        ct_ties = ties[cb];
    }
    let p = wg_exclusive(ct_ties, l) + sh_cut_before;
    if (has_cut && l.local < TILE && cb < blocks && p <= left && p + ct_ties > left) {
        sh_x = take(cb, p, theta, left).y;
    }
    let x = workgroupUniformLoad(&sh_x);

    // This tile's blocks: planes sent, offsets, the offset table.
    let b = tile * TILE + l.local;
    let valid = l.local < TILE && b < blocks;
    var t = 0u;
    var without = 0u;
    if (valid) {
        t = ties[b];
        without = bytes_of(records[b * RECORD + 1u + high[b]]);
    }
    let tb = ties_before + wg_exclusive(t, l);
    let ob = bytes_before + wg_exclusive(without, l);
    if (valid) {
        let n = take(b, tb, theta, left).x;
        let off = ob + min(tb, x);
        let string_bits = records[b * RECORD + 1u + n];
        sh_off[l.local] = off;
        sh_sent[l.local] = n;
        sh_size[l.local] = bytes_of(string_bits);
        sh_planes[l.local] = records[b * RECORD];
        sh_bits[l.local] = string_bits;
        atomicStore(&frame[6u + b], overhead + off);
        if (b == min(blocks, (tile + 1u) * TILE) - 1u) {
            let end = off + bytes_of(string_bits);
            sh_end = end;
            if (b == blocks - 1u) {
                control[2] = overhead + end;
            }
        }
    }
    if (tile == 0u && l.local < 6u) {
        atomicStore(&frame[l.local], head[l.local]);
    }
    workgroupBarrier();

    // The payloads, a word an invocation: bytes [start, end) of the frame are this tile's.
    let in_tile = min(blocks - tile * TILE, TILE);
    let start = overhead + sh_off[0];
    let end = overhead + sh_end;
    for (var w = start / 4u + l.local; w * 4u < end; w += WG_SIZE) {
        // The tile's block of the word's first byte in the tile (a binary search).
        let q0 = max(w * 4u, start) - overhead;
        var lo = 0u;
        var hi = in_tile - 1u;
        while (lo < hi) {
            let mid = (lo + hi + 1u) / 2u;
            if (sh_off[mid] <= q0) {
                lo = mid;
            } else {
                hi = mid - 1u;
            }
        }
        var v = 0u;
        var k = lo;
        let q = w * 4u - overhead;
        let inside = w * 4u >= start && w * 4u + 4u <= end;
        if (inside && q >= sh_off[k] + 2u && q + 4u < sh_off[k] + sh_size[k]) {
            // The common word: four whole bytes of one block's bit string.
            atomicStore(&frame[w], string_word(tile * TILE + k, q - sh_off[k] - 2u));
            continue;
        }
        for (var i = 0u; i < 4u; i++) {
            let at = w * 4u + i;
            if (at >= start && at < end) {
                let q = at - overhead;
                while (k + 1u < in_tile && sh_off[k + 1u] <= q) {
                    k += 1u;
                }
                v |= payload_byte(k, tile * TILE + k, q - sh_off[k]) << (8u * i);
            }
        }
        if (w * 4u >= start && w * 4u + 4u <= end) {
            atomicStore(&frame[w], v);
        } else {
            atomicOr(&frame[w], v);
        }
    }
}
