#!/usr/bin/env bash
# Session 10, call 13: reduce's tile after ADR-036 (whole tiles unchecked): 6 to 16 steps,
# registers of each, CUB in the same call.
W=.dev/bin/wavekit
for s in 6 8 10 12 16; do WAVEKIT_TILE_STEPS=$s WAVEKIT_DUMP_WGSL=/tmp/wg/$s $W bench primitives --log2 16 --runs 2 --only reduce > /dev/null 2>&1; echo "## steps $s $(.dev/bin/kernel-stats /tmp/wg/$s 2>&1 | grep reduce_reduce | cut -f5 | cut -c1-20)" >> $OUT/stats.txt; done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
for round in 1 2; do for s in 6 8 10 12 16; do echo "== steps $s" >> $OUT/red.txt; WAVEKIT_TILE_STEPS=$s $W bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only reduce 2>/dev/null | grep -E "reduce" >> $OUT/red.txt; done; done
cat $OUT/stats.txt $OUT/red.txt
