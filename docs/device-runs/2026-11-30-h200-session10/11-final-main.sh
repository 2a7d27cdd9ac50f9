#!/usr/bin/env bash
# Session 10, call 11: the final main (whole tiles unchecked; scan 10 steps, select 13,
# partition 16: ADR-036) — tests at width 32 (the large ones too), the primitives' table with
# CUB in the same call, and every kernel's registers.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in primitives_gpu select_modes_gpu fallback_gpu chunked_gpu foundation_gpu sort_gpu; do
  timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
WAVEKIT_LARGE_TESTS=1 timeout 240 .dev/tests/large_gpu > $OUT/test-large.txt 2>&1; echo "large_gpu rc=$? $(grep 'test result' $OUT/test-large.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
WAVEKIT_DUMP_WGSL=/tmp/wg .dev/bin/wavekit bench primitives --log2 16 --runs 2 > /dev/null 2>&1
.dev/bin/kernel-stats /tmp/wg > $OUT/stats.txt 2>&1
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 16 20 24 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl"
$B --log2 28 > $OUT/run.txt 2>&1
$B --log2 28 >> $OUT/run.txt 2>&1
$B --log2 16 --log2 20 --log2 24 >> $OUT/run.txt 2>&1
cat $OUT/tests.txt; grep -v "^\[" $OUT/run.txt; grep -E "scan_scan|select_select|reduce" $OUT/stats.txt | cut -f1,5 | cut -c1-60
