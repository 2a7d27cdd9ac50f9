#!/usr/bin/env bash
# wavekit's test command (README, .ci/run). On a machine without a GPU it installs Mesa
# lavapipe when missing, checks formatting, that no library reads the environment, builds
# with clippy's lints as errors (natively, and the libraries with the web page for wasm32 and
# WebGPU: ADR-0077; the lints ride on the builds, ADR-0079), shows that the foundation cannot import a primitive (scripts/check-layers.sh), runs
# the web page in headless Chromium with WebGPU on SwiftShader (scripts/web-test.sh; in the
# background, beside the tests, until the first lavapipe width is done), runs the suite with
# no Vulkan driver visible (the GPU tests, marked ignored, are listed as such with their
# reason; the rest must pass), then the GPU tests (their binaries two at a time,
# scripts/run-tests.sh): the doctests and every ignored
# test (unit, GPU and CLI tests; not again the ones that passed without a GPU) at lavapipe's
# first subgroup width, only the GPU test binaries (`*_gpu`) at the other widths this CPU
# allows (8, and 16 where the CPU has AVX-512) and once more without subgroups, `wavekit
# selftest` at every width, the Python package's wheel and its tests against numpy and SciPy
# (scripts/python-test.sh; its environment made in the background during the build) at the
# first width and its KDTree again without subgroups, and the suite again on a real GPU where one is
# present. Each phase prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_lavapipe
ensure_ffmpeg

start=$SECONDS
phase() {
    echo "== [$((SECONDS - start)) s] $*"
}

phase "format"
cargo fmt --all --check
phase "the house rule: no library reads the environment"
bash scripts/check-house.sh
phase "the docs: dates of README and BENCHMARKS not older than the runs they cite"
bash scripts/check-doc-dates.sh
# Clippy rides on the builds (ADR-0079): every cargo command below compiles the workspace's
# own crates with clippy-driver, which lints them (warnings are errors) and then builds them
# as rustc would; the dependencies are built by rustc alone. One compilation instead of a
# `cargo clippy` (which type-checks everything once more) before each build: about 280 s
# less. Set for the whole script, so that no later cargo command sees another compiler and
# rebuilds.
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# The Python package's environment (packages from PyPI: mostly waiting on the network) is
# made in the background while the workspace builds.
pyprep=$(mktemp)
bash scripts/python-test.sh --prepare >"$pyprep" 2>&1 &
pyprep_pid=$!
phase "build, linted (clippy -D warnings): the workspace, every target"
cargo build --workspace --all-targets --quiet
phase "the docs build clean (rustdoc, warnings as errors: broken links, private items)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
phase "the layers: the foundation cannot import a primitive (the compiler refuses it)"
bash scripts/check-layers.sh
wavekit=target/debug/wavekit

phase "the web page: its tools and its build, linted (the libraries and the page for wasm32, WebGPU)"
bash scripts/web-test.sh --build-only
# The page runs in headless Chromium (WebGPU on SwiftShader, subgroups on) in the background
# while the tests below run: it keeps about one core busy, and needs no cargo. Its log is
# printed, and its verdict taken, after the first lavapipe width. GPU times: 3 runs each (for
# the record only, ADR-0077).
weblog=$(mktemp)
bash scripts/web-test.sh --no-build --runs 3 >"$weblog" 2>&1 &
webpid=$!
web_started=$SECONDS
trap 'kill "$webpid" 2>/dev/null || true' EXIT
web_verdict() {
    local rc=0
    wait "$webpid" || rc=$?
    trap - EXIT
    echo "== the web page (ran in the background for $((SECONDS - web_started)) s):"
    cat "$weblog"
    rm -f "$weblog"
    if [ "$rc" != 0 ]; then
        echo "== the web page failed (above)" >&2
        exit 1
    fi
}

widths=(128 256)
if grep -q avx512f /proc/cpuinfo; then
    widths+=(512)
else
    echo "== lavapipe width 16 skipped: this CPU has no AVX-512 (LP_NATIVE_VECTOR_WIDTH=512 needs it)"
fi

# The GPU phases' runner must fail when a test binary fails: a binary given an argument it
# refuses exits non-zero, and so must the runner (and name it).
phase "the test runner reports a failing binary"
if runner=$(bash scripts/run-tests.sh --workspace --test header -- --no-such-flag 2>&1) ||
    ! grep -q "failed: header" <<<"$runner"; then
    echo "$runner"
    echo "== scripts/run-tests.sh did not report a failing test binary (above)" >&2
    exit 1
fi

