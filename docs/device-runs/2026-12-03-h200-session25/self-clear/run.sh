#!/bin/bash
# Issue 31, session 25: where the self-clearing scan stops paying (ADR-0087): the scans at
# 2^16..2^28 with chunks of up to 4096 tiles self-clearing (the default), none, and all (the
# last workgroup clearing one word of every descriptor), two processes each, interleaved.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
S="--only scan_inclusive,scan_exclusive --log2 16,20,22,24,26,28 --runs 30 --rounds 3"
for i in 1 2; do
  for t in 4096 0 1000000; do
    WAVEKIT_SCAN_SELF_CLEAR_TILES=$t $W bench primitives $S > $R/scan-tiles-$t-$i.txt 2>&1
  done
done
for f in $R/scan-*.txt; do echo "== $f"; grep -E "^scan|^outputs" $f; done > $R/summary.txt
cp $R/summary.txt $OUTDIR/
