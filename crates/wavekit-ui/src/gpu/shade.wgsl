// The per-pixel arithmetic of the fine kernel. Its Rust port is shade.rs, function for
// function and in the same operation order: change both together.
#import ui/records

fn cov(d: f32) -> f32 {
    return clamp(0.5 - d, 0.0, 1.0);
}

// Signed distance to the rounded rectangle b (x0, y0, x1, y1), radii r (tl, tr, br, bl).
fn sd_rounded_rect(p: vec2<f32>, b: vec4<f32>, r: vec4<f32>) -> f32 {
    let cx = (b.x + b.z) * 0.5;
    let cy = (b.y + b.w) * 0.5;
    let hx = (b.z - b.x) * 0.5;
    let hy = (b.w - b.y) * 0.5;
    let qx = p.x - cx;
    let qy = p.y - cy;
    var rr: f32;
    if (qx < 0.0) {
        rr = select(r.w, r.x, qy < 0.0);
    } else {
        rr = select(r.z, r.y, qy < 0.0);
    }
    rr = max(min(rr, min(hx, hy)), 0.0);
    let dx = abs(qx) - hx + rr;
    let dy = abs(qy) - hy + rr;
    let ox = max(dx, 0.0);
    let oy = max(dy, 0.0);
    return min(max(dx, dy), 0.0) + sqrt(ox * ox + oy * oy) - rr;
}

// Approximate signed distance to the ellipse inscribed in b.
fn sd_ellipse(p: vec2<f32>, b: vec4<f32>) -> f32 {
    let rx = (b.z - b.x) * 0.5;
    let ry = (b.w - b.y) * 0.5;
    if (rx <= 0.0 || ry <= 0.0) {
        return 1.0e9;
    }
    let u = (p.x - (b.x + b.z) * 0.5) / rx;
    let v = (p.y - (b.y + b.w) * 0.5) / ry;
    let f = u * u + v * v - 1.0;
    let gx = u / rx;
    let gy = v / ry;
    let g = 2.0 * sqrt(gx * gx + gy * gy);
    return f / max(g, 1.0e-6);
}

// erf, Abramowitz and Stegun 7.1.27.
fn erf_approx(x: f32) -> f32 {
    let t = abs(x);
    let p = 1.0 + t * (0.278393 + t * (0.230389 + t * (0.000972 + t * 0.078108)));
    let p2 = p * p;
    let e = 1.0 - 1.0 / (p2 * p2);
    return select(e, -e, x < 0.0);
}

fn extent(hx: f32, hy: f32, rad: f32, row: f32) -> f32 {
    let dy = max(abs(row) - (hy - rad), 0.0);
    return hx - rad + sqrt(max(rad * rad - dy * dy, 0.0));
}

// The Gaussian-blurred rounded rectangle (shade.rs: shadow).
fn shadow(p: vec2<f32>, b: vec4<f32>, r: vec4<f32>, sigma: f32) -> f32 {
    let cx = (b.x + b.z) * 0.5;
    let cy = (b.y + b.w) * 0.5;
    let hx = (b.z - b.x) * 0.5;
    let hy = (b.w - b.y) * 0.5;
    let qx = p.x - cx;
    let qy = p.y - cy;
    let m = min(hx, hy);
    let lim = 3.0 * sigma;
    let lo = max(qy - hy, -lim);
    let hi = min(qy + hy, lim);
    if (hi <= lo) {
        return 0.0;
    }
    let step = (hi - lo) / f32(SHADOW_SAMPLES);
    let k = 1.0 / (sigma * 1.4142135);
    let e = 1.0 / (2.0 * sigma * sigma);
    var acc = 0.0;
    for (var i = 0u; i < SHADOW_SAMPLES; i++) {
        let y = lo + (f32(i) + 0.5) * step;
        let row = qy - y;
        var rl = r.w;
        var rr = r.z;
        if (row < 0.0) {
            rl = r.x;
            rr = r.y;
        }
        let xl = -extent(hx, hy, min(rl, m), row);
        let xr = extent(hx, hy, min(rr, m), row);
        let ix = 0.5 * (erf_approx((xr - qx) * k) - erf_approx((xl - qx) * k));
        acc += ix * exp(-(y * y) * e);
    }
    let norm = step / (sigma * 2.5066283);
    return clamp(acc * norm, 0.0, 1.0);
}

fn mix4(a: vec4<f32>, b: vec4<f32>, t: f32) -> vec4<f32> {
    return a + (b - a) * t;
}

