#!/usr/bin/env bash
# Session 14, call 4: CUB's sort with its Onesweep kernels' shared-memory carveout lowered so
# that an SM holds one block of them instead of two (cub_carveout.cu), against the default,
# two interleaved rounds; wavekit's keys in the same call.
nvcc -O3 -std=c++17 -arch=sm_90 -I.dev .dev/cub_carveout.cu -o /tmp/cc 2> $OUT/nvcc.txt || { tail -30 $OUT/nvcc.txt; exit 1; }
for r in 1 2; do
  for c in -1 100 64 28 21 10; do
    echo "== carveout $c" >> $OUT/cub.txt; /tmp/cc 10 28 $c >> $OUT/cub.txt 2>&1
  done
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 28 > $OUT/cub-sort.jsonl
.dev/bin/wavekit bench primitives --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs 2>/dev/null | grep sort_ > $OUT/sort.txt
cat $OUT/cub.txt $OUT/sort.txt
