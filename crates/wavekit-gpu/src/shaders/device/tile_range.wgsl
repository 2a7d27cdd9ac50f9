// Device layer: contiguous runs of tiles per workgroup, for kernels without a look-back
// (reduce, partition's count). Workgroup g (numbered x + y * num_workgroups.x across a 2-D
// grid) takes tiles [g * tiles_per_group, min((g + 1) * tiles_per_group, tiles)).

struct RangeParams {
    n: u32,
    tiles: u32,
    tiles_per_group: u32,
    // The index of element 0 of this dispatch in the whole input (inputs past one binding are
    // dispatched in chunks); 0 where unused.
    base: u32,
}

@group(0) @binding(0) var<uniform> params: RangeParams;

struct TileRange {
    group: u32,
    first: u32,
    // One past the last tile; first >= last for a group past the end.
    last: u32,
}

fn tile_range(wg: vec3<u32>, nwg: vec3<u32>) -> TileRange {
    let group = wg.x + wg.y * nwg.x;
    let first = group * params.tiles_per_group;
    return TileRange(group, first, min(first + params.tiles_per_group, params.tiles));
}
