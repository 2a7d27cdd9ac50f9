#!/usr/bin/env bash
# Session 45, the first UI call (the H200 machine): the build on main (7beefdf) against Vello
# 0.11: 128-pixel bins, cover flags set once a bin_emit workgroup, bin_emit taking 8 chunks a
# workgroup, fine kernels specialised for the scene, each kind's record words read alone, the
# survivors' records staged in workgroup memory; rows no-flags, general and unstaged take one
# speed-up away (UI_VARIANTS=1). Then the same code built with 256-pixel bins (wavekit-bin16),
# and the driver's registers for every fine kernel.
set -u
tar -xJf .dev/ui46.txz -C .dev
mkdir -p /tmp/o46
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 > /tmp/o46/clock-ui.csv & c=$!
UI_RUNS=${UI_RUNS:-50} UI_PEER_RUNS=${UI_PEER_RUNS:-30} UI_VARIANTS=1 timeout ${UI_TIMEOUT:-300} scripts/h200-ui.sh /tmp/o46/ui
echo "ui exit $?"
tar -czf $OUT/ui46.tgz -C /tmp/o46 --exclude='ui/scenes' --exclude='*.png' .
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
timeout ${VAR_TIMEOUT:-60} .dev/bin/wavekit-bin16 ui bench --runs ${VAR_RUNS:-40} --peer /tmp/o46/ui/vello.jsonl --save /tmp/o46/ui/ui-bin16.jsonl > /tmp/o46/ui/ui-bin16.txt 2>/tmp/o46/ui/ui-bin16.log
echo "bin16 exit $?"
kill $c
WAVEKIT_DUMP_WGSL=/tmp/o46/wg timeout 60 .dev/bin/wavekit ui bench --size 320x180 --items 200 --runs 1 --variants > /tmp/o46/wg-bench.txt 2>&1
timeout 60 .dev/bin/kernel-stats --consts STAGE_RECORDS,HAS_SHAPE,HAS_IMAGE,HAS_GLYPH,HAS_SHADOW,HAS_GRADIENT,HAS_CLIP,COVER_FLAGS,COMPACT,STATS /tmp/o46/wg/ui_* > /tmp/o46/kernel-stats.txt 2>&1
echo "kernel-stats exit $?"
sed 's/groups=\[[^]]*\]\]//' /tmp/o46/kernel-stats.txt | cut -c1-400
echo "== bin16"; cat /tmp/o46/ui/ui-bin16.txt
echo "== default"; grep -v "^\[" /tmp/o46/ui/ui.txt | head -120
for f in /tmp/o46/ui/tests.txt /tmp/o46/ui/tests-no-subgroups.txt; do grep -E "test result|FAILED|panicked" $f | head; done
rm -rf /tmp/o46/wg
tar -czf $OUT/ui46.tgz -C /tmp/o46 --exclude='ui/scenes' --exclude='*.png' .
cp /tmp/o46/ui/paragraphs-10051.png /tmp/o46/ui/demo.png $OUT/ 2>/dev/null
true
