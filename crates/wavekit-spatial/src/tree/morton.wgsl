// Build step 2: a 30-bit Morton code per point (10 bits an axis within the bounds). Then
// wavekit's radix sort orders the codes and gives the permutation.
#import spatial/tree_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = item(local, wg, groups);
    if (i >= params.x) {
        return;
    }
    keys[i] = morton(point(i), low_corner(), high_corner());
}
