#!/usr/bin/env bash
# Build the CLI here for a run on the H200 through the `device` tool (../shared/DEVICE.md):
# fetches the Vulkan loader into .gl/ once, puts the release binary (and any extra files
# given as arguments) in .dev/, and prints the arguments for the tool's `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d .gl ] || ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    ../shared/tools/device-prep
fi
cargo build --release --quiet -p wavekit-cli
mkdir -p .dev/bin
cp target/release/wavekit .dev/bin/
for f in "$@"; do cp -r "$f" .dev/; done
cat <<'MSG'
run with carry [".gl", ".dev"] and a command starting:
  for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; mkdir -p $OUT;
then e.g.:
  .dev/bin/wavekit probe --json | tee $OUT/probe.json; .dev/bin/wavekit selftest | tee $OUT/selftest.txt
MSG
