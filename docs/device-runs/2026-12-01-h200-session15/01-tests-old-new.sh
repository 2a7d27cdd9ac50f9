#!/usr/bin/env bash
# Session 15, call 1 (a freshly started machine): every GPU test binary of the refactored main
# (the kernel prelude, policies as values, the sort in parts) at subgroup width 32; then the
# primitives and the wavelet, new (the measurement protocol: warm-up by time, interleaved rounds,
# NVML clock) and old (324dad0, as it was) in alternating fresh processes, two of each; the SM
# clock logged by nvidia-smi every 100 ms throughout; CUB's peers compiled in the background.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR $OUT /tmp/r
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu,memory.used --format=csv -lms 100 > /tmp/r/clocks.csv &
SMI=$!
(cd .dev/peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 primitives.cu -o /tmp/cubp && nvcc -O3 -std=c++17 -arch=sm_90 sort.cu -o /tmp/cubs) > /tmp/r/nvcc.txt 2>&1 &
.dev/bin/wavekit probe > /tmp/r/probe.txt 2>&1
tar -C .dev -xJf .dev/tests.tar.xz
for t in .dev/tests/*; do
  n=$(basename $t)
  echo "$(date +%T) $n" >> /tmp/r/marks.txt
  WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 300 $t > /tmp/r/t-$n.txt 2>&1
  echo "$n rc=$? $(grep 'test result' /tmp/r/t-$n.txt | tail -n 1)" | tee -a /tmp/r/tests.txt
done
ALL=reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256,histogram4096
for r in 1 2; do
  echo "$(date +%T) new primitives $r" >> /tmp/r/marks.txt
  .dev/bin/wavekit bench primitives --log2 20,24,27 --only $ALL --runs 20 --rounds 2 --save /tmp/r/new-prims-$r.json > /tmp/r/new-prims-$r.txt 2> /tmp/r/new-prims-$r.err
  echo "$(date +%T) old primitives $r" >> /tmp/r/marks.txt
  .dev/bin/wavekit-324dad0 bench primitives --log2 20,24,27 --only $ALL --runs 30 > /tmp/r/old-prims-$r.txt 2> /tmp/r/old-prims-$r.err
  echo "$(date +%T) new dwt $r" >> /tmp/r/marks.txt
  .dev/bin/wavekit bench dwt --sizes 4k,8k --planes 1,3 --bindings separate --runs 20 --rounds 2 --save /tmp/r/new-dwt-$r.json > /tmp/r/new-dwt-$r.txt 2> /tmp/r/new-dwt-$r.err
  echo "$(date +%T) old dwt $r" >> /tmp/r/marks.txt
  .dev/bin/wavekit-324dad0 bench dwt --sizes 4k,8k --planes 1,3 --runs 30 > /tmp/r/old-dwt-$r.txt 2> /tmp/r/old-dwt-$r.err
done
kill $SMI
wait
xz -9 /tmp/r/clocks.csv
tar -C /tmp -cJf $OUT/call1.tar.xz r
cat /tmp/r/tests.txt; grep -h "^[a-z_0-9]* *[0-9]" /tmp/r/new-prims-1.txt /tmp/r/old-prims-1.txt | head -60
