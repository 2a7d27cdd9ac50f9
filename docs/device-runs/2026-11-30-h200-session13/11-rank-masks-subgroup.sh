#!/usr/bin/env bash
# Session 13, call 11: the masks ranking of call 10 with subgroup barriers (naga's
# subgroupBarrier(), wgpu's SUBGROUP_BARRIER feature; WAVEKIT_SORT_RANK=masks-subgroup), as
# CUB's masks use __syncwarp; tests at width 32 first; registers.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 WAVEKIT_SORT_RANK=masks-subgroup
for t in sort_gpu sort_modes_gpu fallback_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "masks-subgroup $t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "masks-subgroup sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU WAVEKIT_SORT_RANK
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "ballots" .dev/bin/wavekit
run "masks, subgroup barriers" WAVEKIT_SORT_RANK=masks-subgroup .dev/bin/wavekit
done
run "masks, workgroup barriers" WAVEKIT_SORT_RANK=masks .dev/bin/wavekit
run "masks, subgroup barriers, 8 keys" WAVEKIT_SORT_RANK=masks-subgroup WAVEKIT_SORT_ITEMS=8 .dev/bin/wavekit
run "masks, subgroup barriers, 24 keys" WAVEKIT_SORT_RANK=masks-subgroup WAVEKIT_SORT_ITEMS=24 .dev/bin/wavekit
run "masks, subgroup barriers, no final stores" WAVEKIT_SORT_RANK=masks-subgroup WAVEKIT_EXPERIMENT_SORT_SCATTER=stores .dev/bin/wavekit
run "ballots, no final stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=stores .dev/bin/wavekit
run "staged ballots, no ranking, no final stores" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=ranking,stores .dev/bin/wavekit
WAVEKIT_SORT_RANK=masks-subgroup WAVEKIT_DUMP_WGSL=/tmp/wg/m .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
.dev/bin/kernel-stats /tmp/wg/m 2>&1 | grep -i scatter > $OUT/regs.txt
cat $OUT/tests.txt $OUT/sort.txt $OUT/regs.txt
