#!/usr/bin/env bash
# Session 8, second call: where the fused schedule's time goes. Measurement knobs
# (WAVEKIT_DWT_EXPERIMENT): noclaim (work item = workgroup id), nobarrier (no storage barriers
# around a fused tile), coherent (@coherent plain scratch instead of atomics). Per level now
# uses plain scratch again.
B=.dev/bin
run() { # name bin env...
  local name=$1 bin=$2; shift 2
  echo "== $name" | tee -a $OUT/dwt.txt
  env "$@" $bin bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30 2>/dev/null | grep separate | tee -a $OUT/dwt.txt
}
for round in 1 2; do
  run "r$round old" $B/wavekit-old X=1
  run "r$round perlevel" $B/wavekit WAVEKIT_DWT_FUSED=0
  run "r$round fused" $B/wavekit WAVEKIT_DWT_FUSED=1
  run "r$round fused coherent" $B/wavekit WAVEKIT_DWT_FUSED=1 WAVEKIT_DWT_EXPERIMENT=coherent
  run "r$round fused noclaim" $B/wavekit WAVEKIT_DWT_FUSED=1 WAVEKIT_DWT_EXPERIMENT=noclaim
  run "r$round fused nobarrier" $B/wavekit WAVEKIT_DWT_FUSED=1 WAVEKIT_DWT_EXPERIMENT=nobarrier
  run "r$round fused all three" $B/wavekit WAVEKIT_DWT_FUSED=1 WAVEKIT_DWT_EXPERIMENT=coherent,noclaim,nobarrier
done
for e in "" coherent,noclaim,nobarrier; do
  echo "== levels 1 fused [$e]" | tee -a $OUT/levels1.txt
  env WAVEKIT_DWT_FUSED=1 WAVEKIT_DWT_EXPERIMENT=$e $B/wavekit bench dwt --sizes 4k --planes 1 --levels 1 --runs 30 2>/dev/null | grep separate | tee -a $OUT/levels1.txt
done
echo "== levels 1 perlevel" | tee -a $OUT/levels1.txt
env WAVEKIT_DWT_FUSED=0 $B/wavekit bench dwt --sizes 4k --planes 1 --levels 1 --runs 30 2>/dev/null | grep separate | tee -a $OUT/levels1.txt
