#!/bin/bash
# Issue 31, session 26, third call: the small sort path with the merge searching windows of
# the other tiles in workgroup memory (ADR-0090) against the radix passes at 2^10..2^18, two
# processes each, interleaved; the chain of four; what the driver made of the small path's
# kernels (registers, spills: kernel-stats); CUB in the same call.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for p in sort chain4; do
  (cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 $p.cu -o /tmp/cub_$p) >> $R/nvcc.txt 2>&1
done
/tmp/cub_sort 20 10 12 14 15 16 17 18 > $R/cub-sort.jsonl 2>&1
/tmp/cub_chain4 20 16 20 > $R/cub-chain4.jsonl 2>&1
cat $R/cub-sort.jsonl $R/cub-chain4.jsonl > $R/cub-all.jsonl
T="--only sort_keys,sort_pairs --log2 10,12,14,15,16,17,18 --runs 20 --rounds 2 --peer $R/cub-all.jsonl"
for i in 1 2; do
  WAVEKIT_SORT_SMALL_UP_TO=16777216 $W bench primitives $T > $R/sort-small-$i.txt 2>&1
  WAVEKIT_SORT_SMALL_UP_TO=0 $W bench primitives $T > $R/sort-radix-$i.txt 2>&1
done
$W bench primitives --only chain4 --log2 16,20 --runs 20 --rounds 2 --peer $R/cub-all.jsonl > $R/wk-chain4.txt 2>&1
WAVEKIT_DUMP_WGSL=$R/wgsl WAVEKIT_SORT_SMALL_UP_TO=16777216 $W bench primitives --only sort_keys,sort_pairs --log2 14 --runs 2 > /dev/null 2>&1
.dev/bin/kernel-stats --consts KEY_WORDS,VALUES,ITEMS,WG_SIZE $R/wgsl > $R/kernel-stats.txt 2>&1
for f in $R/sort-*.txt $R/wk-chain4.txt; do echo "== $f"; grep -E "^sort|^chain|check|MHz|^outputs" $f; done > $R/summary.txt
grep -E "tile_sort|merge" $R/kernel-stats.txt >> $R/summary.txt
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/summary.txt $R/cub-all.jsonl $R/gpu.txt $R/kernel-stats.txt $OUTDIR/
