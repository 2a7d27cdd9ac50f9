// The k-NN walk of one query as a state machine, shared by the three kernels (knn.wgsl: one
// query an invocation; knn_pool.wgsl: lanes refilled from a pool), on whichever tree
// `spatial/walk` is (walk_bvh, walk_kd, walk_octree): `start` clears the best-K list, seeds it
// where the tree can (the BVH: the query's neighbours in Morton order) and begins the walk;
// each `step` is one step of the tree's walk, which skips what is farther than the K-th best
// or the radius and offers points; `finish` writes the list. The best K are kept sorted by
// (squared distance, index), ties to the lower index, in straight-line selects at constant
// indices (query.rs generates `spatial/insert`). CPU twins: reference.rs's walks.
#import spatial/insert
#import spatial/walk

var<private> q_index: u32;

fn walk_bound() -> f32 {
    return min(radius.x, best_d[K - 1u]);
}

fn offer(d: f32, idx: u32) {
    if (d <= radius.x && before(d, idx, best_d[K - 1u], best_i[K - 1u])) {
        insert(d, idx);
    }
}

fn start(qi: u32) {
    q_index = qi;
    let p = query(qi);
    clear_best();
    walk_seed(p);
    walk_begin(p);
}

// Whether the walk has steps left.
fn busy() -> bool {
    return walk_busy();
}

fn step() {
    walk_step();
}

fn finish() {
    write_best(q_index * K);
}

// Utilisation (DIAGNOSTICS): lane-steps spent on a query, and lane-steps of the subgroups
// that ran (so busy / total is the share of lanes at work).
fn count_lane_steps(busy: u32, total: u32) {
    if (DIAGNOSTICS) {
        atomicAdd(&diag[0], busy);
        atomicAdd(&diag[1], total);
    }
}
