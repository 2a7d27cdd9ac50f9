#!/usr/bin/env bash
# Session 10, call 5: select ranked after the look-back with branch-free staging (every
# element goes to its slot or the invocation's trash word, so no ballot follows a divergent
# branch), at 8, 12 and 16 steps, against ebf8675's kernels; registers; knock-out.
K=.dev/bin/kernel-stats
for s in 8 12 16; do
  WAVEKIT_TILE_STEPS=$s WAVEKIT_DUMP_WGSL=/tmp/wg/s$s .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only select > /dev/null 2>&1
  echo "## steps $s" >> $OUT/stats.txt; $K /tmp/wg/s$s 2>&1 | grep select_select >> $OUT/stats.txt
done
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
timeout 200 .dev/tests/select_modes_gpu > $OUT/test-select_modes_gpu.txt 2>&1; echo "select_modes rc=$? $(grep 'test result' $OUT/test-select_modes_gpu.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition|copy" >> $OUT/sel.txt; }
B="bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl"
for round in 1 2; do
  run X=1 .dev/bin/wavekit $B --only select --only partition
  run X=1 .dev/bin/wavekit-old $B --only select --only partition
  run WAVEKIT_TILE_STEPS=12 .dev/bin/wavekit $B --only select --only partition
  run WAVEKIT_TILE_STEPS=16 .dev/bin/wavekit $B --only select --only partition
done
run WAVEKIT_EXPERIMENT_SELECT_STORES=1 .dev/bin/wavekit $B --only select
cut -f1,5 $OUT/stats.txt | cut -c1-90
cat $OUT/tests.txt $OUT/sel.txt
