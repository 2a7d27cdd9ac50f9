#!/usr/bin/env bash
# Session 11, call 1: tiles by workgroup index (WAVEKIT_TILE_ORDER=id) against tiles claimed
# from the atomic counter (the default), for the look-back kernels (scan, select, partition);
# correctness at width 32 with id first, then two interleaved rounds at 2^28, CUB in the call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in ; do
  WAVEKIT_TILE_ORDER=id timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl --log2 28"
for r in 1 2; do
  for o in counter id; do echo "== order $o round $r" >> $OUT/run.txt; WAVEKIT_TILE_ORDER=$o $B >> $OUT/run.txt 2>&1; done
done
cat $OUT/tests.txt; grep -v "^\[" $OUT/run.txt
