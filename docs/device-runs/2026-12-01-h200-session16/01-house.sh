#!/usr/bin/env bash
# Session 16, call 1 (issue 33, the house's second pass), on a fresh H200 machine:
# 1. correctness at subgroup width 32 after the restructure: the GPU test binaries whose code
#    moved (foundation, primitives, sort, histogram, prelude, dwt, ui, trace, examples), run
#    with --include-ignored, with subgroups and without; `wavekit selftest`; the four examples;
# 2. every benchmark on the one protocol, each printing the SM clock: primitives beside CUB
#    (built here in the same call), copy, chain, probe, dwt, ui, trace;
# 3. the CLI end to end against numpy's default sort (keys) and its stable argsort (pairs).
# Everything lands in $OUT as a few files (logs packed).
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg PYTHONUNBUFFERED=1; mkdir -p $XDG_RUNTIME_DIR $OUT /tmp/r
tar -C .dev -xJf .dev/pack.tar.xz
W=.dev/bin/wavekit
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu --format=csv -lms 200 > /tmp/r/clocks.csv &
SMI=$!
(nvcc -O3 -std=c++17 -arch=sm_90 peer/cub/primitives.cu -o /tmp/cubp && nvcc -O3 -std=c++17 -arch=sm_90 peer/cub/sort.cu -o /tmp/cubs) > /tmp/r/nvcc.txt 2>&1 &
NV=$!
$W probe > /tmp/r/probe.txt 2>&1
$W selftest > /tmp/r/selftest.txt 2>&1; echo "rc=$?" >> /tmp/r/selftest.txt
for t in .dev/tests/*; do
  n=$(basename $t)
  WAVEKIT_EXPECT_SUBGROUP=32 timeout 100 $t --include-ignored --skip large_ --test-threads 4 > /tmp/r/test-$n.txt 2>&1; echo "rc=$?" >> /tmp/r/test-$n.txt
  WAVEKIT_NO_SUBGROUPS=1 timeout 100 $t --include-ignored --skip large_ --test-threads 4 > /tmp/r/test-$n-nosg.txt 2>&1; echo "rc=$?" >> /tmp/r/test-$n-nosg.txt
done
for e in primitives wavelet compositor tracer; do
  timeout 60 .dev/bin/$e /tmp/r/panel.png > /tmp/r/example-$e.txt 2>&1; echo "rc=$?" >> /tmp/r/example-$e.txt
done
wait $NV
ALL=reduce,scan_inclusive,scan_exclusive,select,partition,sort_keys,sort_pairs,histogram256,histogram4096
/tmp/cubp 30 16 20 24 28 > /tmp/r/cub.jsonl 2> /tmp/r/cub.err
/tmp/cubs 30 16 20 24 28 >> /tmp/r/cub.jsonl 2>> /tmp/r/cub.err
$W bench primitives --log2 16,20,24,28 --only $ALL --runs 20 --rounds 2 --peer /tmp/r/cub.jsonl --save /tmp/r/prims.json > /tmp/r/bench-primitives.txt 2> /tmp/r/bench-primitives.err
$W bench copy --bytes 16777216,1073741824 --runs 20 --rounds 2 > /tmp/r/bench-copy.txt 2>&1
$W bench chain --workgroups 1,1056 --dispatches 4 --runs 20 --rounds 1 > /tmp/r/bench-chain.txt 2>&1
$W bench probe --reads 500 --workgroups 1056 --runs 5 --rounds 1 > /tmp/r/bench-probe.txt 2>&1
$W bench dwt --sizes 4k --planes 1 --runs 20 --rounds 2 > /tmp/r/bench-dwt.txt 2>&1
timeout 120 $W ui bench --items 100000 --scenes mix,text --runs 20 --rounds 2 > /tmp/r/bench-ui.txt 2>&1
timeout 120 $W trace bench --meshes proc:grid:40 --runs 10 --rounds 2 > /tmp/r/bench-trace.txt 2>&1
timeout 150 python3 peer/python/e2e.py --wavekit $W --sizes 28 --jobs sort,sort_pairs --dir /tmp/e2e --out /tmp/r/e2e-28.jsonl > /dev/null 2> /tmp/r/e2e-28.txt; echo "rc=$?" >> /tmp/r/e2e-28.txt
kill $SMI
xz -9 /tmp/r/clocks.csv
rm -f /tmp/r/panel.png
tar -C /tmp -cJf $OUT/call1.tar.xz r
grep -h "rc=\|test result" /tmp/r/test-*.txt | sort | uniq -c
tail -n 3 /tmp/r/example-*.txt
cat /tmp/r/bench-primitives.txt; tail -n 12 /tmp/r/bench-ui.txt; tail -n 8 /tmp/r/bench-trace.txt; cat /tmp/r/bench-copy.txt /tmp/r/bench-chain.txt | tail -n 12; grep -h "e2e:" /tmp/r/e2e-28.txt
