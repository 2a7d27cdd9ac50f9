#!/usr/bin/env bash
# The Python package on the H200 machine: its arrays against numpy and CuPy
# (crates/wavekit-py/bench/arrays.py), and, where the wheel has it, wavekit.spatial.KDTree
# against SciPy's cKDTree on 16 cores and CuPy's KDTree (crates/wavekit-py/bench/kdtree.py), and
# wavekit.dwt against PyWavelets and ptwt (crates/wavekit-py/bench/dwt.py; their wheels, which
# the machine lacks, in .whl/ beside wavekit's: pip download --no-deps PyWavelets ptwt).
# Expects the release wheel (maturin build --release) in .whl/wavekit-*.whl; it is unpacked into
# /tmp/site (the machine has no network, and a wheel is a zip). Each bench stops after $STEP_S
# seconds (default 150); $ARRAYS_ARGS, $KDTREE_ARGS and $DWT_ARGS go to each bench. Logs under
# $OUT.
set -uo pipefail
OUT=${OUT:-python-out}
mkdir -p "$OUT"
if [ -d .gl ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
rm -rf /tmp/site && mkdir -p /tmp/site
for w in .whl/*.whl; do python3 -m zipfile -e "$w" /tmp/site; done
# NVIDIA Warp, kdtree.py's radius-search peer: warp-lang's files (its CUDA library, without
# warp-clang.so and the examples) are too large to bring at once, so they come as parts of one
# xz tar (.whl/warp.part.aa, .ab, ...: `tar -c warp warp_lang-*.dist-info | xz -9 | split -b 40000000`), kept in
# /tmp/keep from run to run on the same machine and unpacked once $WARP_PARTS parts are there.
mkdir -p /tmp/keep
cp .whl/warp.part.* /tmp/keep/ 2>/dev/null || true
if [ -n "${WARP_PARTS:-}" ] && [ "$(ls /tmp/keep/warp.part.* 2>/dev/null | wc -l)" = "$WARP_PARTS" ]; then
    cat /tmp/keep/warp.part.* | xz -d | tar -x -C /tmp/site
fi
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 >"$OUT/python-clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null || true' EXIT
python3 -c "import numpy, scipy, cupy; print('numpy', numpy.__version__, 'scipy', scipy.__version__, 'cupy', cupy.__version__)" | tee "$OUT/python-versions.txt"
timeout ${STEP_S:-150} python3 crates/wavekit-py/bench/arrays.py --sizes ${SIZES:-20,24,26} ${ARRAYS_ARGS:-} --out "$OUT/arrays.jsonl" \
    >/dev/null 2>"$OUT/arrays.txt" && echo "arrays: ok" || echo "arrays: FAILED"
grep '^#\|device' "$OUT/arrays.txt"
if [ -f crates/wavekit-py/bench/kdtree.py ]; then
    timeout ${STEP_S:-150} python3 crates/wavekit-py/bench/kdtree.py ${KDTREE_ARGS:-} --out "$OUT/kdtree.jsonl" \
        >/dev/null 2>"$OUT/kdtree.txt" && echo "kdtree: ok" || echo "kdtree: FAILED"
    grep '^#\|device' "$OUT/kdtree.txt"
fi
if [ -f crates/wavekit-py/bench/dwt.py ]; then
    timeout ${STEP_S:-150} python3 crates/wavekit-py/bench/dwt.py ${DWT_ARGS:-} --out "$OUT/dwt.jsonl" \
        >/dev/null 2>"$OUT/dwt.txt" && echo "dwt: ok" || echo "dwt: FAILED"
    grep '^#\|device\|round trip' "$OUT/dwt.txt"
fi