fn gradient(g: u32, p: vec2<f32>) -> vec4<f32> {
    let o = params.gradient_base + g;
    let t = clamp((p.x - bitcast<f32>(scene[o])) * bitcast<f32>(scene[o + 2u])
        + (p.y - bitcast<f32>(scene[o + 1u])) * bitcast<f32>(scene[o + 3u])
        + bitcast<f32>(scene[o + 4u]), 0.0, 1.0);
    let n = scene[o + 5u];
    let s = o + 6u;
    var c = f16x4(scene[s + 2u], scene[s + 3u]);
    for (var k = 0u; k + 1u < n; k++) {
        let at = s + 4u * k;
        let off = bitcast<f32>(scene[at]);
        if (t >= off) {
            let u = clamp((t - off) * bitcast<f32>(scene[at + 1u]), 0.0, 1.0);
            let a = f16x4(scene[at + 2u], scene[at + 3u]);
            let b = f16x4(scene[at + 6u], scene[at + 7u]);
            c = mix4(a, b, u);
        }
    }
    return c;
}

fn texel(x: u32, y: u32) -> vec4<f32> {
    let w = scene[params.image_base + y * params.image_row + x];
    let a = f32(w >> 24u) * INV255;
    return vec4<f32>(
        f32(w & 0xffu) * INV255 * a,
        f32((w >> 8u) & 0xffu) * INV255 * a,
        f32((w >> 16u) & 0xffu) * INV255 * a,
        a,
    );
}

// The chain's coverage at pixel centre p: the least of its clips' (shade.rs: clip_coverage;
// ADR-0083: a clip nested in itself changes nothing, and no order of operations matters).
// The walk stops early where the rest is known exactly: inside a clip's chain-inner box every
// clip from it up covers 1 (v is the answer); outside its chain-outer box one of them covers 0,
// and the least is 0 once it reaches 0. Deep chains of nested clips cost a step or two a
// pixel instead of their depth.
fn clip_coverage(first: u32, p: vec2<f32>) -> f32 {
    let pi = vec2<i32>(floor(p));
    var v = 1.0;
    var c = first;
    while (c != 0u) {
        let o = params.clip_base + (c - 1u) * CLIP_WORDS;
        let inner = unpack_box(scene[o + C_INNER], scene[o + C_INNER + 1u]);
        if (all(pi >= inner.xy) && all(pi < inner.zw)) {
            break;
        }
        let outer = unpack_box(scene[o + C_OUTER], scene[o + C_OUTER + 1u]);
        if (any(pi < outer.xy) || any(pi >= outer.zw)) {
            v = 0.0;
            break;
        }
        let b = bitcast<vec4<f32>>(vec4<u32>(scene[o], scene[o + 1u], scene[o + 2u], scene[o + 3u]));
        let rad = f16x4(scene[o + C_RADII], scene[o + C_RADII + 1u]);
        v = min(v, cov(sd_rounded_rect(p, b, rad)));
        if (v == 0.0) {
            break;
        }
        c = scene[o + C_PARENT];
    }
    return v;
}

// An item's record words as shade reads them: rec_word (fine.wgsl) takes r, the item's index in
// the scene or, with the records staged in workgroup memory, its slot there.
fn rec_f32(r: u32, w: u32) -> f32 {
    return bitcast<f32>(rec_word(r, w));
}

fn rec_box(r: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(
        rec_word(r, W_BOX),
        rec_word(r, W_BOX + 1u),
        rec_word(r, W_BOX + 2u),
        rec_word(r, W_BOX + 3u),
    ));
}

fn rec_colour(r: u32, w: u32) -> vec4<f32> {
    return f16x4(rec_word(r, w), rec_word(r, w + 1u));
}

