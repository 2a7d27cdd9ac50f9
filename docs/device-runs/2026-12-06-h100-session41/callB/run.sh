#!/usr/bin/env bash
# Session 41, call B: the landed codec (s41b: main's kernels, codec bench --pixels) against
# PyroWave in one call. PyroWave first (a frame a submission, and four a submission);
# wavekit on all 12 cases from RGB and from planar YCbCr (PyroWave's form); PyroWave again;
# the codec's GPU tests at width 32 and without subgroups.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outB; mkdir -p $R "$OUT"
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
xz -dc .dev/bin/wavekit-s41b.xz > /tmp/wavekit; chmod +x /tmp/wavekit
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >$R/frames.log 2>&1
sizes="1920x1080 2560x1440 3840x2160"
for s in $sizes; do
  python3 -c "
from PIL import Image
im = Image.open('.dev/frames/frame_$s.png').convert('YCbCr')
open('/tmp/frame_$s.i444', 'wb').write(b''.join(p.tobytes() for p in im.split()))"
done
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader -lms 200 > $R/clock.csv &
CLK=$!
/tmp/wavekit probe > $R/probe.txt 2>&1
peer() {  # label, extra flags
  for s in $sizes; do
    timeout 60 .dev/pyrowave/bin/pyrowave-peer-bench --width "${s%x*}" --height "${s#*x}" \
      --input "/tmp/frame_$s.i444" --chroma 420,444 --bpp 1,2 --iters 200 --warmup-ms 200 \
      --label "$1" ${2:-} >> $R/pyrowave.jsonl 2>> $R/pyrowave.log
    echo "pyrowave $1 $s rc $?"
  done
}
peer first
peer batched "--batch 4"
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
for px in rgb ycbcr; do
  timeout 150 /tmp/wavekit codec bench --frames $F --bpp 1,2 --chroma 420,444 --pixels $px \
     --runs 60 --rounds 2 --stages > $R/wavekit-$px.txt 2> $R/wavekit-$px.log
  echo "== wavekit $px rc $?"; grep "^frame_" $R/wavekit-$px.txt | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13}'
done
[ $(left) -gt 120 ] && peer second
[ $(left) -gt 100 ] && peer batched2 "--batch 4"
kill $CLK
python3 - $R/pyrowave.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); print(r["label"],r["width"],r["height"],r["chroma"],r["bpp"],r["bytes"],"enc",r["encode_us"],"dec",r["decode_us"],"psnr",r["psnr_y"])
PY
rm -rf .dev/tests && tar -xJf .dev/tests41.txz -C .dev
for t in .dev/tests/*; do
  for mode in sg nosg; do
    [ $(left) -lt 25 ] && { echo "skip $t $mode"; continue; }
    env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
    echo "-- $(basename "$t") $mode" >> $R/tests.txt
    if env $env_mode timeout 60 "$t" --include-ignored --skip large_ >> $R/tests.txt 2>&1; then
      echo "$(basename "$t") $mode: ok"; else echo "$(basename "$t") $mode: FAILED"; fi
  done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
tar -czf "$OUT/callB.tgz" -C /tmp outB
