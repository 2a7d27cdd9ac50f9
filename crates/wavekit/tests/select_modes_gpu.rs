//! Both ways of storing survivors, for select and partition alike: from registers straight
//! to their slots, and compacted in workgroup memory then stored coalesced (by default select
//! takes the first, partition the second: ADR-024). One test function, since the switch is
//! process-wide (an environment variable read when kernels are built).

mod common;

use common::{check_select, gpu};
use wavekit::select::{Keep, SCATTER_ENV};

#[test]
fn select_and_partition_in_both_store_modes() {
    let Some(ctx) = gpu() else { return };
    let pred = Keep::Predicate("fn keep(x: u32, i: u32) -> bool { return x % 3u == 0u; }".into());
    for scatter in ["1", "0"] {
        // SAFETY: this binary's only test sets it before the kernels of each round are built.
        unsafe { std::env::set_var(SCATTER_ENV, scatter) };
        for partition in [false, true] {
            let t = wavekit::select::tile_elements(partition) as usize;
            for n in [0, 1, 4, 5, t - 1, t, t + 1, 3 * t + 7, 17 * t] {
                for density in [0, 50, 100] {
                    check_select(ctx, &Keep::Flags, partition, n, density);
                }
                check_select(ctx, &pred, partition, n, 0);
            }
        }
    }
    unsafe { std::env::remove_var(SCATTER_ENV) };
}
