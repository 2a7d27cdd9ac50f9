// k nearest neighbours, the baseline kernel: one query an invocation, walked to its end
// (knn_walk.wgsl). With DIAGNOSTICS, each subgroup adds its lanes' steps and its width × its
// longest lane's steps (what the subgroup ran for).
#import subgroup/api
#import spatial/query_common
#import spatial/knn_walk

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let t = item(l.local, wg, groups);
    var steps = 0u;
    if (t < params.x) {
        start(query_of(t));
        while (sp > 0u) {
            step();
            steps += 1u;
        }
        finish();
    }
    if (DIAGNOSTICS) {
        count_lane_steps(steps, sg_max_u32(steps));
    }
}
