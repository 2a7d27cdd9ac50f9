#!/usr/bin/env bash
# Session 10, call 4: select ranked after the look-back, the batch's ballots before its
# staging (call 3 interleaved them: 2.3x slower), against ebf8675's kernels; registers;
# knock-outs without stores.
K=.dev/bin/kernel-stats
WAVEKIT_DUMP_WGSL=/tmp/wg/new .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only select > /dev/null 2>&1
$K /tmp/wg/new > $OUT/stats.txt 2>&1
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
timeout 200 .dev/tests/select_modes_gpu > $OUT/test-select_modes_gpu.txt 2>&1; echo "select_modes rc=$? $(grep 'test result' $OUT/test-select_modes_gpu.txt)" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition|copy" >> $OUT/sel.txt; }
for round in 1 2; do
  for b in wavekit wavekit-old; do
    run X=1 .dev/bin/$b bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition
  done
done
for b in wavekit wavekit-old; do
  run WAVEKIT_EXPERIMENT_SELECT_STORES=1 .dev/bin/$b bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select
  run WAVEKIT_EXPERIMENT_SELECT_STORES=2 .dev/bin/$b bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select
done
grep -E "select_select" $OUT/stats.txt | cut -f1,5
cat $OUT/tests.txt $OUT/sel.txt
