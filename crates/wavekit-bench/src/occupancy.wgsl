// Measurement only (`wavekit bench occupancy`): how many workgroups of WG_SIZE invocations, each
// with SHARED_WORDS words of workgroup memory and STREAMS values live per invocation, the device
// keeps resident at once. Invocation 0 of each workgroup counts it in on arrival (state[0]) and
// raises the peak (state[1]). The workgroup then fills its memory and works params.spin / STREAMS
// + 1 rounds, each stepping STREAMS independent values (held in registers through the loop; about
// params.spin steps of one value in all, whatever STREAMS), meets at a barrier, and is counted
// out. After the dispatch state[0] is back at 0 and state[1] is the most workgroups that were
// resident together: the occupancy, when the work outlasts the first wave's launch. state[2] is
// a sink that keeps the work from being optimised away (never written in practice).
//
// Prepended constants: WG_SIZE, SHARED_WORDS (at least 1), STREAMS (at least 1).

struct Params {
    spin: u32,
    seed: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> sh_pad: array<u32, SHARED_WORDS>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32) {
    if (local == 0u) {
        let now = atomicAdd(&state[0], 1u) + 1u;
        atomicMax(&state[1], now);
    }
    // Every word written and one read back, so that the memory is neither left out nor
    // shrunk by the compiler.
    for (var w = local; w < SHARED_WORDS; w += WG_SIZE) {
        sh_pad[w] = w ^ params.seed;
    }
    workgroupBarrier();
    let first = sh_pad[(local * 7u) % SHARED_WORDS];
    var s: array<u32, STREAMS>;
#unroll k STREAMS
    s[{k}] = first + {k} * 0x9e3779b9u;
#end
    for (var i = 0u; i <= params.spin / STREAMS; i++) {
#unroll k STREAMS
        s[{k}] = s[{k}] * 1664525u + 1013904223u;
#end
    }
    var x = 0u;
#unroll k STREAMS
    x ^= s[{k}];
#end
    workgroupBarrier();
    if (local == 0u) {
        atomicSub(&state[0], 1u);
    }
    if (x == params.seed) {
        atomicAdd(&state[2], 1u);
    }
}
