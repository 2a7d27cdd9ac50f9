// One level of the 2D wavelet transform, both directions fused, in one dispatch: a workgroup
// per tile and plane, the lifting done in registers.
//
// A tile is TILE_W = COLUMNS − 2·APRON columns by TILE_H = ROWS·SEGMENTS rows. Invocation
// (c, s) owns one column of the tile and its apron (APRON columns each side) and a segment of
// ROWS rows, and holds that column's REGS = ROWS + 2·APRON samples (its rows and an apron of
// APRON rows each side) in registers: an apron as wide as the lifting steps of one direction,
// since each step leaves one more sample at the edge stale. Every coordinate is mirrored into
// the plane on load (PSE keeps a coordinate's parity, and lifting keeps a symmetric signal
// symmetric, so mirrored samples are exactly those of the extended signal).
//
// Vertical lifting runs in each invocation's registers (no barriers); horizontal lifting
// exchanges neighbouring columns through workgroup memory, one barrier per step. Invocations
// c < COLUMNS/2 take the even columns and the rest the odd ones, so that a subgroup's loads
// and stores of one band are contiguous, and workgroup memory is laid out the same way (no
// bank conflicts).
//
// Forward: load the region's samples, lift the columns, lift the segment's rows, store each
// sample to its band (LL to `dst`, HL, LH and HH to `coeffs`). Inverse: load each sample
// straight from the band that holds it (LL from `src`, the rest from `coeffs`); 5/3: lift every
// row held, then the columns; 9/7 (linear, so the order changes only the rounding): the columns,
// then the segment's rows; store the segment to `dst` (or as 8-bit samples to `out8`).
//
// Levels run either one dispatch each (`FUSED` false: workgroup g takes tile g of level
// `dispatch.lo`) or all in one dispatch (`FUSED`, ADR-029): workgroups claim work items in order
// from an atomic counter, a level's tiles after the tiles of the level before, and a tile waits
// until the tiles of the level before that wrote the samples it reads have flagged themselves
// done. A tile claimed later depends only on tiles claimed earlier, so nothing waits on a tile
// whose workgroup has not started; and a tile that has waited SPINS rounds computes every
// missing tile it depends on itself (the same values, written again), so nothing relies on
// forward progress between workgroups either. Samples passed between levels (in `scratch`)
// are read and written with atomics, which bypass the non-coherent L1; a tile's stores are
// made visible by a storage barrier (device scope) before its flag, and the flags are read
// before a storage barrier and the tile's loads.
//
// Prepended constants: COLUMNS, HALF (= COLUMNS / 2), ROWS, SEGMENTS, APRON, REGS, WG_SIZE
// (= COLUMNS · SEGMENTS), WAVELET (0: 5/3 on i32, 1: 9/7 on f32), INVERSE (bool), FUSED (bool),
// SPINS, FAULT (every FAULT-th tile's own workgroup never flags it done: fault injection for
// the tests; 0 off), SRC_SEL (where the first level's source region is: 0 `image`, 1
// `coeffs`, 2 `scratch`) and DST_SEL (where the last level's result goes: 1 `coeffs`, 2
// `scratch`, 3 `image_out`, 4 `out8`); the other levels read and write `scratch`. Both choices
// are made once per tile, with the selector a literal at each call, so that no load or store
// carries a branch of its own. Imported by name: `dwt/sample` (alias S). Its CPU port, tested
// against the reference at every small size and many tile shapes, is `sim.rs`; the tiles a
// tile waits for are ported there too (`sim::dependencies`).
#import dwt/sample

// What a dispatch runs: levels lo..hi of its direction's list, in the order they run.
struct Dispatch {
    lo: u32,
    hi: u32,
    // Work items (tiles of every plane) of those levels: the workgroups that do something.
    items: u32,
    // The bands HL, LH, HH: row pitch and plane stride in `coeffs`.
    c_pitch: u32,
    c_plane: u32,
    // Added to rounded samples stored to `out8` (then clamped to 0..=255).
    shift: i32,
    _pad0: u32,
    _pad1: u32,
}

