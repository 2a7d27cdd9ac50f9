#!/bin/bash
# Issue 31, session 26, fifth call: the small path's tile sort with two barriers a pass (every
# invocation sums the subgroups' counts itself) against the build before it (the workgroup
# layer's scan of them, four barriers a pass: .dev/bin/wavekit-prev), the two builds
# interleaved, two processes each, at 2^10..2^16; CUB in the same call.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
(cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 sort.cu -o /tmp/cub_sort) >> $R/nvcc.txt 2>&1
/tmp/cub_sort 20 10 12 14 15 16 > $R/cub-sort.jsonl 2>&1
T="--only sort_keys,sort_pairs --log2 10,12,14,15,16 --runs 20 --rounds 2 --peer $R/cub-sort.jsonl"
for i in 1 2; do
  $W bench primitives $T > $R/two-barriers-$i.txt 2>&1
  .dev/bin/wavekit-prev bench primitives $T > $R/four-barriers-$i.txt 2>&1
done
for f in $R/*-barriers-*.txt; do echo "== $f"; grep -E "^sort|^outputs" $f; done > $R/summary.txt
cp $R/*.txt $R/cub-sort.jsonl $OUTDIR/
