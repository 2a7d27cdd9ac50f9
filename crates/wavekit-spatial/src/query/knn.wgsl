// k nearest neighbours, the baseline kernel: one query an invocation, walked to its end
// (knn_walk.wgsl) within the loop budget (ADR-0091): a walk that would pass it is given up,
// its result not written, and the host fails the call. In the rest pass (walk_budget.y = 1)
// the queries are those the pool kernel handed on (status[4..]). Every finished query is
// counted (status[0]). With DIAGNOSTICS, each subgroup adds its lanes' steps and its width ×
// its longest lane's steps (what the subgroup ran for).
#import subgroup/api
#import spatial/query_common
#import spatial/knn_walk

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    begin_counting(l.local);
    let t = item(l.local, wg, groups);
    let rest = walk_budget.y != 0u;
    var count = params.x;
    if (rest) {
        count = atomicLoad(&status[2]);
    }
    var steps = 0u;
    var finished = 0u;
    if (t < count) {
        var qi = 0u;
        if (rest) {
            qi = atomicLoad(&status[4u + t]);
        } else {
            qi = query_of(t);
        }
        start(qi);
        var spent = START_COST;
        while (busy() && within_budget(spent, STEP_COST)) {
            step();
            spent += STEP_COST;
            steps += 1u;
        }
        if (busy()) {
            give_up();
        } else {
            finish();
            finished = 1u;
        }
    }
    end_counting(l.local, finished);
    if (DIAGNOSTICS) {
        count_lane_steps(steps, sg_max_u32(steps));
    }
}
