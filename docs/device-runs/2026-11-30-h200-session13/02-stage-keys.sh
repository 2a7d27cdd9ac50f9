#!/usr/bin/env bash
# Session 13, call 2: the scatter's keys (and values) staged in workgroup memory during the
# ranking, digits packed four to a register (WAVEKIT_SORT_STAGE_KEYS=1) against keys in
# registers, same binary; tests at width 32 with staging first; registers of both; staged
# with more keys an invocation.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 WAVEKIT_SORT_STAGE_KEYS=1
for t in sort_gpu sort_modes_gpu fallback_gpu; do
  timeout 150 .dev/tests/$t > $OUT/t.txt 2>&1; echo "staged $t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 150 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "staged sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU WAVEKIT_SORT_STAGE_KEYS
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 24 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 24 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
for round in 1 2; do
run "registers" .dev/bin/wavekit
run "staged" WAVEKIT_SORT_STAGE_KEYS=1 .dev/bin/wavekit
done
run "staged, 20 keys" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_ITEMS=20 .dev/bin/wavekit
run "staged, 24 keys" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_ITEMS=24 .dev/bin/wavekit
run "staged, 12 keys" WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_ITEMS=12 .dev/bin/wavekit
run "single pass registers" WAVEKIT_SORT_SINGLE_PASS=1 .dev/bin/wavekit
run "single pass staged" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_STAGE_KEYS=1 .dev/bin/wavekit
run "single pass staged, 16 keys" WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_STAGE_KEYS=1 WAVEKIT_SORT_ITEMS=16 .dev/bin/wavekit
for m in 0 1; do
  WAVEKIT_SORT_STAGE_KEYS=$m WAVEKIT_DUMP_WGSL=/tmp/wg/$m .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
  WAVEKIT_SORT_SINGLE_PASS=1 WAVEKIT_SORT_STAGE_KEYS=$m WAVEKIT_DUMP_WGSL=/tmp/wg/$m .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "== stage $m" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$m 2>&1 | grep -i scatter >> $OUT/regs.txt
done
cat $OUT/tests.txt $OUT/sort.txt $OUT/regs.txt
