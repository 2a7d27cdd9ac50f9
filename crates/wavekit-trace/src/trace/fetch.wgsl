// How the persistent and compacted kernels hand out rays (CPU port: sim.rs, `Pool`). A subgroup
// claims rays from the global counter in batches of FETCH_BATCH × width (one atomicAdd by lane 0,
// broadcast by a shuffle) and keeps the unstarted rest of a batch in a pool, so that refilling
// a few lanes after a round usually costs no atomic: one counter hit by every subgroup of the
// GPU after every round would be a hot spot. A subgroup stops claiming once the counter has
// passed the last ray or it has claimed its budget (subgroup_budget); it then only empties its
// pool. Every lane calls `take_rays` (subgroup operations inside); the pool is the same on all.

struct Pool {
    // The next unstarted ray of the current batch, and the batch's end.
    next: u32,
    end: u32,
    // Rays claimed so far.
    claimed: u32,
    // No more claims: the counter passed the last ray, or the budget is spent.
    drained: bool,
}

// Whether the pool can start no more rays, now or later.
fn pool_done(p: Pool, n: u32) -> bool {
    return p.drained && (p.next >= p.end || p.next >= n);
}

// The ray for this lane if it is one of `takers` (in lane order), from the pool and if needed a
// new batch; n or more where there is none.
fn take_rays(pool: ptr<function, Pool>, takers: vec4<u32>, l: Lane, n: u32, budget: u32) -> u32 {
    let need = ballot_count(takers);
    let rank = ballot_count_below(takers, l.lane);
    let p = *pool;
    let avail = select(0u, p.end - p.next, p.end > p.next);
    var id = p.next + rank;
    if (need <= avail) {
        (*pool).next = p.next + need;
    } else if (p.drained) {
        id = select(n, id, rank < avail);
        (*pool).next = p.end;
    } else {
        let batch = max(need - avail, l.size * FETCH_BATCH);
        var base = 0u;
        if (l.lane == 0u) {
            base = atomicAdd(&work[0], batch);
        }
        base = sg_shuffle_u32(base, 0u);
        if (rank >= avail) {
            id = base + (rank - avail);
        }
        (*pool).next = base + (need - avail);
        (*pool).end = base + batch;
        (*pool).claimed = p.claimed + batch;
        (*pool).drained = base + batch >= n || p.claimed + batch >= budget;
    }
    return id;
}

// Out of the loop budget (never on a GPU; ADR-0091): this lane's unfinished ray and the pool's
// unstarted ones go to the rest list, restarted there by the rest pass. At most FETCH_BATCH + 1
// iterations a lane, which the host leaves out of the budget.
fn hand_on_unfinished(task: Task, pool: Pool, l: Lane, n: u32) {
    if (task.cur != EMPTY) {
        hand_on(task.ray);
    }
    for (var r = pool.next + l.lane; r < min(pool.end, n); r += l.size) {
        hand_on(r);
    }
}
