// LBVH step 1: the bounds of the triangles' centroids (the prelude's device/bounds: a
// subgroup's maximum per word, then one atomicMax per word and subgroup).
#import subgroup/api
#import lbvh/common
#import device/bounds

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let i = item(l, wg, groups);
    let valid = i < params.x;
    var p = vec3<f32>(0.0);
    if (valid) {
        p = centroid(i);
    }
    bounds_add(l, valid, p);
}
