#!/usr/bin/env bash
# Session 8, first call: the fused DWT schedule (ADR-029). Tests at width 32 first, then old (per
# level, plain scratch), new fused, new per level (atomic scratch) interleaved, 4K and 8K, one
# plane, then the level breakdown at 4K.
B=.dev/bin
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for t in dwt_gpu dwt_fallback_gpu; do
  timeout 200 .dev/tests/$t > $OUT/test-$t.txt 2>&1; echo "$t rc=$?" | tee -a $OUT/tests.txt
  tail -3 $OUT/test-$t.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
for round in 1 2; do
  for v in old fused perlevel; do
    case $v in
      old) bin=$B/wavekit-old; env=;;
      fused) bin=$B/wavekit; env="WAVEKIT_DWT_FUSED=1";;
      perlevel) bin=$B/wavekit; env="WAVEKIT_DWT_FUSED=0";;
    esac
    echo "== round $round $v" | tee -a $OUT/dwt.txt
    env $env $bin bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep -v "^\[" | grep separate | tee -a $OUT/dwt.txt
  done
done
for v in fused perlevel; do
  for l in 1 2 3 4; do
    echo "== levels $l $v" | tee -a $OUT/levels.txt
    env WAVEKIT_DWT_FUSED=$([ $v = fused ] && echo 1 || echo 0) $B/wavekit bench dwt --sizes 4k --planes 1 --levels $l --runs 30 2>/dev/null | grep separate | tee -a $OUT/levels.txt
  done
done
