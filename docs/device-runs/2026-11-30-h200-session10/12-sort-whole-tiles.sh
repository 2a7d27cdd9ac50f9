#!/usr/bin/env bash
# Session 10, call 12: the sort's scatter on whole tiles without bound checks and without the
# ballot of valid lanes per key (wavekit) against 6673758 (wavekit-old), sort tests at width
# 32, CUB's radix sort in the same call; scatter registers.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in sort_gpu sort_modes_gpu; do timeout 150 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/test-$t.txt)" >> $OUT/tests.txt; done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
for b in wavekit wavekit-old; do WAVEKIT_DUMP_WGSL=/tmp/wg/$b .dev/bin/$b bench primitives --log2 16 --runs 2 --only sort_keys --only sort_pairs > /dev/null 2>&1; echo "## $b" >> $OUT/stats.txt; .dev/bin/kernel-stats /tmp/wg/$b 2>&1 | grep sort_scatter | cut -f1,5 | cut -c1-60 >> $OUT/stats.txt; done
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 20 24 28 > $OUT/cub-sort.jsonl
for round in 1 2; do
  for b in wavekit wavekit-old; do
    echo "== round $round $b" >> $OUT/sort.txt
    .dev/bin/$b bench primitives --log2 24 --log2 28 --runs 20 --only sort_keys --only sort_pairs --peer $OUT/cub-sort.jsonl 2>/dev/null | grep "sort_" >> $OUT/sort.txt
  done
done
cat $OUT/tests.txt $OUT/stats.txt $OUT/sort.txt
