#!/usr/bin/env bash
# Session 12, call 3: the scatter ranking by masks in workgroup memory (default) against eight
# ballots a key (WAVEKIT_SORT_RANK=ballots) and the session's start (wavekit-base, 82b7236);
# WebGPU's zeroing of workgroup memory off (WAVEKIT_ZERO_WORKGROUP_MEMORY=0) for every
# primitive; tests at width 32. CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu sort_modes_gpu primitives_gpu select_modes_gpu fallback_gpu; do
  timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
WAVEKIT_ZERO_WORKGROUP_MEMORY=0 timeout 150 .dev/tests/primitives_gpu > $OUT/test-nozero.txt 2>&1; echo "primitives_gpu no zeroing rc=$? $(grep 'test result' $OUT/test-nozero.txt)" >> $OUT/tests.txt
WAVEKIT_ZERO_WORKGROUP_MEMORY=0 timeout 150 .dev/tests/sort_gpu > $OUT/test-nozero-sort.txt 2>&1; echo "sort_gpu no zeroing rc=$? $(grep 'test result' $OUT/test-nozero-sort.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
mkdir -p /tmp/wg
for r in masks ballots; do
  WAVEKIT_SORT_RANK=$r WAVEKIT_DUMP_WGSL=/tmp/wg/$r .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "## $r" >> $OUT/stats.txt; .dev/bin/kernel-stats /tmp/wg/$r 2>&1 | grep sort_scatter | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 24 28 > $OUT/cub-sort.jsonl
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "base (82b7236)" .dev/bin/wavekit-base
run "masks" .dev/bin/wavekit
run "ballots" WAVEKIT_SORT_RANK=ballots .dev/bin/wavekit
run "masks, no zeroing" WAVEKIT_ZERO_WORKGROUP_MEMORY=0 .dev/bin/wavekit
done
run "single pass masks" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
run "single pass masks items 12" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=12 .dev/bin/wavekit
P="bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only reduce --only scan_inclusive --only scan_exclusive --only select --only partition"
for round in 1 2; do
  echo "== zeroing (default)" >> $OUT/prims.txt; .dev/bin/wavekit $P 2>/dev/null | grep -v "^\[" | grep -v primitive >> $OUT/prims.txt
  echo "== no zeroing" >> $OUT/prims.txt; WAVEKIT_ZERO_WORKGROUP_MEMORY=0 .dev/bin/wavekit $P 2>/dev/null | grep -v "^\[" | grep -v primitive >> $OUT/prims.txt
done
cat $OUT/tests.txt $OUT/stats.txt $OUT/sort.txt $OUT/prims.txt
