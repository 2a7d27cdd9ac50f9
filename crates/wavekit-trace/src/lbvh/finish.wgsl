// LBVH step 5: the nodes in the traversal kernels' layout (bvh.rs) and the triangles in leaf
// order, with their mesh indices.
#import subgroup/api
#import lbvh/common

@compute @workgroup_size(WG_SIZE)
fn main(inv: Invocation, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let l = lane_info(inv);
    let n = params.x;
    let i = item(l, wg, groups);
    if (i + 1u < n) {
        var w: array<f32, 12>;
        for (var k = 0u; k < 12u; k += 1u) {
            w[k] = bitcast<f32>(~atomicLoad(&boxes[12u * i + k]));
        }
        nodes[4u * i] = vec4<f32>(w[0], w[1], w[2], bitcast<f32>(children[2u * i]));
        nodes[4u * i + 1u] = vec4<f32>(w[3], w[4], w[5], bitcast<f32>(children[2u * i + 1u]));
        nodes[4u * i + 2u] = vec4<f32>(w[6], w[7], w[8], 0.0);
        nodes[4u * i + 3u] = vec4<f32>(w[9], w[10], w[11], 0.0);
    }
    if (n == 1u && i == 0u) {
        // One triangle: the root holds it as a leaf beside an empty child.
        let b = tri_box(0u);
        nodes[0] = vec4<f32>(b.lo, bitcast<f32>(0x80000000u));
        nodes[1] = vec4<f32>(b.hi, bitcast<f32>(0xffffffffu));
    }
    if (i < n) {
        let t = select(perm[i], 0u, n == 1u);
        tris[3u * i] = vec4<f32>(soup[3u * t].xyz, bitcast<f32>(t));
        tris[3u * i + 1u] = vec4<f32>(soup[3u * t + 1u].xyz, 0.0);
        tris[3u * i + 2u] = vec4<f32>(soup[3u * t + 2u].xyz, 0.0);
    }
}
