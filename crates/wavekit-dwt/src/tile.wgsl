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
// Prepended constants: COLUMNS, HALF (= COLUMNS / 2), ROWS, SEGMENTS, APRON, REGS, WG_SIZE
// (= COLUMNS · SEGMENTS), WAVELET (0: 5/3 on i32, 1: 9/7 on f32, 2: 9/7 in fixed point on i32:
// Q12 constants, integer only, the same bits on every device), INVERSE (bool), SRC_SEL (where
// the source region is: 0 `image`, 1 `coeffs`, 2 `scratch`, 5 `image8`) and DST_SEL (where the
// result region goes: 1 `coeffs`, 2 `scratch`, 3 `image_out`, 4 `out8`): a pipeline per source
// and destination, so that the loads and stores of a column carry no branch on them. JOINT
// (bool): the dispatch has a second part (two images whose regions have the same size at this
// step, each its own places: Params), whose buffers are SRC_SEL_B and DST_SEL_B; its
// workgroups choose their part once, and a load or store then branches on the part's buffer.
// COLOR (0 none, 1 JPEG 2000's reversible colour transform RCT, 2 the irreversible ICT): the
// first level's pipelines of a three-plane image fuse the colour transform. Forward: each
// sample is loaded from all three planes and turned into this workgroup's component (Y, Cb or
// Cr); the three workgroups of a tile are dispatched one after another (the plane is the
// fastest-changing part of the workgroup's row) so the two extra loads hit the L2. Inverse: a
// workgroup per tile rebuilds the three components one after another, storing each to its
// plane, then every invocation reads its own samples back and turns them into R, G, B.
// C16 (bool, integer wavelets): `coeffs` holds 16-bit coefficients, two to a word (element e in
// word e / 2, its low half where e is even), saturated to −32768..=32767 on store. The plan
// guarantees that a word's two elements are one tile's neighbouring columns of one band
// (widths that halve evenly at every level, even pitches and offsets, tiles of a whole number
// of words), so the invocation of the even element stores the word, its neighbour's value
// taken from workgroup memory.
// Imported by name: `dwt/sample` (alias S). Its CPU port, tested against the reference at every
// small size and many tile shapes, is `sim.rs`.
#import dwt/sample

// Where one part of the dispatch reads and writes (see Params).
struct Part {
    // Where the region's samples (forward) or its LL (inverse) are read (in buffer SRC_SEL, or
    // SRC_SEL_B for the second part): first element, row pitch, plane stride.
    src_offset: u32,
    src_pitch: u32,
    src_plane: u32,
    // Where LL (forward) or the rebuilt region (inverse) go (in buffer DST_SEL or DST_SEL_B).
    dst_offset: u32,
    dst_pitch: u32,
    dst_plane: u32,
    // The bands HL, LH, HH in `coeffs`: first element, row pitch, plane stride.
    c_offset: u32,
    c_pitch: u32,
    c_plane: u32,
    // The part's source and result buffers, for pipelines that take them at run time (SELS).
    src_sel: u32,
    dst_sel: u32,
    _pad: u32,
}

