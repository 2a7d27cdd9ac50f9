// Build step 6, once a level from the leaves' parents up to the root: each node's box is the
// union of its children's.
#import spatial/tree_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = item(local, wg, groups);
    if (i >= params.w) {
        return;
    }
    let node = params.z + i;
    let a = 2u * node;
    boxes[2u * node] = min(boxes[2u * a], boxes[2u * a + 2u]);
    boxes[2u * node + 1u] = max(boxes[2u * a + 1u], boxes[2u * a + 3u]);
}
