// The kd-tree's and the octree's build bindings besides tree_common's: the nodes (vec4<u32>
// each; layouts in kd.wgsl and octree.wgsl) and the octree's generation counts. The keys
// (binding 3) hold a 63-bit Morton code a point here: low word at 2i, high at 2i + 1.
#import spatial/tree_common

@group(0) @binding(7) var<storage, read_write> nodes: array<vec4<u32>>;
// The octree: [g] nodes of generation g ≥ 1 (atomicAdd as its parents make them).
@group(0) @binding(8) var<storage, read_write> gens: array<atomic<u32>>;

const NO_NODE: u32 = 0xffffffffu;

fn code(i: u32) -> vec2<u32> {
    return vec2<u32>(keys[2u * i], keys[2u * i + 1u]);
}
