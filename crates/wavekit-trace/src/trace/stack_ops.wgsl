// Push and pop on a task's traversal stack, shared by the three stack pieces
// (private_stack, global_stack, workgroup_stack), which each give `stack_write(task, i, r)` and
// `stack_read(task, i)`: where entry i of the task's stack lives. An overflow is flagged, not
// written.

fn stack_push(task: ptr<function, Task>, r: u32) {
    let sp = (*task).sp;
    if (sp < STACK) {
        stack_write(task, sp, r);
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
        r = stack_read(task, sp - 1u);
    }
    return r;
}
