#!/usr/bin/env bash
# Session 13, call 9: rank_probe.cu with atomicOr masks and block barriers (__syncthreads, what WGSL has), in
# blocks of 256 and of one warp; ballots in blocks of one warp.

nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v .dev/rank_probe.cu -o /tmp/rp > $OUT/ptxas.txt 2>&1; /tmp/rp > $OUT/rank-probe.txt 2>&1
/tmp/rp >> $OUT/rank-probe.txt 2>&1
cat $OUT/rank-probe.txt; grep -i "registers\|error" $OUT/ptxas.txt | head
