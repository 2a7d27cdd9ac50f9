#!/usr/bin/env bash
# Session 11, call 9: reduce's first-level workgroups at 12-step tiles (56 registers: four
# workgroups of 256 an SM, 528 on the H200 at once), WAVEKIT_REDUCE_GROUPS, two interleaved
# rounds, CUB in the same call.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 --only reduce"
for r in 1 2; do
  for g in 1024 528 264 396 792 1056 2048; do
    echo "== groups $g round $r" >> $OUT/run.txt
    WAVEKIT_REDUCE_GROUPS=$g $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  done
done
cat $OUT/run.txt
