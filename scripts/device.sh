#!/usr/bin/env bash
# Build the CLI here for a run on the H200 through the `device` tool (../shared/DEVICE.md):
# fetches the Vulkan loader and glvnd into .gl/ once, puts the release binary (and any extra files
# given as arguments) in .dev/, and prints the arguments for the tool's `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d .gl ] || ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    ../shared/tools/device-prep
fi
# The NVIDIA Vulkan driver (libGLX_nvidia.so.0) needs glvnd's dispatch libraries, which the
# device machine lacks: without them the loader says "Could not get 'vkCreateInstance'".
if ! ls .gl/libglvnd0_*.deb >/dev/null 2>&1; then
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    mkdir -p /tmp/amd64/partial
    [ -d /tmp/amd64/lists ] || apt-get $o update -qq
    (cd .gl && apt-get $o download libglvnd0 libgl1 libglx0 libegl1 libopengl0 libgles2)
fi
cargo build --release --quiet -p wavekit-cli -p wavekit-kernel-stats
mkdir -p .dev/bin
cp target/release/wavekit target/release/kernel-stats .dev/bin/
for f in "$@"; do cp -r "$f" .dev/; done
cat <<'MSG'
run with carry [".gl", ".dev"] and a command starting:
  for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; mkdir -p $OUT;
then e.g.:
  .dev/bin/wavekit probe --json | tee $OUT/probe.json; .dev/bin/wavekit selftest | tee $OUT/selftest.txt
  WAVEKIT_DUMP_WGSL=/tmp/wg .dev/bin/wavekit bench primitives --log2 16 --runs 2; .dev/bin/kernel-stats /tmp/wg
MSG
