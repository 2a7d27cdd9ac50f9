#!/usr/bin/env bash
# Path tracing on the H200 machine (issue 29 Part 2): the dragon on a ground at 1920x1080,
# 8 bounces, 1 and 4 paths a pixel, each kernel (baseline, persistent, compacted) on the
# benchmark protocol with its subgroup utilisation and the share of paths of each length;
# the dragon alone (no ground) too; the traversal stacks in workgroup memory, for paths and for
# rays. Then the spatial k-NN walks' steps a query on each tree
# (the kd-tree's clustered anomaly, ADR-0074). Expects the release CLI in .dev/bin/ and the
# dragon as .dev/dragon.ply.gz (scripts/device.sh .meshes/dragon.ply.gz). Logs under $OUT.
set -uo pipefail
OUT=${OUT:-paths-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.csv"
W=.dev/bin/wavekit
[ -s /tmp/dragon.ply ] || gzip -dc .dev/dragon.ply.gz > /tmp/dragon.ply
for v in "--spp 1" "--spp 4" "--spp 1 --no-ground" "--spp 1 --workgroup-stacks"; do
    $W trace bench --meshes /tmp/dragon.ply --size 1920x1080 --bounces 8 $v --runs 10 \
        --rounds 2 --json 2>>"$OUT/paths.log" | sed "s/^/$v /" >>"$OUT/paths.txt"
    echo "paths $v: exit $?"
done
cat "$OUT/paths.txt"; grep -v '^\[round' "$OUT/paths.log" | tail -n 3
$W trace --size 960x540 --spp 16 /tmp/dragon.ply -o "$OUT/dragon-paths.png" 2>>"$OUT/paths.log"
# The tracer's next step (issue 29): its stacks in workgroup memory, ray by ray, against the
# global stacks in the same run.
for v in "" "--workgroup-stacks"; do
    $W trace bench --meshes /tmp/dragon.ply --random 4194304 --runs 10 --rounds 2 --json $v \
        2>>"$OUT/rays.log" | grep '"rays"' | sed "s/^/stacks${v:+ in workgroup memory} /" >>"$OUT/rays.txt"
    echo "rays $v: exit $?"
done
cut -c1-330 "$OUT/rays.txt"
for t in bvh kd octree; do
    for sr in uniform:0.02 clustered:0.0005; do
        s=${sr%:*}; r=${sr#*:}
        $W spatial bench --tree $t --sets $s --points 1000000 --queries 1000000 -k 16 \
            --radius $r --runs 5 --rounds 1 --json 2>>"$OUT/steps.log" | sed "s/^/$t /" >>"$OUT/steps.txt"
    done
done
cat "$OUT/steps.txt"
