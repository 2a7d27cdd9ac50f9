#!/usr/bin/env bash
# Session 13, call 1: the scatter's ranking in phases (WAVEKIT_SORT_RANK=phased: every step's
# ballots, then every step's counter update, then every step's shuffle) against the chained
# ranking, same binary; tests at width 32 with phased first; registers of both.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 WAVEKIT_SORT_RANK=phased
for t in sort_gpu sort_modes_gpu fallback_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "phased $t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "phased sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU WAVEKIT_SORT_RANK
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "chained" .dev/bin/wavekit
run "phased" WAVEKIT_SORT_RANK=phased .dev/bin/wavekit
done
run "single pass chained" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
run "single pass phased" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_RANK=phased .dev/bin/wavekit
for m in chained phased; do
  WAVEKIT_SORT_RANK=$m WAVEKIT_DUMP_WGSL=/tmp/wg/$m .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "== $m" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$m 2>&1 | grep -i scatter >> $OUT/regs.txt
done
cat $OUT/tests.txt $OUT/sort.txt $OUT/regs.txt
