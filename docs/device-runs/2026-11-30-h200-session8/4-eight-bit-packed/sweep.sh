#!/usr/bin/env bash
# Session 8, fourth call: the 8-bit inverse writes whole words (packed in workgroup memory)
# instead of an atomic OR per byte. wavekit-prev = call 3's binary. DWT tests at width 32, then
# prev and new interleaved, 4K and 8K one plane.
B=.dev/bin
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 200 .dev/tests/dwt_gpu > $OUT/test-dwt_gpu.txt 2>&1; echo "dwt_gpu rc=$?"; grep "test result" $OUT/test-dwt_gpu.txt
for round in 1 2; do
  for v in prev new; do
    bin=$B/wavekit; [ $v = prev ] && bin=$B/wavekit-prev
    echo "== round $round $v" | tee -a $OUT/dwt.txt
    $bin bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep -v "^\[" | grep "separate\|8-bit" | tee -a $OUT/dwt.txt
  done
done