// One level.
struct Level {
    // The region transformed (the LL split by the forward, rebuilt by the inverse), its tiles.
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    // Where the region's samples (forward) or its LL (inverse) are read: first element, row
    // pitch, plane stride.
    src_offset: u32,
    src_pitch: u32,
    src_plane: u32,
    // Where LL (forward) or the rebuilt region (inverse) go.
    dst_offset: u32,
    dst_pitch: u32,
    dst_plane: u32,
    // Bit 0: split (and lift) the rows; bit 1: the columns. A signal of one sample is neither
    // split nor lifted; nothing is for a store-only pass (no levels, 8-bit output).
    split: u32,
    // The level's first work item (tile 0 of plane 0) in the direction's numbering.
    first_item: u32,
    // 1: the source is in SRC_SEL (else `scratch`); 1: the result goes to DST_SEL.
    from_src: u32,
    to_dst: u32,
    // The level before (FUSED) wrote a sample this level reads at region row y, column x in
    // its tile row y / dep_rows, column x / dep_cols.
    dep_rows: u32,
    dep_cols: u32,
}

@group(0) @binding(0) var<uniform> dispatch: Dispatch;
@group(0) @binding(1) var<storage, read> image: array<S>;
@group(0) @binding(2) var<storage, read_write> coeffs: array<S>;
// The regions passed between levels: bit patterns of S, atomic (see above).
@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> image_out: array<S>;
// Cleared by the host before the pass that writes it; each byte has one writer.
@group(0) @binding(5) var<storage, read_write> out8: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read> levels: array<Level>;
// FUSED: [0] the next work item, [1] items finished, [2] the last run's epoch, [3] tiles
// computed by a workgroup that did not own them, then a done flag per item (the epoch of the
// run that finished it). The last workgroup to finish resets [0] and [1] and moves the
// epoch on, so each run starts afresh without a clear.
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;

const FLAGS: u32 = 4u;
const NO_TILE: u32 = 0xffffffffu;

const TILE_W: u32 = COLUMNS - 2u * APRON;
const TILE_H: u32 = ROWS * SEGMENTS;

// The held rows lifted horizontally, H_LO..H_HI: every one for 5/3's inverse (its rows are
// lifted before its columns, apron included), otherwise only the segment's ROWS (the apron
// rows only feed the vertical steps). Only they go through workgroup memory, which costs
// workgroups in flight (ADR-024).
const H_ALL_ROWS: bool = INVERSE && WAVELET == 0u;
const H_LO: u32 = select(APRON, 0u, H_ALL_ROWS);
const H_HI: u32 = select(APRON + ROWS, REGS, H_ALL_ROWS);
// Per segment, rows H_LO..H_HI of COLUMNS samples, a column at its invocation's slot.
var<workgroup> sh: array<S, SEGMENTS * (H_HI - H_LO) * COLUMNS>;
// The invocation's column (constant indices only: the driver keeps it in registers).
var<private> v: array<S, REGS>;

const ALPHA: f32 = -1.586134342059924;
const BETA: f32 = -0.052980118572961;
const GAMMA: f32 = 0.882911075530934;
const DELTA: f32 = 0.443506852043971;
const K: f32 = 1.230174104914001;
// 1 / K: a multiply instead of a division (within an ulp of x / K).
const INV_K: f32 = 0.812893066115961;

// Step kinds.
const PREDICT_FWD: u32 = 0u;
const PREDICT_INV: u32 = 1u;
const UPDATE_FWD: u32 = 2u;
const UPDATE_INV: u32 = 3u;
const LIFT: u32 = 4u;

fn pse(i: i32, n: u32) -> u32 {
    if (n == 1u) {
        return 0u;
    }
    let period = 2i * (i32(n) - 1i);
    var m = i % period;
    if (m < 0i) {
        m += period;
    }
    return u32(min(m, period - m));
}

