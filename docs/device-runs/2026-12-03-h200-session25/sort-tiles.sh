#!/bin/bash
# Issue 31, session 25: the sort's tile at the sizes a frame uses. The same release build run
# with each (workgroup, keys an invocation) through the sort's knobs, three kernels and the
# single pass, at 2^12..2^22; CUB's sort at the same sizes in the same call.
set -u
. "$(dirname "$0")/setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
(cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 sort.cu -o /tmp/cub_sort) > $R/nvcc.txt 2>&1
/tmp/cub_sort 30 12 14 16 18 20 22 > $R/cub-sort.jsonl 2>&1
S="--only sort_keys,sort_pairs --log2 12,14,16,18,20,22 --runs 20 --rounds 2"
for c in 256:16 256:8 256:4 128:8 128:4 64:8 64:4 256:2 256:1 128:2 64:2; do
  wg=${c%:*}; it=${c#*:}
  WAVEKIT_SORT_WORKGROUP=$wg WAVEKIT_SORT_ITEMS=$it $W bench primitives $S > $R/three-$wg-$it.txt 2>&1
done
for c in 256:12 128:8 64:8; do
  wg=${c%:*}; it=${c#*:}
  WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_WORKGROUP=$wg WAVEKIT_SORT_ITEMS=$it $W bench primitives $S > $R/single-$wg-$it.txt 2>&1
done
/tmp/cub_sort 30 12 14 16 18 20 22 > $R/cub-sort-2.jsonl 2>&1
for f in $R/three-*.txt $R/single-*.txt; do echo "== $f"; grep -E "sort" $f | head -20; done > $R/summary.txt
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/summary.txt $R/cub-sort.jsonl $R/cub-sort-2.jsonl $R/three-256-16.txt $OUTDIR/
