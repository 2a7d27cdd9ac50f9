#!/usr/bin/env bash
# Session 44, the UI call (the H200 machine): the compositor against Vello 0.11 with the
# culling variants (UI_CULL_VARIANTS=1), Warp's first part kept for the Python call.
set -u
tar -xJf .dev/ui44.txz -C .dev
mkdir -p /tmp/o44
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 > /tmp/o44/clock-ui.csv & c=$!
UI_RUNS=${UI_RUNS:-100} UI_PEER_RUNS=${UI_PEER_RUNS:-30} UI_CULL_VARIANTS=1 timeout ${UI_TIMEOUT:-300} scripts/h200-ui.sh /tmp/o44/ui
echo "ui exit $?"
# The same scenes with builds of their own, after the default: bin8 (128-pixel bins,
# BIN_TILES 8), lazy (shade.wgsl reads each kind's record words only), both.
for v in bin8 lazy both; do
    timeout ${VAR_TIMEOUT:-70} .dev/bin/wavekit-$v ui bench --runs ${VAR_RUNS:-40} --peer /tmp/o44/ui/vello.jsonl --save /tmp/o44/ui/ui-$v.jsonl > /tmp/o44/ui/ui-$v.txt 2>/tmp/o44/ui/ui-$v.log
    echo "$v exit $?"
done
kill $c
for v in bin8 lazy both; do echo "== $v"; grep -v binning /tmp/o44/ui/ui-$v.txt; done
grep -v "^\[" /tmp/o44/ui/ui.txt | head -90
tail -3 /tmp/o44/ui/tests.txt /tmp/o44/ui/tests-no-subgroups.txt
tar -czf $OUT/ui44.tgz -C /tmp/o44 --exclude='ui/scenes' --exclude='*.png' . 
cp /tmp/o44/ui/paragraphs-10051.png $OUT/ 2>/dev/null
# Warp's first part, kept on the machine for the Python call that follows.
mkdir -p /tmp/keep; cp .whl/warp.part.* /tmp/keep/ 2>/dev/null; ls -la /tmp/keep
true
