#!/usr/bin/env bash
# Session 10, call 8: can select reach three workgroups an SM (80 registers or fewer)? Smaller
# batches at 8-9 steps against the default 12 steps / batches of 16; partition likewise;
# registers by kernel-stats for each shape; CUB in the same call.
K=.dev/bin/kernel-stats
cfgs="12-16 8-16 8-8 8-4 9-12 9-6 10-20 10-10 10-8"
for c in $cfgs; do
  s=${c%-*}; b=${c#*-}
  WAVEKIT_TILE_STEPS=$s WAVEKIT_SELECT_STAGE_STEPS=$b WAVEKIT_DUMP_WGSL=/tmp/wg/$c .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only select > /dev/null 2>&1
  echo "## steps $s batch $b" >> $OUT/stats.txt; $K /tmp/wg/$c 2>&1 | grep select_select | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition" >> $OUT/sel.txt; }
B="bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition"
for round in 1 2; do
  for c in $cfgs; do
    run WAVEKIT_TILE_STEPS=${c%-*} WAVEKIT_SELECT_STAGE_STEPS=${c#*-} .dev/bin/wavekit $B
  done
done
cat $OUT/stats.txt $OUT/sel.txt
