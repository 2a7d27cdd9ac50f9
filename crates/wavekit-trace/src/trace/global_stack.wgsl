// The traversal stacks of the persistent and compacted kernels: global memory, a slot per
// task (entry e of slot s at e * slots + s, so that the lanes of a subgroup, whose slots are
// neighbours, touch the same lines). The compacted kernel moves tasks between lanes and their
// slots with them; the persistent kernel's tasks keep their invocation's slot. (An array per
// invocation kept across the loop's rounds lost rays on llvmpipe: ADR-0052.)

@group(0) @binding(7) var<storage, read_write> stacks: array<u32>;

fn stack_push(task: ptr<function, Task>, r: u32) {
    let sp = (*task).sp;
    if (sp < STACK) {
        stacks[sp * params.y + (*task).slot] = r;
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
        r = stacks[(sp - 1u) * params.y + (*task).slot];
    }
    return r;
}
