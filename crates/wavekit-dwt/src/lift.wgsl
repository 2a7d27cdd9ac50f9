// One 1-D pass of the 2D wavelet transform over a region of one or several planes: one
// workgroup per line (a row, or a column) and plane. The line sits interleaved in workgroup
// memory (even samples low, odd samples high); the lifting steps run in place, each reading
// the other parity's neighbours with whole-sample symmetric extension (PSE keeps a coordinate's
// parity, and lifting keeps a symmetric signal symmetric, so mirrored reads are exact); a
// barrier between steps. Forward: read the line in natural order, write it as its two bands
// (low first). Inverse: read each sample straight from the band that holds it, write the line
// in natural order.
//
// Prepended constants: WG_SIZE, MAX_LINE, WAVELET (0: 5/3 on i32, 1: 9/7 on f32), INVERSE
// (bool). Imported by name: `dwt/sample` (alias S).
#import dwt/sample

struct Params {
    // Samples from one row to the next, and from one plane to the next.
    pitch: u32,
    plane_stride: u32,
    // The region transformed (the LL of the level).
    width: u32,
    height: u32,
    // 0: rows, 1: columns.
    axis: u32,
    // 1: no lifting, only the store (a level count of 0 with 8-bit output).
    identity: u32,
    // 1: store 8-bit samples to `out8` (the last inverse pass): rounded, plus `shift`,
    // clamped to 0..255, four to a word.
    out8: u32,
    shift: i32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<S>;
// Cleared by the host before the pass that writes it; each byte has one writer.
@group(0) @binding(2) var<storage, read_write> out8: array<atomic<u32>>;

var<workgroup> sh: array<S, MAX_LINE>;

const ALPHA: f32 = -1.586134342059924;
const BETA: f32 = -0.052980118572961;
const GAMMA: f32 = 0.882911075530934;
const DELTA: f32 = 0.443506852043971;
const K: f32 = 1.230174104914001;

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

// The two neighbours of sample i, mirrored.
fn left(i: u32, n: u32) -> S {
    return sh[pse(i32(i) - 1i, n)];
}

fn right(i: u32, n: u32) -> S {
    return sh[pse(i32(i) + 1i, n)];
}

// Samples of `parity` of the line: x += c · (left + right) (9/7 steps).
fn lift97(n: u32, local: u32, parity: u32, c: f32) {
    for (var i = 2u * local + parity; i < n; i += 2u * WG_SIZE) {
        sh[i] = S(f32(sh[i]) + c * (f32(left(i, n)) + f32(right(i, n))));
    }
    workgroupBarrier();
}

// 5/3: odd samples −= ⌊(left + right) / 2⌋ (forward) or += (inverse).
fn predict53(n: u32, local: u32, sign: i32) {
    for (var i = 2u * local + 1u; i < n; i += 2u * WG_SIZE) {
        let p = (i32(left(i, n)) + i32(right(i, n))) >> 1u;
        sh[i] = S(i32(sh[i]) + sign * p);
    }
    workgroupBarrier();
}

// 5/3: even samples += ⌊(left + right + 2) / 4⌋ (forward) or −= (inverse).
fn update53(n: u32, local: u32, sign: i32) {
    for (var i = 2u * local; i < n; i += 2u * WG_SIZE) {
        let u = (i32(left(i, n)) + i32(right(i, n)) + 2i) >> 2u;
        sh[i] = S(i32(sh[i]) + sign * u);
    }
    workgroupBarrier();
}

// Where sample i of the line lives in the plane.
fn address(plane: u32, line: u32, i: u32) -> u32 {
    if (params.axis == 0u) {
        return plane * params.plane_stride + line * params.pitch + i;
    }
    return plane * params.plane_stride + i * params.pitch + line;
}

// Sample i's place in the bands: evens first, then odds.
fn band_index(i: u32, n: u32) -> u32 {
    return select((n + 1u) / 2u + i / 2u, i / 2u, (i & 1u) == 0u);
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let line = wg.x;
    let plane = wg.y;
    let n = select(params.height, params.width, params.axis == 0u);
    let lines = select(params.width, params.height, params.axis == 0u);
    if (line >= lines) {
        return;
    }
    // A line of one sample passes through (it is still stored, for the 8-bit output).
    let lifts = n > 1u && params.identity == 0u;
    for (var i = local; i < n; i += WG_SIZE) {
        var src = i;
        if (INVERSE && lifts) {
            src = band_index(i, n);
        }
        sh[i] = data[address(plane, line, src)];
    }
    workgroupBarrier();
    if (lifts) {
        lift_line(n, local);
    }
    for (var i = local; i < n; i += WG_SIZE) {
        var dst = i;
        if (!INVERSE && lifts) {
            dst = band_index(i, n);
        }
        let a = address(plane, line, dst);
        if (INVERSE && params.out8 != 0u) {
            let v = clamp(i32(round(f32(sh[i]))) + params.shift, 0i, 255i);
            atomicOr(&out8[a / 4u], u32(v) << (8u * (a % 4u)));
        } else {
            data[a] = sh[i];
        }
    }
}

// The lifting steps of the line in sh (forward or inverse). Called by every invocation.
fn lift_line(n: u32, local: u32) {
    if (WAVELET == 0u) {
        if (!INVERSE) {
            predict53(n, local, -1i);
            update53(n, local, 1i);
        } else {
            update53(n, local, -1i);
            predict53(n, local, 1i);
        }
    } else {
        if (!INVERSE) {
            lift97(n, local, 1u, ALPHA);
            lift97(n, local, 0u, BETA);
            lift97(n, local, 1u, GAMMA);
            lift97(n, local, 0u, DELTA);
            for (var i = local; i < n; i += WG_SIZE) {
                sh[i] = S(select(f32(sh[i]) * K, f32(sh[i]) / K, (i & 1u) == 0u));
            }
            workgroupBarrier();
        } else {
            for (var i = local; i < n; i += WG_SIZE) {
                sh[i] = S(select(f32(sh[i]) / K, f32(sh[i]) * K, (i & 1u) == 0u));
            }
            workgroupBarrier();
            lift97(n, local, 0u, -DELTA);
            lift97(n, local, 1u, -GAMMA);
            lift97(n, local, 0u, -BETA);
            lift97(n, local, 1u, -ALPHA);
        }
    }
}
