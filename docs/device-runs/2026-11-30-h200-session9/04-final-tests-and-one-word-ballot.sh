#!/usr/bin/env bash
# Session 9, call 4: every test binary of 02d0b5a at width 32 and `wavekit demo`; select and
# partition with the ballot counted in one word where the subgroup has at most 32 lanes
# (wavekit-fast, /tmp/fast.patch) against 02d0b5a's kernel, interleaved; the primitives table
# at 2^28 with CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in $(ls .dev/tests); do
  timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt | tr '\n' ' ')" >> $OUT/tests.txt
done
timeout 150 .dev/bin/wavekit demo > $OUT/demo.txt 2>&1; echo "demo rc=$?" >> $OUT/tests.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
run() { echo "== $*" >> $OUT/bench.txt; "$@" 2>/dev/null | grep -v "^\[" | grep -E "^(select|partition|reduce|scan|copy)" >> $OUT/bench.txt; }
for round in 1 2 3; do
  run .dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition
  run .dev/bin/wavekit-fast bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition
done
run .dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl
cat $OUT/tests.txt $OUT/bench.txt