phase "no GPU adapter (Vulkan shown no driver): the GPU tests are listed as ignored, the rest pass"
nogpu=$(mktemp)
if ! VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json \
    bash scripts/run-tests.sh --workspace --lib --bins --tests -- >"$nogpu" 2>&1; then
    cat "$nogpu"
    echo "== a test that needs no GPU failed without one (above)" >&2
    exit 1
fi
ignored=$(grep -c 'ignored, GPU test: needs a Vulkan adapter' "$nogpu" || true)
large=$(grep -c 'ignored, large GPU test' "$nogpu" || true)
passed=$(grep -E '^test result:' "$nogpu" | awk '{s += $4} END {print s}')
echo "== without a GPU: $passed passed, $ignored GPU tests and $large large GPU tests listed as ignored"
grep -m 3 'ignored, GPU test' "$nogpu" | sed 's/^/   e.g. /' || true
rm -f "$nogpu"
marked=$(grep -rh '#\[ignore = "GPU test' crates/*/tests/*.rs | wc -l)
if [ "$ignored" -ne "$marked" ]; then
    echo "== $marked tests are marked as GPU tests but $ignored were listed as ignored" >&2
    exit 1
fi

# The GPU tests run from here on: every ignored test but the large ones (over 8 GiB).
gpu_tests=(-- --include-ignored --skip large_)
for w in "${widths[@]}"; do
    lanes=$((w / 32))
    if [ "$w" = "${widths[0]}" ]; then
        # The tests that need no GPU passed above: here the doctests and every GPU test, the
        # split sweeps' rest (the variants the later widths' short part leaves out, ADR-0101).
        phase "lavapipe, LP_NATIVE_VECTOR_WIDTH=$w: subgroup width $lanes, the doctests and every GPU test (the sweeps' rest)"
        LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
            cargo test --workspace --quiet --doc
        WAVEKIT_TEST_SWEEP=rest LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
            bash scripts/run-tests.sh --workspace --lib --bins --tests -- --ignored --skip large_
    else
        # The widest sweeps short here (ADR-0084); split sweeps took their rest at the first
        # width (ADR-0101).
        phase "lavapipe, LP_NATIVE_VECTOR_WIDTH=$w: subgroup width $lanes, the GPU tests (short sweeps)"
        WAVEKIT_TEST_SWEEP=short LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe WAVEKIT_EXPECT_SUBGROUP=$lanes \
            bash scripts/run-tests.sh --workspace --test '*_gpu' "${gpu_tests[@]}"
    fi
    LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe "$wavekit" selftest
    if [ "$w" = "${widths[0]}" ]; then
        phase "the Python package: a wheel by maturin, its tests against numpy and SciPy (scripts/python-test.sh)"
        if ! wait "$pyprep_pid"; then
            cat "$pyprep"
            echo "== the Python package's environment could not be made (above)" >&2
            exit 1
        fi
        rm -f "$pyprep"
        LP_NATIVE_VECTOR_WIDTH=$w WAVEKIT_ADAPTER=llvmpipe bash scripts/python-test.sh
        phase "the web page's verdict"
        web_verdict
    fi
done

phase "lavapipe without subgroups (WAVEKIT_NO_SUBGROUPS=1): the GPU tests on the emulated subgroup layer"
# The self-test and the lane-0 pitfall check subgroup operations themselves: not here.
# lavapipe's vector width is pinned to 8 lanes: the emulated layer does not depend on it, and
# at its native 16 lanes (CPUs with AVX-512) the same tests took 1.6× as long.
WAVEKIT_TEST_SWEEP=short WAVEKIT_NO_SUBGROUPS=1 LP_NATIVE_VECTOR_WIDTH=256 WAVEKIT_ADAPTER=llvmpipe \
    bash scripts/run-tests.sh --workspace --test '*_gpu' "${gpu_tests[@]}" \
    --skip selftest_passes_for_several_seeds --skip a_subgroup_op_inside_a_lane_zero_branch_sees_one_lane

# The Python package's KDTree (whose walks use subgroup operations) without subgroups too, with
# the wheel built at the first width; the arrays' primitives are the Rust tests' above.
WAVEKIT_NO_SUBGROUPS=1 LP_NATIVE_VECTOR_WIDTH=256 WAVEKIT_ADAPTER=llvmpipe \
    bash scripts/python-test.sh --no-build -k "test_spatial"

hardware=$("$wavekit" probe --list --json | grep -c '"software": false' || true)
if [ "$hardware" -gt 0 ]; then
    phase "real GPU"
    env -u WAVEKIT_ADAPTER "$wavekit" probe
    env -u WAVEKIT_ADAPTER cargo test --workspace --quiet "${gpu_tests[@]}"
    env -u WAVEKIT_ADAPTER "$wavekit" selftest
else
    echo "== no real GPU on this machine: hardware run skipped"
fi
phase "all wavekit tests passed"
