#!/usr/bin/env bash
# Session 14, call 6: the copy kernel's speed at the wavelet's sizes (a 4K plane of i32 is
# 33 177 600 bytes; its five levels move 88 MB), wavekit's WGSL copy kernel against CUDA's
# memcpy and a CUDA copy kernel of the same shape, two rounds; and the 4K transform once more.
W=.dev/bin/wavekit
B=8294400,16588800,33177600,66355200,1073741824
nvcc -O3 -std=c++17 -arch=sm_90 -I.dev .dev/copy.cu -o /tmp/copy
for r in 1 2; do
  echo "== round $r" >> $OUT/copy.txt
  $W bench copy --bytes $B --runs 50 2>/dev/null >> $OUT/copy.txt
  /tmp/copy 50 ${B//,/ } >> $OUT/cuda-copy.jsonl
done
$W bench dwt --sizes 4k --planes 1 --runs 30 2>/dev/null > $OUT/dwt.txt
cat $OUT/copy.txt $OUT/cuda-copy.jsonl $OUT/dwt.txt
