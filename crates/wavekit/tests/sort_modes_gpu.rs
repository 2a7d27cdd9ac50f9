//! The scatter's two ways of storing the sorted tile, for keys and for pairs alike: unrolled
//! (pairs by default: the values staged in the keys' workgroup memory after the keys have
//! left, ADR-0024) and in a loop (keys by default: values, if any, in memory of their own).
//! Both sort modes: the three kernels and the single pass.

mod common;

use common::{gpu, on, run};
use wavekit::sort::{KeyType, RadixSort, SortConfig, SortPolicy, Values};

#[test]
#[ignore = "GPU test: needs a Vulkan adapter (lavapipe counts); cargo test -- --include-ignored"]
fn keys_and_pairs_sort_in_both_store_modes() {
    let ctx = gpu();
    for (unrolled, mode) in [true, false]
        .into_iter()
        .flat_map(|u| [(u, SortPolicy::default()), (u, SortPolicy::single_pass())])
    {
        for values in [Values::None, Values::U32] {
            let config = SortConfig {
                values,
                // The radix passes' stores: no small path (ADR-0090).
                policy: Some(SortPolicy {
                    stores_unrolled: Some(unrolled),
                    small_up_to: 0,
                    ..mode
                }),
                ..SortConfig::keys(KeyType::U32)
            };
            let sorter = RadixSort::new(ctx, &config).unwrap();
            let t = sorter.tile_keys() as usize;
            for n in [0, 1, 33, t - 1, t, t + 1, 5 * t + 17] {
                let mut r =
                    fastrand::Rng::with_seed(n as u64 * 31 + u64::from(values == Values::U32));
                // Few distinct keys, so stability shows in the values.
                let keys: Vec<u32> = (0..n).map(|_| r.u32(..1 << 10) * 0x0040_0401).collect();
                let given: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
                let kb = ctx.storage_from("keys", &keys).unwrap();
                let vb = ctx.storage_from("values", &given).unwrap();
                let with = (values == Values::U32).then_some(&vb);
                let bound = sorter.bind(ctx, &kb, with, n as u64).unwrap();
                run(ctx, |e| bound.record(e));
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| keys[i]);
                let what = format!(
                    "{}: unrolled={unrolled} single pass={} {values:?} n={n}",
                    on(ctx),
                    mode.single_pass
                );
                let got: Vec<u32> = ctx.read_back("keys", &kb, n).unwrap();
                let want: Vec<u32> = order.iter().map(|&i| keys[i]).collect();
                assert_eq!(got, want, "{what}: keys");
                if values == Values::U32 {
                    let got: Vec<u32> = ctx.read_back("values", &vb, n).unwrap();
                    let want: Vec<u32> = order.iter().map(|&i| given[i]).collect();
                    assert_eq!(got, want, "{what}: values (stable order)");
                }
            }
        }
    }
}
