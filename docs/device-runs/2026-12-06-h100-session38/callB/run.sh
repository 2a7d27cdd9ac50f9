#!/usr/bin/env bash
# Session 38, call B: the subgroup encoder with a ballot for the previous new sample and the
# Rice costs three a word (wavekit-s38b) against call A's (wavekit-s38), interleaved; the
# codec's GPU tests at width 32 and without subgroups; registers of the encoders (kernel-stats).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outB; mkdir -p $R "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in s37 s38 s38b; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
xz -dc .dev/bin/kernel-stats.xz > /tmp/kernel-stats; chmod +x /tmp/kernel-stats
rm -rf .dev/tests && tar -xJf .dev/tests.txz -C .dev
for t in .dev/tests/*; do
  for mode in sg nosg; do
    env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
    echo "-- $(basename "$t") $mode" >> $R/tests.txt
    if env $env_mode timeout 150 "$t" --include-ignored --skip large_ >> $R/tests.txt 2>&1; then
      echo "$(basename "$t") $mode: ok"; else echo "$(basename "$t") $mode: FAILED"; fi
  done
done
grep "test result" $R/tests.txt
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >$R/frames.log 2>&1
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $R/clock.txt &
CLK=$!
for b in s38 s38b s38 s38b; do
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 120 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep -o "encode blocks [0-9.]*" "$R/$n.txt" | tr '\n' ' '; echo
done
timeout 150 /tmp/wavekit-s38b codec bench --frames $F --bpp 1,2 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/s38b-full.txt" 2>"$R/s38b-full.log"
echo "== s38b-full rc $?"; grep "^frame" $R/s38b-full.txt
timeout 100 /tmp/wavekit-s38b codec bench --frames .dev/frames/frame_3840x2160.png --bpp 1 --chroma 420 \
     --stream 3000 --in-flight 3 >"$R/stream-s38b.txt" 2>"$R/stream-s38b.log"
echo "== stream rc $?"; cat $R/stream-s38b.txt
kill $CLK
for b in s37 s38b; do
  WAVEKIT_DUMP_WGSL=/tmp/dump-$b timeout 60 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_1920x1080.png --bpp 1 --chroma 420 --runs 3 --rounds 1 > /dev/null 2>&1
  ls /tmp/dump-$b > $R/dump-$b.ls
  timeout 60 /tmp/kernel-stats /tmp/dump-$b > $R/stats-$b.txt 2>&1
  echo "== stats $b"; grep -i -A12 "block_encode" $R/stats-$b.txt | head -40
done
tar -czf "$OUT/callB.tgz" -C /tmp outB
