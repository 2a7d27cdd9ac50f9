#!/usr/bin/env bash
# Session 14, call 2: CUB's own kernels' registers and shared memory (cuobjdump), to set beside
# call 1's occupancy rules; the foundation tests (the occupancy probe's among them) at width 32.
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs
cuobjdump --dump-resource-usage /tmp/cubs > $OUT/cub-resources-raw.txt 2>&1
grep -B1 "REG:" $OUT/cub-resources-raw.txt | grep -A1 -i "onesweep\|Histogram\|Radix\|Exclusive" | c++filt | cut -c1-400 > $OUT/cub-resources.txt
nvidia-smi -q | grep -i -A3 "clocks\b" | head -20 > $OUT/smi.txt
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 .dev/tests/foundation_gpu > $OUT/foundation.txt 2>&1
tail -3 $OUT/foundation.txt; cat $OUT/cub-resources.txt | head -60