// `sel` is a literal at every call: the switch folds away.
fn load_from(sel: u32, i: u32) -> S {
    switch sel {
        case 0u: {
            return image[i];
        }
        case 1u: {
            return coeffs[i];
        }
        default: {
            return bitcast<S>(atomicLoad(&scratch[i]));
        }
    }
}

fn store_to(sel: u32, i: u32, x: S) {
    switch sel {
        case 1u: {
            coeffs[i] = x;
        }
        case 2u: {
            atomicStore(&scratch[i], bitcast<u32>(x));
        }
        case 3u: {
            image_out[i] = x;
        }
        default: {
            let b = clamp(i32(round(f32(x))) + dispatch.shift, 0i, 255i);
            atomicOr(&out8[i / 4u], u32(b) << (8u * (i % 4u)));
        }
    }
}

// Coordinate c of a signal of n samples in the bands: low (even c) first, then high; a signal
// that is not split keeps its order.
fn band(c: u32, n: u32, split: bool) -> u32 {
    if (!split) {
        return c;
    }
    return select((n + 1u) / 2u + c / 2u, c / 2u, (c & 1u) == 0u);
}

// `band(first + k, n, true)` where `first` is even: k's parity picks the band, so with k a
// constant (unrolled) the row is affine in k and no load or store waits on a branch of its own.
fn band_row(first: u32, k: u32, n: u32) -> u32 {
    return select((n + 1u) / 2u, 0u, k % 2u == 0u) + first / 2u + k / 2u;
}

fn low_len(n: u32, split: bool) -> u32 {
    return select(n, (n + 1u) / 2u, split);
}

// One lifting step of sample x with neighbours l and r.
fn lift1(x: S, l: S, r: S, kind: u32, c: f32) -> S {
    switch kind {
        case PREDICT_FWD: {
            return S(i32(x) - ((i32(l) + i32(r)) >> 1u));
        }
        case PREDICT_INV: {
            return S(i32(x) + ((i32(l) + i32(r)) >> 1u));
        }
        case UPDATE_FWD: {
            return S(i32(x) + ((i32(l) + i32(r) + 2i) >> 2u));
        }
        case UPDATE_INV: {
            return S(i32(x) - ((i32(l) + i32(r) + 2i) >> 2u));
        }
        default: {
            return S(f32(x) + c * (f32(l) + f32(r)));
        }
    }
}

// A vertical step on the held rows of parity `par` (the first and last held rows have one
// neighbour missing: they go stale).
fn vstep(par: u32, kind: u32, c: f32) {
#unroll j REGS
    if ({j} % 2u == par && {j} >= 1u && {j} + 1u < REGS) {
        // (Indices clamped: the compiler checks constant indices even where never taken.)
        v[{j}] = lift1(v[{j}], v[max({j}, 1u) - 1u], v[min({j} + 1u, REGS - 1u)], kind, c);
    }
#end
}

// 9/7 scaling of the held samples: forward even / K, odd · K; inverse the other way. Along the
// columns (`by_row`: each row's parity) or along the rows (`even_col`: this column's parity).
fn scale_rows(by_row: bool, even_col: bool, inverse: bool) {
#unroll j REGS
    {
        let even = select(even_col, {j} % 2u == 0u, by_row);
        let x = f32(v[{j}]);
        v[{j}] = S(x * select(select(K, INV_K, even), select(INV_K, K, even), inverse));
    }
#end
}

// Workgroup memory slot of padded column p in segment s's held row j (H_LO <= j < H_HI).
fn slot(s: u32, j: u32, p: u32) -> u32 {
    return (s * (H_HI - H_LO) + (j - H_LO)) * COLUMNS + (p & 1u) * HALF + p / 2u;
}

// Publish the held rows lo..hi to workgroup memory (no barrier).
fn publish(s: u32, p: u32, lo: u32, hi: u32) {
#unroll j REGS
    if ({j} >= lo && {j} < hi) {
        sh[slot(s, {j}, p)] = v[{j}];
    }
#end
}

