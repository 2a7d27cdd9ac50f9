// One level of the 2D wavelet transform, both directions fused, in one dispatch: a workgroup
// per tile of TILE_W × TILE_H samples and plane. The tile and an apron of APRON samples on
// every side (the lifting steps of one direction: each step leaves one more sample at the edge
// of the loaded region stale) sit interleaved in workgroup memory; every coordinate is
// mirrored into the region on load (PSE keeps a coordinate's parity, and lifting keeps a
// symmetric signal symmetric, so mirrored samples are exactly those of the extended signal).
//
// Forward: load the region's samples, lift the columns (every loaded column, so that the rows
// have their apron), lift the tile's rows, store each sample to its band (LL to `dst`, HL,
// LH and HH to `coeffs`). Inverse: load each sample straight from the band that holds it
// (LL from `src`, the rest from `coeffs`), lift the rows (every loaded row), then the tile's
// columns, store the tile to `dst` (or as 8-bit samples to `out8`). A barrier between steps.
//
// Stores, band by band, go to consecutive addresses from consecutive invocations.
//
// Prepended constants: WG_SIZE, TILE_W, TILE_H, APRON (all even), WAVELET (0: 5/3 on i32,
// 1: 9/7 on f32), INVERSE (bool). Imported by name: `dwt/sample` (alias S). The Rust port
// of this kernel is `sim.rs`.
#import dwt/sample

