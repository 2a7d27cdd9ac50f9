// Histogram with even bins over [lower, upper): bin = floor((x − lower) · bins / (upper −
// lower)); samples below, above (and NaN, for f32) are counted apart. Each workgroup takes a
// contiguous run of samples and counts into COPIES private histograms in workgroup memory
// (subgroup s into copy s % COPIES), so that few bins do not serialise every invocation on one
// counter; then it adds its non-zero counts to the global histogram, one atomic per bin.
//
// Prepended constants: WG_SIZE, MAX_BINS (counters of workgroup memory). Imported by name:
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
    // Integers: bins / (upper − lower) as f32 bits, for the estimate.
    ratio: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> samples: array<D>;
// bins counts, then below, above, NaN.
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;

const BELOW: u32 = 0xffffffffu;
const ABOVE: u32 = 0xfffffffeu;
const NAN: u32 = 0xfffffffdu;

var<workgroup> sh_bins: array<atomic<u32>, MAX_BINS>;
var<workgroup> sh_apart: array<atomic<u32>, 3>;

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
    let first = group * params.per_group;
    let last = min(first + params.per_group, params.n);
    for (var i = first + l.local; i < last; i += WG_SIZE) {
        let b = bin_of(samples[i]);
        if (b < params.bins) {
            atomicAdd(&sh_bins[copy + b], 1u);
        } else {
            atomicAdd(&sh_apart[~b], 1u);
        }
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
