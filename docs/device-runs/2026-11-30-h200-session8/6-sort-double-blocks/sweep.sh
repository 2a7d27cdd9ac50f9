#!/usr/bin/env bash
# Session 8, sixth call: sort blocks of 64 tiles where that saves a dispatch (ADR-031).
# wavekit-old = 2316f72 (blocks of 32 always); wavekit = 2316f72 + the change (committed next). Sort tests at width 32, then CUB and
# old/new interleaved at 2^16..2^24, three rounds.
B=.dev/bin
WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 300 .dev/tests/sort_gpu > $OUT/test-sort_gpu.txt 2>&1; echo "sort_gpu rc=$?"; grep "test result" $OUT/test-sort_gpu.txt
nvcc -O3 -std=c++17 -arch=sm_90 .dev/sort.cu -o /tmp/cubs && /tmp/cubs 20 16 18 20 22 24 > $OUT/cub-sort.jsonl
for round in 1 2 3; do
  for v in old new; do
    bin=$B/wavekit; [ $v = old ] && bin=$B/wavekit-old
    echo "== round $round $v" | tee -a $OUT/sort.txt
    $bin bench primitives --log2 16 --log2 18 --log2 20 --log2 22 --log2 24 --runs 20 --only sort_keys --only sort_pairs --peer $OUT/cub-sort.jsonl 2>/dev/null | grep "sort_" | tee -a $OUT/sort.txt
  done
done
