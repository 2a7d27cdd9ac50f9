#!/usr/bin/env bash
# Session 14, call 5: what a dependent dispatch costs. `wavekit bench chain` (0 to 8 dependent
# dispatches of a trivial kernel in one compute pass, 1 to 8448 workgroups of 256 each), two
# rounds; the CUDA peer (peer/cuda/chain.cu: the same kernel launched in one stream, and as one
# CUDA graph); the wavelet transform at 4K with 1 to 5 levels, to set its per-level cost beside
# the chain's.
W=.dev/bin/wavekit
for r in 1 2; do
  echo "== round $r" >> $OUT/chain.txt
  $W bench chain --workgroups 1,18,132,1056,8448 --dispatches 8 --runs 50 >> $OUT/chain.txt 2>/dev/null
done
nvcc -O3 -std=c++17 -arch=sm_90 -I.dev .dev/chain.cu -o /tmp/chain && /tmp/chain 50 8 1 18 132 1056 8448 > $OUT/cuda-chain.jsonl
for r in 1 2; do
  for l in 1 2 3 4 5; do
    echo "== levels $l" >> $OUT/dwt.txt
    $W bench dwt --sizes 4k --planes 1 --levels $l --runs 30 2>/dev/null >> $OUT/dwt.txt
  done
done
cat $OUT/chain.txt $OUT/cuda-chain.jsonl; grep -i "4k\|==" $OUT/dwt.txt | head -80
