#!/usr/bin/env bash
# Build here everything scripts/h200-ui.sh runs on the H200 machine, into .dev/:
#   .dev/bin/wavekit      the release CLI (scripts/device.sh: also fetches the Vulkan loader and
#                         glvnd into .gl/)
#   .dev/bin/ui_gpu       the wavekit-ui GPU test binary (release)
#   .dev/bin/vello-peer   the Vello 0.11 peer, built beforehand as peer/vello/README.md says
#                         (its own workspace; Vello's changed copy is not kept here)
# Then run, on the H200 machine, with .gl and .dev carried:  scripts/h200-ui.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .dev/bin
if ! scripts/device.sh >/dev/null; then
    echo "h200-ui-build: scripts/device.sh failed (it fetches .gl/ with ../shared/tools/device-prep," >&2
    echo "  which needs a checkout whose .git is a folder); building the CLI alone" >&2
    cargo build --release --quiet -p wavekit-cli
    cp target/release/wavekit .dev/bin/
fi
bin=$(cargo test --release -p wavekit-ui --test ui_gpu --no-run --message-format=json 2>/dev/null |
    grep '"executable":"[^"]*ui_gpu' | sed 's/.*"executable":"\([^"]*\)".*/\1/' | tail -1)
[ -n "$bin" ] || { echo "h200-ui-build: the ui_gpu test binary was not built" >&2; exit 1; }
cp "$bin" .dev/bin/ui_gpu
[ -x .dev/bin/vello-peer ] || {
    echo "h200-ui-build: build the Vello peer first, as peer/vello/README.md says, into .dev/bin/vello-peer" >&2
    exit 1
}
ls -l .dev/bin/wavekit .dev/bin/ui_gpu .dev/bin/vello-peer
echo "built; on the H200 machine (carry .gl and .dev): scripts/h200-ui.sh \$OUT/ui"