// A horizontal step: the invocations of columns of parity `par` update their rows lo..hi from
// their neighbours' (columns at the edge of the padded tile go stale), then publish them.
// Called by every invocation (a barrier at the end).
fn hstep(s: u32, p: u32, par: u32, lo: u32, hi: u32, kind: u32, c: f32) {
    if ((p & 1u) == par) {
        let pl = select(p + 1u, p - 1u, p > 0u);
        let pr = select(p - 1u, p + 1u, p + 1u < COLUMNS);
#unroll j REGS
        if ({j} >= lo && {j} < hi) {
            v[{j}] = lift1(v[{j}], sh[slot(s, {j}, pl)], sh[slot(s, {j}, pr)], kind, c);
            sh[slot(s, {j}, p)] = v[{j}];
        }
#end
    }
    workgroupBarrier();
}

// Lifts the held rows H_LO..H_HI horizontally, the steps of this direction and wavelet.
// Called by every invocation (barriers inside).
fn horizontal(s: u32, p: u32) {
    publish(s, p, H_LO, H_HI);
    workgroupBarrier();
    if (!INVERSE) {
        if (WAVELET == 0u) {
            hstep(s, p, 1u, H_LO, H_HI, PREDICT_FWD, 0.0);
            hstep(s, p, 0u, H_LO, H_HI, UPDATE_FWD, 0.0);
        } else {
            hstep(s, p, 1u, H_LO, H_HI, LIFT, ALPHA);
            hstep(s, p, 0u, H_LO, H_HI, LIFT, BETA);
            hstep(s, p, 1u, H_LO, H_HI, LIFT, GAMMA);
            hstep(s, p, 0u, H_LO, H_HI, LIFT, DELTA);
        }
    } else {
        if (WAVELET == 0u) {
            hstep(s, p, 0u, H_LO, H_HI, UPDATE_INV, 0.0);
            hstep(s, p, 1u, H_LO, H_HI, PREDICT_INV, 0.0);
        } else {
            hstep(s, p, 0u, H_LO, H_HI, LIFT, -DELTA);
            hstep(s, p, 1u, H_LO, H_HI, LIFT, -GAMMA);
            hstep(s, p, 0u, H_LO, H_HI, LIFT, -BETA);
            hstep(s, p, 1u, H_LO, H_HI, LIFT, -ALPHA);
        }
    }
}

// What an invocation of a tile needs to know about its column and segment.
struct Col {
    // The padded column (evens first), its segment.
    p: u32,
    s: u32,
    // The plane and the level's region.
    plane: u32,
    w: u32,
    h: u32,
    split_x: bool,
    split_y: bool,
    // The column's coordinate before and after mirroring, its band column, whether it is low.
    xs: i32,
    x: u32,
    bx: u32,
    low_x: bool,
    hl: u32,
    // The first held row; whether every held row lies inside the plane; whether, inside,
    // split and starting at an even row, held row j's band row is `band_row` (the first row
    // is even for every shape with even ROWS; APRON is even).
    y_first: i32,
    inside: bool,
    affine: bool,
}

// Forward: the held samples of the column from the region in buffer `sel`.
fn forward_load(sel: u32, lv: Level, k: Col) {
    let base = lv.src_offset + k.plane * lv.src_plane + k.x;
    // Rows mirrored only where a segment crosses the plane's edge (the modulo is dear).
    if (k.inside) {
        let first = base + u32(k.y_first) * lv.src_pitch;
#unroll j REGS
        v[{j}] = load_from(sel, first + {j} * lv.src_pitch);
#end
    } else {
#unroll j REGS
        v[{j}] = load_from(sel, base + pse(k.y_first + i32({j}), k.h) * lv.src_pitch);
#end
    }
}

