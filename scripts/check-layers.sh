#!/usr/bin/env bash
# The layers, as the compiler keeps them: the foundation (crates/wavekit-gpu) does not depend on
# the crate that holds the primitives (crates/wavekit), so no file in it can import one, in any
# syntax. This shows it: (1) the foundation's dependency tree has no wavekit crate but itself;
# (2) a probe module written into the foundation with every way of naming a primitive
# (`crate::`, grouped, `super::`, the library's path, an absolute path) must fail to build, with
# an error on each of its lines; the probe is removed afterwards whatever happens.
# Run after a build (it rebuilds only the foundation's library, twice).
set -euo pipefail
cd "$(dirname "$0")/.."
deps=$(cargo tree -p wavekit-gpu -e normal --prefix none --format '{p}' | awk '{print $1}' |
    grep '^wavekit' | sort -u)
if [ "$deps" != "wavekit-gpu" ]; then
    echo "check-layers: the foundation depends on other wavekit crates: $deps" >&2
    exit 1
fi
echo "check-layers: the foundation's dependencies hold no other wavekit crate"

lib=crates/wavekit-gpu/src/lib.rs
probe=crates/wavekit-gpu/src/layer_probe.rs
cp "$lib" /tmp/wavekit-gpu-lib.rs.orig
restore() {
    cp /tmp/wavekit-gpu-lib.rs.orig "$lib"
    rm -f "$probe"
}
trap restore EXIT
cat >"$probe" <<'PROBE'
#![allow(unused_imports)]
use crate::scan::Scan; // probe 1
use crate::{context::GpuContext, sort::RadixSort}; // probe 2
use super::select; // probe 3
use wavekit::reduce::Reduce; // probe 4
use ::wavekit::histogram; // probe 5
PROBE
echo "mod layer_probe;" >>"$lib"
if out=$(cargo build -p wavekit-gpu --lib --quiet --message-format short 2>&1); then
    echo "check-layers: a foundation file importing primitives built; the layers are not enforced" >&2
    exit 1
fi
for i in 1 2 3 4 5; do
    line=$(grep -n "// probe $i\$" "$probe" | cut -d: -f1)
    if ! grep -q "layer_probe.rs:$line:" <<<"$out"; then
        echo "check-layers: probe $i (line $line) drew no error:" >&2
        echo "$out" >&2
        exit 1
    fi
done
restore
trap - EXIT
cargo build -p wavekit-gpu --lib --quiet
echo "check-layers: every way of importing a primitive into the foundation fails to build (5 of 5)"
