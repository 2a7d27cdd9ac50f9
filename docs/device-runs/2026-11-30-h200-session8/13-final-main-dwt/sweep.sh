#!/usr/bin/env bash
# Session 8, thirteenth call: the final main (8d2009e): DWT tests at width 32, `wavekit demo`,
# and the DWT table at 4K and 8K, one and three planes.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
timeout 300 .dev/tests/dwt_gpu > $OUT/test-dwt_gpu.txt 2>&1; echo "dwt_gpu rc=$? $(grep 'test result' $OUT/test-dwt_gpu.txt)" | tee -a $OUT/tests.txt
timeout 300 .dev/bin/wavekit demo > $OUT/demo.txt 2>&1; echo "demo rc=$?" | tee -a $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
for round in 1 2; do
  echo "== round $round" >> $OUT/dwt.txt
  .dev/bin/wavekit bench dwt --sizes 4k --sizes 8k --runs 30 2>/dev/null | grep -v "^\[" >> $OUT/dwt.txt
done
