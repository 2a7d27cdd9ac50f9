// The traversal stacks of the persistent and compacted kernels in workgroup memory
// (TraceConfig::workgroup_stacks): a slot per invocation of the workgroup, entry e of slot s at
// e × WG_SIZE + s mod WG_SIZE. A task's slot never leaves its workgroup (the compacted kernel
// moves tasks only among the lanes of one subgroup), so the stack can live on chip: WG_SIZE ×
// STACK words (32 KiB for 128 invocations and 64 entries). The global stacks' alternative is
// trace/global_stack.wgsl (ADR-0056 measured them as pure cost where no lane refills).

var<workgroup> wg_stacks: array<u32, WG_SIZE * STACK>;

fn stack_push(task: ptr<function, Task>, r: u32) {
    let sp = (*task).sp;
    if (sp < STACK) {
        wg_stacks[sp * WG_SIZE + (*task).slot % WG_SIZE] = r;
        (*task).sp = sp + 1u;
    } else {
        stack_overflowed();
    }
}

fn stack_pop(task: ptr<function, Task>) -> u32 {
    let sp = (*task).sp;
    var r = EMPTY;
    if (sp != 0u) {
        (*task).sp = sp - 1u;
        r = wg_stacks[(sp - 1u) * WG_SIZE + (*task).slot % WG_SIZE];
    }
    return r;
}
