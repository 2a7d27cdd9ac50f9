#!/usr/bin/env bash
# Session 11, call 4: the sort's single pass with each digit's look-back reading a window of
# predecessors per round (WAVEKIT_SORT_LOOK_WINDOW: 1 = as before, 4, 8, 16) against the
# three-kernel passes (the default); sort tests at width 32 in the single pass; CUB's radix
# sort in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu fallback_gpu; do WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt; done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 20 24 28 > $OUT/cub-sort.jsonl
B=".dev/bin/wavekit bench primitives --log2 24 --log2 28 --runs 10 --only sort_keys --only sort_pairs --peer $OUT/cub-sort.jsonl"
for round in 1 2; do
  echo "== round $round three kernels" >> $OUT/sort.txt
  $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
  for w in 1 4 8 16; do
    echo "== round $round single pass window $w" >> $OUT/sort.txt
    WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_LOOK_WINDOW=$w $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
  done
done
cat $OUT/tests.txt $OUT/sort.txt
