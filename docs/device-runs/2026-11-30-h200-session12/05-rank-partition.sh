#!/usr/bin/env bash
# Session 12, call 5: the scatter ranking with NVIDIA's partition instruction
# (OpGroupNonUniformPartitionNV through patched SPIR-V, VK_NV_shader_subgroup_partitioned)
# against eight ballots a key (WAVEKIT_SORT_RANK=ballots) and the session's start
# (wavekit-base). Tests at width 32 first (both rankings, three kernels and single pass).
.dev/bin/wavekit probe 2>&1 | head -30 > $OUT/probe.txt
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu sort_modes_gpu fallback_gpu primitives_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/t-$t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
WAVEKIT_SORT_RANK=ballots timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "sort_gpu ballots rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
WAVEKIT_LARGE_TESTS=1 timeout 200 .dev/tests/large_gpu sort > $OUT/t.txt 2>&1; echo "large_gpu sort rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
cat $OUT/tests.txt
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 20 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 20 --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>$OUT/err.txt | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "base (82b7236)" .dev/bin/wavekit-base
run "partition" .dev/bin/wavekit
run "ballots" WAVEKIT_SORT_RANK=ballots .dev/bin/wavekit
done
run "partition single pass" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
run "partition single pass items 16" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_ITEMS=16 .dev/bin/wavekit
run "partition items 12" WAVEKIT_SORT_ITEMS=12 .dev/bin/wavekit
run "partition items 20" WAVEKIT_SORT_ITEMS=20 .dev/bin/wavekit
cat $OUT/sort.txt; tail -5 $OUT/err.txt
