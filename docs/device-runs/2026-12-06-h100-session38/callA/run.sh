#!/usr/bin/env bash
# Session 38, call A: the subgroup encoder with plane words, compress and the error from counts
# (wavekit-s38) against main before it (wavekit-s37), interleaved; the codec's GPU tests on the
# card at width 32 and without subgroups; the 4K stream.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.csv"
for b in s37 s38; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
rm -rf .dev/tests && tar -xJf .dev/tests.txz -C .dev
for t in .dev/tests/*; do
  for mode in sg nosg; do
    env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
    echo "-- $(basename "$t") $mode" >> "$OUT/tests.txt"
    if env $env_mode timeout 150 "$t" --include-ignored --skip large_ >> "$OUT/tests.txt" 2>&1; then
      echo "$(basename "$t") $mode: ok"; else echo "$(basename "$t") $mode: FAILED"; fi
  done
done
grep "test result" "$OUT/tests.txt"
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >"$OUT/frames.log" 2>&1
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > "$OUT/clock.txt" &
CLK=$!
for b in s37 s38 s37 s38; do
  n=$b; [ -e "$OUT/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 200 /tmp/wavekit-$b codec bench --frames $F --bpp 1,2 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$OUT/$n.txt" 2>"$OUT/$n.log"
  echo "== $n rc $?"; grep -o "encode blocks [0-9.]*" "$OUT/$n.txt" | tr '\n' ' '; echo
done
for b in s37 s38; do
  timeout 100 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_3840x2160.png --bpp 1 --chroma 420 \
     --stream 3000 --in-flight 3 >"$OUT/stream-$b.txt" 2>"$OUT/stream-$b.log"
  echo "== stream $b rc $?"; cat "$OUT/stream-$b.txt"
done
kill $CLK
