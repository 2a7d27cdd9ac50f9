// The traversal stack of the baseline kernel: an array per invocation (its one ray never moves
// to another invocation). The persistent and compacted kernels use trace/global_stack.wgsl.

#import trace/stack_ops

var<private> stack: array<u32, STACK>;

fn stack_write(task: ptr<function, Task>, i: u32, r: u32) {
    stack[i] = r;
}

fn stack_read(task: ptr<function, Task>, i: u32) -> u32 {
    return stack[i];
}
