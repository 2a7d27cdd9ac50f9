#!/usr/bin/env bash
# Session 12, call 2: the scatter with each key's digit packed into its rank register and no
# valid-ballot in whole tiles; the histograms pre-pass with 8 loads in flight. Registers of
# the scatter (three kernels and single pass, items 8/12/16), then 2^28 u32 timings with CUB.
mkdir -p /tmp/wg
for v in "three 16" "three 12" "single 16" "single 12" "single 8"; do set -- $v
  sp=0; [ $1 = single ] && sp=1
  WAVEKIT_SORT_SINGLE_PASS=$sp WAVEKIT_SORT_ITEMS=$2 WAVEKIT_DUMP_WGSL=/tmp/wg/$1$2 .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "## $1 items $2" >> $OUT/stats.txt; .dev/bin/kernel-stats /tmp/wg/$1$2 2>&1 | grep sort_scatter | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 28 > $OUT/cub-sort.jsonl
B=".dev/bin/wavekit bench primitives --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
run "three kernels" X=1
run "three kernels items 12" WAVEKIT_SORT_ITEMS=12
run "single" WAVEKIT_SORT_SINGLE_PASS=1
run "single items 12" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=12
run "single histograms only" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SKIP=scatter
run "single no look-back walk" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=lookback
run "three kernels no ranking no stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=ranking,stores
run "three kernels no stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=stores
cat $OUT/stats.txt $OUT/sort.txt
