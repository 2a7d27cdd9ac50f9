// Radius search, one query an invocation (the baseline kernel): the tree's walk
// (`spatial/walk`), what lies farther than the radius skipped. COUNT: the points within the radius (d² ≤
// r²) a query, into counts. Otherwise (after the core's exclusive scan turned the counts into
// offsets) a 64-bit key a neighbour at the query's offset, `query << B | index` (B = params.w
// bits of index; low word first): wavekit's radix sort of the keys then puts each query's
// neighbours in ascending index, and extract.wgsl keeps the indices. The write runs in chunks
// of queries [chunk.x, chunk.y) whose keys fit one binding, from offset chunk.z. (A sort a query in the
// kernel would loop past llvmpipe's loop limit on large neighbourhoods; ADR-0073.) A walk
// past the loop budget is given up (status[1]) and the host fails the call; the queries
// finished are counted (status[0]); ADR-0091.
#import spatial/query_common
#import spatial/walk

// This invocation's query, its first key's place and the neighbours found so far.
var<private> r_query: u32;
var<private> r_base: u32;
var<private> r_found: u32;

fn walk_bound() -> f32 {
    return radius.x;
}

fn offer(d: f32, idx: u32) {
    if (d > radius.x) {
        return;
    }
    if (!COUNT) {
        let at = 2u * (r_base + r_found);
        let b = params.w;
        out_index[at] = idx | select(r_query << b, 0u, b >= 32u);
        out_index[at + 1u] = select(r_query >> (32u - b), r_query, b >= 32u);
    }
    r_found += 1u;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    begin_counting(local);
    let t = item(local, wg, groups);
    var finished = 0u;
    if (t < params.x) {
        let qi = query_of(t);
        if (COUNT || (qi >= chunk.x && qi < chunk.y)) {
            r_query = qi;
            r_found = 0u;
            if (!COUNT) {
                r_base = counts[qi] - chunk.z;
            }
            walk_begin(query(qi));
            var spent = START_COST;
            while (walk_busy() && within_budget(spent, STEP_COST)) {
                walk_step();
                spent += STEP_COST;
            }
            if (walk_busy()) {
                give_up();
            } else {
                if (COUNT) {
                    counts[qi] = r_found;
                }
                finished = 1u;
            }
        }
    }
    end_counting(local, finished);
}