// Forward: the tile's samples to their bands, LL to buffer `sel` (low rows of low columns),
// the others to `coeffs`.
fn forward_store(sel: u32, lv: Level, k: Col) {
    if (k.p >= APRON && k.p < APRON + TILE_W && u32(k.xs) < k.w) {
        let ll_base = lv.dst_offset + k.plane * lv.dst_plane + k.bx;
        let c_base = k.plane * dispatch.c_plane + k.bx;
        if (k.affine) {
            // The segment's row r is y_first + APRON + r.
            let first = u32(k.y_first) + APRON;
            if (k.low_x) {
#unroll r ROWS
                if ({r} % 2u == 0u) {
                    store_to(sel, ll_base + band_row(first, {r}, k.h) * lv.dst_pitch, v[APRON + {r}]);
                } else {
                    coeffs[c_base + band_row(first, {r}, k.h) * dispatch.c_pitch] = v[APRON + {r}];
                }
#end
            } else {
#unroll r ROWS
                coeffs[c_base + band_row(first, {r}, k.h) * dispatch.c_pitch] = v[APRON + {r}];
#end
            }
        } else {
#unroll r ROWS
            {
                let y = u32(k.y_first + i32(APRON + {r}));
                if (y < k.h) {
                    let by = band(y, k.h, k.split_y);
                    let x_out = v[APRON + {r}];
                    if (k.low_x && by < k.hl) {
                        store_to(sel, ll_base + by * lv.dst_pitch, x_out);
                    } else {
                        coeffs[c_base + by * dispatch.c_pitch] = x_out;
                    }
                }
            }
#end
        }
    }
}

// Inverse: each held sample from the band that holds it, LL from buffer `sel`, the others
// from `coeffs`.
fn inverse_load(sel: u32, lv: Level, k: Col) {
    let ll_base = lv.src_offset + k.plane * lv.src_plane + k.bx;
    let c_base = k.plane * dispatch.c_plane + k.bx;
    if (k.affine) {
        let first = u32(k.y_first);
        if (k.low_x) {
#unroll j REGS
            if ({j} % 2u == 0u) {
                v[{j}] = load_from(sel, ll_base + band_row(first, {j}, k.h) * lv.src_pitch);
            } else {
                v[{j}] = coeffs[c_base + band_row(first, {j}, k.h) * dispatch.c_pitch];
            }
#end
        } else {
#unroll j REGS
            v[{j}] = coeffs[c_base + band_row(first, {j}, k.h) * dispatch.c_pitch];
#end
        }
    } else {
#unroll j REGS
        {
            var y = u32(k.y_first + i32({j}));
            if (!k.inside) {
                y = pse(k.y_first + i32({j}), k.h);
            }
            let by = band(y, k.h, k.split_y);
            if (k.low_x && by < k.hl) {
                v[{j}] = load_from(sel, ll_base + by * lv.src_pitch);
            } else {
                v[{j}] = coeffs[c_base + by * dispatch.c_pitch];
            }
        }
#end
    }
}

// Inverse: the segment's rebuilt rows to buffer `sel`.
fn inverse_store(sel: u32, lv: Level, k: Col) {
    if (k.p >= APRON && k.p < APRON + TILE_W && u32(k.xs) < k.w) {
        let out_base = lv.dst_offset + k.plane * lv.dst_plane + u32(k.xs);
#unroll r ROWS
        {
            let y = u32(k.y_first + i32(APRON + {r}));
            if (y < k.h) {
                store_to(sel, out_base + y * lv.dst_pitch, v[APRON + {r}]);
            }
        }
#end
    }
}

