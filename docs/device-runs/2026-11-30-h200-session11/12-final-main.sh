#!/usr/bin/env bash
# Session 11, call 12: the final main (592f243): tests at width 32 (large ones too, the sort's
# single pass too), the primitives' table at 2^28 with CUB in the same call (two rounds), and
# the sort's at 2^24 and 2^28 with CUB.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in primitives_gpu select_modes_gpu fallback_gpu chunked_gpu sort_gpu sort_modes_gpu; do
  timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 100 .dev/tests/sort_gpu > $OUT/test-sort-single.txt 2>&1; echo "sort_gpu single pass rc=$? $(grep 'test result' $OUT/test-sort-single.txt)" >> $OUT/tests.txt
WAVEKIT_LARGE_TESTS=1 timeout 200 .dev/tests/large_gpu > $OUT/test-large.txt 2>&1; echo "large_gpu rc=$? $(grep 'test result' $OUT/test-large.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 20 24 28 > $OUT/cub-sort.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28"
$B > $OUT/run.txt 2>&1
$B >> $OUT/run.txt 2>&1
.dev/bin/wavekit bench primitives --log2 24 --log2 28 --runs 10 --only sort_keys --only sort_pairs --peer $OUT/cub-sort.jsonl 2>/dev/null | grep "sort_" > $OUT/sort.txt
cat $OUT/tests.txt; grep -v "^\[" $OUT/run.txt; cat $OUT/sort.txt
