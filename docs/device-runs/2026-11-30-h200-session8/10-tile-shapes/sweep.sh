#!/usr/bin/env bash
# Session 8, tenth call: DWT tile shapes again on the final kernel (WAVEKIT_DWT_TILE =
# COLUMNSxROWSxSEGMENTS), 4K and 8K, one plane, separate; two rounds.
B=.dev/bin
for round in 1 2; do
  for t in 128x8x2 128x6x2 128x4x2 128x6x4 128x4x4 64x6x4 256x6x1; do
    echo "== round $round tile $t" | tee -a $OUT/shapes.txt
    WAVEKIT_DWT_TILE=$t $B/wavekit bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep "separate" | tee -a $OUT/shapes.txt
  done
done
