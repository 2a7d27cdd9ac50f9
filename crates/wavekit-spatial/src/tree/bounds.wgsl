// Build step 1: the points' bounds (a subgroup's maximum per word, then one atomicMax per word
// and subgroup).
#import subgroup/api
#import spatial/tree_common

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let i = item(l.local, wg, groups);
    var lo = vec3<u32>(0u);
    var hi = vec3<u32>(0u);
    if (i < params.x) {
        let c = point(i);
        lo = ~vec3<u32>(ordered(c.x), ordered(c.y), ordered(c.z));
        hi = vec3<u32>(ordered(c.x), ordered(c.y), ordered(c.z));
    }
    let m = vec3<u32>(sg_max_u32(lo.x), sg_max_u32(lo.y), sg_max_u32(lo.z));
    let n = vec3<u32>(sg_max_u32(hi.x), sg_max_u32(hi.y), sg_max_u32(hi.z));
    if (l.lane == 0u) {
        atomicMax(&bounds[0], m.x);
        atomicMax(&bounds[1], m.y);
        atomicMax(&bounds[2], m.z);
        atomicMax(&bounds[3], n.x);
        atomicMax(&bounds[4], n.y);
        atomicMax(&bounds[5], n.z);
    }
}
