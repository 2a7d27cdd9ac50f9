#!/bin/bash
# Issue 31, session 26, fourth call: throughput against size at the sizes a frame uses
# (2^10..2^24) for the scan, select, partition and both sorts with this session's defaults,
# CUB (graph) in the same call, as one plot (docs/benchmarks/small-sizes.svg).
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for p in primitives sort; do
  (cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 $p.cu -o /tmp/cub_$p) >> $R/nvcc.txt 2>&1
done
L="10 12 14 16 18 20 22 24"
/tmp/cub_primitives 20 $L > $R/cub-primitives.jsonl 2>&1
/tmp/cub_sort 20 $L > $R/cub-sort.jsonl 2>&1
cat $R/cub-primitives.jsonl $R/cub-sort.jsonl > $R/cub-all.jsonl
$W bench primitives --only scan_inclusive,select,partition,sort_keys,sort_pairs --log2 ${L// /,} \
  --runs 20 --rounds 1 --peer $R/cub-all.jsonl --plot $R/small-sizes.svg --save $R/wk.json > $R/wk.txt 2>&1
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/wk.txt $R/small-sizes.svg $R/cub-all.jsonl $R/gpu.txt $OUTDIR/
