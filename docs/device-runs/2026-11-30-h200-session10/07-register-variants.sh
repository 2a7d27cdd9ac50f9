#!/usr/bin/env bash
# Session 10, call 7: where select's and the scan's registers go: kernel-stats on composed
# variants (no look-back walk, no fallback, no stores, no output-window branch), made here
# from the dumped WGSL of aa68b09 (how they were made: 07-make-variants.sh).
.dev/bin/kernel-stats .dev/var > $OUT/stats.txt 2>&1
cut -f1,5 $OUT/stats.txt | cut -c1-70
