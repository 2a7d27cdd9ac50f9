#!/usr/bin/env bash
# The codec on the H200 machine, in one run: the GPU decoder against PyroWave's on the same
# frames, then PyroWave again (interleaved, so a drift of the card shows). Expects the release
# CLI in .dev/bin/ (scripts/device.sh), the frames as PNG in $FRAMES (default .dev/frames:
# `peer/python/codec_speed.py frames`, mosaics of scikit-image's photographs at 1080p, 1440p and
# 4K, named frame_WxH.png; made there from .dev/photos where absent) and, for the peer,
# PyroWave's benchmark built on the 2-core machine in .dev/pyrowave/ (never committed;
# BENCHMARKS.md says how it was built). $ENC_WG and $DEC_WG list the block encoder's and
# decoder's workgroup sizes, paired (default 256 and 512); $ENCODERS the block kernels timed
# (default subgroup). Writes every log under $OUT (or ./codec-out).
# Optional: the CLIs packed in .dev/bin.txz (unpacked into .dev/bin/); $TESTS=1 runs the GPU
# test binaries packed in .dev/tests.txz at width 32 and without subgroups first; $OLD names a
# second CLI (an earlier build) timed after this one on the 4K frame, --stages, for a
# before/after in the same call; $STREAM=N adds `codec bench --stream N` at every size, both
# samplings, 1 bpp (frames a second and each frame's latency). $PIXELS (rgb or ycbcr, default
# ycbcr: PyroWave's form) and $BITS (the coefficients' bits, default 32, the coders' default;
# 16,32 times both in one process, ADR-0108) choose the rows. PyroWave runs a frame a submission and four (its fastest decode).
set -uo pipefail
OUT=${OUT:-codec-out}
FRAMES=${FRAMES:-.dev/frames}
ENC_WG=${ENC_WG:-256}
DEC_WG=${DEC_WG:-512}
ENCODERS=${ENCODERS:-subgroup}
RUNS=${RUNS:-60}
PIXELS=${PIXELS:-ycbcr}
BITS=${BITS:-32}
mkdir -p "$OUT"
[ -f .dev/bin.txz ] && tar -xJf .dev/bin.txz -C .dev
if [ -d .gl ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
if [ -n "${TESTS:-}" ] && [ -f .dev/tests.txz ]; then
    rm -rf .dev/tests && tar -xJf .dev/tests.txz -C .dev
    for t in .dev/tests/*; do
        for mode in sg nosg; do
            env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
            echo "-- $(basename "$t") $mode" >> "$OUT/tests.txt"
            if env $env_mode "$t" --include-ignored --skip large_ >> "$OUT/tests.txt" 2>&1; then
                echo "$(basename "$t") $mode: ok"
            else
                echo "$(basename "$t") $mode: FAILED"
            fi
        done
    done
fi
if [ ! -f "$FRAMES/frame_3840x2160.png" ]; then
    python3 peer/python/codec_speed.py frames --photos .dev/photos --out "$FRAMES" >"$OUT/frames.log" 2>&1
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu --format=csv -lms 200 >"$OUT/clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null || true' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.csv"
.dev/bin/wavekit probe | tee "$OUT/probe.txt"
sizes="1920x1080 2560x1440 3840x2160"
pngs=$(for s in $sizes; do printf '%s,' "$FRAMES/frame_$s.png"; done)
peer() {
    [ -x .dev/pyrowave/bin/pyrowave-peer-bench ] || { echo "PyroWave not built: skipped"; return; }
    # PyroWave reads planar 8-bit YCbCr 4:4:4 (its own BT.601 full-range matrix, PIL's).
    for s in $sizes; do
        [ -f "/tmp/frame_$s.i444" ] || python3 -c "
import sys; from PIL import Image
im = Image.open('$FRAMES/frame_$s.png').convert('YCbCr')
open('/tmp/frame_$s.i444', 'wb').write(b''.join(p.tobytes() for p in im.split()))"
        for batch in 1 4; do
            .dev/pyrowave/bin/pyrowave-peer-bench --width "${s%x*}" --height "${s#*x}" \
                --input "/tmp/frame_$s.i444" --chroma 420,444 --bpp 1,2 --iters 200 \
                --warmup-ms 200 --label "$1-b$batch" --batch "$batch"
        done
    done
}
peer first >"$OUT/pyrowave.jsonl" 2>"$OUT/pyrowave.log"; tail -n 3 "$OUT/pyrowave.jsonl"
.dev/bin/wavekit codec bench --frames "${pngs%,}" --bpp 1,2 --chroma 420,444 --runs "$RUNS" \
    --rounds 2 --encode-workgroup "$ENC_WG" --decode-workgroup "$DEC_WG" --block-kernel "$ENCODERS" \
    --pixels "$PIXELS" --coefficient-bits "$BITS" \
    --stages >"$OUT/wavekit-codec.txt" 2>"$OUT/wavekit-codec.log"
echo "wavekit codec bench: exit $?"; cat "$OUT/wavekit-codec.txt"
peer second >>"$OUT/pyrowave.jsonl" 2>>"$OUT/pyrowave.log"
if [ -n "${OLD:-}" ] && [ -x "$OLD" ]; then
    for bin in "$OLD" .dev/bin/wavekit; do
        echo "== $bin" >>"$OUT/before-after.txt"
        "$bin" codec bench --frames "$FRAMES/frame_3840x2160.png" --bpp 1,2 --chroma 420,444 \
            --runs "$RUNS" --rounds 2 --block-kernel subgroup --pixels "$PIXELS" --stages \
            >>"$OUT/before-after.txt" 2>>"$OUT/before-after.log"
    done
    echo "before/after:"; cat "$OUT/before-after.txt"
fi
if [ -n "${STREAM:-}" ]; then
    .dev/bin/wavekit codec bench --frames "${pngs%,}" --bpp 1 --chroma 420,444 \
        --stream "$STREAM" --in-flight 3 >"$OUT/stream.txt" 2>"$OUT/stream.log"
    echo "stream: exit $?"; cat "$OUT/stream.txt"
fi
# The decoder from the command line: GPU and CPU write the same PNG.
.dev/bin/wavekit encode "$FRAMES/frame_3840x2160.png" -o /tmp/f.wkv --bpp 1 | tee "$OUT/cli.txt"
.dev/bin/wavekit --timings decode /tmp/f.wkv -o /tmp/g.png 2>&1 | tee -a "$OUT/cli.txt"
.dev/bin/wavekit decode /tmp/f.wkv -o /tmp/c.png --cpu | tee -a "$OUT/cli.txt"
cmp /tmp/g.png /tmp/c.png && echo "GPU and CPU PNGs identical" | tee -a "$OUT/cli.txt"
# The fixed-point 9/7 beside the float 9/7 and the 5/3 at 4K.
.dev/bin/wavekit bench dwt --sizes 4k --planes 1 --bindings separate --runs 50 --rounds 2 \
    >"$OUT/dwt.txt" 2>&1
echo done
