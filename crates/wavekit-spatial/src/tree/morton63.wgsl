// kd-tree and octree build step 2: a 63-bit Morton code per point (21 bits an axis within the
// bounds), two words each. Then wavekit's radix sort (64-bit keys) orders them and gives the
// permutation.
#import spatial/nodes

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = item(local, wg, groups);
    if (i >= params.x) {
        return;
    }
    let c = morton63(point(i), low_corner(), high_corner());
    keys[2u * i] = c.x;
    keys[2u * i + 1u] = c.y;
}
