// The traversal stacks of the persistent and compacted kernels: global memory, a slot per
// task (entry e of slot s at e * slots + s, so that the lanes of a subgroup, whose slots are
// neighbours, touch the same lines). The compacted kernel moves tasks between lanes and their
// slots with them; the persistent kernel's tasks keep their invocation's slot. (An array per
// invocation kept across the loop's rounds lost rays on llvmpipe: ADR-0052.)

#import trace/stack_ops

@group(0) @binding(7) var<storage, read_write> stacks: array<u32>;

fn stack_write(task: ptr<function, Task>, i: u32, r: u32) {
    stacks[i * params.y + (*task).slot] = r;
}

fn stack_read(task: ptr<function, Task>, i: u32) -> u32 {
    return stacks[i * params.y + (*task).slot];
}
