// Radius search, one query an invocation (the baseline kernel): a depth-first walk, a node
// skipped when its box is farther than the radius. COUNT: the points within the radius (d² ≤
// r²) a query, into counts. Otherwise (after the core's exclusive scan turned the counts into
// offsets) a 64-bit key a neighbour at the query's offset, `query << B | index` (B = params.w
// bits of index; low word first): wavekit's radix sort of the keys then puts each query's
// neighbours in ascending index, and extract.wgsl keeps the indices. The write runs in chunks
// of queries [chunk.x, chunk.y) whose keys fit one binding, from offset chunk.z. (A sort a query in the
// kernel would loop past llvmpipe's loop limit on large neighbourhoods; ADR-0073.)
#import spatial/query_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = item(local, wg, groups);
    if (t >= params.x) {
        return;
    }
    let qi = query_of(t);
    if (!COUNT && (qi < chunk.x || qi >= chunk.y)) {
        return;
    }
    let p = query(qi);
    let r2 = radius.x;
    var base = 0u;
    if (!COUNT) {
        base = counts[qi] - chunk.z;
    }
    var found = 0u;
    var stack: array<u32, STACK>;
    var sp = 0u;
    if (params.z > 0u) {
        stack[0] = 1u;
        sp = 1u;
    }
    while (sp > 0u) {
        sp -= 1u;
        let node = stack[sp];
        if (box_dist(p, node) > r2) {
            continue;
        }
        if (node >= params.y) {
            let r = leaf_range(node);
            for (var j = r.x; j < r.y; j++) {
                let s = sorted[j];
                if (dist(p, s.xyz) <= r2) {
                    if (!COUNT) {
                        let at = 2u * (base + found);
                        let b = params.w;
                        out_index[at] = bitcast<u32>(s.w) | select(qi << b, 0u, b >= 32u);
                        out_index[at + 1u] = select(qi >> (32u - b), qi, b >= 32u);
                    }
                    found += 1u;
                }
            }
            continue;
        }
        stack[sp] = 2u * node + 1u;
        stack[sp + 1u] = 2u * node;
        sp += 2u;
    }
    if (COUNT) {
        counts[qi] = found;
    }
}
