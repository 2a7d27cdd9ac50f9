// The draw list as the kernels read it: the frame's parameters, the scene buffer (items, clips,
// gradients and both atlases, one after another) and accessors for its records. The layout
// constants come from the generated piece `ui/layout` (crates/wavekit-ui/src/records.rs), the
// uniform `Params` from `ui/params` (gpu/mod.rs: one field list for both sides).
#import ui/layout
#import ui/params


@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> scene: array<u32>;

const NO_BINS: u32 = 0x00ff00ffu;
// In the first word of an item's solid box: the item is opaque there.
const OPAQUE_BIT: u32 = 0x8000u;
const INV255: f32 = 1.0 / 255.0;

fn item_word(i: u32, w: u32) -> u32 {
    return scene[params.item_base + i * ITEM_WORDS + w];
}

fn item_f32(i: u32, w: u32) -> f32 {
    return bitcast<f32>(item_word(i, w));
}

fn item_box(i: u32) -> vec4<f32> {
    let o = params.item_base + i * ITEM_WORDS + W_BOX;
    return bitcast<vec4<f32>>(vec4<u32>(scene[o], scene[o + 1u], scene[o + 2u], scene[o + 3u]));
}

fn f16x4(lo: u32, hi: u32) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(lo), unpack2x16float(hi));
}

fn item_colour(i: u32, w: u32) -> vec4<f32> {
    return f16x4(item_word(i, w), item_word(i, w + 1u));
}

fn clip_word(c: u32, w: u32) -> u32 {
    return scene[params.clip_base + c * CLIP_WORDS + w];
}

// Packed pixel boxes: x | y << 16 for the first corner, then one past the last.
fn unpack_box(lo: u32, hi: u32) -> vec4<i32> {
    return vec4<i32>(vec4<u32>(lo & 0xffffu, lo >> 16u, hi & 0xffffu, hi >> 16u));
}

fn pack_box(b: vec4<i32>) -> vec2<u32> {
    let c = vec4<u32>(clamp(b, vec4<i32>(0), vec4<i32>(65535)));
    return vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u));
}

fn box_empty(b: vec4<i32>) -> bool {
    return b.x >= b.z || b.y >= b.w;
}

fn box_and(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    return vec4<i32>(max(a.xy, b.xy), min(a.zw, b.zw));
}

// A bin rectangle holds bin (bx, by).
fn bins_have(r: u32, bx: u32, by: u32) -> bool {
    return bx >= (r & 0xffu) && by >= ((r >> 8u) & 0xffu) && bx <= ((r >> 16u) & 0xffu)
        && by <= (r >> 24u);
}

// The item's solid box (o.zw of its boxes) holds a whole tile of bin (bx, by), and it is opaque
// there: the fine pass's test for a cover, within this bin (bin_emit, bin_place).
fn covers_a_tile(o: vec4<u32>, bx: u32, by: u32) -> bool {
    if ((o.z & OPAQUE_BIT) == 0u) {
        return false;
    }
    let sb = vec4<u32>(unpack_box(o.z & ~OPAQUE_BIT, o.w));
    let first = vec2<u32>(bx, by) * BIN_TILES;
    let lo = max((sb.xy + vec2<u32>(TILE - 1u)) / TILE, first);
    let hi = min(sb.zw / TILE, first + vec2<u32>(BIN_TILES));
    return all(lo < hi);
}
