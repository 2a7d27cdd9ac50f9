#!/usr/bin/env bash
# Session 9, call 8: partition staging both sides with one barrier pair per batch; tests at
# width 32 with select staged (its default) and with partition staged too.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for st in default 16; do
  for t in primitives_gpu fallback_gpu chunked_gpu; do
    if [ $st = default ]; then timeout 100 .dev/tests/$t > $OUT/t.txt 2>&1; else WAVEKIT_SELECT_STAGE_STEPS=$st timeout 100 .dev/tests/$t > $OUT/t.txt 2>&1; fi
    echo "$t stage=$st rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/ko.txt
  done
done
WAVEKIT_SELECT_STAGE_STEPS=16 WAVEKIT_LARGE_TESTS=1 timeout 200 .dev/tests/large_gpu select_and_partition > $OUT/t.txt 2>&1; echo "large select stage=16 rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/ko.txt
rm -f $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 16 20 24 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit-x bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition"
run() { echo "== $*" >> $OUT/ko.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "^(select|partition)" >> $OUT/ko.txt; }
for round in 1 2; do
  for st in 0 4 8 16; do run WAVEKIT_SELECT_STAGE_STEPS=$st $B; done
done
run X=1 .dev/bin/wavekit-x bench primitives --log2 16 --log2 20 --log2 24 --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition
cat $OUT/ko.txt
