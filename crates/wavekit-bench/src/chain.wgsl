// Measurement only (`wavekit bench chain`): one step of a chain of dependent dispatches. Every
// invocation reads its word of `data`, which the dispatch before wrote, and writes it back
// advanced by one step of a linear congruential generator, so each dispatch depends on the one
// before (wgpu puts a barrier between them) and the host can check that every one ran.
//
// Prepended constants: WG_SIZE.

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(WG_SIZE, 1, 1)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = (wg.x + wg.y * nwg.x) * WG_SIZE + local;
    if (i < arrayLength(&data)) {
        data[i] = data[i] * 1664525u + 1013904223u;
    }
}
