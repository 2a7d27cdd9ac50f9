#!/usr/bin/env bash
# Session 11, call 3: the scan's direct layout with part of each tile parked in workgroup
# memory (ADR-037 candidate): WAVEKIT_SCAN_PARK quads per invocation on top of the
# registers' steps (WAVEKIT_TILE_STEPS), registers per variant, tests at width 32.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in primitives_gpu fallback_gpu chunked_gpu; do
  timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
for p in 0 10; do
  WAVEKIT_SCAN_PARK=$p WAVEKIT_DUMP_WGSL=/tmp/wg$p .dev/bin/wavekit bench primitives --log2 16 --runs 2 --only scan_inclusive > /dev/null 2>&1
  .dev/bin/kernel-stats /tmp/wg$p > $OUT/stats-park$p.txt 2>&1
done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28 --only scan_inclusive --only scan_exclusive"
for r in 1 2; do
  for v in "10 0" "10 6" "10 8" "10 10" "10 11" "8 8" "8 11" "7 11"; do
    set -- $v
    echo "== steps $1 park $2 round $r" >> $OUT/run.txt
    WAVEKIT_TILE_STEPS=$1 WAVEKIT_SCAN_PARK=$2 $B 2>&1 | grep scan_ >> $OUT/run.txt
  done
done
cat $OUT/tests.txt; cat $OUT/run.txt; grep -h "scan_scan" $OUT/stats-park*.txt | cut -c1-100
