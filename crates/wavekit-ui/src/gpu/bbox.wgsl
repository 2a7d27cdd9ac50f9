// Stage 1, run by bin_count for each item of its chunk (ADR-0115: no dispatch of its own):
// the item's pixel box (what its shape, border or shadow may touch, within its clip chain's
// outer box and the viewport), its solid box (where its shape and clips certainly cover it with
// coverage 1: rounded rectangles inside their border, images; within the clip chain's inner
// box) with a bit saying it is opaque there, and the bins its pixel box touches. CPU port:
// cpu/bbox.rs (bounds).
#import ui/records

@group(0) @binding(2) var<storage, read_write> boxes: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> bin_rects: array<u32>;

fn floor_i(v: f32) -> i32 {
    return i32(clamp(floor(v), -1.0e6, 1.0e6));
}

fn ceil_i(v: f32) -> i32 {
    return i32(clamp(ceil(v), -1.0e6, 1.0e6));
}

fn outer_box(b: vec4<f32>) -> vec4<i32> {
    return vec4<i32>(floor_i(b.x) - 1, floor_i(b.y) - 1, ceil_i(b.z) + 1, ceil_i(b.w) + 1);
}

fn inner_box(b: vec4<f32>, inset: f32, r: f32) -> vec4<i32> {
    let m = inset + r + 1.0;
    return vec4<i32>(ceil_i(b.x + m), ceil_i(b.y + m), floor_i(b.z - m), floor_i(b.w - m));
}

fn bin_rect(b: vec4<i32>) -> u32 {
    if (box_empty(b)) {
        return NO_BINS;
    }
    let lo = vec2<u32>(b.xy) / BIN;
    let hi = vec2<u32>(b.zw - vec2<i32>(1)) / BIN;
    return lo.x | (lo.y << 8u) | (hi.x << 16u) | (hi.y << 24u);
}

// Item i's boxes and bin rectangle, written to boxes[i] and bin_rects[i]; returns the bin
// rectangle. i < params.n_items.
fn item_bounds(i: u32) -> u32 {
    let head = item_word(i, W_KIND);
    let k = head & 0xffu;
    let b = item_box(i);
    var outer: vec4<i32>;
    if (k == K_GLYPH) {
        outer = vec4<i32>(b);
    } else if (k == K_SHADOW) {
        let e = item_f32(i, W_P1);
        outer = outer_box(vec4<f32>(b.x - e, b.y - e, b.z + e, b.w + e));
    } else {
        outer = outer_box(b);
    }
    var solid = vec4<i32>(0);
    if (k == K_RECT && (head & F_RING) == 0u) {
        let r = item_colour(i, W_RADII);
        var inset = 0.0;
        if ((head & F_INNER) != 0u) {
            inset = item_f32(i, W_P0);
        }
        solid = inner_box(b, inset, max(max(r.x, r.y), max(r.z, r.w)));
    } else if (k == K_IMAGE) {
        solid = inner_box(b, 0.0, 0.0);
    }
    outer = box_and(outer, vec4<i32>(0, 0, i32(params.width), i32(params.height)));
    let clip = item_word(i, W_CLIP);
    if (clip != 0u) {
        let c = clip - 1u;
        outer = box_and(outer, unpack_box(clip_word(c, C_OUTER), clip_word(c, C_OUTER + 1u)));
        solid = box_and(solid, unpack_box(clip_word(c, C_INNER), clip_word(c, C_INNER + 1u)));
    }
    if (box_empty(outer)) {
        outer = vec4<i32>(0);
    }
    solid = box_and(solid, outer);
    if (box_empty(solid)) {
        solid = vec4<i32>(0);
    }
    // Bit 15 of the solid box's first word (its x0 is at most 16384): the item is opaque.
    var s = pack_box(solid);
    if ((head & F_OPAQUE) != 0u) {
        s.x |= OPAQUE_BIT;
    }
    boxes[i] = vec4<u32>(pack_box(outer), s);
    let r = bin_rect(outer);
    bin_rects[i] = r;
    return r;
}
