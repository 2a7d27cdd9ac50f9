#!/bin/bash
# Issue 31, session 26, second call: the small sort path's tile (ADR-0090), workgroup × keys an
# invocation through its knobs, at 2^12..2^16; the chain of four and every primitive at the
# sizes a frame uses with the defaults, CUB in the same call.
set -u
. "$(dirname "$0")/../setup.sh" "$@"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for p in primitives sort chain4; do
  (cd peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 $p.cu -o /tmp/cub_$p) >> $R/nvcc.txt 2>&1
done
/tmp/cub_primitives 20 16 20 24 28 > $R/cub-primitives.jsonl 2>&1
/tmp/cub_sort 20 12 14 16 20 24 28 > $R/cub-sort.jsonl 2>&1
/tmp/cub_chain4 20 16 20 > $R/cub-chain4.jsonl 2>&1
cat $R/cub-primitives.jsonl $R/cub-sort.jsonl $R/cub-chain4.jsonl > $R/cub-all.jsonl
U="--only sort_keys,sort_pairs --log2 12,14,16 --runs 20 --rounds 2 --peer $R/cub-all.jsonl"
for c in ${SHAPES:-512:8 256:16 256:8 1024:4 512:4 128:16}; do
  wg=${c%:*}; it=${c#*:}
  WAVEKIT_SORT_SMALL_UP_TO=16777216 WAVEKIT_SORT_SMALL_WORKGROUP=$wg WAVEKIT_SORT_SMALL_ITEMS=$it \
    $W bench primitives $U > $R/small-$wg-$it.txt 2>&1
done
$W bench primitives --only chain4 --log2 16,20 --runs 20 --rounds 2 --peer $R/cub-all.jsonl > $R/wk-chain4.txt 2>&1
$W bench primitives --only reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256 \
  --log2 16,20,24,28 --runs 20 --rounds 2 --peer $R/cub-all.jsonl --save $R/wk-all.json > $R/wk-all.txt 2>&1
for f in $R/small-*.txt; do echo "== $f"; grep -E "^sort|check|MHz" $f; done > $R/summary.txt
tar czf $OUTDIR/results.tgz -C /tmp r
cp $R/summary.txt $R/wk-all.txt $R/wk-chain4.txt $R/cub-all.jsonl $R/gpu.txt $OUTDIR/
