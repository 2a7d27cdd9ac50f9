// Build step 1: the points' bounds (the prelude's device/bounds: a subgroup's maximum per word,
// then one atomicMax per word and subgroup). CPU twin: reference::bounds.
#import subgroup/api
#import spatial/tree_common
#import device/bounds

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let i = item(l.local, wg, groups);
    let valid = i < params.x;
    var p = vec3<f32>(0.0);
    if (valid) {
        p = point(i);
    }
    bounds_add(l, valid, p);
}
