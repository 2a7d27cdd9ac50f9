#!/usr/bin/env bash
# Session 40, call B: main (base, 20cfada) against v2 (each coder's plane words in workgroup
# memory, a plane's rows in consecutive banks), interleaved; v2's codec GPU tests at width 32
# and without subgroups; kernel stats of both.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outB; mkdir -p $R "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in base v2; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
xz -dc .dev/bin/kernel-stats.xz > /tmp/kernel-stats; chmod +x /tmp/kernel-stats
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >$R/frames.log 2>&1
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $R/clock.txt &
CLK=$!
for b in base v2 base v2; do
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 120 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep "^frame_" "$R/$n.txt" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10}'
  grep -o "encode blocks [0-9.]*\|decode blocks [0-9.]*" "$R/$n.txt" | tr '\n' ' '; echo
done
kill $CLK
for b in base v2; do
  WAVEKIT_DUMP_WGSL=/tmp/dump-$b timeout 60 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_1920x1080.png --bpp 1 --chroma 420 --runs 3 --rounds 1 > /dev/null 2>&1
  timeout 60 /tmp/kernel-stats /tmp/dump-$b > $R/stats-$b.txt 2>&1
  echo "== stats $b"; grep -i "block_sg\|block_encode_sg" $R/stats-$b.txt | awk '{print $1,$4,$5,$9}'
done
rm -rf .dev/tests && tar -xJf .dev/tests40.txz -C .dev
for t in .dev/tests/*; do
  for mode in sg nosg; do
    env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
    echo "-- $(basename "$t") $mode" >> $R/tests.txt
    if env $env_mode timeout 150 "$t" --include-ignored --skip large_ >> $R/tests.txt 2>&1; then
      echo "$(basename "$t") $mode: ok"; else echo "$(basename "$t") $mode: FAILED"; fi
  done
done
tar -czf "$OUT/callB.tgz" -C /tmp outB
