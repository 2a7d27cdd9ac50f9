#!/usr/bin/env bash
# The three trees of wavekit-spatial (bvh, kd, octree) on the H200 machine, in one run: the
# 10^6-point bench on uniform and clustered sets and the dragon's vertices, each tree's results
# checked against the BVH's (every k-NN distance list and radius list equal, up to float
# rounding), the peers on the same points (peer/python/spatial_peers.py: SciPy, CuPy,
# PyTorch; Warp too when its wheel is unpacked in $WARP), the k-NN kernels' utilisation on
# each tree, and the largest point sets. Expects the release CLI in .dev/bin/ and the
# dragon as .dev/dragon.ply.gz (scripts/device.sh .meshes/dragon.ply.gz). Logs under $OUT.
set -uo pipefail
OUT=${OUT:-spatial-out}
DATA=${DATA:-/tmp/spatial}
mkdir -p "$OUT" "$DATA"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.csv"
W=.dev/bin/wavekit
[ -f /tmp/dragon.ply ] || gzip -dc .dev/dragon.ply.gz > /tmp/dragon.ply
if [ -n "${WARP:-}" ]; then export PYTHONPATH=$WARP${PYTHONPATH:+:$PYTHONPATH}; fi
# Set, radius: about 33 neighbours a query on the uniform set, 10^8 in all on the clustered
# one, about 20 on the dragon (0.2 m long).
SETS="uniform:0.02 clustered:0.0005 mesh:/tmp/dragon.ply:0.001"
# PART=main: the bench, the agreement and the peers; PART=variants: the rest (each fits one
# 10-minute call there); unset: both.
PART=${PART:-all}
if [ "$PART" != variants ]; then
for tree in bvh kd octree; do
    for sr in $SETS; do
        s=${sr%:*}; r=${sr##*:}; l=${s##*/}; l=${l%.ply}
        mkdir -p "$DATA/$tree"
        $W spatial bench --tree $tree --sets $s --points 1000000 --queries 1000000 -k 16 \
            --radius $r --out "$DATA/$tree" --runs 20 --rounds 3 --json \
            >>"$OUT/wavekit.jsonl" 2>>"$OUT/wavekit.log"
        echo "wavekit $tree $l: exit $?"
        if [ $tree != bvh ]; then
            python3 - "$DATA/bvh" "$DATA/$tree" "$l" "$tree" >>"$OUT/agree.txt" <<'PY'
import sys, numpy as np
a, b, s, tree = sys.argv[1:]
f = lambda d, n: np.load(f"{d}/{s}-{n}.npy")
da, db = f(a, "knn-d2"), f(b, "knn-d2")
knn_off = int((~np.isclose(da, db, rtol=1e-5, atol=0)).any(axis=1).sum())
oa, ob = f(a, "offsets"), f(b, "offsets")
same_counts = int((oa == ob).all())
ia, ib = f(a, "indices"), f(b, "indices")
print(f"{tree} {s}: k-NN distance lists off {knn_off}; radius offsets equal {same_counts}, "
      f"indices equal {int(len(ia) == len(ib) and (ia == ib).all())} ({len(ib)} neighbours)")
PY
        fi
    done
done
cat "$OUT/wavekit.jsonl" "$OUT/agree.txt"; grep -v '^\[round' "$OUT/wavekit.log" | tail -n 3
for sr in $SETS; do
    s=${sr%:*}; r=${sr##*:}; l=${s##*/}; l=${l%.ply}
    python3 peer/python/spatial_peers.py --dir "$DATA/bvh" --sets $l -k 16 --radius $r \
        >>"$OUT/peers.jsonl" 2>>"$OUT/peers.log"
    echo "peers $l: exit $?"
done
cat "$OUT/peers.jsonl"; tail -n 3 "$OUT/peers.log"
fi
[ "$PART" = main ] && exit 0
# The k-NN kernels on each tree, with the share of lanes at work.
for tree in bvh kd octree; do
    for sr in uniform:0.02 clustered:0.0005; do
        s=${sr%:*}; r=${sr#*:}
        for v in "--kernel persistent" "--kernel compacted" "--leaf 16" "--leaf 4"; do
            $W spatial bench --tree $tree --sets $s --points 1000000 --queries 1000000 -k 16 \
                --radius $r $v --runs 10 --rounds 2 --json 2>>"$OUT/variants.log" \
                | sed "s/^/$tree $v /" >>"$OUT/variants.txt"
        done
    done
done
cat "$OUT/variants.txt"
# k = 1 and 64 on each tree.
for tree in kd octree; do
    for k in 1 64; do
        $W spatial bench --tree $tree --points 1048576 --queries 1048576 -k $k --radius 0.02 \
            --sets uniform --runs 10 --rounds 2 --json 2>>"$OUT/variants.log" \
            | sed "s/^/$tree k=$k /" >>"$OUT/k.txt"
    done
done
cat "$OUT/k.txt"
# The largest sets: 10^8 points (the octree's nodes, 32 bytes a point, pass one binding of
# 2 GiB there: it gets 6 x 10^7).
for tn in kd:100000000 octree:100000000 octree:60000000; do
    t=${tn%:*}; n=${tn#*:}
    $W spatial bench --tree $t --points $n --queries 1000000 -k 16 --radius 0.002 \
        --sets uniform --runs 5 --rounds 2 --json >>"$OUT/large.jsonl" 2>>"$OUT/large.log"
    echo "$t $n: exit $?"
done
cat "$OUT/large.jsonl"; grep -v '^\[round' "$OUT/large.log" | tail -n 4
