#!/usr/bin/env bash
# wavekit's test command (README, .ci/run). On a machine without a GPU it installs Mesa
# lavapipe when missing, checks formatting, that no library reads the environment, and lints;
# then runs the whole suite (unit tests, doctests, GPU tests, CLI tests) once at lavapipe's
# first subgroup width, only the GPU test binaries (`*_gpu`) at the other widths this CPU
# allows (8, and 16 where the CPU has AVX-512) and once more without subgroups, `wavekit
# selftest` at every width, and the suite again on a real GPU where one is present. Each
# phase prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_lavapipe

start=$SECONDS
phase() {
    echo "== [$((SECONDS - start)) s] $*"
}

phase "format"
cargo fmt --all --check
phase "the house rules: the foundation imports no primitive, no library reads the environment"
bash scripts/check-house.sh
phase "clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
phase "build"
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
    if [ "$w" = "${widths[0]}" ]; then
        phase "lavapipe, LP_NATIVE_VECTOR_WIDTH=$w: subgroup width $lanes, the whole suite"
        LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
            cargo test --workspace --quiet
    else
        phase "lavapipe, LP_NATIVE_VECTOR_WIDTH=$w: subgroup width $lanes, the GPU tests"
        LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
            cargo test --workspace --quiet --test '*_gpu'
    fi
    LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe "$wavekit" selftest
done

phase "lavapipe without subgroups (WAVEKIT_NO_SUBGROUPS=1): the GPU tests on the emulated subgroup layer"
WAVEKIT_NO_SUBGROUPS=1 WAVEKIT_ADAPTER=llvmpipe cargo test --workspace --quiet --test '*_gpu'

hardware=$("$wavekit" probe --list --json | grep -c '"software": false' || true)
if [ "$hardware" -gt 0 ]; then
    phase "real GPU"
    env -u WAVEKIT_ADAPTER "$wavekit" probe
    env -u WAVEKIT_ADAPTER cargo test --workspace --quiet
    env -u WAVEKIT_ADAPTER "$wavekit" selftest
else
    echo "== no real GPU on this machine: hardware run skipped"
fi
phase "all wavekit tests passed"
