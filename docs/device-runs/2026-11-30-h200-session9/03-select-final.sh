#!/usr/bin/env bash
# Session 9, call 3: select and partition as committed (bf274d1: one element per lane and
# step, tiles of 8192), tests at width 32, the table 2^16..2^28 with CUB in the same call,
# workgroup shapes, and WAVEKIT_TILE_STEPS=12 again (now an error, not a lost device).
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in primitives_gpu fallback_gpu chunked_gpu foundation_gpu; do
  timeout 120 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" | tee -a $OUT/tests.txt
done
WAVEKIT_LARGE_TESTS=1 timeout 200 .dev/tests/large_gpu select_and_partition > $OUT/test-large.txt 2>&1; echo "large_gpu select rc=$? $(grep 'test result' $OUT/test-large.txt)" | tee -a $OUT/tests.txt
WAVEKIT_TILE_STEPS=12 timeout 60 .dev/tests/fallback_gpu > $OUT/test-steps12.txt 2>&1; echo "fallback_gpu steps 12 rc=$? $(grep -m1 -o 'workgroup memory[^\"]*' $OUT/test-steps12.txt | head -1)" | tee -a $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 16 20 24 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit bench primitives --runs 30 --peer $OUT/cub.jsonl"
run() { echo "== $*" >> $OUT/sel.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "select|partition|copy" >> $OUT/sel.txt; }
run X=1 $B --log2 16 --log2 20 --log2 24 --log2 28 --only select --only partition
for round in 1 2; do
  run X=1 $B --log2 28 --only select --only partition
  run WAVEKIT_TILE_WORKGROUP=512 WAVEKIT_TILE_STEPS=4 $B --log2 28 --only select --only partition
  run WAVEKIT_TILE_WORKGROUP=512 WAVEKIT_TILE_STEPS=8 $B --log2 28 --only select --only partition
  run WAVEKIT_TILE_WORKGROUP=128 WAVEKIT_TILE_STEPS=8 $B --log2 28 --only select --only partition
done
cat $OUT/tests.txt $OUT/sel.txt
