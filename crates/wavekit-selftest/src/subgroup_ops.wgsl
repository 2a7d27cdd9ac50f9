// Self-test of every subgroup operation family wavekit relies on. Each invocation records
// its layout and the result of each operation in FIELDS words; the host recomputes them
// from the inputs (selftest/reference.rs). Prepended constants: WG_SIZE, FIELDS.
#import shared/ballot

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// Field numbers; keep in step with `Field` in reference.rs.
const F_LOCAL: u32 = 0u;
const F_LANE: u32 = 1u;
const F_SIZE: u32 = 2u;
const F_SG_ID: u32 = 3u;
const F_NUM_SG: u32 = 4u;
const F_ADD_U32: u32 = 5u;
const F_MIN_U32: u32 = 6u;
const F_MAX_U32: u32 = 7u;
const F_MIN_I32: u32 = 8u;
const F_MAX_I32: u32 = 9u;
const F_ADD_F32: u32 = 10u;
const F_MIN_F32: u32 = 11u;
const F_MAX_F32: u32 = 12u;
const F_INCL_U32: u32 = 13u;
const F_EXCL_U32: u32 = 14u;
const F_INCL_F32: u32 = 15u;
const F_EXCL_F32: u32 = 16u;
const F_BALLOT: u32 = 17u; // four words: 17..20
const F_BALLOT_COUNT: u32 = 21u;
const F_BALLOT_BELOW: u32 = 22u;
const F_BCAST_FIRST: u32 = 23u;
const F_BCAST_0: u32 = 24u;
const F_BCAST_3: u32 = 25u;
const F_SHUFFLE: u32 = 26u;
const F_SHUFFLE_UP: u32 = 27u;
const F_SHUFFLE_DOWN: u32 = 28u;
const F_SHUFFLE_XOR1: u32 = 29u;
const F_SHUFFLE_XOR_HALF: u32 = 30u;
const F_ALL_NONZERO: u32 = 31u;
const F_ALL_ODD: u32 = 32u;
const F_ANY_ODD: u32 = 33u;
const F_ANY_ZERO: u32 = 34u;
const F_LANE0_ADD: u32 = 35u;
const F_UNIFORM_ADD: u32 = 36u;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) num_sg: u32,
) {
    let g = wg.x * WG_SIZE + local;
    let x = input[g];
    let xi = bitcast<i32>(x);
    // Small integers in f32, so that every sum is exact whatever the order of addition.
    let xf = f32(x & 0xffffu);
    let o = g * FIELDS;

    out[o + F_LOCAL] = local;
    out[o + F_LANE] = lane;
    out[o + F_SIZE] = size;
    out[o + F_SG_ID] = sg_id;
    out[o + F_NUM_SG] = num_sg;

    out[o + F_ADD_U32] = subgroupAdd(x);
    out[o + F_MIN_U32] = subgroupMin(x);
    out[o + F_MAX_U32] = subgroupMax(x);
    out[o + F_MIN_I32] = bitcast<u32>(subgroupMin(xi));
    out[o + F_MAX_I32] = bitcast<u32>(subgroupMax(xi));
    out[o + F_ADD_F32] = bitcast<u32>(subgroupAdd(xf));
    out[o + F_MIN_F32] = bitcast<u32>(subgroupMin(xf));
    out[o + F_MAX_F32] = bitcast<u32>(subgroupMax(xf));

    out[o + F_INCL_U32] = subgroupInclusiveAdd(x);
    out[o + F_EXCL_U32] = subgroupExclusiveAdd(x);
    out[o + F_INCL_F32] = bitcast<u32>(subgroupInclusiveAdd(xf));
    out[o + F_EXCL_F32] = bitcast<u32>(subgroupExclusiveAdd(xf));

    let odd = (x & 1u) == 1u;
    let b = subgroupBallot(odd);
    out[o + F_BALLOT + 0u] = b.x;
    out[o + F_BALLOT + 1u] = b.y;
    out[o + F_BALLOT + 2u] = b.z;
    out[o + F_BALLOT + 3u] = b.w;
    out[o + F_BALLOT_COUNT] = ballot_count(b);
    out[o + F_BALLOT_BELOW] = ballot_count_below(b, lane);

    out[o + F_BCAST_FIRST] = subgroupBroadcastFirst(x);
    out[o + F_BCAST_0] = subgroupBroadcast(x, 0u);
    // Lane 3 exists in every subgroup of width 4 or more; the host checks it only then.
    out[o + F_BCAST_3] = subgroupBroadcast(x, 3u);

    out[o + F_SHUFFLE] = subgroupShuffle(x, (lane * 5u + 3u) % size);
    out[o + F_SHUFFLE_UP] = subgroupShuffleUp(x, 1u);
    out[o + F_SHUFFLE_DOWN] = subgroupShuffleDown(x, 1u);
    out[o + F_SHUFFLE_XOR1] = subgroupShuffleXor(x, 1u);
    out[o + F_SHUFFLE_XOR_HALF] = subgroupShuffleXor(x, max(size / 2u, 1u));

    out[o + F_ALL_NONZERO] = u32(subgroupAll(x != 0u));
    out[o + F_ALL_ODD] = u32(subgroupAll(odd));
    out[o + F_ANY_ODD] = u32(subgroupAny(odd));
    out[o + F_ANY_ZERO] = u32(subgroupAny(x == 0u));

    // The divergence pitfall: only lane 0 reaches this subgroupAdd, so it sums one lane.
    var lane0 = 0xffffffffu;
    if (lane == 0u) {
        lane0 = subgroupAdd(1u);
    }
    out[o + F_LANE0_ADD] = lane0;
    out[o + F_UNIFORM_ADD] = subgroupAdd(1u);
}
