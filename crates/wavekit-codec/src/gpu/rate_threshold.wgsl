// The rate control's threshold, the GPU twin of `cpu/rate.rs`'s `threshold`: one workgroup. θ
// is the lowest key bin ≥ 1 whose suffix of the histogram fits the room (the bins' bytes
// beyond the blocks' two header bytes); also the room left under it.
//
// Bindings: 0 the histogram (KEY_BINS words), 1 control (out: θ, room left), 2 params: the
// blocks' header bytes (2 a block), the room for payloads.
#import subgroup/api
#import codec/scan

@group(0) @binding(0) var<storage, read> hist: array<u32>;
@group(0) @binding(1) var<storage, read_write> control: array<u32>;
@group(0) @binding(2) var<uniform> params: vec4<u32>;

const PER: u32 = KEY_BINS / WG_SIZE;

var<workgroup> sh_over: atomic<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    let base = params.x;
    let room = params.y;
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
    // The suffix at θ (0 when θ is past the last bin).
    suffix = above;
    for (var j = PER; j > 0u; j--) {
        let k = lo + j - 1u;
        suffix += hist[k];
        if (k == theta) {
            control[1] = room - base - suffix;
        }
    }
    if (l.local == 0u) {
        control[0] = theta;
        if (theta >= KEY_BINS) {
            control[1] = room - base;
        }
    }
}
