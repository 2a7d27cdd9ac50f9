// The traversal stack of the baseline kernel: an array per invocation (its one ray never moves
// to another invocation). The persistent and compacted kernels use trace/global_stack.wgsl.

var<private> stack: array<u32, STACK>;

fn stack_push(task: ptr<function, Task>, r: u32) {
    let sp = (*task).sp;
    if (sp < STACK) {
        stack[sp] = r;
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
        r = stack[sp - 1u];
    }
    return r;
}
