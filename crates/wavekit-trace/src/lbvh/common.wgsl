// What the LBVH build's kernels share (their CPU port: lbvh.rs): the buffers, a triangle's
// padded box and centroid, and the order-preserving float encoding of the bounds. Every kernel
// takes one invocation per item, numbered over a 2-D grid of workgroups.

// x: triangles.
@group(0) @binding(0) var<uniform> params: vec4<u32>;
// The mesh's triangles, three vec4 each (corners; w unused).
@group(0) @binding(1) var<storage, read> soup: array<vec4<f32>>;
// [0..3) the centroids' low corner, [3..6) high corner, as atomicMax of encoded floats (the low
// corner complemented); [7] error flag of the refit.
@group(0) @binding(2) var<storage, read_write> bounds: array<atomic<u32>>;
// Morton codes; sorted in place by wavekit's radix sort.
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
// After the sort: the triangle of each sorted position.
@group(0) @binding(4) var<storage, read_write> perm: array<u32>;
// Two references per inner node (bvh.rs).
@group(0) @binding(5) var<storage, read_write> children: array<u32>;
// [0, n): a leaf's parent * 2 + side; [n, 2n - 1): an inner node's.
@group(0) @binding(6) var<storage, read_write> parents: array<u32>;
// Arrivals per inner node during the refit.
@group(0) @binding(7) var<storage, read_write> flags: array<atomic<u32>>;
// Both children's boxes per inner node, 12 words, each the complement of the float's bits (0:
// not written yet; no finite float complements to 0).
@group(0) @binding(8) var<storage, read_write> boxes: array<atomic<u32>>;
// The output: nodes (four vec4 each) and triangles in leaf order (three vec4 each).
@group(0) @binding(9) var<storage, read_write> nodes: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> tris: array<vec4<f32>>;

fn item(l: Lane, wg: vec3<u32>, groups: vec3<u32>) -> u32 {
    return (wg.x + wg.y * groups.x) * WG_SIZE + l.local;
}

struct Box {
    lo: vec3<f32>,
    hi: vec3<f32>,
}

// bvh.rs: pad — every box edge strictly outside the triangles in it.
fn pad(x: vec3<f32>, side: f32) -> vec3<f32> {
    return x + side * (abs(x) * (1.0 / 2097152.0) + vec3<f32>(1.0 / 1099511627776.0));
}

fn tri_box(t: u32) -> Box {
    let a = soup[3u * t].xyz;
    let b = soup[3u * t + 1u].xyz;
    let c = soup[3u * t + 2u].xyz;
    return Box(pad(min(min(a, b), c), -1.0), pad(max(max(a, b), c), 1.0));
}

fn centroid(t: u32) -> vec3<f32> {
    let a = soup[3u * t].xyz;
    let b = soup[3u * t + 1u].xyz;
    let c = soup[3u * t + 2u].xyz;
    return 0.5 * (min(min(a, b), c) + max(max(a, b), c));
}

// Floats to u32 in the same order.
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}
