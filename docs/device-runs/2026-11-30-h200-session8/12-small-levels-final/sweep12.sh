#!/usr/bin/env bash
# Session 8, twelfth call: small levels in tiles of half the rows (ADR-032) at the chosen
# threshold (a 4K plane) against never, 4K and 8K one plane, three interleaved rounds.
B=.dev/bin
for round in 1 2 3; do
  for t in 0 8294400; do
    echo "== round $round small up to $t" | tee -a $OUT/small-final.txt
    WAVEKIT_DWT_SMALL_SAMPLES=$t $B/wavekit bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep "separate\|8-bit" | tee -a $OUT/small-final.txt
  done
done
