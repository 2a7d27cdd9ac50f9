#!/usr/bin/env bash
# Session 10, call 3: select and partition ranked after the look-back (one keep bit per
# element live through it) and the scan's step offsets folded into its values (ADR-035),
# against the previous kernels (wavekit-old = ebf8675's kernels) in the same call, CUB
# beside; registers by kernel-stats; tests at width 32.
K=.dev/bin/kernel-stats
for b in wavekit wavekit-old; do
  WAVEKIT_DUMP_WGSL=/tmp/wg/$b .dev/bin/$b bench primitives --log2 16 --runs 2 > /dev/null 2>&1
  echo "## $b" >> $OUT/stats.txt; $K /tmp/wg/$b >> $OUT/stats.txt 2>&1
done
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in select_modes_gpu primitives_gpu fallback_gpu chunked_gpu; do
  timeout 200 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition|scan|copy" >> $OUT/sel.txt; }
for round in 1 2; do
  for b in wavekit wavekit-old; do
    run X=1 .dev/bin/$b bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition --only scan_inclusive --only scan_exclusive
  done
done
grep -E "^##|select_select|scan_scan" $OUT/stats.txt | awk '{print $1, $4, $5}'
cat $OUT/tests.txt $OUT/sel.txt
