#!/usr/bin/env bash
# The Python package (crates/wavekit-py, issue 48), as a user gets it: built by maturin into a
# wheel (abi3, Python 3.9 and newer; the workspace's build of the extension), installed into
# a fresh virtual environment with numpy and pytest from PyPI, and its tests run there against
# numpy, SciPy and PyWavelets on the adapter the environment names (the test command: lavapipe's first width).
# Usage: scripts/python-test.sh [pytest arguments]
#        scripts/python-test.sh --prepare   (only the virtual environment and its packages from
#        PyPI: the test command runs this in the background while it builds)
#        scripts/python-test.sh --no-build [pytest arguments]   (the wheel installed before)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$root/target/py-venv
packages=("maturin>=1.5,<2" numpy pytest scipy PyWavelets hypothesis)
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian keeps venv's ensurepip in a package of its own.
        rm -rf "$venv"
        apt-get install -y -qq python3-venv >/dev/null 2>&1 || true
        python3 -m venv "$venv"
    fi
fi
# The packages, unless this list was installed already (a --prepare run).
ready=$venv/.packages
if [ "$(cat "$ready" 2>/dev/null)" != "${packages[*]}" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"
    echo "${packages[*]}" >"$ready"
fi
if [ "${1:-}" = "--prepare" ]; then
    exit 0
fi
if [ "${1:-}" = "--no-build" ]; then
    # The wheel installed by an earlier run, tested again (another device setting).
    shift
else
    rm -rf "$root/target/wheels-test"
    (cd crates/wavekit-py &&
        VIRTUAL_ENV=$venv PATH="$venv/bin:$PATH" maturin build --quiet --out "$root/target/wheels-test")
    "$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps \
        "$root"/target/wheels-test/*.whl
fi
# The CLI, where built (the test command builds it first): the codec's bytes are checked
# against `wavekit encode --cpu`'s.
if [ -z "${WAVEKIT_CLI:-}" ] && [ -x "$root/target/debug/wavekit" ]; then
    export WAVEKIT_CLI=$root/target/debug/wavekit
fi
# From outside the source tree, so that the installed package is the one imported.
cd "$root/target"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" "$root/crates/wavekit-py/tests"
