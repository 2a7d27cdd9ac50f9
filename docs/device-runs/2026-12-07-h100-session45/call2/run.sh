#!/usr/bin/env bash
# Session 45, the second UI call (the H200 machine), most needed first, the outputs packed after
# each step: main at 4413b60 (bin lists placed by a workgroup a chunk, ADR-0116; bounds in
# bin_count, ADR-0115), its GPU tests, Vello 0.11 on the same scenes, every scene with each
# speed-up taken away in turn (no-flags, general, unstaged, by-bin); then the build of 7beefdf
# (a bbox dispatch of its own, lists by a workgroup a bin); then two knock-out builds of
# bec9bcb on the image scenes (a diagnosis, not kept): texels not read, images not sampled.
set -u
mkdir -p .dev/b48 && tar -xJf .dev/ui48.txz -C .dev/b48
tar -xJf .dev/ui47.txz -C .dev
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
o=/tmp/o49; mkdir -p $o
pack() { tar -czf $OUT/ui49.tgz -C $o --exclude='scenes' --exclude='*.png' .; }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 200 > $o/clock-ui.csv & c=$!
B=.dev/b48/bin
$B/wavekit probe --json > $o/probe.json
timeout 60 $B/ui_gpu --include-ignored --test-threads 2 > $o/tests.txt 2>&1
WAVEKIT_NO_SUBGROUPS=1 timeout 60 $B/ui_gpu --include-ignored --test-threads 2 > $o/tests-no-subgroups.txt 2>&1
for f in $o/tests.txt $o/tests-no-subgroups.txt; do grep -E "test result|FAILED|panicked" $f | head -5; done
$B/wavekit ui bench --write-scenes $o/scenes --runs 0 > /dev/null 2>&1
timeout 100 $B/vello-peer $o/scenes --runs 30 > $o/vello.jsonl 2> $o/vello.log; echo "vello exit $?"
pack
timeout 210 $B/wavekit ui bench --variants --runs 30 --peer $o/vello.jsonl --save $o/ui.jsonl > $o/ui.txt 2> $o/ui.log; echo "main exit $?"
pack
echo "== main"; grep -v "serial\|atomic" $o/ui.txt
timeout 60 .dev/bin/wavekit-7beefdf ui bench --runs 30 --peer $o/vello.jsonl --save $o/ui-7beefdf.jsonl > $o/ui-7beefdf.txt 2> $o/ui-7beefdf.log; echo "7beefdf exit $?"
pack
for k in ko-texel ko-image; do
  timeout 30 .dev/bin/wavekit-$k ui bench --scenes images --runs 30 --peer $o/vello.jsonl --save $o/ui-$k.jsonl > $o/ui-$k.txt 2> $o/ui-$k.log; echo "$k exit $?"
done
kill $c
pack
for k in 7beefdf ko-texel ko-image; do echo "== $k"; grep -v "serial\|atomic" $o/ui-$k.txt; done
true
