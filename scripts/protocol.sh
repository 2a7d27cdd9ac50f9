#!/usr/bin/env bash
# The measurement protocol's proof (run it on a freshly started H200 machine): N fresh processes,
# each timing every primitive at 2^20, 2^24 and 2^27 and the 4K and 8K wavelet cases (one plane,
# separate buffers), with the SM clock logged by nvidia-smi every 100 ms; then each case's
# spread of per-process medians (scripts/protocol-summary.py).
#   scripts/protocol.sh WAVEKIT_BINARY OUTDIR [N=20] [EXTRA ARGS for both benches...]
# (PROTOCOL_LOG2 and PROTOCOL_DWT change the sizes, for a try on a small device.)
set -u
bin=${1:?usage: protocol.sh WAVEKIT_BINARY OUTDIR [N] [ARGS...]}
out=${2:?usage: protocol.sh WAVEKIT_BINARY OUTDIR [N] [ARGS...]}
n=${3:-20}
shift 3 2>/dev/null || shift $#
mkdir -p "$out"
ALL=reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256,histogram4096
smi=""
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu --format=csv -lms 100 > "$out/clocks.csv" &
    smi=$!
fi
for i in $(seq 1 "$n"); do
    echo "$(date +%T.%N) process $i" >> "$out/marks.txt"
    "$bin" bench primitives --log2 "${PROTOCOL_LOG2:-20,24,27}" --only $ALL "$@" --save "$out/prims-$i.json" > /dev/null 2> "$out/prims-$i.err" || echo "prims $i failed" >> "$out/marks.txt"
    "$bin" bench dwt --sizes "${PROTOCOL_DWT:-4k,8k}" --planes 1 --bindings separate "$@" --save "$out/dwt-$i.json" > /dev/null 2> "$out/dwt-$i.err" || echo "dwt $i failed" >> "$out/marks.txt"
done
[ -n "$smi" ] && kill "$smi"
python3 "$(dirname "$0")/protocol-summary.py" "$out"/prims-*.json "$out"/dwt-*.json | tee "$out/summary.txt"
