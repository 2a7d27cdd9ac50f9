// The frame's bytes, the GPU twin of the end of `cpu::encode`: the header, the block offset
// table (the payloads' offsets, an exclusive scan of their sizes, after the table) and the
// payloads (P, n, then the first bits of the block's bit string, the last byte's bits past
// the n planes cleared). One invocation an output word; a payload byte finds its block by a
// binary search of the offsets.
//
// Bindings: 0 the header (6 words), 1 the records, 2 the bit strings, 3 the planes sent,
// 4 the payloads' bytes, 5 their offsets (from the first payload), 6 the frame (out), 7 control
// (out, [2]: the frame's bytes), 8 params: blocks, overhead.

@group(0) @binding(0) var<storage, read> head: array<u32>;
@group(0) @binding(1) var<storage, read> records: array<u32>;
@group(0) @binding(2) var<storage, read> bits: array<u32>;
@group(0) @binding(3) var<storage, read> sent: array<u32>;
@group(0) @binding(4) var<storage, read> sizes: array<u32>;
@group(0) @binding(5) var<storage, read> offsets: array<u32>;
@group(0) @binding(6) var<storage, read_write> frame: array<u32>;
@group(0) @binding(7) var<storage, read_write> control: array<u32>;
@group(0) @binding(8) var<uniform> params: vec4<u32>;

#import codec/layout

fn byte_of(p: u32, blocks: u32, overhead: u32) -> u32 {
    if (p < 24u) {
        return (head[p / 4u] >> (8u * (p % 4u))) & 0xffu;
    }
    if (p < overhead) {
        let b = (p - 24u) / 4u;
        return ((overhead + offsets[b]) >> (8u * ((p - 24u) % 4u))) & 0xffu;
    }
    let q = p - overhead;
    // The last block whose payload starts at or before q.
    var lo = 0u;
    var hi = blocks - 1u;
    while (lo < hi) {
        let mid = (lo + hi + 1u) / 2u;
        if (offsets[mid] <= q) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    let b = lo;
    let local = q - offsets[b];
    if (local == 0u) {
        return records[b * RECORD];
    }
    let n = sent[b];
    if (local == 1u) {
        return n;
    }
    let j = local - 2u;
    var v = (bits[b * STRIDE + j / 4u] >> (24u - 8u * (j % 4u))) & 0xffu;
    let end = records[b * RECORD + 1u + n];
    if (j == (end - 1u) / 8u && end % 8u != 0u) {
        v &= ~(0xffu >> (end % 8u)) & 0xffu;
    }
    return v;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG_SIZE;
    let blocks = params.x;
    let overhead = params.y;
    let total = overhead + offsets[blocks - 1u] + sizes[blocks - 1u];
    if (w == 0u) {
        control[2] = total;
    }
    if (w * 4u >= total) {
        return;
    }
    var v = 0u;
    for (var i = 0u; i < 4u; i++) {
        let p = w * 4u + i;
        if (p < total) {
            v |= byte_of(p, blocks, overhead) << (8u * i);
        }
    }
    frame[w] = v;
}
