#!/usr/bin/env bash
# Session 14, call 9: the CUDA peers build and run after their timing loop moved into
# common.cuh (timed_ms, median_ns), small sizes only.
set -e
cd .dev
for f in primitives sort; do nvcc -O3 -std=c++17 -arch=sm_90 $f.cu -o /tmp/$f; done
for f in chain copy cub_carveout; do nvcc -O3 -std=c++17 -arch=sm_90 -I. $f.cu -o /tmp/$f; done
/tmp/primitives 3 16 | tee $OUT/primitives.jsonl | head -3
/tmp/sort 3 16 | tee $OUT/sort.jsonl | head -3
/tmp/chain 5 2 1 | tee $OUT/chain.jsonl
/tmp/copy 5 1048576 | tee $OUT/copy.jsonl
/tmp/cub_carveout 3 16 10 2>&1 | tee $OUT/carveout.txt
