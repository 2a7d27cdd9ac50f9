#!/usr/bin/env bash
# Session 11, call 13: reduce in call 12's table ran 250 us, not 244: the same binary (592f243)
# with --only reduce, its defaults (8 steps, 660 groups) against the same values set by the
# knobs and against the old 12 x 1024, two rounds, CUB in the same call.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 --only reduce"
for r in 1 2; do
  echo "== defaults round $r" >> $OUT/run.txt; $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  echo "== knobs 8 x 660 round $r" >> $OUT/run.txt; WAVEKIT_TILE_STEPS=8 WAVEKIT_REDUCE_GROUPS=660 $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  echo "== knobs 12 x 1024 round $r" >> $OUT/run.txt; WAVEKIT_TILE_STEPS=12 WAVEKIT_REDUCE_GROUPS=1024 $B 2>&1 | grep "^reduce" >> $OUT/run.txt
  echo "== full table round $r" >> $OUT/run.txt; .dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 2>&1 | grep "^reduce" >> $OUT/run.txt
done
cat $OUT/run.txt; grep reduce $OUT/cub.jsonl
