#!/usr/bin/env bash
# Session 8, eighth call: DWT workgroups that transform several tiles in turn
# (WAVEKIT_DWT_TILES_PER_GROUP, tiles-per-group.patch), 4K and 8K, one plane; two rounds.
B=.dev/bin
for round in 1 2; do
  for t in 1 2 4 8; do
    echo "== round $round tiles per group $t" | tee -a $OUT/tpg.txt
    WAVEKIT_DWT_TILES_PER_GROUP=$t $B/wavekit bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep "separate" | tee -a $OUT/tpg.txt
  done
done
for t in 1 4; do
  echo "== level 1, tiles per group $t" | tee -a $OUT/tpg.txt
  WAVEKIT_DWT_TILES_PER_GROUP=$t $B/wavekit bench dwt --sizes 4k --planes 1 --levels 1 --runs 30 2>/dev/null | grep "separate" | tee -a $OUT/tpg.txt
done
