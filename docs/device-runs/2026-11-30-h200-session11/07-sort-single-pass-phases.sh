#!/usr/bin/env bash
# Session 11, call 7 (call 6 passed the knob numbers it does not take, so it measured nothing):
# where the single pass's time goes (same binary as call 5): keys at 2^28
# with the measurement knob WAVEKIT_EXPERIMENT_SORT_SCATTER (stores: no key stores, ranking,stores: no ranking
# either; wrong results), single pass (window 4) against three kernels.
B=".dev/bin/wavekit bench primitives --log2 28 --runs 10 --only sort_keys"
for e in none stores ranking,stores; do
  echo "== three kernels experiment $e" >> $OUT/sort.txt
  WAVEKIT_EXPERIMENT_SORT_SCATTER=$e $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
  echo "== single pass experiment $e" >> $OUT/sort.txt
  WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_EXPERIMENT_SORT_SCATTER=$e $B 2>/dev/null | grep "sort_" >> $OUT/sort.txt
done
cat $OUT/sort.txt
