#!/usr/bin/env bash
# Session 11, call 10: reduce's tile steps (WAVEKIT_TILE_STEPS) with 528 and 396 first-level
# workgroups, two interleaved rounds, CUB in the same call.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 --only reduce"
for r in 1 2; do
  for v in "528 12" "528 8" "528 10" "528 14" "528 16" "396 16" "1056 8" "1056 6"; do
    set -- $v
    echo "== groups $1 steps $2 round $r" >> $OUT/run.txt
    WAVEKIT_REDUCE_GROUPS=$1 WAVEKIT_TILE_STEPS=$2 $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  done
done
cat $OUT/run.txt
