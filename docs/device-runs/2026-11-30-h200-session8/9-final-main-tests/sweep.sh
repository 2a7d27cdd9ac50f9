#!/usr/bin/env bash
# Session 8, ninth call: the final main's GPU tests at width 32 (the binaries this session's
# changes touch: sort, sort modes, forced fallbacks, chunked, DWT, foundation) and `wavekit demo`.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in foundation_gpu sort_gpu sort_modes_gpu fallback_gpu chunked_gpu dwt_gpu; do
  timeout 300 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" | tee -a $OUT/tests.txt
done
timeout 300 .dev/bin/wavekit demo > $OUT/demo.txt 2>&1; echo "demo rc=$?" | tee -a $OUT/tests.txt
tail -5 $OUT/demo.txt
