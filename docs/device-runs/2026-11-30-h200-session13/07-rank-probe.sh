#!/usr/bin/env bash
# Session 13, call 7: the cost of ranking by ballots in CUDA on the same GPU (rank_probe.cu:
# no ranking / the scatter's ballots / __match_any_sync, 2^28 keys made from their index), next
# to the WGSL scatter's ranking by knock-out (no final stores; no ranking either) at 2^28.
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v .dev/rank_probe.cu -o /tmp/rp > $OUT/ptxas.txt 2>&1; /tmp/rp > $OUT/rank-probe.txt 2>&1
/tmp/rp >> $OUT/rank-probe.txt 2>&1
S="bench primitives --log2 28 --runs 10 --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
.dev/bin/wavekit $S > /dev/null 2>&1
for round in 1 2; do
run "as it is" .dev/bin/wavekit
run "no final stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=stores .dev/bin/wavekit
run "no ranking, no final stores" WAVEKIT_EXPERIMENT_SORT_SCATTER=ranking,stores .dev/bin/wavekit
done
cat $OUT/rank-probe.txt $OUT/sort.txt; grep -i "registers\|error" $OUT/ptxas.txt | head
