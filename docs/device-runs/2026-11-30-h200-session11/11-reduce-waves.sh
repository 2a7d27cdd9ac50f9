#!/usr/bin/env bash
# Session 11, call 11: reduce at tile steps (WAVEKIT_TILE_STEPS) and first-level workgroup counts
# that fill whole waves (8 steps: 40 registers, six workgroups an SM), two rounds, CUB in the call.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 --only reduce"
for r in 1 2; do
  for v in "528 8" "660 8" "792 8" "924 8" "660 10" "924 6" "1320 6"; do
    set -- $v
    echo "== groups $1 steps $2 round $r" >> $OUT/run.txt
    WAVEKIT_REDUCE_GROUPS=$1 WAVEKIT_TILE_STEPS=$2 $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  done
done
cat $OUT/run.txt
