#!/usr/bin/env bash
# Run wavekit's main job on this machine: installs a Vulkan driver (Mesa lavapipe) when none
# exists, builds the CLI in release mode, and runs `wavekit demo` (arguments are passed on).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_vulkan
cargo build --release --quiet -p wavekit-cli
exec target/release/wavekit demo "$@"
