#!/usr/bin/env bash
# Session 15, call 3 (a freshly started machine, then 04-ui-trace.sh in the same call): the
# measurement protocol's proof, 10 fresh processes of the final main (not the 20: the
# session's device time), each timing every primitive at 2^20, 2^24 and 2^27 and the 4K and 8K
# wavelet cases (one plane, separate buffers), 10 runs a case after its warm-up, with the SM
# clock logged by nvidia-smi (scripts/protocol.sh); the summary is each case's spread of
# per-process medians. Their medians are also BENCHMARKS.md's today's numbers.
set -u
tar -C .dev -xJf .dev/pack.tar.xz
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR $OUT
timeout 230 bash scripts/protocol.sh .dev/bin/wavekit /tmp/protocol 10 --runs 10 --rounds 1 > /tmp/protocol.log 2>&1
pkill -f "nvidia-smi --query" ; sleep 0.3; xz -9 /tmp/protocol/clocks.csv
tar -C /tmp -cJf $OUT/protocol.tar.xz protocol
cat /tmp/protocol/summary.txt /tmp/protocol/marks.txt | tail -80
