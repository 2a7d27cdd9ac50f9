#!/usr/bin/env bash
# Session 14, call 1: occupancy measured (`wavekit bench occupancy`, new in this session) —
# workgroups resident at once against workgroup memory, workgroup size and live values per
# invocation, with each probe pipeline's registers from kernel-stats; then the sort's baseline
# (keys and pairs, 2^28) with CUB in the same call.
W=.dev/bin/wavekit
O="bench occupancy --runs 3"
$W probe > $OUT/probe.txt 2>&1
$W $O --workgroup 256 --shared-bytes 4,4096,8192,12288,12544,16384,16640,20480,24320,24832,32768,49152 > $OUT/occ-256.txt 2>/dev/null
$W $O --workgroup 64,128,512,1024 --shared-bytes 4,12288,16640,24320,24832,32768,49152 > $OUT/occ-sizes.txt 2>/dev/null
WAVEKIT_DUMP_WGSL=/tmp/wg/occ $W $O --workgroup 256 --shared-bytes 4,16384 --streams 1,16,32,40,48,56,64,72,80,96,120,128,160 > $OUT/occ-streams.txt 2>/dev/null
.dev/bin/kernel-stats --consts WG_SIZE,SHARED_WORDS,STREAMS /tmp/wg/occ 2>&1 | sed 's/Local_Memory_Size=[0-9]* //' > $OUT/occ-regs.txt
WAVEKIT_ZERO_WORKGROUP_MEMORY=0 $W $O --workgroup 256 --shared-bytes 4,16640,24320,24832 > $OUT/occ-256-nozero.txt 2>/dev/null
cat $OUT/occ-*.txt
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 28 > $OUT/cub-sort.jsonl
S="bench primitives --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
$W $S > /dev/null 2>&1
for r in 1 2; do
  echo "== three kernels" >> $OUT/sort.txt; $W $S 2>/dev/null | grep sort_ >> $OUT/sort.txt
  echo "== single pass" >> $OUT/sort.txt; WAVEKIT_SORT_SINGLE_PASS=1 $W $S 2>/dev/null | grep sort_ >> $OUT/sort.txt
done
cat $OUT/sort.txt
