// k nearest neighbours with lanes refilled from a pool: each subgroup owns POOL queries a lane
// (a run of width × POOL in the order), and a lane whose query ends takes the next, so a
// subgroup's lanes stay busy while its long queries finish. PERSISTENT (COMPACTED false): each
// free lane takes one with its own atomicAdd on the subgroup's counter. COMPACTED: the free
// lanes are found by a ballot; one lane takes as many as there are free lanes with one
// atomicAdd, the base goes to the others by a shuffle, and each free lane takes base + the
// number of free lanes below it (an exclusive bit count). A subgroup leaves when its pool is
// spent and no lane is busy. The pool is bounded so that no subgroup runs past llvmpipe's loop
// limit however its workgroup's subgroups are scheduled (ADR-0052's lesson). Every subgroup op
// is reached by every lane of the subgroup (the loop is uniform: it ends on sg_any).
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
    workgroupBarrier();
    let group = wg.x + wg.y * groups.x;
    // This subgroup's run of queries: [first, end).
    let first = group * WG_SIZE * POOL + l.sg * l.size * POOL;
    let end = min(first + l.size * POOL, params.x);
    let valid = lanes_below(l.size);
    var working = false;
    var busy = 0u;
    var total = 0u;
    loop {
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
        if (!working && id < end) {
            start(query_of(id));
            working = true;
        }
        if (!sg_any(working)) {
            break;
        }
        total += 1u;
        if (working) {
            busy += 1u;
            if (sp > 0u) {
                step();
            }
            if (sp == 0u) {
                finish();
                working = false;
            }
        }
    }
    count_lane_steps(busy, total);
}