// The premultiplied colour at pixel (px, py) of the item whose record is r (rec_word), its clips
// applied (shade.rs: shade).
// HAS_SHAPE, HAS_IMAGE, HAS_GLYPH, HAS_SHADOW, HAS_GRADIENT, HAS_CLIP: what the scene holds
// (the kernel is built for it, RenderConfig::specialize): code for what it lacks is left out.
// `solid`: the pixel is inside the item's solid box, where the edge's and every clip's coverage
// is exactly 1; they are skipped (the result is the same bits). Each kind reads only the record
// words it uses (shade.rs reads them all first: the arithmetic is the same).
fn shade(r: u32, px: u32, py: u32, solid: bool) -> vec4<f32> {
    let p = vec2<f32>(f32(px) + 0.5, f32(py) + 0.5);
    let head = rec_word(r, W_KIND);
    let k = head & 0xffu;
    var col = vec4<f32>(0.0);
    if (HAS_GLYPH && k == K_GLYPH) {
        let bx = rec_f32(r, W_BOX);
        let by = rec_f32(r, W_BOX + 1u);
        let at = rec_word(r, W_RADII);
        let x = (at & 0xffffu) + u32(i32(px) - i32(bx));
        let y = (at >> 16u) + u32(i32(py) - i32(by));
        let w = scene[params.glyph_base + y * params.glyph_row_words + x / 4u];
        let c = f32((w >> (8u * (x % 4u))) & 0xffu) * INV255;
        col = rec_colour(r, W_FILL) * c;
    } else if (HAS_SHAPE && (k == K_RECT || k == K_ELLIPSE)) {
        let b = rec_box(r);
        let c0 = rec_colour(r, W_FILL);
        var fill = c0;
        if (HAS_GRADIENT && (head & F_GRADIENT) != 0u) {
            fill = gradient(rec_word(r, W_FILL), p);
        }
        if (solid) {
            return fill;
        }
        let radii = rec_colour(r, W_RADII);
        var co: f32;
        if (k == K_RECT) {
            co = cov(sd_rounded_rect(p, b, radii));
        } else {
            co = cov(sd_ellipse(p, b));
        }
        if ((head & F_INNER) != 0u) {
            let p0 = rec_f32(r, W_P0);
            let c1 = rec_colour(r, W_BORDER);
            let ib = vec4<f32>(b.x + p0, b.y + p0, b.z - p0, b.w - p0);
            var ci: f32;
            if (k == K_RECT) {
                ci = cov(sd_rounded_rect(p, ib, max(radii - vec4<f32>(p0), vec4<f32>(0.0))));
            } else {
                ci = cov(sd_ellipse(p, ib));
            }
            let ring = max(co - ci, 0.0);
            if ((head & F_RING) != 0u) {
                col = fill * ring;
            } else {
                col = fill * ci + c1 * ring;
            }
        } else {
            col = fill * co;
        }
    } else if (HAS_IMAGE && k == K_IMAGE) {
        let b = rec_box(r);
        let c1 = rec_colour(r, W_BORDER);
        let p0 = rec_f32(r, W_P0);
        let p1 = rec_f32(r, W_P1);
        var co = 1.0;
        if (!solid) {
            co = cov(sd_rounded_rect(p, b, vec4<f32>(0.0)));
        }
        let at = rec_word(r, W_RADII);
        let sz = rec_word(r, W_RADII + 1u);
        let ax = at & 0xffffu;
        let ay = at >> 16u;
        let sw = i32(sz & 0xffffu);
        let sh = i32(sz >> 16u);
        let u = (p.x - b.x) * p0;
        let v = (p.y - b.y) * p1;
        var t: vec4<f32>;
        if ((head & F_BILINEAR) != 0u) {
            let fu = u - 0.5;
            let fv = v - 0.5;
            let x0 = floor(fu);
            let y0 = floor(fv);
            let tx = fu - x0;
            let ty = fv - y0;
            let xa = u32(clamp(i32(x0), 0, sw - 1)) + ax;
            let xb = u32(clamp(i32(x0 + 1.0), 0, sw - 1)) + ax;
            let ya = u32(clamp(i32(y0), 0, sh - 1)) + ay;
            let yb = u32(clamp(i32(y0 + 1.0), 0, sh - 1)) + ay;
            let top = mix4(texel(xa, ya), texel(xb, ya), tx);
            let bot = mix4(texel(xa, yb), texel(xb, yb), tx);
            t = mix4(top, bot, ty);
        } else {
            let x = u32(clamp(i32(floor(u)), 0, sw - 1));
            let y = u32(clamp(i32(floor(v)), 0, sh - 1));
            t = texel(ax + x, ay + y);
        }
        col = (t * c1) * co;
    } else if (HAS_SHADOW && k == K_SHADOW) {
        let b = rec_box(r);
        col = rec_colour(r, W_FILL) * shadow(p, b, rec_colour(r, W_RADII), rec_f32(r, W_P0));
    }
    if (HAS_CLIP && !solid) {
        let clip = rec_word(r, W_CLIP);
        if (clip != 0u) {
            col = col * clip_coverage(clip, p);
        }
    }
    return col;
}

fn over(src: vec4<f32>, dst: vec4<f32>) -> vec4<f32> {
    return src + dst * (1.0 - src.w);
}

// Straight alpha, rounded half up to 8 bits (shade.rs: quantise).
fn quantise(c: vec4<f32>) -> vec4<u32> {
    let a = clamp(c.w, 0.0, 1.0);
    if (a > 0.0) {
        let s = vec4<f32>(c.x / a, c.y / a, c.z / a, a);
        return vec4<u32>(floor(clamp(s, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0 + 0.5));
    }
    return vec4<u32>(0u);
}
