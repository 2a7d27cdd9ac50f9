#!/usr/bin/env bash
# Session 38, call D: call C's pending words as values, not pointers (wavekit-s38d), and only
# the remainders through a pending word, the quotients as in s38b (wavekit-s38e), against
# wavekit-s38b, interleaved; the codec's GPU tests with s38d (and the encoder's with s38e).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outD; mkdir -p $R "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in s38b s38d s38e; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
for v in d e; do
  rm -rf .dev/tests && tar -xJf .dev/tests-$v.txz -C .dev
  for t in .dev/tests/*; do
    for mode in sg nosg; do
      env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
      echo "-- $v $(basename "$t") $mode" >> $R/tests.txt
      if env $env_mode timeout 150 "$t" --include-ignored --skip large_ >> $R/tests.txt 2>&1; then
        echo "$v $(basename "$t") $mode: ok"; else echo "$v $(basename "$t") $mode: FAILED"; fi
    done
  done
done
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >$R/frames.log 2>&1
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $R/clock.txt &
CLK=$!
for b in s38b s38d s38e s38b s38d s38e; do
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 120 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep -o "encode blocks [0-9.]*" "$R/$n.txt" | tr '\n' ' '; echo
done
kill $CLK
tar -czf "$OUT/callD.tgz" -C /tmp outD
