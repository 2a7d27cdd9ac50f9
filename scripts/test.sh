#!/usr/bin/env bash
# wavekit's test command (README, .ci/run). On a machine without a GPU it installs Mesa
# lavapipe when missing, checks formatting and lints, then runs the whole test suite at every
# lavapipe subgroup width this CPU allows (4, 8, and 16 where the CPU has AVX-512), runs
# `wavekit selftest` at each, the sort's single-pass mode at each, the primitives once more
# without subgroups, and the suite and selftest once more on a real GPU where one is present.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_lavapipe

cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo build --workspace --all-targets --quiet
wavekit=target/debug/wavekit

widths=(128 256)
if grep -q avx512f /proc/cpuinfo; then
    widths+=(512)
else
    echo "== lavapipe width 16 skipped: this CPU has no AVX-512 (LP_NATIVE_VECTOR_WIDTH=512 needs it)"
fi

export WAVEKIT_REQUIRE_GPU=1
for w in "${widths[@]}"; do
    lanes=$((w / 32))
    echo "== lavapipe, LP_NATIVE_VECTOR_WIDTH=$w: subgroup width $lanes"
    LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
        cargo test --workspace --quiet
    LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe "$wavekit" selftest
done

echo "== the sort's single-pass mode (WAVEKIT_SORT_SINGLE_PASS=1) at every width"
for w in "${widths[@]}"; do
    LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_SORT_SINGLE_PASS=1 \
        WAVEKIT_EXPECT_SUBGROUP=$((w / 32)) cargo test -p wavekit --quiet --test sort_gpu
done

echo "== lavapipe without subgroups (WAVEKIT_NO_SUBGROUPS=1): the workgroup-memory paths"
WAVEKIT_NO_SUBGROUPS=1 WAVEKIT_ADAPTER=llvmpipe \
    cargo test -p wavekit --quiet --test primitives_gpu --test fallback_gpu --test chunked_gpu \
        --test sort_gpu --test histogram_gpu
WAVEKIT_NO_SUBGROUPS=1 WAVEKIT_ADAPTER=llvmpipe WAVEKIT_SORT_SINGLE_PASS=1 \
    cargo test -p wavekit --quiet --test sort_gpu

hardware=$("$wavekit" probe --list --json | grep -c '"software": false' || true)
if [ "$hardware" -gt 0 ]; then
    echo "== real GPU"
    env -u WAVEKIT_ADAPTER "$wavekit" probe
    env -u WAVEKIT_ADAPTER cargo test --workspace --quiet
    env -u WAVEKIT_ADAPTER "$wavekit" selftest
else
    echo "== no real GPU on this machine: hardware run skipped"
fi
echo "== all wavekit tests passed"
