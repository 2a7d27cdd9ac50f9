#!/bin/bash
# Issue 31, session 25: the first self-clearing scan (ADR-0087) against the clearing dispatch, in
# the same build through WAVEKIT_SCAN_SELF_CLEAR, two processes each, interleaved; every
# primitive against CUB with the outputs fingerprinted on both sides (wavekit's checked against
# the CPU reference, CUB's against wavekit's); the chain of four.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for p in primitives sort chain4; do
  (cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 $p.cu -o /tmp/cub_$p) >> $R/nvcc.txt 2>&1
done
/tmp/cub_primitives 30 16 20 24 28 > $R/cub-primitives.jsonl 2>&1
/tmp/cub_sort 30 16 20 24 28 > $R/cub-sort.jsonl 2>&1
/tmp/cub_chain4 30 16 20 > $R/cub-chain4.jsonl 2>&1
cat $R/cub-primitives.jsonl $R/cub-sort.jsonl $R/cub-chain4.jsonl > $R/cub-all.jsonl
S="--only scan_inclusive,scan_exclusive,select --log2 16,20,24,28 --runs 30 --rounds 3"
for i in 1 2; do
  WAVEKIT_SCAN_SELF_CLEAR=1 $W bench primitives $S --peer $R/cub-all.jsonl > $R/scan-self-$i.txt 2>&1
  WAVEKIT_SCAN_SELF_CLEAR=0 $W bench primitives $S --peer $R/cub-all.jsonl > $R/scan-dispatch-$i.txt 2>&1
done
$W bench primitives --only reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256 \
  --log2 16,20,24,28 --runs 20 --rounds 2 --peer $R/cub-all.jsonl --save $R/wk-all.json > $R/wk-all.txt 2>&1
$W bench primitives --only chain4 --log2 16,20 --runs 30 --rounds 2 --peer $R/cub-all.jsonl > $R/wk-chain4.txt 2>&1
for f in $R/scan-*.txt; do echo "== $f"; grep -E "^scan|^select|^outputs|^peer" $f; done > $R/summary.txt
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/summary.txt $R/wk-all.txt $R/wk-chain4.txt $R/cub-all.jsonl $OUTDIR/
