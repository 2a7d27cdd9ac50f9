// The queries' Morton codes within the tree's bounds (clamped), and the identity order: the
// radix sort then orders the queries by code.
#import spatial/query_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = item(local, wg, groups);
    if (t >= params.x) {
        return;
    }
    qkeys[t] = morton_of(query(t));
}
