#!/usr/bin/env bash
# Session 10, call 9: whole tiles (all but the last) load and store without a bound check per
# quad or element (WAVEKIT_EXPERIMENT_WHOLE_TILES=1) in reduce, scan and select, against the
# checked path (=0), same binary, interleaved, CUB in the same call; registers of both.
K=.dev/bin/kernel-stats
for e in 0 1; do
  WAVEKIT_EXPERIMENT_WHOLE_TILES=$e WAVEKIT_DUMP_WGSL=/tmp/wg/w$e .dev/bin/wavekit bench primitives --log2 16 --runs 2 > /dev/null 2>&1
  echo "## whole tiles $e" >> $OUT/stats.txt; $K /tmp/wg/w$e 2>&1 | grep -E "reduce|scan_scan|select_select" | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "reduce|scan|select|partition|copy" >> $OUT/sel.txt; }
for round in 1 2 3; do
  for e in 0 1; do
    run WAVEKIT_EXPERIMENT_WHOLE_TILES=$e .dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl
  done
done
cat $OUT/stats.txt $OUT/sel.txt
