#!/usr/bin/env bash
# Session 13, call 8: rank_probe.cu again with a fourth ranking, CUB's atomicOr masks (each lane
# ORs its bit into its digit's mask in shared memory, __syncwarp, reads it; WGSL has no
# subgroup-scope barrier to do the same).
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v .dev/rank_probe.cu -o /tmp/rp > $OUT/ptxas.txt 2>&1; /tmp/rp > $OUT/rank-probe.txt 2>&1
/tmp/rp >> $OUT/rank-probe.txt 2>&1
cat $OUT/rank-probe.txt; grep -i "registers\|error" $OUT/ptxas.txt | head
