#!/usr/bin/env bash
# Session 14, call 8: every GPU test binary of the final main (05bcb3d) at subgroup width 32.
tar -C .dev -xJf .dev/tests.tar.xz
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in .dev/tests/*; do
  n=$(basename $t)
  $t > $OUT/$n.txt 2>&1; echo "$n rc=$? $(grep 'test result' $OUT/$n.txt | tail -n 1)" | tee -a $OUT/summary.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 .dev/tests/sort_gpu > $OUT/sort_gpu-single-pass.txt 2>&1; echo "sort_gpu single pass rc=$? $(grep 'test result' $OUT/sort_gpu-single-pass.txt | tail -n 1)" | tee -a $OUT/summary.txt
