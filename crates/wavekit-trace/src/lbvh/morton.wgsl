// LBVH step 2: a 30-bit Morton code per triangle (10 bits an axis of its centroid within the
// centroids' bounds). Then wavekit's radix sort orders the codes and gives the permutation.
#import subgroup/api
#import lbvh/common
#import device/grid

// The 10 low bits of v spread to every third bit.
fn spread(v: u32) -> u32 {
    var x = v & 0x3ffu;
    x = (x | (x << 16u)) & 0x030000ffu;
    x = (x | (x << 8u)) & 0x0300f00fu;
    x = (x | (x << 4u)) & 0x030c30c3u;
    x = (x | (x << 2u)) & 0x09249249u;
    return x;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let i = item(l, wg, groups);
    if (i >= params.x) {
        return;
    }
    let lo = vec3<f32>(unordered(~atomicLoad(&bounds[0])), unordered(~atomicLoad(&bounds[1])), unordered(~atomicLoad(&bounds[2])));
    let hi = vec3<f32>(unordered(atomicLoad(&bounds[3])), unordered(atomicLoad(&bounds[4])), unordered(atomicLoad(&bounds[5])));
    // Exact cells (the prelude's grid_floor: no float division, the same on every device).
    let d = centroid(i) - lo;
    let e = max(hi - lo, vec3<f32>(1e-30));
    let q = vec3<u32>(grid_floor(d.x, e.x, 10u), grid_floor(d.y, e.y, 10u), grid_floor(d.z, e.z, 10u));
    keys[i] = (spread(q.x) << 2u) | (spread(q.y) << 1u) | spread(q.z);
}
