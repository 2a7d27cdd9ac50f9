#!/usr/bin/env bash
# wavekit in the browser: builds the page in web/ (wasm32-unknown-unknown, wgpu's WebGPU
# backend, wasm-bindgen), serves it on 127.0.0.1, opens it in headless Chromium with WebGPU on
# SwiftShader (a CPU implementation), and fails unless every check on the page passed and a
# screenshot of the UI panel's canvas equals the native CPU reference of the same panel (every
# channel within 1, the compositor's GPU-against-CPU tolerance; the count of pixels off is
# printed). Installs what it needs when missing: the wasm target, wasm-bindgen-cli at the
# version Cargo.lock resolves, Debian's chromium, and playwright-core and pngjs from npm.
#
#   bash scripts/web-test.sh [--no-subgroups] [--both] [--runs N] [--checks 0,1,..]
#                            [--build-only | --no-build]
#     --no-subgroups  hide the adapter's subgroups: the emulated path runs
#     --both          run the page twice, with subgroups and without
#     --build-only    install the tools and build the page, then stop
#     --no-build      run the page built before (no cargo: it may run beside other builds)
#     --runs N        each GPU time the median of N runs (default 10; CI: 3, as the times on
#                     SwiftShader are for the record only)
#     --checks LIST   only these of the page's primitive checks (0 self-test, 1 reduce, 2-3 scan,
#                     4 segmented scan, 5 select, 6 partition, 7-8 sort, 9 histogram); by
#                     default "all"
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
modes=(1)
checks="all"
runs=10
build=1
run_page=1
while [ $# -gt 0 ]; do
    case "$1" in
        --no-subgroups) modes=(0) ;;
        --both) modes=(1 0) ;;
        --checks) checks="$2"; shift ;;
        --runs) runs="$2"; shift ;;
        --build-only) run_page=0 ;;
        --no-build) build=0 ;;
        *) echo "web-test: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
    shift
done
if ! [[ "$runs" =~ ^[1-9][0-9]{0,3}$ ]]; then
    echo "web-test: --runs $runs: give a count from 1 to 9999" >&2
    exit 2
fi
start=$SECONDS
step() { echo "== web [$((SECONDS - start)) s] $*"; }

if [ "$build" = 1 ]; then
    step "tools"
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        rustup target add wasm32-unknown-unknown
    fi
    want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
    have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
    if [ "$have" != "$want" ]; then
        # Not --locked: the CLI's own lock file names a webpki-roots release crates.io no longer
        # serves; cargo resolves a published one. Without default features (no TLS: the page needs
        # no downloads) and unoptimised: 72 s to build instead of 139 s, and 2.6 s on the page.
        # Built by rustc alone, whoever lints the workspace (the test command: ADR-0079).
        env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
            cargo install --quiet wasm-bindgen-cli --version "$want" --no-default-features --debug
    fi
    if ! command -v chromium >/dev/null; then
        sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get install -y -qq chromium >/dev/null ||
            { $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null; }
    fi
    if [ ! -d web/node_modules/playwright-core ] || [ ! -d web/node_modules/pngjs ]; then
        (cd web && npm ci --no-audit --no-fund --silent)
    fi
    echo "   wasm-bindgen $want, $(chromium --version 2>/dev/null | head -1), node $(node --version)"

    step "build the page (cargo, debug profile, dependencies unoptimised; wasm-bindgen --target web)"
    # The dependencies unoptimised for wasm32 (the native build optimises them: the tests'
    # CPU references): 65 s to build instead of 170 s on a 2-core machine, and the page's
    # time is spent in SwiftShader, not in them (ADR-0079).
    cargo build --quiet -p wavekit-web --target wasm32-unknown-unknown \
        --config 'profile.dev.package."*".opt-level=0'
    wasm-bindgen --target web --out-dir web/pkg target/wasm32-unknown-unknown/debug/wavekit_web.wasm
fi
if [ "$run_page" = 0 ]; then
    step "built (--build-only)"
    exit 0
fi
if [ ! -f web/pkg/wavekit_web.js ]; then
    echo "web-test: --no-build, but the page is not built (web/pkg): run without it once" >&2
    exit 2
fi

step "the native CPU reference of the panel, and a frame for the page to decode"
work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
wavekit=target/debug/wavekit
if [ ! -x "$wavekit" ]; then
    [ "$build" = 1 ] || { echo "web-test: --no-build, but $wavekit is not built" >&2; exit 2; }
    cargo build --quiet -p wavekit-cli
fi
knob=0.62
"$wavekit" ui demo --cpu --knob "$knob" -o "$work/reference.png"
"$wavekit" encode "$work/reference.png" -o web/pkg/panel.wkv --bpp 2 --cpu

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory web >"$work/http.log" 2>&1 &
server=$!
for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$port/index.html" && break
    sleep 0.1
done

status=0
for sg in "${modes[@]}"; do
    expect=$([ "$sg" = 1 ] && echo yes || echo no)
    step "headless Chromium, WebGPU on SwiftShader, subgroups $([ "$sg" = 1 ] && echo on || echo hidden)"
    url="http://127.0.0.1:$port/index.html?subgroups=$sg&knob=$knob&frame=pkg/panel.wkv&runs=$runs"
    if [ "$checks" != all ]; then
        url="$url&checks=$checks"
        echo "   the page's checks $checks (not the others: see --checks)"
    fi
    if ! node web/test/drive.mjs "$url" --reference "$work/reference.png" \
        --shot "$work/panel-$sg.png" --tolerance 1 --expect-subgroups "$expect"; then
        status=1
    fi
done
step "done"
exit $status
