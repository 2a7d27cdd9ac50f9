#!/usr/bin/env bash
# Session 9, call 2: the lanes layout with the kept bit packed into the slot, larger tiles;
# tests at width 32 with the lanes layout forced; CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in select_modes_gpu primitives_gpu fallback_gpu; do
  WAVEKIT_SELECT_LANES=1 WAVEKIT_TILE_STEPS=12 timeout 200 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t (lanes, 12 steps) rc=$? $(grep 'test result' $OUT/test-$t.txt)" | tee -a $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl"
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition" >> $OUT/sel.txt; }
for round in 1 2; do
  run X=1 $B --only select --only partition
  for s in 8 10 12 16; do run WAVEKIT_SELECT_LANES=1 WAVEKIT_TILE_STEPS=$s $B --only select --only partition; done
done
for s in 8 12; do run WAVEKIT_SELECT_LANES=1 WAVEKIT_TILE_STEPS=$s WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B --only select; done
run WAVEKIT_SELECT_LANES=0 WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B --only select
cat $OUT/sel.txt
