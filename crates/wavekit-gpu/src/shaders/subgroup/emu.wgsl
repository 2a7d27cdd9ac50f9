// Subgroup layer, no-subgroup path: every invocation is a subgroup of one lane, so the
// subgroup operations are trivial and all cooperation goes through workgroup memory in the
// workgroup layer. Same functions as subgroup/hw.wgsl.

struct Invocation {
    @builtin(local_invocation_index) local: u32,
}

#import subgroup/lane

fn lane_info(inv: Invocation) -> Lane {
    return Lane(inv.local, 0u, 1u, inv.local);
}

fn sg_ballot(p: bool) -> vec4<u32> {
    return vec4<u32>(u32(p), 0u, 0u, 0u);
}

fn sg_shuffle_up(x: T, d: u32) -> T {
    return x;
}

fn sg_shuffle_u32(x: u32, src: u32) -> u32 {
    return x;
}

fn sg_shuffle_bool(x: bool, src: u32) -> bool {
    return x;
}

fn sg_last(x: T, size: u32) -> T {
    return x;
}

fn sg_inclusive_shuffle(x: T, lane: u32, size: u32) -> T {
    return x;
}

fn sg_exclusive_shuffle(incl: T, lane: u32) -> T {
    return identity();
}

// Helpers for application kernels (see the prelude), for one-lane subgroups.
fn sg_shuffle_f32(x: f32, src: u32) -> f32 {
    return x;
}

fn sg_broadcast_first_u32(x: u32) -> u32 {
    return x;
}

fn sg_add_u32(x: u32) -> u32 {
    return x;
}

fn sg_exclusive_add_u32(x: u32) -> u32 {
    return 0u;
}

fn sg_max_u32(x: u32) -> u32 {
    return x;
}

fn sg_min_u32(x: u32) -> u32 {
    return x;
}

fn sg_any(p: bool) -> bool {
    return p;
}

fn sg_all(p: bool) -> bool {
    return p;
}
