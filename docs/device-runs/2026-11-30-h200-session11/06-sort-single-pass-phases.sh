#!/usr/bin/env bash
# Session 11, call 6: MEASURED NOTHING (the knob takes names, not numbers); see 07.
# with the measurement knob WAVEKIT_EXPERIMENT_SORT_SCATTER (1: no key stores, 2: no ranking
# either; wrong results), single pass (window 4) against three kernels.
B=".dev/bin/wavekit bench primitives --log2 28 --runs 10 --only sort_keys"
for e in 0 1 2; do
  echo "== three kernels experiment $e" >> $OUT/sort.txt
  WAVEKIT_EXPERIMENT_SORT_SCATTER=$e $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
  echo "== single pass experiment $e" >> $OUT/sort.txt
  WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=$e $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
done
cat $OUT/sort.txt
