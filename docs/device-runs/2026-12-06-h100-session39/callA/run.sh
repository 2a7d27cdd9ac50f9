#!/usr/bin/env bash
# Session 39, call A: main (base) against s39a (the decoder reading its payload from workgroup
# memory; the colour kernel clearing the histogram and the frame) and s39c (s39a and the joint
# wavelet: luma level l + 1 with chroma level l in one dispatch), interleaved; a probe with no
# plane decoded (s39p, s39a otherwise); the codec's and the wavelet's GPU tests of s39c at width
# 32 and without subgroups; the wavelet by level count; a dependent dispatch's cost; kernel stats.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/outA; mkdir -p $R "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.csv
for b in base s39a s39c s39p; do xz -dc .dev/bin/wavekit-$b.xz > /tmp/wavekit-$b; chmod +x /tmp/wavekit-$b; done
xz -dc .dev/bin/kernel-stats.xz > /tmp/kernel-stats; chmod +x /tmp/kernel-stats
rm -rf .dev/tests && tar -xJf .dev/tests39.txz -C .dev
for t in .dev/tests/*; do
  for mode in sg nosg; do
    env_mode=$([ $mode = nosg ] && echo WAVEKIT_NO_SUBGROUPS=1 || echo WAVEKIT_EXPECT_SUBGROUP=32)
    echo "-- $(basename "$t") $mode" >> $R/tests.txt
    if env $env_mode timeout 150 "$t" --include-ignored --skip large_ >> $R/tests.txt 2>&1; then
      echo "$(basename "$t") $mode: ok"; else echo "$(basename "$t") $mode: FAILED"; fi
  done
done
python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames >$R/frames.log 2>&1
F=.dev/frames/frame_3840x2160.png,.dev/frames/frame_2560x1440.png,.dev/frames/frame_1920x1080.png
F2=.dev/frames/frame_3840x2160.png,.dev/frames/frame_1920x1080.png
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $R/clock.txt &
CLK=$!
for b in base s39a s39c base s39a s39c; do
  n=$b; [ -e "$R/$b-1.txt" ] && n=$b-2 || n=$b-1
  timeout 120 /tmp/wavekit-$b codec bench --frames $F --bpp 1 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/$n.txt" 2>"$R/$n.log"
  echo "== $n rc $?"; grep "^frame_" "$R/$n.txt" | awk '{print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10}'
  grep -o "encode colour [0-9.]*\|encode wavelet [0-9.]*\|encode blocks [0-9.]*\|encode packing [0-9.]*\|decode blocks [0-9.]*\|decode inverse wavelet [0-9.]*" "$R/$n.txt" | tr '\n' ' '; echo
done
timeout 120 /tmp/wavekit-s39p codec bench --frames $F2 --bpp 1,2 --chroma 420 \
     --runs 60 --rounds 2 --stages >"$R/s39p-d.txt" 2>"$R/s39p-d.log"
echo "== s39p-d rc $?"; grep -o "decode blocks [0-9.]*" "$R/s39p-d.txt" | tr '\n' ' '; echo
timeout 150 /tmp/wavekit-s39c codec bench --frames $F --bpp 1,2 --chroma 420,444 \
     --runs 60 --rounds 2 --stages >"$R/s39c-full.txt" 2>"$R/s39c-full.log"
echo "== s39c-full rc $?"; grep "^frame" $R/s39c-full.txt
for b in base s39c; do
  timeout 100 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_3840x2160.png --bpp 1 --chroma 420 \
     --stream 3000 --in-flight 3 >"$R/stream-$b.txt" 2>"$R/stream-$b.log"
  echo "== stream $b rc $?"; tail -4 $R/stream-$b.txt
done
for lv in 1 3 5; do
  timeout 60 /tmp/wavekit-s39c bench dwt --sizes 4k,1080p --planes 1,2 --levels $lv \
     --bindings separate --runs 20 --rounds 1 >"$R/dwt-levels-$lv.txt" 2>"$R/dwt-levels-$lv.log"
  echo "== dwt levels $lv rc $?"
done
timeout 60 /tmp/wavekit-s39c bench chain --workgroups 1,132,1056,8448 --dispatches 8 >"$R/chain.txt" 2>&1
echo "== chain rc $?"
kill $CLK
for b in base s39c; do
  WAVEKIT_DUMP_WGSL=/tmp/dump-$b timeout 60 /tmp/wavekit-$b codec bench --frames .dev/frames/frame_1920x1080.png --bpp 1 --chroma 420 --runs 3 --rounds 1 > /dev/null 2>&1
  timeout 60 /tmp/kernel-stats /tmp/dump-$b > $R/stats-$b.txt 2>&1
  echo "== stats $b"; grep -i "block_sg\|color_forward\|dwt_tile" $R/stats-$b.txt | awk '{print $1,$4,$5,$9}'
done
tar -czf "$OUT/callA.tgz" -C /tmp outA
