#!/usr/bin/env bash
# Session 13, call 12: call 6's padded scatters again, with kernel-stats --consts to tie each
# register count to its pipeline: 2^28 keys run the pipeline with INLINE_BLOCKS=0 (2048 blocks
# of tiles need the scan), WINDOWS=1, VALUES=0. Zeroing off throughout.
export WAVEKIT_ZERO_WORKGROUP_MEMORY=0
S="bench primitives --log2 28 --runs 10 --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
.dev/bin/wavekit $S > /dev/null 2>&1
for round in 1 2; do
for p in 0 128 256 512; do
run "pad $p words" WAVEKIT_EXPERIMENT_SORT_PAD=$p .dev/bin/wavekit
done
done
for p in 0 128 256 512; do
  WAVEKIT_EXPERIMENT_SORT_PAD=$p WAVEKIT_DUMP_WGSL=/tmp/wg/$p .dev/bin/wavekit $S > /dev/null 2>&1
  echo "== pad $p" >> $OUT/regs.txt; .dev/bin/kernel-stats --consts INLINE_BLOCKS,WINDOWS,VALUES,EXPERIMENT_PAD_WORDS /tmp/wg/$p 2>&1 | grep -i scatter | sed 's/Local_Memory_Size=[0-9]* //' >> $OUT/regs.txt
done
cat $OUT/sort.txt $OUT/regs.txt
