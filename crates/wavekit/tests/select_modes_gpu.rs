//! Every way select and partition store a tile: through workgroup memory in their default
//! batches (13 and 16 elements per lane), in batches of 1 and of 4, and straight from
//! registers (ADR-034). One test function, since the switch is process-wide (an environment
//! variable read when kernels are built).

mod common;

use common::{check_select, gpu};
use wavekit::select::{Keep, STAGE_ENV};

#[test]
fn select_and_partition_in_every_store_mode() {
    let Some(ctx) = gpu() else { return };
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    // None: each primitive's default batch (a fixed number would not divide both tiles).
    for stage in [None, Some("1"), Some("4"), Some("0")] {
        // SAFETY: this binary's only test sets it before the kernels of each round are built.
        match stage {
            Some(s) => unsafe { std::env::set_var(STAGE_ENV, s) },
            None => unsafe { std::env::remove_var(STAGE_ENV) },
        }
        for partition in [false, true] {
            let t = wavekit::select::tile_elements(partition) as usize;
            for n in [0, 1, 5, 33, t - 1, t, t + 1, 3 * t + 7] {
                for density in [0, 50, 100] {
                    check_select(ctx, &Keep::Flags, partition, n, density);
                }
                check_select(ctx, &pred, partition, n, 0);
            }
        }
    }
    unsafe { std::env::remove_var(STAGE_ENV) };
}
