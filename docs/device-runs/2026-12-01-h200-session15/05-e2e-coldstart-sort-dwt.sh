#!/usr/bin/env bash
# Session 15, call 4: the final main's core tests at width 32 that changed since call 1 (the
# wavelet's colour transforms, the prelude, the primitives); CUB's peers beside `bench
# primitives` at 2^24 and 2^28 (the sort at 2^28 for today's table; CUB's sort with a 64-bit
# count); the wavelet's three planes with and without the fused colour transforms, and a sweep of
# tile shapes and small-level regions at 4K against the copy floor; the CLI end to end against
# numpy and the I/O floor (new and 324dad0); the time to a first result, cold and warm driver
# cache, with and without wavekit's pipeline cache.
# Then 10 more fresh processes of the protocol (call 3 ran 10 on the freshly started machine).
# First, call 3's compositor and tracer results, whose archive was over 16 MiB with Vello's
# PNGs, the 4K mix PNG and the tracer's rays: packed again without them.
set -u
(cd /tmp && du -sh r4/ui/* r4/trace/* 2>&1 | sort -h | tail -8 && tar -cJf $OUT/call3-ui-trace.tar.xz --exclude=r4/ui/vello-png --exclude=r4/ui/mix.png --exclude=r4/ui/scenes --exclude='r4/trace/bench/*.npy' r4 && ls -la $OUT)
tar -C .dev -xJf .dev/pack.tar.xz
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR $OUT /tmp/e
W=.dev/bin/wavekit; OLD=.dev/bin/wavekit-324dad0
(cd .dev/peer/cub && nvcc -O3 -std=c++17 -arch=sm_90 primitives.cu -o /tmp/cubp && nvcc -O3 -std=c++17 -arch=sm_90 sort.cu -o /tmp/cubs) > /tmp/e/nvcc.txt 2>&1 &
NVCC=$!
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu --format=csv -lms 100 > /tmp/e/clocks.csv &
SMI=$!
tar -C .dev -xJf .dev/tests.tar.xz
for t in dwt prelude_gpu primitives_gpu sort_gpu; do
  WAVEKIT_EXPECT_SUBGROUP=32 WAVEKIT_REQUIRE_GPU=1 timeout 60 .dev/tests/$t > /tmp/e/t-$t.txt 2>&1
  echo "$t rc=$? $(grep 'test result' /tmp/e/t-$t.txt | tail -n 1)" | tee -a /tmp/e/tests.txt
done
# The wavelet: three planes with and without the colour transforms, the peers' file from call 2.
$W bench dwt --sizes 4k,8k --planes 3 --bindings separate --color --runs 20 --rounds 2 --peer .dev/dwt_peers.jsonl --save /tmp/e/dwt-color.json > /tmp/e/dwt-color.txt 2>/tmp/e/dwt-color.err
# 4K against the copy floor: tile shapes and small-level regions.
for t in default 128x16x2 64x16x4 64x8x8 256x4x2; do
  if [ $t = default ]; then env=(); else env=(WAVEKIT_DWT_TILE=$t); fi
  env "${env[@]}" $W bench dwt --sizes 4k --planes 1 --bindings separate --runs 20 --rounds 2 2>/dev/null | grep -E "^4k" | sed "s/^/$t /" >> /tmp/e/dwt-4k-sweep.txt
done
for s in 0 100000000; do
  WAVEKIT_DWT_SMALL_SAMPLES=$s $W bench dwt --sizes 4k --planes 1 --bindings separate --runs 20 --rounds 2 2>/dev/null | grep -E "^4k" | sed "s/^/small=$s /" >> /tmp/e/dwt-4k-sweep.txt
done
for l in 1 3; do
  $W bench dwt --sizes 4k --planes 1 --bindings separate --levels $l --runs 20 --rounds 2 2>/dev/null | grep -E "^4k" | sed "s/^/levels=$l /" >> /tmp/e/dwt-4k-sweep.txt
done
wait $NVCC
/tmp/cubp 30 24 28 > /tmp/e/cub.jsonl 2> /tmp/e/cub.err
/tmp/cubs 30 24 28 >> /tmp/e/cub.jsonl 2>> /tmp/e/cub.err
ALL=reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256,histogram4096
$W bench primitives --log2 24,28 --only $ALL --runs 20 --rounds 2 --peer /tmp/e/cub.jsonl --plot /tmp/e/primitives.svg --save /tmp/e/vs-cub.json > /tmp/e/vs-cub.txt 2> /tmp/e/vs-cub.err
kill $SMI
# The CLI end to end (the GPU idles between its processes: that is what a user gets).
# (324dad0 at 2^26 and on the PNG only: at 2^29 it took 7.6 to 18.6 s a job, the table.)
timeout 170 python3 peer/python/e2e.py --wavekit $W --sizes 26,29 --png --dir /tmp/e2e --out /tmp/e/e2e.jsonl > /dev/null 2> /tmp/e/e2e.txt; echo "e2e rc=$?" >> /tmp/e/e2e.txt
timeout 50 python3 peer/python/e2e.py --wavekit $OLD --sizes 26 --png --dir /tmp/e2e-old --out /tmp/e/e2e-old.jsonl > /dev/null 2> /tmp/e/e2e-old.txt; echo "e2e old rc=$?" >> /tmp/e/e2e-old.txt
# Time to the first result: whole processes, cold and warm driver cache, with and without
# wavekit's pipeline cache (new), and 324dad0.
python3 -c "
import numpy as np
np.save('/tmp/e/s.npy', np.arange(1000, dtype=np.uint32)[::-1].copy())
np.save('/tmp/e/img.npy', (np.arange(256*256, dtype=np.float32) % 251).reshape(256, 256))
"
ms() { local t0=$(date +%s%N); "$@" > /dev/null 2>&1; local rc=$?; echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms rc=$rc"; }
for b in wavekit wavekit+cache wavekit-324dad0; do
  bin=.dev/bin/${b%+cache}
  for job in scan sort dwt; do
    case $job in
      scan) cmd=($bin scan /tmp/e/s.npy -o /tmp/e/o.npy) ;;
      sort) cmd=($bin sort /tmp/e/s.npy -o /tmp/e/o.npy) ;;
      dwt) cmd=($bin dwt forward /tmp/e/img.npy -o /tmp/e/c.npy --wavelet 9/7 --levels 5) ;;
    esac
    dir=/tmp/glcache-$b-$job; pc=/tmp/pcache-$job; rm -rf $dir; mkdir -p $dir
    for state in cold warm warm; do
      if [ $b = wavekit+cache ]; then
        # The driver's cache emptied each time: only wavekit's pipeline cache carries over.
        rm -rf $dir; mkdir -p $dir
        r=$(WAVEKIT_PIPELINE_CACHE=$pc __GL_SHADER_DISK_CACHE_PATH=$dir ms "${cmd[@]}")
      else
        r=$(__GL_SHADER_DISK_CACHE_PATH=$dir ms "${cmd[@]}")
      fi
      echo "$b $job $state $r" >> /tmp/e/first-result.txt
    done
  done
done
$W --timings sort /tmp/e/s.npy -o /tmp/e/o.npy 2>> /tmp/e/first-result.txt
xz -9 /tmp/e/clocks.csv
rm -f /tmp/e/*.npy
tar -C /tmp -cJf $OUT/call5.tar.xz e
timeout 150 bash scripts/protocol.sh .dev/bin/wavekit /tmp/protocol2 10 --runs 10 --rounds 1 > /tmp/protocol2.log 2>&1
pkill -f "nvidia-smi --query"; sleep 0.3; xz -9 /tmp/protocol2/clocks.csv
tar -C /tmp -cJf $OUT/protocol2.tar.xz protocol2
cat /tmp/e/tests.txt /tmp/e/first-result.txt /tmp/e/dwt-4k-sweep.txt /tmp/e/e2e.txt /tmp/e/e2e-old.txt | tail -120
