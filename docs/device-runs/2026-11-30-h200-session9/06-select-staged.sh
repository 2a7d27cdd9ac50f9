#!/usr/bin/env bash
# Session 9, call 6: select and partition storing through workgroup memory in aligned runs
# (WAVEKIT_SELECT_STAGE_STEPS = batch of steps staged; 0 = from registers as committed).
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for st in 8 32; do WAVEKIT_SELECT_STAGE_STEPS=$st timeout 100 .dev/tests/primitives_gpu-x select > $OUT/test-staged-$st.txt 2>&1; echo "primitives select, staged $st: rc=$? $(grep 'test result' $OUT/test-staged-$st.txt)" >> $OUT/ko.txt; done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
nvcc -O3 -std=c++17 -arch=sm_90 .dev/primitives.cu -o /tmp/cubp && /tmp/cubp 30 28 > $OUT/cub.jsonl
B=".dev/bin/wavekit-x bench primitives --log2 28 --runs 30 --peer $OUT/cub.jsonl --only select --only partition"
run() { echo "== $*" >> $OUT/ko.txt; env "$@" 2>/dev/null | grep -v "^\[" | grep -E "^(select|partition)" >> $OUT/ko.txt; }
for round in 1 2; do
  for st in 0 2 4 8 16 32; do run WAVEKIT_SELECT_STAGE_STEPS=$st $B; done
done
run WAVEKIT_SELECT_STAGE_STEPS=8 WAVEKIT_TILE_STEPS=4 $B
run WAVEKIT_SELECT_STAGE_STEPS=4 WAVEKIT_TILE_STEPS=4 $B
run WAVEKIT_SELECT_STAGE_STEPS=8 WAVEKIT_EXPERIMENT_NO_LOOKBACK=1 $B
cat $OUT/ko.txt
