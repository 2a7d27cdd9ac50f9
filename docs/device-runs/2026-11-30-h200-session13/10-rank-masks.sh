#!/usr/bin/env bash
# Session 13, call 10: the scatter ranking by masks in workgroup memory (an atomicOr a key,
# three workgroup barriers a step) with its keys staged, for fewer registers and more
# workgroups an SM (WAVEKIT_SORT_RANK=masks); tests at width 32 first; registers; the CUDA
# probe with four blocks an SM.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/rank_probe.cu -o /tmp/rp && /tmp/rp > $OUT/rank-probe.txt 2>&1
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 WAVEKIT_SORT_RANK=masks
for t in sort_gpu sort_modes_gpu fallback_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "masks $t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "masks sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU WAVEKIT_SORT_RANK
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "ballots" .dev/bin/wavekit
run "masks" WAVEKIT_SORT_RANK=masks .dev/bin/wavekit
done
run "masks, 8 keys" WAVEKIT_SORT_RANK=masks WAVEKIT_SORT_ITEMS=8 .dev/bin/wavekit
run "masks, 24 keys" WAVEKIT_SORT_RANK=masks WAVEKIT_SORT_ITEMS=24 .dev/bin/wavekit
run "masks, 512 x 8" WAVEKIT_SORT_RANK=masks WAVEKIT_SORT_WORKGROUP=512 WAVEKIT_SORT_ITEMS=8 .dev/bin/wavekit
run "single pass masks" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_RANK=masks .dev/bin/wavekit
for v in "masks:WAVEKIT_SORT_RANK=masks" "masks8:WAVEKIT_SORT_RANK=masks WAVEKIT_SORT_ITEMS=8" "masks24:WAVEKIT_SORT_RANK=masks WAVEKIT_SORT_ITEMS=24"; do
  n=${v%%:*}; e=${v#*:}
  env $e WAVEKIT_DUMP_WGSL=/tmp/wg/$n .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "== $n" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$n 2>&1 | grep -i scatter >> $OUT/regs.txt
done
cat $OUT/tests.txt $OUT/sort.txt $OUT/regs.txt $OUT/rank-probe.txt
