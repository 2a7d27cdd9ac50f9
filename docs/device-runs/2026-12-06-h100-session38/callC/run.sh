#!/usr/bin/env bash
# Session 38, call C: the subgroup encoder with its quotients and remainders through a word
# pending in registers (wavekit-s38c) against call B's (wavekit-s38b), interleaved; scratch
# builds of s38c with one part switched off each (p1 no error sums, p2 no quotient and
# remainder writes, p3 no Rice-cost loop, p4 no refinement or sign writes: their bytes are
# wrong, only their time counts); the codec's GPU tests with s38c; registers (kernel-stats).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outC; mkdir -p $R "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in s38b s38c p1 p2 p3 p4; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
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
for b in s38b s38c s38b s38c; do
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 120 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep -o "encode blocks [0-9.]*" "$R/$n.txt" | tr '\n' ' '; echo
done
for b in s38c p1 p2 p3 p4 s38c; do
  n=$b; [ -e "$R/probe-$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 60 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_3840x2160.png --bpp 1 --chroma 420 \
     --runs 60 --rounds 2 --stages >"$R/probe-$n.txt" 2>"$R/probe-$n.log"
  echo "== probe $n rc $?"; grep -o "encode blocks [0-9.]*" "$R/probe-$n.txt" | tr '\n' ' '; echo
done
kill $CLK
WAVEKIT_DUMP_WGSL=/tmp/dump-s38c timeout 60 /tmp/wavekit-s38c codec bench --frames .dev/frames/frame_1920x1080.png --bpp 1 --chroma 420 --runs 3 --rounds 1 > /dev/null 2>&1
timeout 60 /tmp/kernel-stats /tmp/dump-s38c > $R/stats-s38c.txt 2>&1
grep "block_encode" $R/stats-s38c.txt
tar -czf "$OUT/callC.tgz" -C /tmp outC
