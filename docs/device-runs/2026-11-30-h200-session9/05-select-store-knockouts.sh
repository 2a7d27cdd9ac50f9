#!/usr/bin/env bash
# Session 9, call 5: where select's time goes (measurement only, wrong results):
# without its look-back, without its stores, with every element stored at its own index.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit-x bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select"
run() { echo "== $*" >> $OUT/ko.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "^(select|reduce|copy)" >> $OUT/ko.txt; }
for round in 1 2; do
  run X=1 $B
  run WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B
  run WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 WAVEKIT_EXPERIMENT_SELECT_STORES=1 $B
  run WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 WAVEKIT_EXPERIMENT_SELECT_STORES=2 $B
  run WAVEKIT_EXPERIMENT_SELECT_STORES=1 $B
done
run X=1 .dev/bin/wavekit-x bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only reduce
cat $OUT/ko.txt