// Tile t (in plane-major, then row-major order) of level l. Called by every invocation
// (barriers inside).
fn run_tile(l: u32, t: u32, local: u32) {
    let lv = levels[l];
    var k: Col;
    k.plane = t / (lv.tiles_x * lv.tiles_y);
    let tx = t % lv.tiles_x;
    let ty = (t / lv.tiles_x) % lv.tiles_y;
    k.w = lv.width;
    k.h = lv.height;
    k.split_x = (lv.split & 1u) != 0u;
    k.split_y = (lv.split & 2u) != 0u;
    let wl = low_len(k.w, k.split_x);
    k.hl = low_len(k.h, k.split_y);

    let c = local % COLUMNS;
    k.s = local / COLUMNS;
    k.p = select(2u * (c - HALF) + 1u, 2u * c, c < HALF);
    k.xs = i32(tx * TILE_W + k.p) - i32(APRON);
    k.x = pse(k.xs, k.w);
    k.bx = band(k.x, k.w, k.split_x);
    k.low_x = k.bx < wl;
    k.y_first = i32(ty * TILE_H + k.s * ROWS) - i32(APRON);
    k.inside = k.y_first >= 0i && k.y_first + i32(REGS) <= i32(k.h);
    k.affine = k.inside && k.split_y && (k.y_first & 1i) == 0i;
    let s = k.s;
    let p = k.p;

    if (!INVERSE) {
        if (lv.from_src != 0u) {
            forward_load(SRC_SEL, lv, k);
        } else {
            forward_load(2u, lv, k);
        }
        // Columns (every held row), then the segment's rows.
        if (k.split_y) {
            if (WAVELET == 0u) {
                vstep(1u, PREDICT_FWD, 0.0);
                vstep(0u, UPDATE_FWD, 0.0);
            } else {
                vstep(1u, LIFT, ALPHA);
                vstep(0u, LIFT, BETA);
                vstep(1u, LIFT, GAMMA);
                vstep(0u, LIFT, DELTA);
                scale_rows(true, false, false);
            }
        }
        if (k.split_x) {
            horizontal(s, p);
            if (WAVELET == 1u) {
                scale_rows(false, (p & 1u) == 0u, false);
            }
        }
        if (lv.to_dst != 0u) {
            forward_store(DST_SEL, lv, k);
        } else {
            forward_store(2u, lv, k);
        }
    } else {
        if (lv.from_src != 0u) {
            inverse_load(SRC_SEL, lv, k);
        } else {
            inverse_load(2u, lv, k);
        }
        if (WAVELET == 0u) {
            // 5/3: rows (every held row: the columns need their apron), then the columns, in
            // T.800's order (the rounding makes the order matter).
            if (k.split_x) {
                horizontal(s, p);
            }
            if (k.split_y) {
                vstep(0u, UPDATE_INV, 0.0);
                vstep(1u, PREDICT_INV, 0.0);
            }
        } else {
            // 9/7 is linear: the columns first (in registers, every held column), then only the
            // segment's rows, as in the forward (ADR-019: the same result up to f32 rounding,
            // with half the horizontal work and workgroup memory traffic).
            if (k.split_y) {
                scale_rows(true, false, true);
                vstep(0u, LIFT, -DELTA);
                vstep(1u, LIFT, -GAMMA);
                vstep(0u, LIFT, -BETA);
                vstep(1u, LIFT, -ALPHA);
            }
            if (k.split_x) {
                scale_rows(false, (p & 1u) == 0u, true);
                horizontal(s, p);
            }
        }
        if (lv.to_dst != 0u) {
            inverse_store(DST_SEL, lv, k);
        } else {
            inverse_store(2u, lv, k);
        }
    }
}

// The level of work item `item` (FUSED).
fn level_of(item: u32) -> u32 {
    var l = dispatch.lo;
    loop {
        if (l + 1u >= dispatch.hi || item < levels[l + 1u].first_item) {
            break;
        }
        l += 1u;
    }
    return l;
}

// The coordinates `pse` gives for a..=b of a signal of n samples lie in the returned (first,
// last): pse moves by one as its argument does, so they are a run; it holds a and b clamped,
// and the reflection of b where the run crosses the far edge (the last tile may hold one row
// and reach APRON past it). The near edge needs no such care: a tile's run has b >= -a.
fn mirrored(a: i32, b: i32, n: u32) -> vec2<u32> {
    let last = i32(n) - 1i;
    var lo = max(a, 0i);
    if (b > last) {
        lo = max(0i, min(a, 2i * last - b));
    }
    return vec2(u32(lo), u32(min(b, last)));
}

