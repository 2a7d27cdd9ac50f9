#!/bin/bash
# Issue 31, session 26, first call: select and partition clearing their own state (ADR-0089)
# against the clearing dispatch, and the small sort path (ADR-0090) against the radix passes,
# from 2^10 to 2^20 keys (select also at 2^24, its last self-clearing size), the same build
# through the knobs, two processes each, interleaved; CUB in the same call.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for p in primitives sort; do
  (cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 $p.cu -o /tmp/cub_$p) >> $R/nvcc.txt 2>&1
done
/tmp/cub_primitives 20 10 12 14 16 18 20 24 > $R/cub-primitives.jsonl 2>&1
/tmp/cub_sort 20 10 12 14 15 16 17 18 20 > $R/cub-sort.jsonl 2>&1
cat $R/cub-primitives.jsonl $R/cub-sort.jsonl > $R/cub-all.jsonl
S="--only select,partition --log2 10,12,14,16,18,20,24 --runs 20 --rounds 2 --peer $R/cub-all.jsonl"
T="--only sort_keys,sort_pairs --log2 10,12,14,15,16,17,18,20 --runs 20 --rounds 2 --peer $R/cub-all.jsonl"
for i in 1 2; do
  $W bench primitives $S > $R/select-self-$i.txt 2>&1
  WAVEKIT_SELECT_SELF_CLEAR_TILES=0 $W bench primitives $S > $R/select-dispatch-$i.txt 2>&1
  WAVEKIT_SORT_SMALL_UP_TO=16777216 $W bench primitives $T > $R/sort-small-$i.txt 2>&1
  WAVEKIT_SORT_SMALL_UP_TO=0 $W bench primitives $T > $R/sort-radix-$i.txt 2>&1
done
for f in $R/select-*.txt $R/sort-*.txt; do echo "== $f"; grep -E "^select|^partition|^sort|^outputs|^peer|check|MHz" $f; done > $R/summary.txt
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/summary.txt $R/cub-all.jsonl $R/gpu.txt $OUTDIR/
