#!/usr/bin/env bash
# Session 15, call 3, after 03-protocol.sh (the device time left allowed two calls, not three): the compositor and the tracer on the H200, each by its own script
# (scripts/h200-ui.sh: GPU tests with and without subgroups, the scenes, Vello 0.11, `wavekit ui
# bench` with the three compaction variants and the ratio to Vello; scripts/h200-trace.sh: GPU
# tests, `wavekit trace bench` on the dragon and a procedural grid, Embree 4.4 on the 16 cores,
# the summary), everything packed into one file.
set -u
tar -C .dev -xJf .dev/pack.tar.xz
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR /tmp/r4
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu --format=csv -lms 200 > /tmp/r4/clocks.csv &
SMI=$!
UI_RUNS=60 UI_PEER_RUNS=20 timeout 150 bash scripts/h200-ui.sh /tmp/r4/ui > /tmp/r4/ui.log 2>&1; echo "ui rc=$?" >> /tmp/r4/ui.log
timeout 160 bash scripts/h200-trace.sh /tmp/r4/trace > /tmp/r4/trace.log 2>&1; echo "trace rc=$?" >> /tmp/r4/trace.log
kill $SMI
xz -9 /tmp/r4/clocks.csv
rm -rf /tmp/r4/ui/scenes
tar -C /tmp -cJf $OUT/call4.tar.xz r4
tail -40 /tmp/r4/ui.log; tail -40 /tmp/r4/trace.log
