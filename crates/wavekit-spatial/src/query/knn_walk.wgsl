// The k-NN walk of one query as a state machine, shared by the three kernels (knn.wgsl: one
// query an invocation; knn_pool.wgsl: lanes refilled from a pool): `start` seeds the best-K
// list from the query's neighbours in Morton order (the K points before and the K after its
// place: a bound that prunes the walk from its first node) and pushes the root; each `step`
// pops one node — skipped when its box is farther than the K-th best or the radius, a leaf's
// points offered to the list, an inner node's children pushed farther first; `finish` writes
// the list. The best K are kept sorted by (squared distance, index), ties to the lower index,
// in straight-line selects at constant indices (query.rs generates `spatial/insert`).
// CPU twin: reference.rs's `Tree::knn`.
#import spatial/insert

var<private> q_point: vec3<f32>;
var<private> q_index: u32;
var<private> window: vec2<u32>;
var<private> stack_node: array<u32, STACK>;
var<private> stack_dist: array<f32, STACK>;
var<private> sp: u32;

fn offer(d: f32, idx: u32) {
    if (d <= radius.x && before(d, idx, best_d[K - 1u], best_i[K - 1u])) {
        insert(d, idx);
    }
}

fn start(qi: u32) {
    q_index = qi;
    q_point = query(qi);
    clear_best();
    let at = lower_bound(morton_of(q_point));
    window = vec2<u32>(select(0u, at - K, at > K), min(at + K, params.z));
    for (var j = window.x; j < window.y; j++) {
        let s = sorted[j];
        offer(dist(q_point, s.xyz), bitcast<u32>(s.w));
    }
    sp = 0u;
    if (params.z > 0u) {
        stack_node[0] = 1u;
        stack_dist[0] = box_dist(q_point, 1u);
        sp = 1u;
    }
}

fn step() {
    sp -= 1u;
    let node = stack_node[sp];
    if (stack_dist[sp] > min(radius.x, best_d[K - 1u])) {
        return;
    }
    if (node >= params.y) {
        let r = leaf_range(node);
        for (var j = r.x; j < r.y; j++) {
            if (j >= window.x && j < window.y) {
                continue;
            }
            let s = sorted[j];
            offer(dist(q_point, s.xyz), bitcast<u32>(s.w));
        }
        return;
    }
    let a = 2u * node;
    let da = box_dist(q_point, a);
    let db = box_dist(q_point, a + 1u);
    if (da <= db) {
        stack_node[sp] = a + 1u;
        stack_dist[sp] = db;
        stack_node[sp + 1u] = a;
        stack_dist[sp + 1u] = da;
    } else {
        stack_node[sp] = a;
        stack_dist[sp] = da;
        stack_node[sp + 1u] = a + 1u;
        stack_dist[sp + 1u] = db;
    }
    sp += 2u;
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
