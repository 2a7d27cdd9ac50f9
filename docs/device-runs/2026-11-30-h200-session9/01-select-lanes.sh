#!/usr/bin/env bash
# Session 9, call 1: select and partition in the lanes layout (one element per lane and step,
# ranked by ballots, ADR-033) against the quads layout, 2^28 u32, CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
timeout 200 .dev/tests/select_modes_gpu > $OUT/test-select_modes.txt 2>&1; echo "select_modes rc=$? $(grep 'test result' $OUT/test-select_modes.txt)" | tee -a $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl"
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition" >> $OUT/sel.txt; }
for round in 1 2; do
  run X=1 $B --only select --only partition
  run WAVEKIT_SELECT_LANES=1 $B --only select --only partition
  for s in 2 3 6 8; do run WAVEKIT_SELECT_LANES=1 WAVEKIT_TILE_STEPS=$s $B --only select --only partition; done
done
run WAVEKIT_SELECT_LANES=1 WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B --only select
run WAVEKIT_SELECT_LANES=0 WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B --only select
cat $OUT/sel.txt
