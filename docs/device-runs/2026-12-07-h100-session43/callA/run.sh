#!/usr/bin/env bash
# Session 43, call A (the H200 machine; an H100 came): 16-bit coefficients (same binary, --coefficient-bits 16,32), the byte path
# against 196c446 (session 41's timed build), PyroWave before and after, GPU tests at width 32.
set -uo pipefail
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .dev/bin43.txz -C .dev
FR=/tmp/frames
python3 peer/python/codec_speed.py frames --photos .dev/photos --out $FR > $OUT/frames.log 2>&1
ls -la $FR >> $OUT/frames.log
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu --format=csv -lms 200 > $OUT/clock.csv &
clock=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.csv
.dev/bin/wavekit probe > $OUT/probe.txt 2>&1; head -3 $OUT/probe.txt
sizes="${SIZES:-1920x1080 2560x1440 3840x2160}"
pngs=$(for s in $sizes; do printf '%s,' "$FR/frame_$s.png"; done); pngs=${pngs%,}
peer() {
  for s in $sizes; do
    [ -f /tmp/frame_$s.i444 ] || python3 -c "
from PIL import Image
im = Image.open('$FR/frame_$s.png').convert('YCbCr')
open('/tmp/frame_$s.i444', 'wb').write(b''.join(p.tobytes() for p in im.split()))"
    for batch in 4; do
      .dev/pyrowave/bin/pyrowave-peer-bench --width ${s%x*} --height ${s#*x} --input /tmp/frame_$s.i444 \
        --chroma 420,444 --bpp 1,2 --iters 200 --warmup-ms 200 --label "$1-b$batch" --batch $batch
    done
  done
}
peer first > $OUT/pyrowave.jsonl 2> $OUT/pyrowave.log; wc -l $OUT/pyrowave.jsonl
timeout 240 .dev/bin/wavekit codec bench --frames "$pngs" --bpp 1,2 --chroma 420,444 --pixels ycbcr \
  --coefficient-bits 16,32 --runs 60 --rounds 2 --stages --json > $OUT/wavekit-ycbcr.json 2> $OUT/wavekit-ycbcr.log
echo "wavekit ycbcr 16,32: exit $?"
# GPU tests at width 32 and without subgroups (release test binaries of this build).
if [ -f .dev/tests43.txz ]; then
  tar -xJf .dev/tests43.txz -C .dev
  for t in .dev/tests/*; do
    for mode in ${MODES:-sg nosg}; do
      envm=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
      echo "-- $(basename $t) $mode" >> $OUT/tests.txt
      if timeout 45 env $envm $t --include-ignored --skip large_ $([ $(basename $t) = dwt ] && echo joint) >> $OUT/tests.txt 2>&1; then echo "$(basename $t) $mode: ok"; else echo "$(basename $t) $mode: FAILED"; fi
    done
  done
fi
timeout 150 .dev/bin/wavekit-196c446 codec bench --frames "$pngs" --bpp 1,2 --chroma 420,444 --pixels ycbcr \
  --runs 60 --rounds 2 --stages --json > $OUT/old-ycbcr.json 2> $OUT/old-ycbcr.log
echo "196c446 ycbcr: exit $?"
timeout 60 .dev/bin/wavekit codec bench --frames "$FR/frame_3840x2160.png" --bpp 1,2 --chroma 420,444 \
  --runs 60 --rounds 2 --json > $OUT/wavekit-rgb.json 2> $OUT/wavekit-rgb.log
echo "wavekit rgb: exit $?"
peer second >> $OUT/pyrowave.jsonl 2>> $OUT/pyrowave.log; wc -l $OUT/pyrowave.jsonl
timeout 60 .dev/bin/wavekit codec bench --frames "$FR/frame_3840x2160.png" --bpp 1 --chroma 420 \
  --stream 3000 --in-flight 3 > $OUT/stream.txt 2> $OUT/stream.log
echo "stream: exit $?"; cat $OUT/stream.txt
kill $clock 2>/dev/null
echo done
