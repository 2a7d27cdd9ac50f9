#!/usr/bin/env bash
# Session 12, call 1: where the sort's single pass spends its time (2^28 u32 keys, 10 runs each):
# registers of the scatter in both modes; the histograms pre-pass alone (SKIP=scatter); the pass
# without its look-back walk (EXPERIMENT=lookback); the look-back's statistics (rounds, stalled
# rounds, fallbacks, last pass); spins, items and window variants.
mkdir -p /tmp/wg
WAVEKIT_DUMP_WGSL=/tmp/wg/three .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only sort_keys > /dev/null 2>&1
WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_DUMP_WGSL=/tmp/wg/single .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only sort_keys > /dev/null 2>&1
WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=12 WAVEKIT_DUMP_WGSL=/tmp/wg/single12 .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only sort_keys > /dev/null 2>&1
for d in three single single12; do echo "## $d" >> $OUT/stats.txt; .dev/bin/kernel-stats /tmp/wg/$d 2>&1 | grep sort_ | cut -c1-160 >> $OUT/stats.txt; done
B=".dev/bin/wavekit bench primitives --log2 28 --runs 10 --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
run "three kernels" X=1
run "single" WAVEKIT_SORT_SINGLE_PASS=1
run "single stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_STATS_WINDOWS=1
run "single histograms only (skip scatter)" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SKIP=scatter
run "single no look-back walk" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=lookback
run "single no look-back walk, no ranking, no stores" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=lookback,ranking,stores
run "single no ranking, no stores, stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=ranking,stores WAVEKIT_STATS_WINDOWS=1
run "three kernels no ranking, no stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=ranking,stores
run "single spins 4096 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_SPINS=4096 WAVEKIT_STATS_WINDOWS=1
run "single spins 32 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_SPINS=32 WAVEKIT_STATS_WINDOWS=1
run "single items 8 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=8 WAVEKIT_STATS_WINDOWS=1
run "single items 12 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=12 WAVEKIT_STATS_WINDOWS=1
run "single items 24 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=24 WAVEKIT_STATS_WINDOWS=1
run "single window 16 stats" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_LOOK_WINDOW=16 WAVEKIT_STATS_WINDOWS=1
run "single workgroup 512 items 8" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_WORKGROUP=512 WAVEKIT_SORT_ITEMS=8 WAVEKIT_STATS_WINDOWS=1
cat $OUT/stats.txt $OUT/sort.txt
