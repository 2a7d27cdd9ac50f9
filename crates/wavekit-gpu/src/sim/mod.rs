//! CPU ports of the WGSL layers under `shaders/`, written to read like the WGSL and run at any
//! subgroup width from 1 to 128: [`subgroup`] (ballots, subgroup scans, subgroup compaction),
//! [`workgroup`] (the carry across subgroups, `wg_compact`), [`device`] (the look-back). The
//! primitives' and the applications' simulations of their own kernels (`scan/sim.rs`,
//! `sort/sim.rs`, `wavekit-trace`'s `sim.rs`, `wavekit-ui`'s `sim.rs`) are built from these, so
//! an index error that only shows at a width no test machine has is still caught, and each
//! piece of arithmetic is ported once.

// Lane loops index several per-lane arrays, as the shader does.
#![allow(clippy::needless_range_loop)]

pub mod device;
pub mod subgroup;
pub mod workgroup;

/// The subgroup widths the simulations are run at: every power of two the hardware has or may
/// have, and the one-lane emulation.
pub const WIDTHS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
