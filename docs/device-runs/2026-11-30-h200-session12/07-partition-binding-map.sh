#!/usr/bin/env bash
# Session 12, call 7 (call 6 with the binding map fixed: wgpu numbers Vulkan bindings 0, 1, 2 …): is it the partition instruction or the passthrough path? The scatter
# through patched SPIR-V with ballots (WAVEKIT_SORT_RANK=passthrough-ballots: same SPIR-V path,
# no partition) against the wgpu path (ballots) and the partition; sort_gpu at width 32 for each.
export WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1
for r in passthrough-ballots partition ballots; do
  WAVEKIT_SORT_RANK=$r timeout 150 .dev/tests/sort_gpu > $OUT/t-$r.txt 2>&1; echo "sort_gpu $r rc=$? $(grep 'test result' $OUT/t-$r.txt)" >> $OUT/tests.txt
done
unset WAVEKIT_EXPECT_SUBGROUP WAVEKIT_REQUIRE_GPU
S="bench primitives --log2 24 --log2 28 --runs 10 --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
.dev/bin/wavekit $S > /dev/null 2>&1
for round in 1 2; do
run "ballots (wgpu path)" WAVEKIT_SORT_RANK=ballots .dev/bin/wavekit
run "ballots through the passthrough path" WAVEKIT_SORT_RANK=passthrough-ballots .dev/bin/wavekit
run "partition" .dev/bin/wavekit
done
cat $OUT/tests.txt $OUT/sort.txt
