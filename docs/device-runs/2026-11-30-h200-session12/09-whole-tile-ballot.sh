#!/usr/bin/env bash
# Session 12, call 9: the scatter without the validity ballot in whole tiles (alone, without
# call 2's packing) against the main (e262ba7); sort tests at width 32 first.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu sort_modes_gpu; do
  timeout 120 .dev/tests/$t > $OUT/t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
done
WAVEKIT_SORT_SINGLE_PASS=1 timeout 120 .dev/tests/sort_gpu > $OUT/t.txt 2>&1; echo "sort_gpu single pass rc=$? $(grep 'test result' $OUT/t.txt)" >> $OUT/tests.txt
rm $OUT/t.txt
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
S="bench primitives --log2 24 --log2 28 --runs 10 --only sort_keys --only sort_pairs"
.dev/bin/wavekit-main $S > /dev/null 2>&1
for round in 1 2; do
  for b in wavekit-main wavekit; do echo "== $b" >> $OUT/sort.txt; .dev/bin/$b $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; done
done
cat $OUT/tests.txt $OUT/sort.txt
