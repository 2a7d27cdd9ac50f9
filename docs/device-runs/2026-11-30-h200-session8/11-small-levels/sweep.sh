#!/usr/bin/env bash
# Session 8, eleventh call: DWT small levels in tiles of half the rows (ADR-032), by threshold
# (WAVEKIT_DWT_SMALL_SAMPLES: regions of all planes up to this many samples use 128 x 4 x 2):
# 0 = never (the previous default), 2073600 (1080p), 8294400 (4K), 24883200 (4K x 3),
# 33177600 (8K). All sizes, one and three planes, separate and 8-bit rows.
B=.dev/bin
for round in 1 2; do
  for t in 0 2073600 8294400 24883200 33177600; do
    echo "== round $round small up to $t" | tee -a $OUT/small.txt
    WAVEKIT_DWT_SMALL_SAMPLES=$t $B/wavekit bench dwt --runs 30 2>/dev/null | grep "separate\|8-bit" | tee -a $OUT/small.txt
  done
done
