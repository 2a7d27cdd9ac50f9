#!/usr/bin/env bash
# The UI compositor's whole H200 run, everything written under OUTDIR:
#   probe.json              the adapter
#   tests.txt               wavekit-ui's GPU tests at the device's subgroup width (32), with the
#                           count of pixels a channel off by one from the CPU reference per case
#   tests-no-subgroups.txt  the same without subgroups
#   scenes/                 the benchmark's scenes (JSON, font, images): both renderers read them
#   vello.jsonl, vello.log  the Vello 0.11 peer: GPU time (median, p99) and frame wall time per scene
#   vello-png/              what Vello drew (a look, and proof it drew)
#   ui.txt, ui.jsonl        wavekit ui bench: GPU time median and p99 per scene, the three
#                           compaction variants on mix and stack, draw list to finished frame for
#                           the largest mix, and the ratio to Vello
#   demo.png, mix.png       the demo panel and the 100 000-item mix as wavekit-ui draws them
#   paragraphs-N.png        each paragraph scene as wavekit-ui draws it (Vello's: vello-png/)
# Build first, here (not on the H200 machine):  scripts/h200-ui-build.sh
# It puts the release CLI, the ui_gpu test binary and the peer in .dev/bin and the Vulkan loader
# in .gl/; carry .gl and .dev. Usage:  scripts/h200-ui.sh OUTDIR
# UI_RUNS and UI_PEER_RUNS set the timed runs per scene (200 and 50 by default).
# UI_VARIANTS=1 also times every scene with each speed-up taken away (`wavekit ui bench
# --variants`: rows no-flags, general).
# UI_SMOKE=1 runs the same steps on small scenes (320x180, 200 items, a few runs): a check of
# the plumbing on any machine (lavapipe included), not a measurement.
set -uo pipefail
out=${1:?usage: scripts/h200-ui.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
if [ -d .gl ] && ! ldconfig -p | grep -q 'libvulkan\.so\.1'; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
small=()
peer_runs=${UI_PEER_RUNS:-50}
runs=${UI_RUNS:-200}
if [ "${UI_SMOKE:-0}" = 1 ]; then
    small=(--size 320x180 --items 200)
    peer_runs=2
    runs=3
fi
extra=()
[ "${UI_VARIANTS:-0}" = 1 ] && extra=(--variants)
status=0
step() { echo "== $*" >&2; }

step probe
.dev/bin/wavekit probe --json > "$out/probe.json" || status=1

step "GPU tests (subgroups)"
.dev/bin/ui_gpu --include-ignored --test-threads 2 --nocapture > "$out/tests.txt" 2>&1 || status=1
tail -3 "$out/tests.txt" >&2
step "GPU tests (no subgroups)"
WAVEKIT_NO_SUBGROUPS=1 .dev/bin/ui_gpu --include-ignored --test-threads 2 --nocapture \
    > "$out/tests-no-subgroups.txt" 2>&1 || status=1
tail -3 "$out/tests-no-subgroups.txt" >&2

step "scenes"
.dev/bin/wavekit ui bench "${small[@]}" --write-scenes "$out/scenes" --runs 0 || status=1

step "Vello peer"
.dev/bin/vello-peer "$out/scenes" --runs "$peer_runs" --png "$out/vello-png" \
    > "$out/vello.jsonl" 2> "$out/vello.log" || status=1
cat "$out/vello.jsonl" >&2

step "wavekit ui bench"
.dev/bin/wavekit ui bench "${small[@]}" "${extra[@]}" --runs "$runs" --peer "$out/vello.jsonl" --save "$out/ui.jsonl" \
    > "$out/ui.txt" || status=1
cat "$out/ui.txt" >&2

step "images"
.dev/bin/wavekit ui demo -o "$out/demo.png" || status=1
mix=$(ls "$out"/scenes/mix-*.json | sort -t- -k2 -n | tail -1)
.dev/bin/wavekit ui render "$mix" -o "$out/mix.png" || status=1
# The paragraph scenes as wavekit-ui draws them, beside Vello's in vello-png/.
for p in "$out"/scenes/paragraphs-*.json; do
    [ -f "$p" ] || continue
    .dev/bin/wavekit ui render "$p" -o "$out/$(basename "${p%.json}").png" || status=1
done
exit $status
