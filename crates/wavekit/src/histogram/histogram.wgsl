// Histogram with even bins over [lower, upper): bin = floor((x − lower) · bins / (upper −
// lower)); samples below, above (and NaN, for f32) are counted apart. Each workgroup takes a
// contiguous run of samples and counts into COPIES private histograms in workgroup memory
// (subgroup s into copy s % COPIES), so that few bins do not serialise every invocation on one
// counter; then it adds its non-zero counts to the global histogram, one atomic per bin.
//
// Prepended constants: WG_SIZE, MAX_BINS (counters of workgroup memory), QUADS (16-byte
// loads per invocation and round). Imported by name:
// `subgroup/api`, `monoid` (u32 add), `histogram/sample` (D, bin_of).
#import subgroup/api
#import monoid
#import histogram/sample

struct Params {
    n: u32,
    bins: u32,
    copies: u32,
    per_group: u32,
    lower: u32,
    upper: u32,
    // f32: bins / (upper − lower) as bits; integers: upper − lower.
    scale: u32,
    // Integers: bins / (upper − lower) as f32 bits, for the estimate; f32: the pre-scale (0:
    // none; sample_float.wgsl).
    ratio: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> samples: array<D>;
// bins counts, then below, above, NaN.
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;

const BELOW: u32 = 0xffffffffu;
const ABOVE: u32 = 0xfffffffeu;
const NAN: u32 = 0xfffffffdu;

// The samples again as 16-byte vectors, whole quads only.
@group(0) @binding(3) var<storage, read> samples4: array<vec4<D>>;

var<workgroup> sh_bins: array<atomic<u32>, MAX_BINS>;
var<workgroup> sh_apart: array<atomic<u32>, 3>;

fn count(x: D, copy: u32) {
    let b = bin_of(x);
    if (b < params.bins) {
        atomicAdd(&sh_bins[copy + b], 1u);
    } else {
        atomicAdd(&sh_apart[~b], 1u);
    }
}

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = lane_info(inv);
    let group = wg.x + wg.y * nwg.x;
    let slots = params.bins * params.copies;
    for (var i = l.local; i < slots; i += WG_SIZE) {
        atomicStore(&sh_bins[i], 0u);
    }
    if (l.local < 3u) {
        atomicStore(&sh_apart[l.local], 0u);
    }
    workgroupBarrier();
    let copy = (l.sg % params.copies) * params.bins;
    // The group's run starts at a multiple of 4 (per_group is one); whole quads are read as
    // 16-byte vectors, QUADS of them per invocation and round so that the loads are in flight
    // together, the ragged end one sample at a time.
    let first = group * params.per_group;
    let last = min(first + params.per_group, params.n);
    let quads_end = first + (last - first) / 4u * 4u;
    for (var q = first / 4u + l.local; q * 4u < quads_end; q += WG_SIZE * QUADS) {
        var xs: array<vec4<D>, QUADS>;
#unroll k QUADS
        if ((q + {k} * WG_SIZE) * 4u < quads_end) {
            xs[{k}] = samples4[q + {k} * WG_SIZE];
        }
#end
#unroll k QUADS
        if ((q + {k} * WG_SIZE) * 4u < quads_end) {
            count(xs[{k}].x, copy);
            count(xs[{k}].y, copy);
            count(xs[{k}].z, copy);
            count(xs[{k}].w, copy);
        }
#end
    }
    for (var i = quads_end + l.local; i < last; i += WG_SIZE) {
        count(samples[i], copy);
    }
    workgroupBarrier();
    for (var b = l.local; b < params.bins; b += WG_SIZE) {
        var sum = 0u;
        for (var c = 0u; c < params.copies; c++) {
            sum += atomicLoad(&sh_bins[c * params.bins + b]);
        }
        if (sum != 0u) {
            atomicAdd(&counts[b], sum);
        }
    }
    if (l.local < 3u) {
        let apart = atomicLoad(&sh_apart[l.local]);
        if (apart != 0u) {
            atomicAdd(&counts[params.bins + l.local], apart);
        }
    }
}
