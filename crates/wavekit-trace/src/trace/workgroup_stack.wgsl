// The traversal stacks of the persistent and compacted kernels in workgroup memory
// (TraceConfig::workgroup_stacks): a slot per invocation of the workgroup, entry e of slot s at
// e × WG_SIZE + s mod WG_SIZE. A task's slot never leaves its workgroup (the compacted kernel
// moves tasks only among the lanes of one subgroup), so the stack can live on chip: WG_SIZE ×
// STACK words (32 KiB for 128 invocations and 64 entries). The global stacks' alternative is
// trace/global_stack.wgsl (ADR-0056 measured them as pure cost where no lane refills).

#import trace/stack_ops

var<workgroup> wg_stacks: array<u32, WG_SIZE * STACK>;

fn stack_write(task: ptr<function, Task>, i: u32, r: u32) {
    wg_stacks[i * WG_SIZE + (*task).slot % WG_SIZE] = r;
}

fn stack_read(task: ptr<function, Task>, i: u32) -> u32 {
    return wg_stacks[i * WG_SIZE + (*task).slot % WG_SIZE];
}
