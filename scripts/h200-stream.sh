#!/usr/bin/env bash
# The codec's UDP stream on the H200 machine (issue 47): `wavekit stream send` and `recv` on
# the same host (one clock), a 1080p and a 4K .y4m made from the photographic mosaics
# (peer/python/codec_speed.py frames), 4:2:0 at 1 bpp, $FPS frames a second (default 120, the
# issue's rate) for 5 seconds,
# without faults and with 1 % loss: each frame's encode, transit, decode and
# capture-to-decoded latency in JSON lines, and the summary (p50, p99). Expects the release
# CLI in .dev/bin/ (or .dev/bin.txz) and the frames in $FRAMES (default .dev/frames). Logs
# under $OUT ($SIZES and $IMPAIRS narrow the runs).
set -uo pipefail
OUT=${OUT:-stream-out}
FRAMES=${FRAMES:-.dev/frames}
mkdir -p "$OUT"
[ -f .dev/bin.txz ] && [ ! -x .dev/bin/wavekit ] && tar -xJf .dev/bin.txz -C .dev
if [ -d .gl ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
if [ ! -f "$FRAMES/frame_3840x2160.png" ]; then
    python3 peer/python/codec_speed.py frames --photos .dev/photos --out "$FRAMES" >"$OUT/frames.log" 2>&1
fi
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 200 >"$OUT/stream-clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null || true' EXIT
for s in ${SIZES:-1920x1080 3840x2160}; do
    # A .y4m of 8 frames (the mosaic shifted a pixel a frame), 4:2:0, full range.
    python3 - "$FRAMES/frame_$s.png" "/tmp/stream_$s.y4m" <<'PY'
import sys
import numpy as np
from PIL import Image
im = np.asarray(Image.open(sys.argv[1]).convert("YCbCr"))
h, w, _ = im.shape
with open(sys.argv[2], "wb") as f:
    f.write(f"YUV4MPEG2 W{w} H{h} F60:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\n".encode())
    for k in range(8):
        fr = np.roll(im, k, axis=1)
        f.write(b"FRAME\n")
        f.write(fr[..., 0].tobytes())
        for c in (1, 2):
            p = fr[..., c].astype(np.uint16)
            f.write(((p[0::2, 0::2] + p[1::2, 0::2] + p[0::2, 1::2] + p[1::2, 1::2] + 2) // 4).astype(np.uint8).tobytes())
PY
    for impair in ${IMPAIRS:-none loss=1%,seed=7}; do
        tag="${s}_${impair%%,*}"
        impair_arg=()
        [ "$impair" != none ] && impair_arg=(--impair "$impair")
        .dev/bin/wavekit stream recv --listen 127.0.0.1:0 --discard \
            --stats "$OUT/stream_$tag.jsonl" --deadline-ms 8 --idle-ms 1500 \
            2>"$OUT/recv_$tag.err" >"$OUT/recv_$tag.txt" &
        rx=$!
        # The receiver builds its decoder before it says it listens (about a second).
        for _ in $(seq 150); do grep -q listening "$OUT/recv_$tag.err" && break; sleep 0.1; done
        at=$(sed -n 's/^listening on //p' "$OUT/recv_$tag.err" | head -1)
        .dev/bin/wavekit stream send "/tmp/stream_$s.y4m" --to "$at" --bpp 1 --fps "${FPS:-120}" --loop \
            --frames $((5 * ${FPS:-120})) "${impair_arg[@]}" >"$OUT/send_$tag.txt" 2>"$OUT/send_$tag.err"
        wait $rx
        echo "$tag: $(cat "$OUT/send_$tag.txt")"
        echo "$tag: $(cat "$OUT/recv_$tag.txt")"
    done
done
