#!/usr/bin/env bash
# The point queries on the H200 machine, in one run: `wavekit spatial bench` (build, k-NN,
# radius search) at 10^6 points and queries on uniform and clustered sets, with leaf and
# query-order variants, the peers on the same points checked against wavekit's results
# (peer/python/spatial_peers.py), then 10^8 points. Expects the release CLI in .dev/bin/
# (scripts/device.sh). Writes every log under $OUT (or ./spatial-out).
set -uo pipefail
OUT=${OUT:-spatial-out}
DATA=${DATA:-/tmp/spatial}
mkdir -p "$OUT" "$DATA"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.csv"
W=.dev/bin/wavekit
# The radius gives about 33 neighbours a query on the uniform set; the clustered set's dense
# blobs need a far smaller one for a result that fits the device (about 10^8 neighbours).
for sr in uniform:0.02 clustered:0.0005; do
    s=${sr%:*}; r=${sr#*:}
    $W spatial bench --sets $s --points 1000000 --queries 1000000 -k 16 --radius $r \
        --out "$DATA" --runs 20 --rounds 3 --json >>"$OUT/wavekit.jsonl" 2>>"$OUT/wavekit.log"
    echo "wavekit spatial bench $s: exit $?"
    python3 peer/python/spatial_peers.py --dir "$DATA" --sets $s -k 16 --radius $r \
        >>"$OUT/peers.jsonl" 2>>"$OUT/peers.log"
    echo "peers $s: exit $?"
done
cat "$OUT/wavekit.jsonl" "$OUT/peers.jsonl"; grep -v '^\[round' "$OUT/wavekit.log" | tail -n 3
tail -n 3 "$OUT/peers.log"
# Variants: the k-NN kernels (with the share of lanes at work), the pool, the leaf size and the
# query order, on both sets (a decision record's rows).
for sr in uniform:0.02 clustered:0.0005; do
    s=${sr%:*}; r=${sr#*:}
    for v in "--kernel persistent" "--kernel compacted" "--kernel compacted --pool 16" \
        "--kernel persistent --pool 16" "--leaf 16" "--unsorted-queries"; do
        $W spatial bench --sets $s --points 1000000 --queries 1000000 -k 16 --radius $r $v \
            --runs 10 --rounds 2 --json 2>>"$OUT/variants.log" | sed "s/^/$v /" >>"$OUT/variants.txt"
    done
done
# k = 1 and 64 at 2^20 (the measured size for CuPy).
for k in 1 64; do
    $W spatial bench --points 1048576 --queries 1048576 -k $k --radius 0.02 --sets uniform \
        --runs 10 --rounds 2 --json 2>>"$OUT/variants.log" | sed "s/^/k=$k /" >>"$OUT/variants.txt"
done
cat "$OUT/variants.txt"
# 10^8 points, 10^6 queries.
$W spatial bench --points 100000000 --queries 1000000 -k 16 --radius 0.002 --sets uniform \
    --runs 5 --rounds 2 --json >"$OUT/large.jsonl" 2>"$OUT/large.log"
echo "10^8: exit $?"; cat "$OUT/large.jsonl"; tail -n 3 "$OUT/large.log"
