#!/usr/bin/env bash
# Session 9, call 7: select's staged stores, tile steps (WAVEKIT_TILE_STEPS, of four
# elements) against staged steps per batch (WAVEKIT_SELECT_STAGE_STEPS), two rounds.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit-x bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select"
run() { echo "== $*" >> $OUT/ko.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "^(select|partition)" >> $OUT/ko.txt; }
for round in 1 2; do
  for c in "8 16" "8 0" "4 16" "6 8" "6 12" "6 24" "5 20" "7 14" "7 28"; do set -- $c; run WAVEKIT_TILE_STEPS=$1 WAVEKIT_SELECT_STAGE_STEPS=$2 $B; done
done
cat $OUT/ko.txt
