#!/usr/bin/env bash
# Session 13, call 3: pairs with values in workgroup memory of their own while the stores stay
# unrolled (WAVEKIT_SORT_VALUE_SLOTS=1: keys and values placed and stored together, two
# barriers fewer) against values staged in the keys' memory after the keys have left (the
# default) and against the loop of stores with own slots (WAVEKIT_SORT_STORES_UNROLLED=0).
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 WAVEKIT_SORT_VALUE_SLOTS=1
for t in sort_gpu sort_modes_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "value slots $t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU WAVEKIT_SORT_VALUE_SLOTS
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "staged in keys' memory (default)" .dev/bin/wavekit
run "own value slots, unrolled" WAVEKIT_SORT_VALUE_SLOTS=1 .dev/bin/wavekit
run "own value slots, loop" WAVEKIT_SORT_STORES_UNROLLED=0 .dev/bin/wavekit
done
run "own value slots, unrolled, 512 x 8" WAVEKIT_SORT_VALUE_SLOTS=1 WAVEKIT_SORT_WORKGROUP=512 WAVEKIT_SORT_ITEMS=8 .dev/bin/wavekit
run "single pass default" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
run "single pass own value slots" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_VALUE_SLOTS=1 .dev/bin/wavekit
for m in 0 1; do
  WAVEKIT_SORT_VALUE_SLOTS=$m WAVEKIT_DUMP_WGSL=/tmp/wg/$m .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_pairs > /dev/null 2>&1
  echo "== value slots $m" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$m 2>&1 | grep -i scatter >> $OUT/regs.txt
done
cat $OUT/tests.txt $OUT/sort.txt $OUT/regs.txt
