#!/usr/bin/env bash
# Session 10, call 1: select and partition ranked by one packed exclusive add per four steps
# (ADR-035) against one ballot per step (WAVEKIT_EXPERIMENT_SELECT_RANK=1), 2^28 u32, CUB in
# the same call; knock-outs without stores and without the look-back; tests at width 32.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in select_modes_gpu primitives_gpu fallback_gpu chunked_gpu; do
  timeout 200 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" | tee -a $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl"
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition|copy" >> $OUT/sel.txt; }
for round in 1 2; do
  run X=1 $B --only select --only partition
  run WAVEKIT_EXPERIMENT_SELECT_RANK=1 $B --only select --only partition
done
for r in 0 1; do
  run WAVEKIT_EXPERIMENT_SELECT_RANK=$r WAVEKIT_EXPERIMENT_SELECT_STORES=1 $B --only select
  run WAVEKIT_EXPERIMENT_SELECT_RANK=$r WAVEKIT_EXPERIMENT_SELECT_STORES=1 WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B --only select
done
cat $OUT/tests.txt $OUT/sel.txt
