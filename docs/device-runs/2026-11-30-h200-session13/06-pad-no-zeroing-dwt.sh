#!/usr/bin/env bash
# Session 13, call 6: (a) call 5's padded scatters again without WebGPU's zeroing of workgroup
# memory (its code for the pad changed the registers), to tell workgroup memory from registers;
# (b) the DWT with and without the zeroing (not measured in ADR-038).
S="bench primitives --log2 28 --runs 10 --only sort_keys"
run() { echo "== $1" >> $OUT/sort.txt; shift; env "$@" $S 2>/dev/null | grep "sort_" >> $OUT/sort.txt; }
.dev/bin/wavekit $S > /dev/null 2>&1
for round in 1 2; do
run "default" .dev/bin/wavekit
run "no zeroing" WAVEKIT_ZERO_WORKGROUP_MEMORY=0 .dev/bin/wavekit
for p in 512 1024 2560 6144; do
run "no zeroing, pad $p words" WAVEKIT_ZERO_WORKGROUP_MEMORY=0 WAVEKIT_EXPERIMENT_SORT_PAD=$p .dev/bin/wavekit
done
done
for v in "z0:WAVEKIT_ZERO_WORKGROUP_MEMORY=0" "z0pad512:WAVEKIT_ZERO_WORKGROUP_MEMORY=0 WAVEKIT_EXPERIMENT_SORT_PAD=512" "z0pad1024:WAVEKIT_ZERO_WORKGROUP_MEMORY=0 WAVEKIT_EXPERIMENT_SORT_PAD=1024" "z0pad6144:WAVEKIT_ZERO_WORKGROUP_MEMORY=0 WAVEKIT_EXPERIMENT_SORT_PAD=6144" "pad1024:WAVEKIT_EXPERIMENT_SORT_PAD=1024"; do
  n=${v%%:*}; e=${v#*:}
  env $e WAVEKIT_DUMP_WGSL=/tmp/wg/$n .dev/bin/wavekit bench primitives --log2 16 --runs 1 --only sort_keys > /dev/null 2>&1
  echo "== $n" >> $OUT/regs.txt; .dev/bin/kernel-stats /tmp/wg/$n 2>&1 | grep -i scatter >> $OUT/regs.txt
done
D="bench dwt --sizes 4k --sizes 8k --planes 1 --runs 30"
.dev/bin/wavekit $D > /dev/null 2>&1
for round in 1 2; do
echo "== dwt default" >> $OUT/dwt.txt; .dev/bin/wavekit $D >> $OUT/dwt.txt 2>/dev/null
echo "== dwt no zeroing" >> $OUT/dwt.txt; WAVEKIT_ZERO_WORKGROUP_MEMORY=0 .dev/bin/wavekit $D >> $OUT/dwt.txt 2>/dev/null
done
cat $OUT/sort.txt $OUT/regs.txt; grep -v "^$" $OUT/dwt.txt | head -80