var<workgroup> sh_word: vec2<u32>;
var<workgroup> sh_missing: atomic<u32>;

// The first tile of level l − 1 that tile t of level l reads from and that is not yet done
// in this run (NO_TILE if none): the region's rows and columns the tile holds, mirrored, in
// the tiles of the level before that wrote them. Called by every invocation (barriers inside); the result is uniform.
fn first_missing(l: u32, t: u32, epoch: u32, local: u32) -> u32 {
    let lv = levels[l];
    let d = levels[l - 1u];
    let plane = t / (lv.tiles_x * lv.tiles_y);
    let tx = t % lv.tiles_x;
    let ty = (t / lv.tiles_x) % lv.tiles_y;
    let xs = mirrored(i32(tx * TILE_W) - i32(APRON), i32(tx * TILE_W + TILE_W + APRON) - 1i, lv.width);
    let ys = mirrored(i32(ty * TILE_H) - i32(APRON), i32(ty * TILE_H + TILE_H + APRON) - 1i, lv.height);
    let c0 = xs.x / lv.dep_cols;
    let nc = xs.y / lv.dep_cols - c0 + 1u;
    let r0 = ys.x / lv.dep_rows;
    let n = (ys.y / lv.dep_rows - r0 + 1u) * nc;
    if (local == 0u) {
        atomicStore(&sh_missing, NO_TILE);
    }
    workgroupBarrier();
    for (var i = local; i < n; i += WG_SIZE) {
        let item = d.first_item + (plane * d.tiles_y + r0 + i / nc) * d.tiles_x + c0 + i % nc;
        if (atomicLoad(&state[FLAGS + item]) != epoch) {
            atomicMin(&sh_missing, item);
        }
    }
    workgroupBarrier();
    if (local == 0u) {
        sh_word.x = atomicLoad(&sh_missing);
    }
    return workgroupUniformLoad(&sh_word).x;
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let linear = wg.x + wg.y * groups.x;
    if (linear >= dispatch.items) {
        return;
    }
    if (!FUSED) {
        run_tile(dispatch.lo, linear, local);
        return;
    }
    // Claim a work item; the run's epoch marks what this run has done.
    if (local == 0u) {
        let item = atomicAdd(&state[0], 1u);
        sh_word = vec2(item, atomicLoad(&state[2]) + 1u);
    }
    let claim = workgroupUniformLoad(&sh_word);
    let item = claim.x;
    let epoch = claim.y;
    // The tile being worked on: the claimed one, or one it waits for, taken over.
    var work = item;
    var spins = 0u;
    loop {
        let l = level_of(work);
        let t = work - levels[l].first_item;
        var missing = NO_TILE;
        if (l > dispatch.lo) {
            missing = first_missing(l, t, epoch, local);
        }
        if (missing == NO_TILE) {
            // Acquire: the flags read above before the samples their tiles stored.
            storageBarrier();
            run_tile(l, t, local);
            // Release: every invocation's stores before the flag.
            storageBarrier();
            if (local == 0u) {
                if (work != item) {
                    atomicAdd(&state[3], 1u);
                }
                if (work != item || FAULT == 0u || item % max(FAULT, 1u) != FAULT - 1u) {
                    atomicStore(&state[FLAGS + work], epoch);
                }
            }
            if (work == item) {
                break;
            }
            work = item;
        } else {
            // After SPINS rounds of waiting, every tile still missing is computed here.
            spins = min(spins + 1u, SPINS);
            if (spins == SPINS) {
                work = missing;
            }
        }
    }
    if (local == 0u) {
        let done = atomicAdd(&state[1], 1u) + 1u;
        if (done == dispatch.items) {
            atomicStore(&state[0], 0u);
            atomicStore(&state[1], 0u);
            atomicStore(&state[2], epoch);
        }
    }
}
