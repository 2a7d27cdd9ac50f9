// Kernel 1, baseline: one ray (PATHS: one path) per invocation, the while-while traversal with
// a short stack in the invocation's own array.
#import subgroup/api
#import trace/common
#import trace/private_stack

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    lane_id = l.lane;
    let id = (wg.x + wg.y * groups.x) * WG_SIZE + l.local;
    if (id < params.x) {
        var task = start(id, 0u);
        loop {
            trace_round(&task);
            if (task.cur == EMPTY) {
                // The ray's result, or the path's next ray (PATHS).
                task = ray_done(task);
                if (task.cur == EMPTY) {
                    break;
                }
            }
        }
    }
    flush_diagnostics();
}
