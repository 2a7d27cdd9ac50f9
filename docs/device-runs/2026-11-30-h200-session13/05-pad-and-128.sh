#!/usr/bin/env bash
# Session 13, call 5 (call 4 ran a build whose unpadded kernel failed to compile and whose pad changed the registers): (a) is it workgroup memory that lost the 39 KB variants of calls 2-3?
# The keys' scatter (22.6 KB, 125 registers) padded with unused workgroup memory
# (WAVEKIT_EXPERIMENT_SORT_PAD words, written once and never read); (b) staged keys (100 registers) in workgroups of 128.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
.dev/bin/wavekit $S > /dev/null 2>&1
for round in 1 2; do
run "default" .dev/bin/wavekit
for p in 1024 2048 2560 3072 4096 6144; do
run "pad $p words" WAVEKIT_EXPERIMENT_SORT_PAD=$p .dev/bin/wavekit
done
done
run "staged 128 x 16" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_WORKGROUP=128 .dev/bin/wavekit
run "staged 128 x 24" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_WORKGROUP=128 WAVEKIT_SORT_ITEMS=24 .dev/bin/wavekit
run "registers 128 x 16" WAVEKIT_SORT_WORKGROUP=128 .dev/bin/wavekit
for v in "pad0:" "pad2560:WAVEKIT_EXPERIMENT_SORT_PAD=2560" "pad6144:WAVEKIT_EXPERIMENT_SORT_PAD=6144" "st128:WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_WORKGROUP=128" "st128x24:WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_WORKGROUP=128 WAVEKIT_SORT_ITEMS=24"; do
  n=${v%%:*}; e=${v#*:}
  env $e WAVEKIT_DUMP_WGSL=/tmp/wg/$n .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys > /dev/null 2>&1
  echo "== $n" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$n 2>&1 | grep -i scatter >> $OUT/regs.txt
done
cat $OUT/sort.txt $OUT/regs.txt
