#!/usr/bin/env bash
# Session 14, call 7: the timer's two ways of bracketing a run — timestamps written between
# passes (new default where the device can) and empty marker passes (WAVEKIT_TIMER=markers, as
# before) — on the dispatch chain, the copy kernel, the 4K wavelet transform and the sort at
# 2^16 and 2^28 (CUB in the call), two interleaved rounds; the foundation and sort tests at width 32.
W=.dev/bin/wavekit
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 16 28 > $OUT/cub-sort.jsonl
for r in 1 2; do
  for t in markers encoder; do
    echo "== $t round $r" | tee -a $OUT/chain.txt $OUT/copy.txt $OUT/dwt.txt $OUT/sort.txt > /dev/null
    WAVEKIT_TIMER=$t $W bench chain --workgroups 1,1056 --dispatches 3 --runs 50 2>/dev/null >> $OUT/chain.txt
    WAVEKIT_TIMER=$t $W bench copy --bytes 8294400,33177600,1073741824 --runs 50 2>/dev/null >> $OUT/copy.txt
    WAVEKIT_TIMER=$t $W bench dwt --sizes 4k --planes 1 --runs 30 2>/dev/null | grep separate >> $OUT/dwt.txt
    WAVEKIT_TIMER=$t $W bench primitives --log2 16 --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs 2>/dev/null | grep sort_ >> $OUT/sort.txt
  done
done
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 .dev/tests/foundation_gpu > $OUT/foundation.txt 2>&1
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 .dev/tests/sort_gpu > $OUT/sort-tests.txt 2>&1
tail -2 $OUT/foundation.txt $OUT/sort-tests.txt
cat $OUT/chain.txt $OUT/copy.txt $OUT/dwt.txt $OUT/sort.txt
