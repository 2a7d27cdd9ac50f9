// k nearest neighbours with lanes refilled from a pool: each subgroup owns POOL queries a lane
// (a run of width × POOL in the order), and a lane whose query ends takes the next, so a
// subgroup's lanes stay busy while its long queries finish. PERSISTENT (COMPACTED false): each
// free lane takes one with its own atomicAdd on the subgroup's counter. COMPACTED: the free
// lanes are found by a ballot; one lane takes as many as there are free lanes with one
// atomicAdd, the base goes to the others by a shuffle, and each free lane takes base + the
// number of free lanes below it (an exclusive bit count). A subgroup leaves when its pool is
// spent and no lane is busy. Every subgroup op is reached by every lane of the subgroup (the
// loop is uniform: it ends on sg_any or on the budget, which every lane counts alike).
//
// The loop budget (ADR-0091): llvmpipe ends every loop of a shader once the shader has taken
// 65 535 loop iterations in all, nested loops included, counted per subgroup; a pool of long
// queries passes that. So the subgroup counts what each iteration may cost (its own, a step's
// STEP_COST, a start's START_COST when a lane started: always, for subgroups of one lane,
// whose neighbours in llvmpipe's vector are other subgroups), and stops before the budget:
// its unfinished queries and the pool's untaken ones go to the rest list, which the baseline
// kernel then walks (the rest pass). On a GPU the budget is unbounded and nothing is handed
// on. Every finished query is counted (status[0]).
#import subgroup/api
#import shared/ballot
#import spatial/query_common
#import spatial/knn_walk

// Queries taken from each subgroup's pool.
var<workgroup> taken: array<atomic<u32>, WG_SIZE>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    atomicStore(&taken[l.local], 0u);
    begin_counting(l.local);
    let group = wg.x + wg.y * groups.x;
    // This subgroup's run of queries: [first, end).
    let first = group * WG_SIZE * POOL + l.sg * l.size * POOL;
    let end = min(first + l.size * POOL, params.x);
    let valid = lanes_below(l.size);
    // What one iteration may cost at most, and whether a start counts always.
    let most = 1u + STEP_COST + START_COST;
    let lone = l.size == 1u;
    var working = false;
    var busy_steps = 0u;
    var total = 0u;
    var spent = 0u;
    var done = 0u;
    loop {
        // Uniform: every lane of the subgroup has spent the same.
        if (!within_budget(spent, most)) {
            break;
        }
        // Refill the free lanes.
        var id = end;
        if (COMPACTED) {
            let free = sg_ballot(!working) & valid;
            let n = ballot_count(free);
            var base = 0u;
            if (l.lane == 0u && n > 0u) {
                base = atomicAdd(&taken[l.sg], n);
            }
            base = sg_shuffle_u32(base, 0u);
            if (!working) {
                id = first + base + ballot_count_below(free, l.lane);
            }
        } else if (!working) {
            id = first + atomicAdd(&taken[l.sg], 1u);
        }
        var started = false;
        if (!working && id < end) {
            start(query_of(id));
            working = true;
            started = true;
        }
        if (!sg_any(working)) {
            break;
        }
        spent += 1u + STEP_COST + select(0u, START_COST, lone || sg_any(started));
        total += 1u;
        if (working) {
            busy_steps += 1u;
            if (busy()) {
                step();
            }
            if (!busy()) {
                finish();
                working = false;
                done += 1u;
            }
        }
    }
    // Out of budget (never on a GPU): hand on this lane's query and the pool's untaken ones.
    // At most POOL iterations, which the host left out of the budget.
    if (working) {
        hand_on(q_index);
    }
    if (first < end) {
        let untaken = first + min(atomicLoad(&taken[l.sg]), end - first);
        for (var j = untaken + l.lane; j < end; j += l.size) {
            hand_on(query_of(j));
        }
    }
    end_counting(l.local, done);
    count_lane_steps(busy_steps, total);
}
