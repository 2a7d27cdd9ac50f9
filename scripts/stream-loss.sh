#!/usr/bin/env bash
# Issue 47's loss curve at a real size: a stream made by ffmpeg (testsrc2 and mandelbrot,
# $FRAMES frames each, $SIZE, 4:2:0) sent by `wavekit stream send` and received by `wavekit
# stream recv` over the loopback at 0, 1, 5 and 20 % datagram loss, without and with a parity
# datagram every 4; each received stream compared with the sent one by ffmpeg's psnr filter,
# and at no loss with `wavekit decode`'s frames (byte for byte). The codec runs on $CODEC
# ("--cpu", the reference, by default; "" for the GPU); $SOURCES picks the sources. One JSON
# line a run in $OUT/curve.jsonl,
# every run's stats beside it. Usage: SIZE=1920x1080 FRAMES=120 FPS=1 scripts/stream-loss.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-1920x1080}
FRAMES=${FRAMES:-120}
FPS=${FPS:-1}
BPP=${BPP:-1}
OUT=${OUT:-stream-loss-out}
CODEC=${CODEC:---cpu}
W=${WAVEKIT:-target/release/wavekit}
mkdir -p "$OUT"
: >"$OUT/curve.jsonl"
for src in ${SOURCES:-testsrc2 mandelbrot}; do
    in="$OUT/$src.y4m"
    ffmpeg -hide_banner -loglevel error -nostdin -y -f lavfi -i "$src=size=$SIZE:rate=60" \
        -frames:v "$FRAMES" -pix_fmt yuv420p -f yuv4mpegpipe "$in"
    $W encode "$in" -o "$OUT/$src.wkvs" --bpp "$BPP" $CODEC >/dev/null
    $W decode "$OUT/$src.wkvs" -o "$OUT/$src-ref.y4m" $CODEC >/dev/null
    for fec in 0 4; do
        for loss in 0 1 5 20; do
            tag="$src-loss$loss-fec$fec"
            $W stream recv --listen 127.0.0.1:0 -o "$OUT/$tag.y4m" --stats "$OUT/$tag.jsonl" \
                --deadline-ms 200 --idle-ms 3000 $CODEC >"$OUT/$tag.recv" 2>"$OUT/$tag.recv.err" &
            rx=$!
            for _ in $(seq 100); do grep -q listening "$OUT/$tag.recv.err" && break; sleep 0.1; done
            at=$(sed -n 's/^listening on //p' "$OUT/$tag.recv.err" | head -1)
            impair=()
            [ "$loss" != 0 ] && impair=(--impair "loss=$loss%,seed=47")
            $W stream send "$in" --to "$at" --bpp "$BPP" --fps "$FPS" --fec "$fec" "${impair[@]}" \
                $CODEC >"$OUT/$tag.send" 2>/dev/null
            wait $rx
            psnr=$(ffmpeg -hide_banner -nostdin -i "$OUT/$tag.y4m" -i "$in" -lavfi psnr -f null - 2>&1 |
                sed -n 's/.*PSNR y:.* average:\([0-9.inf]*\).*/\1/p')
            same=$(python3 -c "import sys; a, b = (open(p, 'rb').read() for p in sys.argv[1:]); print(str(a[a.index(b'\\n'):] == b[b.index(b'\\n'):]).lower())" "$OUT/$tag.y4m" "$OUT/$src-ref.y4m")
            python3 - "$OUT/$tag.jsonl" "$src" "$loss" "$fec" "$psnr" "$same" >>"$OUT/curve.jsonl" <<'PY'
import json, sys
path, src, loss, fec, psnr, same = sys.argv[1:]
rows = [json.loads(l) for l in open(path)]
frames = [r for r in rows if "summary" not in r]
summary = rows[-1]
print(json.dumps({
    "source": src, "loss_pct": int(loss), "fec": int(fec), "psnr_db": float(psnr),
    "frames": len(frames), "same_as_decode": same == "true",
    "datagrams_lost": sum(r["datagrams_lost"] for r in frames),
    "datagrams_recovered": sum(r["datagrams_recovered"] for r in frames),
    "blocks_concealed": sum(r["blocks_concealed"] for r in frames),
    "frames_lost": summary["frames_lost"],
    "latency_p50_ms": summary["latency_p50_us"] / 1000, "latency_p99_ms": summary["latency_p99_us"] / 1000,
}))
PY
            tail -1 "$OUT/curve.jsonl"
            rm -f "$OUT/$tag.y4m"
        done
    done
    rm -f "$in" "$OUT/$src-ref.y4m"
done
