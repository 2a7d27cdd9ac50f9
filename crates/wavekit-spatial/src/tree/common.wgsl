// What the tree build's kernels share (their CPU twin: tree.rs's `cpu` functions): the buffers
// and the bounds read back from their encoding (spatial/codes). One invocation an item,
// numbered over a 2-D grid of workgroups.
#import spatial/codes

// x: points n, y: leaves L (a power of two), z: first node of the level (up.wgsl), w: nodes
// of the level.
@group(0) @binding(0) var<uniform> params: vec4<u32>;
// The points, three f32 each.
@group(0) @binding(1) var<storage, read> points: array<f32>;
// [0..3) the low corner (complemented), [3..6) the high corner, as atomicMax of encoded floats.
@group(0) @binding(2) var<storage, read_write> bounds: array<atomic<u32>>;
// Morton codes; sorted in place by wavekit's radix sort, the permutation as values.
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> perm: array<u32>;
// The points in leaf order: xyz and the point's index (bitcast) in w.
@group(0) @binding(5) var<storage, read_write> sorted: array<vec4<f32>>;
// Node k's box: low corner at 2k, high corner at 2k + 1 (heap order: root 1, children 2k and
// 2k + 1, leaf l at node L + l).
@group(0) @binding(6) var<storage, read_write> boxes: array<vec4<f32>>;

fn item(local: u32, wg: vec3<u32>, groups: vec3<u32>) -> u32 {
    return (wg.x + wg.y * groups.x) * WG_SIZE + local;
}

fn point(i: u32) -> vec3<f32> {
    return vec3<f32>(points[3u * i], points[3u * i + 1u], points[3u * i + 2u]);
}

fn low_corner() -> vec3<f32> {
    return vec3<f32>(unordered(~atomicLoad(&bounds[0])), unordered(~atomicLoad(&bounds[1])), unordered(~atomicLoad(&bounds[2])));
}

fn high_corner() -> vec3<f32> {
    return vec3<f32>(unordered(atomicLoad(&bounds[3])), unordered(atomicLoad(&bounds[4])), unordered(atomicLoad(&bounds[5])));
}
