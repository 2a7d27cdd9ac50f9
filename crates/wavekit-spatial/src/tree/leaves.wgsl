// Build step 5: each leaf's box, over its LEAF consecutive points in leaf order; leaves past
// the points get an empty box (low +inf, high -inf: every distance to it is infinite).
#import spatial/tree_common

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let leaf = item(local, wg, groups);
    if (leaf >= params.y) {
        return;
    }
    let inf = bitcast<f32>(0x7f800000u);
    var lo = vec3<f32>(inf);
    var hi = vec3<f32>(-inf);
    let end = min(leaf * LEAF + LEAF, params.x);
    for (var i = leaf * LEAF; i < end; i++) {
        let p = sorted[i].xyz;
        lo = min(lo, p);
        hi = max(hi, p);
    }
    let node = params.y + leaf;
    boxes[2u * node] = vec4<f32>(lo, 0.0);
    boxes[2u * node + 1u] = vec4<f32>(hi, 0.0);
}
