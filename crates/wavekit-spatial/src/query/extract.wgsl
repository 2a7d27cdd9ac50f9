// Radius search, last step: each sorted key's index (its low params.w bits) into counts, which
// the host bound to a window of the indices' buffer starting chunk.w indices before the
// chunk's first (radius.wgsl made the keys).
#import spatial/query_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = item(local, wg, groups);
    if (i >= params.x) {
        return;
    }
    let b = params.w;
    counts[chunk.w + i] = out_index[2u * i] & select((1u << b) - 1u, 0xffffffffu, b >= 32u);
}
