// k nearest neighbours, one query an invocation (the baseline kernel): a depth-first walk from
// the root, the nearer child first, a node skipped when its box is farther than the k-th best
// so far or the radius, after a first list from the query's neighbours in Morton order. The
// best K are kept sorted by (squared distance, index), ties to the
// lower index, in straight-line code with constant indices (query.rs generates `insert`: the
// arrays stay in registers, and no loop counts against llvmpipe's loop limit, ADR-0073).
// Empty slots hold (inf, NO_POINT), which any point within the radius comes before.
#import spatial/query_common

#import spatial/insert

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = item(local, wg, groups);
    if (t >= params.x) {
        return;
    }
    let qi = query_of(t);
    let p = query(qi);
    clear_best();
    // A first list from the points around the query's place in Morton order (the K before
    // and the K after it): a bound that prunes the walk from its first node. The walk skips
    // these points.
    let at = lower_bound(morton_of(p));
    let w0 = select(0u, at - K, at > K);
    let w1 = min(at + K, params.z);
    for (var j = w0; j < w1; j++) {
        let s = sorted[j];
        let d = dist(p, s.xyz);
        let idx = bitcast<u32>(s.w);
        if (d <= radius.x && before(d, idx, best_d[K - 1u], best_i[K - 1u])) {
            insert(d, idx);
        }
    }
    var stack_node: array<u32, STACK>;
    var stack_dist: array<f32, STACK>;
    var sp = 0u;
    if (params.z > 0u) {
        stack_node[0] = 1u;
        stack_dist[0] = box_dist(p, 1u);
        sp = 1u;
    }
    while (sp > 0u) {
        sp -= 1u;
        let node = stack_node[sp];
        if (stack_dist[sp] > min(radius.x, best_d[K - 1u])) {
            continue;
        }
        if (node >= params.y) {
            let r = leaf_range(node);
            for (var j = r.x; j < r.y; j++) {
                if (j >= w0 && j < w1) {
                    continue;
                }
                let s = sorted[j];
                let d = dist(p, s.xyz);
                let idx = bitcast<u32>(s.w);
                if (d <= radius.x && before(d, idx, best_d[K - 1u], best_i[K - 1u])) {
                    insert(d, idx);
                }
            }
            continue;
        }
        let a = 2u * node;
        let da = box_dist(p, a);
        let db = box_dist(p, a + 1u);
        // The farther child first, so that the nearer is walked next.
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
    write_best(qi * K);
}
