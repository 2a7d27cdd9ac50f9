// Kernel 2, persistent: a grid of invocations that loop over rays. When fewer than
// REFILL_PERCENT % of a subgroup's lanes have a ray, its idle lanes take new rays from the
// global counter (one atomicAdd per subgroup, the base broadcast by a shuffle, each idle lane's
// ray its rank among the idle lanes). A lane whose ray is done waits idle until then. Tasks
// never move between lanes; the stacks are global, one slot per invocation
// (trace/global_stack.wgsl).
#import subgroup/api
#import trace/common
#import trace/stack
#import trace/fetch

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    lane_id = l.lane;
    let n = params.x;
    let valid = lanes_below(l.size);
    let slot = wg.x * WG_SIZE + l.local;
    // A lane is busy while its task has work (cur != EMPTY).
    var task: Task;
    task.cur = EMPTY;
    var pool = Pool(0u, 0u, 0u, false);
    let budget = subgroup_budget(l.size);
    var done = false;
    // The loop budget (ADR-0091): every lane of the subgroup counts the same rounds.
    var spent = 0u;
    var out_of_budget = false;
    var finished = 0u;
    // Loops of at most LOOP_CHUNK iterations, nested (trace/common.wgsl: LOOP_CHUNK).
    loop {
        for (var it = 0u; it < LOOP_CHUNK; it += 1u) {
            if (!within_budget(spent)) {
                out_of_budget = true;
                done = true;
                break;
            }
            let idle = sg_ballot(task.cur == EMPTY) & valid;
            let need = ballot_count(idle);
            if (!pool_done(pool, n) && (l.size - need) * 100u < l.size * REFILL_PERCENT) {
                let id = take_rays(&pool, idle, l, n, budget);
                // Every lane computes the ray it would take; only idle ones take it.
                let take = task.cur == EMPTY && id < n;
                task = pick(task, start(min(id, n - 1u), slot), take);
            }
            if (pool_done(pool, n) && !sg_any(task.cur != EMPTY)) {
                done = true;
                break;
            }
            // Every lane calls it (an idle lane's round does nothing).
            let busy = task.cur != EMPTY;
            let cost = trace_round(&task);
            spent += round_cost(l.size, cost);
            if (busy && task.cur == EMPTY) {
                // The ray's result, or the path's next ray (PATHS: the lane stays busy).
                task = ray_done(task);
                if (task.cur == EMPTY) {
                    finished += 1u;
                }
            }
        }
        if (done) {
            break;
        }
    }
    if (out_of_budget) {
        hand_on_unfinished(task, pool, l, n);
    }
    end_counting(l.lane, finished);
    flush_diagnostics();
}
