// Measurement only (`wavekit bench probe`): the latency of a look-back-like window read.
// Subgroup 0 of every workgroup makes ROUNDS dependent rounds; in each, every lane makes LOADS
// loads (32-bit atomic loads, or with PLAIN plain loads through a second binding) of words 8
// apart, one 32-byte sector each as the look-back's descriptors, and the subgroup's sum of
// what it read decides where the next round reads, so that rounds cannot overlap. With
// BACKGROUND the other subgroups stream-copy a large buffer meanwhile (the scan's memory
// traffic), for at most params.bg_iters rounds of 16 quads each and only until subgroup 0 is
// done (bounded: nothing waits on another subgroup). SHARED: every workgroup reads the same
// region (the look-back's hot lines); otherwise one of its own.
//
// Prepended constants: WG_SIZE, MIN_WIDTH, LOADS, PLAIN (bool), BACKGROUND (bool), SHARED
// (bool), ROUNDS. Imported by name: `subgroup/api`, `monoid` (u32 add).
#import subgroup/api
#import monoid

struct Params {
    // Words of the probed region (zeros; a power of two, so that wrapping is a mask).
    words: u32,
    // vec4 elements of each background buffer (a power of two).
    bg_quads: u32,
    bg_iters: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> region: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> region_plain: array<u32>;
@group(0) @binding(3) var<storage, read> bg_src: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> bg_dst: array<vec4<u32>>;
// [0]: a sink for the sums (never written: the region holds zeros); [1]: background quads
// copied in all.
@group(0) @binding(5) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> sh_done: atomic<u32>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    if (l.local == 0u) {
        atomicStore(&sh_done, 0u);
    }
    workgroupBarrier();
    if (l.sg == 0u) {
        let window = l.size * LOADS * 8u;
        var at = select(wg.x * window, 0u, SHARED) & (params.words - 1u);
        var acc = 0u;
        for (var r = 0u; r < ROUNDS; r++) {
            var v = 0u;
#unroll a LOADS
            {
                let i = (at + ({a} * l.size + l.lane) * 8u) & (params.words - 1u);
                if (PLAIN) {
                    v += region_plain[i];
                } else {
                    v += atomicLoad(&region[i]);
                }
            }
#end
            // Zero, but the next round cannot start before it is known.
            let s = sg_reduce(v, l.lane, l.size);
            at = (at + window + s) & (params.words - 1u);
            acc += s;
        }
        if (l.lane == 0u) {
            atomicStore(&sh_done, 1u);
            if (acc != 0u) {
                atomicStore(&out[0], acc);
            }
        }
    } else if (BACKGROUND) {
        let workers = WG_SIZE - l.size;
        let stride = nwg.x * workers;
        var q = wg.x * workers + (l.local - l.size);
        var copied = 0u;
        for (var it = 0u; it < params.bg_iters; it++) {
            for (var k = 0u; k < 16u; k++) {
                let j = q & (params.bg_quads - 1u);
                bg_dst[j] = bg_src[j];
                q += stride;
            }
            copied += 16u;
            if (atomicLoad(&sh_done) != 0u) {
                break;
            }
        }
        atomicAdd(&out[1], copied);
    }
}
