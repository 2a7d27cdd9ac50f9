// Where an invocation sits. Kernels use 1-D workgroups, whose subgroups are laid out
// linearly (local == sg * size + lane; checked by `wavekit selftest`, ADR-0004).
struct Lane {
    local: u32,
    lane: u32,
    size: u32,
    sg: u32,
}
