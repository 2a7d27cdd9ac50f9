#!/usr/bin/env bash
# Session 9, call 9: the final main (ebd02e8): the test binaries its changes touch at width 32,
# `wavekit demo`, and the primitives at 2^16-2^28 with CUB in the same call.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in $(ls .dev/tests); do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/t.txt | tr '\n' ' ')" >> $OUT/run.txt
done
timeout 150 .dev/bin/wavekit demo > $OUT/t.txt 2>&1; echo "demo rc=$? $(tail -1 $OUT/t.txt)" >> $OUT/run.txt
rm -f $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 16 20 24 28 > $OUT/cub.jsonl
for round in 1 2; do
  echo "== round $round" >> $OUT/run.txt
  .dev/bin/wavekit bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl 2>/dev/null | grep -v "^\[" >> $OUT/run.txt
done
echo "== sizes" >> $OUT/run.txt
.dev/bin/wavekit bench primitives --log2 16 --log2 20 --log2 24 --runs 30 --peer $OUT/cub.jsonl 2>/dev/null | grep -v "^\[" >> $OUT/run.txt
cat $OUT/run.txt
