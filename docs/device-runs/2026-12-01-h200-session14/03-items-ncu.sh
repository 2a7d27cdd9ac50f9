#!/usr/bin/env bash
# Session 14, call 3: CUB's Onesweep kernel as Nsight Compute sees it (block size, registers,
# shared memory, theoretical and achieved occupancy), and the three-kernel sort's scatter at 8,
# 10, 12 and 16 keys an invocation: registers and workgroup memory (kernel-stats) against call
# 1's occupancy rules, and the time of 2^28 keys and pairs, two rounds, CUB in the call.
W=.dev/bin/wavekit
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 10 28 > $OUT/cub-sort.jsonl
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" > $OUT/ncu.txt
if [ -n "$NCU" ]; then
  timeout 240 $NCU --section LaunchStats --section Occupancy -k regex:Onesweep -c 4 /tmp/cubs 1 24 >> $OUT/ncu.txt 2>&1
fi
S="bench primitives --log2 28 --runs 10 --peer $OUT/cub-sort.jsonl --only sort_keys --only sort_pairs"
for i in 8 10 12 16; do
  WAVEKIT_SORT_ITEMS=$i WAVEKIT_DUMP_WGSL=/tmp/wg/i$i $W bench primitives --log2 28 --runs 1 --only sort_keys --only sort_pairs > /dev/null 2>&1
  echo "== items $i" >> $OUT/regs.txt
  .dev/bin/kernel-stats --consts WG_SIZE,ITEMS,INLINE_BLOCKS,VALUES /tmp/wg/i$i 2>&1 | grep -i scatter | sed 's/Local_Memory_Size=[0-9]* //' >> $OUT/regs.txt
done
for r in 1 2; do
  for i in 16 8 10 12; do
    echo "== items $i" >> $OUT/sort.txt; WAVEKIT_SORT_ITEMS=$i $W $S 2>/dev/null | grep sort_ >> $OUT/sort.txt
  done
done
cat $OUT/regs.txt $OUT/sort.txt; grep -v "^==PROF==" $OUT/ncu.txt | head -120
