// The rate control's per-block steps, the GPU twin of `cpu/rate.rs` (PHASE picks the step; one
// invocation a block, reading the block records `block_encode.wgsl` writes):
// 0: every plane's bytes into the histogram by its key;
// 1: the bytes of the block's planes of key θ − 1 (they follow its planes of key ≥ θ), which an
//    exclusive scan over the blocks turns into the bytes of the ties before each block;
// 2: the planes sent: every plane of key ≥ θ, then the ties while they fit after the earlier
//    blocks' (the room left from rate_threshold.wgsl); the payload's bytes.
//
// Bindings: 0 the records, 1 the histogram (4096 atomic words), 2 control (θ, room left),
// 3 the ties, 4 the ties before each block (scanned), 5 the planes sent, 6 the payloads' bytes,
// 7 params: blocks.

@group(0) @binding(0) var<storage, read> records: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> control: array<u32>;
@group(0) @binding(3) var<storage, read_write> ties: array<u32>;
@group(0) @binding(4) var<storage, read> ties_before: array<u32>;
@group(0) @binding(5) var<storage, read_write> sent: array<u32>;
@group(0) @binding(6) var<storage, read_write> sizes: array<u32>;
@group(0) @binding(7) var<uniform> params: vec4<u32>;

#import codec/layout

// Bytes of plane n (1 ..= P) of the block at record `r`.
fn plane_bytes(r: u32, n: u32) -> u32 {
    return bytes_of(records[r + 1u + n]) - bytes_of(records[r + n]);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = gid.x + gid.y * nwg.x * WG_SIZE;
    if (b >= params.x) {
        return;
    }
    let r = b * RECORD;
    let planes = records[r];
    if (PHASE == 0u) {
        for (var n = 1u; n <= planes; n++) {
            atomicAdd(&hist[records[r + 25u + n]], plane_bytes(r, n));
        }
        return;
    }
    let theta = control[0];
    let tie = theta - 1u;
    var n = 0u;
    while (n < planes && records[r + 26u + n] >= theta) {
        n += 1u;
    }
    if (PHASE == 1u) {
        var t = 0u;
        for (var j = n; j < planes; j++) {
            if (tie == 0u || records[r + 26u + j] != tie) {
                break;
            }
            t += plane_bytes(r, j + 1u);
        }
        ties[b] = t;
        return;
    }
    let remaining = control[1];
    var used = ties_before[b];
    for (var j = n; j < planes; j++) {
        if (tie == 0u || records[r + 26u + j] != tie) {
            break;
        }
        let dr = plane_bytes(r, j + 1u);
        if (used + dr > remaining) {
            break;
        }
        used += dr;
        n = j + 1u;
    }
    sent[b] = n;
    sizes[b] = bytes_of(records[r + 1u + n]);
}
