// Kernel 1, baseline: one ray (PATHS: one path) per invocation, the while-while traversal with
// a short stack in the invocation's own array, round by round within the loop budget
// (ADR-0091): a ray past it on its own is given up (work[7]) and the host fails the call. In
// the rest pass (limits.y = 1) the rays are those the persistent and compacted kernels handed
// on, then those no subgroup claimed (from the counter work[0] to the last). Every finished
// ray is counted (work[6]).
#import subgroup/api
#import trace/common
#import trace/private_stack

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    lane_id = l.lane;
    let id = (wg.x + wg.y * groups.x) * WG_SIZE + l.local;
    let rest = limits.y != 0u;
    var count = params.x;
    var listed = 0u;
    var claimed = params.x;
    if (rest) {
        listed = atomicLoad(&rest_list[0]);
        claimed = min(atomicLoad(&work[0]), params.x);
        count = listed + (params.x - claimed);
    }
    var finished = 0u;
    var task: Task;
    task.cur = EMPTY;
    var walking = false;
    if (id < count) {
        var ray = id;
        if (rest) {
            if (id < listed) {
                ray = atomicLoad(&rest_list[1u + id]);
            } else {
                ray = claimed + (id - listed);
            }
        }
        task = start(ray, 0u);
        walking = true;
    }
    // Subgroup-uniform: every lane goes round until none is walking or the budget is spent (the
    // lanes whose ray ended idle, as they would in any loop of a subgroup).
    var spent = 0u;
    loop {
        if (!sg_any(walking) || !within_budget(spent)) {
            break;
        }
        var cost = vec2<u32>(0u);
        if (walking) {
            cost = trace_round(&task);
            if (task.cur == EMPTY) {
                // The ray's result, or the path's next ray (PATHS).
                task = ray_done(task);
                if (task.cur == EMPTY) {
                    finished = 1u;
                    walking = false;
                }
            }
        }
        spent += round_cost(l.size, cost);
    }
    if (walking) {
        atomicAdd(&work[7], 1u);
    }
    end_counting(l.lane, finished);
    flush_diagnostics();
}
