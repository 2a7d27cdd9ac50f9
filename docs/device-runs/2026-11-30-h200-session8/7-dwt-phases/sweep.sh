#!/usr/bin/env bash
# Session 8, seventh call: where a DWT level's time goes (measurement-only patch
# dwt-phases.patch, WAVEKIT_DWT_EXP bits: 1 no horizontal lifting, 2 no stores (kept alive by a
# never-true test), 4 no vertical lifting). Levels 1 and 5, 4K and 8K, one plane.
B=.dev/bin
for levels in 1 5; do
  for e in 0 1 4 5 2 3 7; do
    echo "== levels $levels exp $e" | tee -a $OUT/phases.txt
    WAVEKIT_DWT_EXP=$e $B/wavekit bench dwt --sizes 4k --sizes 8k --planes 1 --levels $levels --runs 30 --json 2>/dev/null > $OUT/phases-l$levels-e$e.json
    python3 -c "
import json,sys
for r in json.load(open('$OUT/phases-l$levels-e$e.json'))['results']:
    print(r['size'], r['wavelet'], r['direction'], r['binding'], round(r['median_ns']/1000,1), round(r['copy_gbps'],0))
" | tee -a $OUT/phases.txt
  done
done
