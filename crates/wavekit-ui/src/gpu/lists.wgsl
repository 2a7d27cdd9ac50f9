// What the two kernels that write the bin lists share (bin_emit, a workgroup a bin; bin_place,
// a workgroup a chunk): their bindings and the write of one item at its place.
#import ui/records

@group(0) @binding(2) var<storage, read> boxes: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> bin_rects: array<u32>;
@group(0) @binding(5) var<storage, read> counts: array<u32>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> list: array<u32>;
@group(0) @binding(8) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(13) var<storage, read_write> cover: array<atomic<u32>>;

// Item i at `slot` of the (bin, chunk) pair `at` (offsets[at]: the pair's place, from the scan
// of the counts). A write past the lists' room is dropped and counted in status[0] (the
// renderer reports it; the builder's bound keeps it from happening).
fn place(at: u32, slot: u32, i: u32) {
    let pos = offsets[at] + slot;
    if (pos < params.capacity) {
        list[pos] = i;
    } else {
        atomicMax(&status[0], pos + 1u);
    }
}
