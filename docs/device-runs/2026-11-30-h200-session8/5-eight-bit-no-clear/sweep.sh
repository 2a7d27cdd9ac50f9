#!/usr/bin/env bash
# Session 8, fifth call: the 8-bit output without the clear (shared words: atomic AND of the
# writer's bytes, then OR). wavekit-prev = call 4's new binary (packed words, output cleared
# before the inverse). DWT tests at width 32, prev/new interleaved at 4K and 8K one plane, then
# the full table (all sizes, one and three planes) with the new binary.
B=.dev/bin
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 200 .dev/tests/dwt_gpu > $OUT/test-dwt_gpu.txt 2>&1; echo "dwt_gpu rc=$?"; grep "test result" $OUT/test-dwt_gpu.txt
for round in 1 2; do
  for v in prev new; do
    bin=$B/wavekit; [ $v = prev ] && bin=$B/wavekit-prev
    echo "== round $round $v" | tee -a $OUT/dwt.txt
    $bin bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep -v "^\[" | grep "separate\|8-bit" | tee -a $OUT/dwt.txt
  done
done
$B/wavekit bench dwt --runs 30 2>/dev/null | grep -v "^\[" > $OUT/dwt-all.txt
$B/wavekit bench dwt --runs 30 --json 2>/dev/null > $OUT/dwt-all.json
