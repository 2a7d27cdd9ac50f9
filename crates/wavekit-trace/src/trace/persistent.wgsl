// Kernel 2, persistent: a grid of invocations that loop; when fewer than REFILL_PERCENT % of a
// subgroup's lanes have a ray, its idle lanes take new rays from the global counter (one
// atomicAdd per subgroup, the base broadcast by a shuffle, each idle lane's ray its rank among
// the idle lanes). Tasks never move, so the stack is the invocation's own array.
#import subgroup/api
#import trace/common
#import trace/private_stack

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation) {
    let l = lane_info(inv);
    lane_id = l.lane;
    let n = params.x;
    let valid = lanes_below(l.size);
    var task: Task;
    var alive = false;
    var exhausted = false;
    loop {
        let busy = ballot_count(sg_ballot(alive) & valid);
        if (!exhausted && busy * 100u < l.size * REFILL_PERCENT) {
            let idle = sg_ballot(!alive) & valid;
            let need = ballot_count(idle);
            let first = u32(ballot_first(idle));
            var base = 0u;
            if (l.lane == first) {
                base = atomicAdd(&work[0], need);
            }
            base = sg_shuffle_u32(base, first);
            if (!alive) {
                let id = base + ballot_count_below(idle, l.lane);
                if (id < n) {
                    task = start(id, 0u);
                    alive = true;
                }
            }
            exhausted = base + need >= n;
        }
        if (!sg_any(alive)) {
            if (exhausted) {
                break;
            }
            continue;
        }
        if (alive) {
            trace_round(&task);
            if (task.cur == EMPTY) {
                finish(task);
                alive = false;
            }
        }
    }
    flush_diagnostics();
}
