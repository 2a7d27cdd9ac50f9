#!/usr/bin/env bash
# Session 41, call A: the codec against PyroWave in one call. PyroWave (its own coders, our
# harness) first; wavekit s41a (colour kernels a column of a 2x2 block at 4:2:0) on all 12
# cases; 9acb42f and s41a interleaved at 1 bpp; PyroWave again; s41a's codec GPU tests at
# width 32 and without subgroups.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outA; mkdir -p $R "$OUT"
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in 9acb42f s41a; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
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
/tmp/wavekit-s41a probe > $R/probe.txt 2>&1
peer() {  # label, extra flags
  for s in $sizes; do
    timeout 60 .dev/pyrowave/bin/pyrowave-peer-bench --width "${s%x*}" --height "${s#*x}" \
      --input "/tmp/frame_$s.i444" --chroma 420,444 --bpp 1,2 --iters 200 --warmup-ms 200 \
      --label "$1" ${2:-} >> $R/pyrowave.jsonl 2>> $R/pyrowave.log
    echo "pyrowave $1 $s rc $?"
  done
}
peer first
python3 - $R/pyrowave.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); print(r["label"],r["width"],r["height"],r["chroma"],r["bpp"],r["bytes"],"enc",r["encode_us"],"dec",r["decode_us"],"psnr",r["psnr_y"])
PY
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
timeout 150 /tmp/wavekit-s41a codec bench --frames $F --bpp 1,2 --chroma 420,444 \
   --runs 60 --rounds 2 --stages > $R/s41a-all.txt 2> $R/s41a-all.log
echo "== s41a all rc $?"; grep "^frame_" $R/s41a-all.txt | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10}'
for b in 9acb42f s41a 9acb42f s41a; do
  [ $(left) -lt 150 ] && { echo "skip interleave: $(left) s left"; break; }
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 90 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep "^frame_" "$R/$n.txt" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'
done
[ $(left) -gt 100 ] && peer second
[ $(left) -gt 100 ] && peer batched "--batch 4"
kill $CLK
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
tar -czf "$OUT/callA.tgz" -C /tmp outA
