#!/usr/bin/env bash
# Session 8, third call: the 8-bit binding (Dwt::bind_u8): DWT tests at width 32, then 4K and 8K
# one plane, two rounds (separate, in place and 8-bit rows from the same run).
B=.dev/bin
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 200 .dev/tests/dwt_gpu > $OUT/test-dwt_gpu.txt 2>&1; echo "dwt_gpu rc=$?"; grep "test result" $OUT/test-dwt_gpu.txt
for round in 1 2; do
  echo "== round $round" | tee -a $OUT/dwt.txt
  $B/wavekit bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep -v "^\[" | tee -a $OUT/dwt.txt
done