struct Params {
    // The region transformed at this level (the LL split by the forward, rebuilt by the
    // inverse), and its tiles.
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    // Where the region's samples (forward) or its LL (inverse) are read: buffer (0 `image`,
    // 1 `coeffs`, 2 `scratch`), first element, row pitch, plane stride.
    src_sel: u32,
    src_offset: u32,
    src_pitch: u32,
    src_plane: u32,
    // Where LL (forward) or the rebuilt region (inverse) go: 1 `coeffs`, 2 `scratch`,
    // 3 `image_out`, 4 `out8`.
    dst_sel: u32,
    dst_offset: u32,
    dst_pitch: u32,
    dst_plane: u32,
    // The bands HL, LH, HH: row pitch and plane stride in `coeffs`.
    c_pitch: u32,
    c_plane: u32,
    // Bit 0: split (and lift) the rows; bit 1: the columns. A signal of one sample is neither
    // split nor lifted; nothing is for a store-only pass (no levels, 8-bit output).
    split: u32,
    // Added to rounded samples stored to `out8` (then clamped to 0..=255).
    shift: i32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> image: array<S>;
@group(0) @binding(2) var<storage, read_write> coeffs: array<S>;
@group(0) @binding(3) var<storage, read_write> scratch: array<S>;
@group(0) @binding(4) var<storage, read_write> image_out: array<S>;
// Cleared by the host before the pass that writes it; each byte has one writer.
@group(0) @binding(5) var<storage, read_write> out8: array<atomic<u32>>;

const PW: u32 = TILE_W + 2u * APRON;
const PH: u32 = TILE_H + 2u * APRON;
var<workgroup> sh: array<S, PW * PH>;

const ALPHA: f32 = -1.586134342059924;
const BETA: f32 = -0.052980118572961;
const GAMMA: f32 = 0.882911075530934;
const DELTA: f32 = 0.443506852043971;
const K: f32 = 1.230174104914001;

// Step kinds.
const PREDICT_FWD: u32 = 0u;
const PREDICT_INV: u32 = 1u;
const UPDATE_FWD: u32 = 2u;
const UPDATE_INV: u32 = 3u;
const LIFT: u32 = 4u;
const SCALE_MUL: u32 = 5u;
const SCALE_DIV: u32 = 6u;

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

fn load_from(sel: u32, i: u32) -> S {
    switch sel {
        case 0u: {
            return image[i];
        }
        case 1u: {
            return coeffs[i];
        }
        default: {
            return scratch[i];
        }
    }
}

fn store_to(sel: u32, i: u32, v: S) {
    switch sel {
        case 1u: {
            coeffs[i] = v;
        }
        case 2u: {
            scratch[i] = v;
        }
        case 3u: {
            image_out[i] = v;
        }
        default: {
            let b = clamp(i32(round(f32(v))) + params.shift, 0i, 255i);
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

fn low_len(n: u32, split: bool) -> u32 {
    return select(n, (n + 1u) / 2u, split);
}

// One lifting step on the samples of parity `par` along the columns (vertical) or rows, on the
// lines lo..hi across. Positions at the edge of the loaded region take their missing neighbour
// from the other side: they go stale, which is what the apron is for. Called by every
// invocation (a barrier at the end).
fn step(vertical: bool, par: u32, lo: u32, hi: u32, kind: u32, c: f32, local: u32) {
    let len = select(PW, PH, vertical);
    let positions = (len - par + 1u) / 2u;
    let lines = hi - lo;
    let stride = select(1u, PW, vertical);
    for (var t = local; t < positions * lines; t += WG_SIZE) {
        // Vertical: consecutive invocations take consecutive columns (no bank conflicts).
        var line: u32;
        var k: u32;
        if (vertical) {
            line = lo + t % lines;
            k = t / lines;
        } else {
            line = lo + t / positions;
            k = t % positions;
        }
        let p = 2u * k + par;
        let base = select(line * PW, line, vertical);
        let i = base + p * stride;
        let li = base + select(p + 1u, p - 1u, p > 0u) * stride;
        let ri = base + select(p - 1u, p + 1u, p + 1u < len) * stride;
        let x = sh[i];
        switch kind {
            case PREDICT_FWD: {
                sh[i] = S(i32(x) - ((i32(sh[li]) + i32(sh[ri])) >> 1u));
            }
            case PREDICT_INV: {
                sh[i] = S(i32(x) + ((i32(sh[li]) + i32(sh[ri])) >> 1u));
            }
            case UPDATE_FWD: {
                sh[i] = S(i32(x) + ((i32(sh[li]) + i32(sh[ri]) + 2i) >> 2u));
            }
            case UPDATE_INV: {
                sh[i] = S(i32(x) - ((i32(sh[li]) + i32(sh[ri]) + 2i) >> 2u));
            }
            case LIFT: {
                sh[i] = S(f32(x) + c * (f32(sh[li]) + f32(sh[ri])));
            }
            case SCALE_MUL: {
                sh[i] = S(f32(x) * c);
            }
            default: {
                sh[i] = S(f32(x) / c);
            }
        }
    }
    workgroupBarrier();
}

// The forward lifting of one direction (the lines lo..hi across).
fn forward_1d(vertical: bool, lo: u32, hi: u32, local: u32) {
    if (WAVELET == 0u) {
        step(vertical, 1u, lo, hi, PREDICT_FWD, 0.0, local);
        step(vertical, 0u, lo, hi, UPDATE_FWD, 0.0, local);
    } else {
        step(vertical, 1u, lo, hi, LIFT, ALPHA, local);
        step(vertical, 0u, lo, hi, LIFT, BETA, local);
        step(vertical, 1u, lo, hi, LIFT, GAMMA, local);
        step(vertical, 0u, lo, hi, LIFT, DELTA, local);
        // L = even / K, H = K · odd (disjoint samples: one barrier for both).
        scale(vertical, lo, hi, false, local);
    }
}

fn inverse_1d(vertical: bool, lo: u32, hi: u32, local: u32) {
    if (WAVELET == 0u) {
        step(vertical, 0u, lo, hi, UPDATE_INV, 0.0, local);
        step(vertical, 1u, lo, hi, PREDICT_INV, 0.0, local);
    } else {
        scale(vertical, lo, hi, true, local);
        step(vertical, 0u, lo, hi, LIFT, -DELTA, local);
        step(vertical, 1u, lo, hi, LIFT, -GAMMA, local);
        step(vertical, 0u, lo, hi, LIFT, -BETA, local);
        step(vertical, 1u, lo, hi, LIFT, -ALPHA, local);
    }
}

// 9/7 scaling of both parities: forward even / K, odd · K; inverse the other way.
fn scale(vertical: bool, lo: u32, hi: u32, inverse: bool, local: u32) {
    let len = select(PW, PH, vertical);
    let lines = hi - lo;
    for (var t = local; t < len * lines; t += WG_SIZE) {
        var i: u32;
        var p: u32;
        if (vertical) {
            p = t / lines;
            i = p * PW + lo + t % lines;
        } else {
            p = t % len;
            i = (lo + t / len) * PW + p;
        }
        let even = (p & 1u) == 0u;
        let v = f32(sh[i]);
        sh[i] = S(select(select(v * K, v / K, even), select(v / K, v * K, even), inverse));
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let tx = wg.x;
    let ty = wg.y % params.tiles_y;
    let plane = wg.y / params.tiles_y;
    let w = params.width;
    let h = params.height;
    let split_x = (params.split & 1u) != 0u;
    let split_y = (params.split & 2u) != 0u;
    let x0 = tx * TILE_W;
    let y0 = ty * TILE_H;
    let wl = low_len(w, split_x);
    let hl = low_len(h, split_y);

    // The region and its apron, mirrored into the plane.
    for (var t = local; t < PW * PH; t += WG_SIZE) {
        let x = pse(i32(x0 + t % PW) - i32(APRON), w);
        let y = pse(i32(y0 + t / PW) - i32(APRON), h);
        if (!INVERSE) {
            sh[t] = load_from(params.src_sel, params.src_offset + plane * params.src_plane + y * params.src_pitch + x);
        } else {
            let bx = band(x, w, split_x);
            let by = band(y, h, split_y);
            if (bx < wl && by < hl) {
                sh[t] = load_from(params.src_sel, params.src_offset + plane * params.src_plane + by * params.src_pitch + bx);
            } else {
                sh[t] = coeffs[plane * params.c_plane + by * params.c_pitch + bx];
            }
        }
    }
    workgroupBarrier();

    if (!INVERSE) {
        // Columns first (all of them: the rows need their apron), then the tile's rows.
        if (split_y) {
            forward_1d(true, 0u, PW, local);
        }
        if (split_x) {
            forward_1d(false, APRON, APRON + TILE_H, local);
        }
        // Band by band: consecutive invocations store consecutive samples of a band row.
        let half = TILE_W / 2u;
        for (var t = local; t < TILE_W * TILE_H; t += WG_SIZE) {
            let r = t / TILE_W;
            let c = t % TILE_W;
            let xl = select(2u * (c - half) + 1u, 2u * c, c < half);
            let x = x0 + xl;
            let y = y0 + r;
            if (x < w && y < h) {
                let v = sh[(APRON + r) * PW + APRON + xl];
                let bx = band(x, w, split_x);
                let by = band(y, h, split_y);
                if (bx < wl && by < hl) {
                    store_to(params.dst_sel, params.dst_offset + plane * params.dst_plane + by * params.dst_pitch + bx, v);
                } else {
                    coeffs[plane * params.c_plane + by * params.c_pitch + bx] = v;
                }
            }
        }
    } else {
        // Rows first (all of them: the columns need their apron), then the tile's columns.
        if (split_x) {
            inverse_1d(false, 0u, PH, local);
        }
        if (split_y) {
            inverse_1d(true, APRON, APRON + TILE_W, local);
        }
        for (var t = local; t < TILE_W * TILE_H; t += WG_SIZE) {
            let x = x0 + t % TILE_W;
            let y = y0 + t / TILE_W;
            if (x < w && y < h) {
                let v = sh[(APRON + t / TILE_W) * PW + APRON + t % TILE_W];
                store_to(params.dst_sel, params.dst_offset + plane * params.dst_plane + y * params.dst_pitch + x, v);
            }
        }
    }
}
