#!/usr/bin/env bash
# Session 12, call 4: the kept changes (single pass at 12 keys an invocation, the histograms
# pre-pass with 8 loads in flight, look-back statistics): tests at width 32 (three kernels and
# single pass), then 2^24 and 2^28 sorts with CUB, against the session's start (wavekit-base).
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu sort_modes_gpu fallback_gpu histogram_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_modes_gpu > $OUT/t.txt 2>&1; echo "sort_modes_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "base (82b7236) three kernels" .dev/bin/wavekit-base
run "three kernels" .dev/bin/wavekit
run "base (82b7236) single pass" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit-base
run "single pass" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
done
run "single pass, statistics" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_STATS_WINDOWS=1 .dev/bin/wavekit
run "single pass, histograms only" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SKIP=scatter .dev/bin/wavekit
run "single pass, no look-back walk" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=lookback .dev/bin/wavekit
cat $OUT/tests.txt $OUT/sort.txt
