// Build step 4: the points in leaf order, each with its index.
#import spatial/tree_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = item(local, wg, groups);
    if (i >= params.x) {
        return;
    }
    let p = perm[i];
    sorted[i] = vec4<f32>(point(p), bitcast<f32>(p));
}
