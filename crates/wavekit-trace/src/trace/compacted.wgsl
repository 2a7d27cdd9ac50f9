// Kernel 3, subgroup-compacted: in rounds. Each live lane does one round of traversal; then,
// while rays remain and some lane is free, the subgroup moves its live tasks to the front lanes
// in order (ballot; the source lane of each, subgroup/compact.wgsl; shuffles of the task state) and
// its lanes past them take new rays from the subgroup's pool, refilled from the global counter
// in batches (trace/fetch.wgsl).
// Tasks move between lanes, so their stacks cannot live in an invocation's array: each task
// owns a stack slot in the global `stacks` (interleaved: entry e of slot s at e * slots + s),
// whose number travels with it. A subgroup's slots stay among its own lanes, so its stack
// accesses keep touching the same lines. Without subgroups every invocation is its own
// subgroup: the compaction is the identity and the kernel refills each ray as it ends.
#import subgroup/api
#import trace/common
#import subgroup/compact
#import trace/stack
#import trace/fetch

// The task of lane `src` (every lane calls it: shuffles inside).
fn shuffle_task(t: Task, src: u32) -> Task {
    var r = Task(
        vec3<f32>(sg_shuffle_f32(t.o.x, src), sg_shuffle_f32(t.o.y, src), sg_shuffle_f32(t.o.z, src)),
        sg_shuffle_f32(t.tmin, src),
        vec3<f32>(sg_shuffle_f32(t.d.x, src), sg_shuffle_f32(t.d.y, src), sg_shuffle_f32(t.d.z, src)),
        sg_shuffle_f32(t.t, src),
        sg_shuffle_u32(t.best, src),
        sg_shuffle_u32(t.cur, src),
        sg_shuffle_u32(t.sp, src),
        sg_shuffle_u32(t.slot, src),
        sg_shuffle_u32(t.ray, src),
        vec3<f32>(0.0),
        vec3<f32>(0.0),
        0u,
        0u,
    );
    // The path's state too (a constant: the same branch on every lane).
    if (PATHS) {
        r.thr = vec3<f32>(sg_shuffle_f32(t.thr.x, src), sg_shuffle_f32(t.thr.y, src), sg_shuffle_f32(t.thr.z, src));
        r.rad = vec3<f32>(sg_shuffle_f32(t.rad.x, src), sg_shuffle_f32(t.rad.y, src), sg_shuffle_f32(t.rad.z, src));
        r.rng = sg_shuffle_u32(t.rng, src);
        r.bounce = sg_shuffle_u32(t.bounce, src);
    }
    return r;
}

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>) {
    let l = lane_info(inv);
    lane_id = l.lane;
    let n = params.x;
    let valid = lanes_below(l.size);
    var task: Task;
    task.slot = wg.x * WG_SIZE + l.local;
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
            let live = sg_ballot(task.cur != EMPTY) & valid;
            let k = ballot_count(live);
            if (!pool_done(pool, n) && k < l.size) {
                // Already in order (live lanes first)? Then nothing moves.
                if (any(live != lanes_below(k))) {
                    task = shuffle_task(task, compact_source(live, valid, l.lane, k));
                }
                // Lanes k.. take new rays (on the stack slots of the tasks that ended).
                let id = take_rays(&pool, valid & ~lanes_below(k), l, n, budget);
                let take = l.lane >= k && id < n;
                task = pick(task, start(min(id, n - 1u), task.slot), take);
            }
            if (pool_done(pool, n) && !sg_any(task.cur != EMPTY)) {
                done = true;
                break;
            }
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
