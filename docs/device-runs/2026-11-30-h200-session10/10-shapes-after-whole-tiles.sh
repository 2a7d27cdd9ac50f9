#!/usr/bin/env bash
# Session 10, call 10: whole tiles unchecked (call 9) leave registers to spare: the scan at
# 7-10 steps, select at 12-16 steps and partition at 10-12 steps; registers of each; CUB in
# the same call.
K=.dev/bin/kernel-stats
W=.dev/bin/wavekit
stats() { local tag=$1; shift; env "$@" WAVEKIT_DUMP_WGSL=/tmp/wg/$tag $W bench primitives --log2 16 --runs 2 > /dev/null 2>&1; echo "## $tag" >> $OUT/stats.txt; $K /tmp/wg/$tag 2>&1 | grep -E "scan_scan|select_select" | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt; }
for s in 7 8 9 10; do stats scan-$s WAVEKIT_TILE_STEPS=$s; done
for c in 12-16 13-13 14-14 14-28 16-16 11-22 10-20; do stats sel-$c WAVEKIT_TILE_STEPS=${c%-*} WAVEKIT_SELECT_STAGE_STEPS=${c#*-}; done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "scan|select|partition" >> $OUT/sel.txt; }
B="bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl"
for round in 1 2; do
  for s in 7 8 9 10; do run WAVEKIT_TILE_STEPS=$s $W $B --only scan_inclusive --only scan_exclusive; done
  for c in 12-16 13-13 14-14 14-28 16-16 11-22 10-20; do run WAVEKIT_TILE_STEPS=${c%-*} WAVEKIT_SELECT_STAGE_STEPS=${c#*-} $W $B --only select --only partition; done
done
cat $OUT/stats.txt $OUT/sel.txt