struct Params {
    // The region transformed at this level (the LL split by the forward, rebuilt by the
    // inverse), and its tiles.
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    // Bit 0: split (and lift) the rows; bit 1: the columns. A signal of one sample is neither
    // split nor lifted; nothing is for a store-only pass (no levels, 8-bit output).
    split: u32,
    // Added to rounded samples stored to `out8` (then clamped to 0..=255); taken from samples
    // read from `image8`.
    shift: i32,
    // The planes of the first part; the grid's later planes are the second part's (a joint
    // plan: two images whose regions have the same size at this step, as a 4:2:0 frame's luma
    // at level l + 1 and its chroma at level l).
    planes_a: u32,
    // Fraction bits of the 8-bit samples' fixed point (integer wavelets): `image8`'s samples
    // are read as (sample − shift) << frac, and `out8` gets ((x + 2^(frac−1)) >> frac) + shift.
    frac: u32,
    a: Part,
    b: Part,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> image: array<S>;
@group(0) @binding(2) var<storage, read_write> coeffs: array<S>;
@group(0) @binding(3) var<storage, read_write> scratch: array<S>;
@group(0) @binding(4) var<storage, read_write> image_out: array<S>;
// Written by `store_bytes` only: each byte has one writer; bytes no sample maps to are left as
// they were.
@group(0) @binding(5) var<storage, read_write> out8: array<atomic<u32>>;
// 8-bit samples, four to a word, read with the level shift undone (minus `params.shift`).
@group(0) @binding(6) var<storage, read> image8: array<u32>;

// This workgroup's part of the dispatch: its places and buffers (see Params).
var<private> part: Part;
var<private> src_sel: u32;
var<private> dst_sel: u32;

const TILE_W: u32 = COLUMNS - 2u * APRON;
const TILE_H: u32 = ROWS * SEGMENTS;

// The held rows lifted horizontally, H_LO..H_HI: every one for 5/3's inverse (its rows are
// lifted before its columns, apron included), otherwise only the segment's ROWS (the apron
// rows only feed the vertical steps). Only they go through workgroup memory, which costs
// workgroups in flight (ADR-0024).
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
// The fixed-point 9/7's K and 1 / K in units of 2^-12.
const K_Q: i32 = 5039i;
const INV_K_Q: i32 = 3330i;

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

// Coefficient `e` (`coeffs` as C16 says).
fn coeff(e: u32) -> S {
    if (C16) {
        // The word's half, sign-extended (arithmetic shifts of i32).
        let w = bitcast<i32>(coeffs[e / 2u]);
        return S(select(w << 16u, w, (e & 1u) == 1u) >> 16u);
    }
    return coeffs[e];
}

// Coefficient `e` set to `x`; with C16 the word of an even `e` gets `x` and, in its high half,
// `next` (coefficient e + 1), and an odd `e` is stored by its even neighbour.
fn put_coeff(e: u32, x: S, next: S) {
    if (C16) {
        if ((e & 1u) == 0u) {
            let lo = clamp(i32(x), -32768i, 32767i) & 0xffffi;
            let hi = clamp(i32(next), -32768i, 32767i) << 16u;
            coeffs[e / 2u] = bitcast<S>(lo | hi);
        }
    } else {
        coeffs[e] = x;
    }
}

fn load_from(sel: u32, i: u32) -> S {
    switch sel {
        case 0u: {
            return image[i];
        }
        case 1u: {
            return coeff(i);
        }
        case 3u: {
            return image_out[i];
        }
        case 5u: {
            return S((i32((image8[i / 4u] >> (8u * (i % 4u))) & 0xffu) - params.shift) << params.frac);
        }
        default: {
            return scratch[i];
        }
    }
}

// (The 8-bit output, 4, is written by `store_bytes`, a row at a time.) `next`: the sample of
// the next element, for 16-bit coefficients (`put_coeff`).
fn store_to(sel: u32, i: u32, x: S, next: S) {
    switch sel {
        case 1u: {
            put_coeff(i, x, next);
        }
        case 2u: {
            scratch[i] = x;
        }
        default: {
            image_out[i] = x;
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
            if (WAVELET == 2u) {
                // Fixed point: the constant rounded to 12 fractional bits (exact: c · 2^12 is
                // exact in f32 and no constant lies halfway), wrapping like the CPU port.
                let q = i32(round(c * 4096.0));
                return S(i32(x) + ((q * (i32(l) + i32(r)) + 2048i) >> 12u));
            }
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
        if (WAVELET == 2u) {
            let q = select(select(K_Q, INV_K_Q, even), select(INV_K_Q, K_Q, even), inverse);
            v[{j}] = S((i32(v[{j}]) * q + 2048i) >> 12u);
        } else {
            let x = f32(v[{j}]);
            v[{j}] = S(x * select(select(K, INV_K, even), select(INV_K, K, even), inverse));
        }
    }
#end
}

// The forward's result at padded column `p_next` of segment s's held row j, for 16-bit
// coefficients (published after the last step); unused otherwise.
fn next_of(s: u32, j: u32, p_next: u32) -> S {
    if (C16) {
        return sh[slot(s, j, p_next)];
    }
    return S(0);
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

// The sample at element `i` of plane 0 of buffer `sel`, as this workgroup's component
// `plane`: with COLOR, computed from the samples at `i` in planes 0, 1, 2 (R, G, B).
fn load_sample(sel: u32, i: u32, plane: u32) -> S {
    if (COLOR == 0u) {
        return load_from(sel, i + plane * part.src_plane);
    }
    let r = load_from(sel, i);
    let g = load_from(sel, i + part.src_plane);
    let b = load_from(sel, i + 2u * part.src_plane);
    if (COLOR == 1u) {
        // RCT (T.800 G.2): Y = floor((R + 2G + B) / 4), Cb = B − G, Cr = R − G.
        let ri = i32(r);
        let gi = i32(g);
        let bi = i32(b);
        switch plane {
            case 0u: {
                return S((ri + 2i * gi + bi) >> 2u);
            }
            case 1u: {
                return S(bi - gi);
            }
            default: {
                return S(ri - gi);
            }
        }
    }
    // ICT (T.800 G.3).
    let rf = f32(r);
    let gf = f32(g);
    let bf = f32(b);
    switch plane {
        case 0u: {
            return S(0.299 * rf + 0.587 * gf + 0.114 * bf);
        }
        case 1u: {
            return S(-0.16875 * rf - 0.33126 * gf + 0.5 * bf);
        }
        default: {
            return S(0.5 * rf - 0.41869 * gf - 0.08131 * bf);
        }
    }
}

// R, G, B from Y, Cb, Cr: the inverse of `load_sample`'s transform.
fn color_inverse(y: S, cb: S, cr: S) -> array<S, 3> {
    if (COLOR == 1u) {
        let g = i32(y) - ((i32(cb) + i32(cr)) >> 2u);
        return array<S, 3>(S(i32(cr) + g), S(g), S(i32(cb) + g));
    }
    let yf = f32(y);
    let cbf = f32(cb);
    let crf = f32(cr);
    return array<S, 3>(
        S(yf + 1.402 * crf),
        S(yf - 0.34413 * cbf - 0.71414 * crf),
        S(yf + 1.772 * cbf),
    );
}

// Where an invocation sits in its tile, and what it holds.
struct Geo {
    tx: u32,
    ty: u32,
    s: u32,
    p: u32,
    c: u32,
    xs: i32,
    x: u32,
    bx: u32,
    low_x: bool,
    y_first: i32,
    inside: bool,
    affine: bool,
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let tx = wg.x;
    var ty = wg.y % params.tiles_y;
    var plane = wg.y / params.tiles_y;
    if (COLOR != 0u && !INVERSE) {
        // A tile's three components one after another: the colour's loads hit the L2.
        ty = wg.y / 3u;
        plane = wg.y % 3u;
    }
    // The first part's planes, then the second's (uniform across the workgroup); a plan alone
    // (JOINT false) compiles the first only.
    let second = JOINT && plane >= params.planes_a;
    if (!second) {
        part = params.a;
        src_sel = SRC_SEL;
        dst_sel = DST_SEL;
    } else {
        part = params.b;
        src_sel = SRC_SEL_B;
        dst_sel = DST_SEL_B;
        plane -= params.planes_a;
    }
    if (SELS) {
        src_sel = part.src_sel;
        dst_sel = part.dst_sel;
    }
    let w = params.width;
    let h = params.height;
    let split_x = (params.split & 1u) != 0u;
    let split_y = (params.split & 2u) != 0u;
    let wl = low_len(w, split_x);
    let hl = low_len(h, split_y);

    // This invocation's padded column p (evens first) and segment s.
    let c = local % COLUMNS;
    let s = local / COLUMNS;
    let p = select(2u * (c - HALF) + 1u, 2u * c, c < HALF);
    let xs = i32(tx * TILE_W + p) - i32(APRON);
    let x = pse(xs, w);
    let bx = band(x, w, split_x);
    let low_x = bx < wl;
    // The first held row, and whether every held row lies inside the plane.
    let y_first = i32(ty * TILE_H + s * ROWS) - i32(APRON);
    let inside = y_first >= 0i && y_first + i32(REGS) <= i32(h);
    // Inside, split, and starting at an even row: held row j's band row is `band_row` (the
    // first row is even for every shape with even ROWS; APRON is even).
    let affine = inside && split_y && (y_first & 1i) == 0i;

    if (!INVERSE) {
        let base = part.src_offset + x;
        // Rows mirrored only where a segment crosses the plane's edge (the modulo is dear).
        if (inside) {
            let first = base + u32(y_first) * part.src_pitch;
#unroll j REGS
            v[{j}] = load_sample(src_sel, first + {j} * part.src_pitch, plane);
#end
        } else {
#unroll j REGS
            v[{j}] = load_sample(src_sel, base + pse(y_first + i32({j}), h) * part.src_pitch, plane);
#end
        }
        // Columns (every held row), then the segment's rows.
        if (split_y) {
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
        if (split_x) {
            horizontal(s, p);
            if (WAVELET != 0u) {
                scale_rows(false, (p & 1u) == 0u, false);
            }
        }
        if (C16) {
            // Every column's results in workgroup memory (the horizontal steps ended with a
            // barrier), where a word's even element finds its neighbour's, two columns on.
            publish(s, p, APRON, APRON + ROWS);
            workgroupBarrier();
        }
        let p_next = min(p + 2u, COLUMNS - 1u);
        // The tile's samples to their bands: low rows of low columns are LL.
        if (p >= APRON && p < APRON + TILE_W && u32(xs) < w) {
            let ll_base = part.dst_offset + plane * part.dst_plane + bx;
            let c_base = part.c_offset + plane * part.c_plane + bx;
            if (affine) {
                // The segment's row r is y_first + APRON + r.
                let first = u32(y_first) + APRON;
                if (low_x) {
#unroll r ROWS
                    if ({r} % 2u == 0u) {
                        store_to(dst_sel, ll_base + band_row(first, {r}, h) * part.dst_pitch, v[APRON + {r}], next_of(s, APRON + {r}, p_next));
                    } else {
                        put_coeff(c_base + band_row(first, {r}, h) * part.c_pitch, v[APRON + {r}], next_of(s, APRON + {r}, p_next));
                    }
#end
                } else {
#unroll r ROWS
                    put_coeff(c_base + band_row(first, {r}, h) * part.c_pitch, v[APRON + {r}], next_of(s, APRON + {r}, p_next));
#end
                }
            } else {
#unroll r ROWS
                {
                    let y = u32(y_first + i32(APRON + {r}));
                    if (y < h) {
                        let by = band(y, h, split_y);
                        let x_out = v[APRON + {r}];
                        let next = next_of(s, APRON + {r}, p_next);
                        if (low_x && by < hl) {
                            store_to(dst_sel, ll_base + by * part.dst_pitch, x_out, next);
                        } else {
                            put_coeff(c_base + by * part.c_pitch, x_out, next);
                        }
                    }
                }
#end
            }
        }
    } else {
        let g = Geo(tx, ty, s, p, c, xs, x, bx, low_x, y_first, inside, affine);
        if (COLOR == 0u) {
            // Whether this workgroup's part writes 8-bit samples: from the parameters and the
            // workgroup's place, so uniform.
            let to_bytes = select(
                select(DST_SEL, DST_SEL_B, second),
                select(params.a.dst_sel, params.b.dst_sel, second),
                SELS,
            ) == 4u;
            inverse_plane(g, plane, to_bytes);
        } else {
            // The three components into their planes, then R, G, B from them.
            for (var comp = 0u; comp < 3u; comp++) {
                inverse_plane(g, comp, false);
            }
            if (p >= APRON && p < APRON + TILE_W && u32(xs) < w) {
                let out_base = part.dst_offset + u32(xs);
#unroll r ROWS
                {
                    let y = u32(y_first + i32(APRON + {r}));
                    if (y < h) {
                        // Each invocation reads back only what it stored itself.
                        let i = out_base + y * part.dst_pitch;
                        let rgb = color_inverse(
                            load_from(dst_sel, i),
                            load_from(dst_sel, i + part.dst_plane),
                            load_from(dst_sel, i + 2u * part.dst_plane),
                        );
                        store_to(dst_sel, i, rgb[0], rgb[0]);
                        store_to(dst_sel, i + part.dst_plane, rgb[1], rgb[1]);
                        store_to(dst_sel, i + 2u * part.dst_plane, rgb[2], rgb[2]);
                    }
                }
#end
            }
        }
    }
}

// The inverse of plane `plane` at this invocation's place: each held sample from its band,
// lifted, stored to `dst` (or as 8-bit samples). Called by every invocation (barriers inside).
// to_bytes: the part writes 8-bit samples (uniform across the workgroup: store_bytes has
// barriers).
fn inverse_plane(g: Geo, plane: u32, to_bytes: bool) {
    let tx = g.tx;
    let ty = g.ty;
    let s = g.s;
    let p = g.p;
    let c = g.c;
    let xs = g.xs;
    let bx = g.bx;
    let low_x = g.low_x;
    let y_first = g.y_first;
    let inside = g.inside;
    let affine = g.affine;
    let w = params.width;
    let h = params.height;
    let split_x = (params.split & 1u) != 0u;
    let split_y = (params.split & 2u) != 0u;
    let hl = low_len(h, split_y);
    // Each held sample from its band: LL from `src`, the others from `coeffs`.
    let ll_base = part.src_offset + plane * part.src_plane + bx;
    let c_base = part.c_offset + plane * part.c_plane + bx;
    if (affine) {
        let first = u32(y_first);
        if (low_x) {
#unroll j REGS
            if ({j} % 2u == 0u) {
                v[{j}] = load_from(src_sel, ll_base + band_row(first, {j}, h) * part.src_pitch);
            } else {
                v[{j}] = coeff(c_base + band_row(first, {j}, h) * part.c_pitch);
            }
#end
        } else {
#unroll j REGS
            v[{j}] = coeff(c_base + band_row(first, {j}, h) * part.c_pitch);
#end
        }
    } else {
#unroll j REGS
        {
            var y = u32(y_first + i32({j}));
            if (!inside) {
                y = pse(y_first + i32({j}), h);
            }
            let by = band(y, h, split_y);
            if (low_x && by < hl) {
                v[{j}] = load_from(src_sel, ll_base + by * part.src_pitch);
            } else {
                v[{j}] = coeff(c_base + by * part.c_pitch);
            }
        }
#end
    }
    if (WAVELET == 0u) {
        // 5/3: rows (every held row: the columns need their apron), then the columns, in
        // T.800's order (the rounding makes the order matter).
        if (split_x) {
            horizontal(s, p);
        }
        if (split_y) {
            vstep(0u, UPDATE_INV, 0.0);
            vstep(1u, PREDICT_INV, 0.0);
        }
    } else {
        // 9/7 is linear: the columns first (in registers, every held column), then only the
        // segment's rows, as in the forward (ADR-0019: the same result up to f32 rounding,
        // with half the horizontal work and workgroup memory traffic).
        if (split_y) {
            scale_rows(true, false, true);
            vstep(0u, LIFT, -DELTA);
            vstep(1u, LIFT, -GAMMA);
            vstep(0u, LIFT, -BETA);
            vstep(1u, LIFT, -ALPHA);
        }
        if (split_x) {
            scale_rows(false, (p & 1u) == 0u, true);
            horizontal(s, p);
        }
    }
    if (to_bytes) {
        store_bytes(tx, ty, plane, s, p, c);
    } else if (p >= APRON && p < APRON + TILE_W && u32(xs) < w) {
        let out_base = part.dst_offset + plane * part.dst_plane + u32(xs);
#unroll r ROWS
        {
            let y = u32(y_first + i32(APRON + {r}));
            if (y < h) {
                store_to(dst_sel, out_base + y * part.dst_pitch, v[APRON + {r}], v[APRON + {r}]);
            }
        }
#end
    }
}

// Words a row of a tile's bytes can touch: TILE_W bytes at any alignment.
const ROW_WORDS: u32 = TILE_W / 4u + 2u;

// The inverse's last pass to 8-bit samples: each invocation puts its column's bytes (rounded,
// level shift undone, clamped) in workgroup memory in column order, then the segment writes
// each row of its tile as whole words — a store where the tile owns every byte of the word; an
// atomic AND clearing its own bytes, then an atomic OR setting them, where the word is shared
// with another tile or row (each writer touches only its own bytes, so any interleaving is
// right, and the output needs no clearing). Called by every invocation (barriers inside); the
// horizontal steps are over.
fn store_bytes(tx: u32, ty: u32, plane: u32, s: u32, p: u32, c: u32) {
#unroll r ROWS
    sh[slot_natural(s, {r}, p)] = S(to_byte(v[APRON + {r}]));
#end
    workgroupBarrier();
    let x0 = tx * TILE_W;
    let len = min(TILE_W, params.width - min(x0, params.width));
    for (var t = c; t < ROWS * ROW_WORDS; t += COLUMNS) {
        let r = t / ROW_WORDS;
        let y = ty * TILE_H + s * ROWS + r;
        if (y < params.height && len > 0u) {
            let e0 = part.dst_offset + plane * part.dst_plane + y * part.dst_pitch + x0;
            let word = e0 / 4u + t % ROW_WORDS;
            if (word * 4u < e0 + len) {
                var bits = 0u;
                var mask = 0u;
#unroll b 4
                {
                    let q = i32(word * 4u + {b}) - i32(e0);
                    if (q >= 0i && q < i32(len)) {
                        bits |= u32(i32(sh[slot_natural(s, r, u32(q) + APRON)])) << (8u * {b});
                        mask |= 0xffu << (8u * {b});
                    }
                }
#end
                if (mask == 0xffffffffu) {
                    atomicStore(&out8[word], bits);
                } else {
                    atomicAnd(&out8[word], ~mask);
                    atomicOr(&out8[word], bits);
                }
            }
        }
    }
}

// A sample as an 8-bit output: rounded, its fraction bits rounded off (half up), the level
// shift undone, clamped.
fn to_byte(x: S) -> i32 {
    // Integer samples as they are (the float 9/7's rounded), kept within 2^24 so that rounding
    // off the fraction bits cannot overflow (past it every sample clamps to 0 or 255 alike).
    var y = clamp(select(i32(x), i32(round(f32(x))), WAVELET == 1u), -16777216i, 16777216i);
    if (params.frac > 0u) {
        y = (y + (1i << (params.frac - 1u))) >> params.frac;
    }
    return clamp(y + params.shift, 0i, 255i);
}

// Workgroup memory slot of padded column p of the segment's row r, in column order.
fn slot_natural(s: u32, r: u32, p: u32) -> u32 {
    return (s * (H_HI - H_LO) + r) * COLUMNS + p;
}
