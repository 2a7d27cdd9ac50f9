#!/usr/bin/env bash
# Session 11, call 14: the final main (0038306, partition's count pass back at 1024 workgroups):
# primitives and select modes at width 32, and the table at 2^28 with CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in primitives_gpu select_modes_gpu; do
  timeout 120 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
.dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 > $OUT/run.txt 2>&1
cat $OUT/tests.txt; grep -v "^\[" $OUT/run.txt
