#!/usr/bin/env bash
# Session 10, call 6: the branch-free staging (call 5) at tiles of 10, 12 and 14 steps with
# batches of 8 to 28 elements per lane; registers of each; CUB in the same call.
K=.dev/bin/kernel-stats
for c in "12 16" "12 12" "12 24" "10 20" "10 8" "14 28" "14 8" "11 4"; do
  set -- $c
  WAVEKIT_TILE_STEPS=$1 WAVEKIT_SELECT_STAGE_STEPS=$2 WAVEKIT_DUMP_WGSL=/tmp/wg/s$1-$2 .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only select > /dev/null 2>&1
  echo "## steps $1 stage $2" >> $OUT/stats.txt; $K /tmp/wg/s$1-$2 2>&1 | grep select_select | cut -f1,5 | cut -c1-80 >> $OUT/stats.txt
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition" >> $OUT/sel.txt; }
B="bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition"
for round in 1 2; do
  for c in "12 16" "12 12" "12 24" "10 20" "10 8" "14 28" "14 8"; do
    set -- $c
    run WAVEKIT_TILE_STEPS=$1 WAVEKIT_SELECT_STAGE_STEPS=$2 .dev/bin/wavekit $B
  done
done
cat $OUT/stats.txt $OUT/sel.txt
