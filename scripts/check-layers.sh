#!/usr/bin/env bash
# The layers, as the compiler keeps them: the foundation (crates/wavekit-gpu) does not depend on
# the crate that holds the primitives (crates/wavekit), so no file in it can import one, in any
# syntax. This shows it: (1) the foundation's dependency tree has no wavekit crate but itself;
# (2) a probe module written into the foundation with every way of naming a primitive
# (`crate::`, grouped, `super::`, the library's path, an absolute path) must fail to build, with
# an error on each of its lines; the probe is removed afterwards whatever happens.
# Run after `cargo build --workspace --all-targets`: it compiles the foundation once with the
# probe, which fails by design, and rebuilds nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
deps=$(cargo tree -p wavekit-gpu -e normal,build,dev --prefix none --format '{p}' | awk '{print $1}' |
    grep '^wavekit' | sort -u)
if [ "$deps" != "wavekit-gpu" ]; then
    echo "check-layers: the foundation depends on other wavekit crates: $deps" >&2
    exit 1
fi
echo "check-layers: the foundation's dependencies (normal, build, dev) hold no other wavekit crate"
# No way around the boundary by path: no #[path], include!, include_str! or include_bytes! in
# the foundation reaches outside its crate.
if grep -rnE '#\[path|include(_str|_bytes)?!\(' crates/wavekit-gpu/src | grep -E '\.\./\.\.|"/'; then
    echo "check-layers: the lines above reach outside the foundation by path" >&2
    exit 1
fi
# The probes name things that exist beside the foundation: their failing there is the boundary.
for item in 'pub struct Scan\b:scan/mod.rs' 'pub struct RadixSort\b:sort/mod.rs' \
    'pub struct Reduce\b:reduce/mod.rs' 'pub struct Histogram\b:histogram/mod.rs'; do
    grep -qE "${item%%:*}" "crates/wavekit/src/${item##*:}" || {
        echo "check-layers: ${item%%:*} is not in crates/wavekit/src/${item##*:}: update the probes" >&2
        exit 1
    }
done
[ -f crates/wavekit/src/select/mod.rs ] || { echo "check-layers: no select module" >&2; exit 1; }

lib=crates/wavekit-gpu/src/lib.rs
probe=crates/wavekit-gpu/src/layer_probe.rs
# The original is put back with its time stamp (cp -p), and the probe fails before anything
# is written, so the foundation's build stays fresh and nothing after this rebuilds.
cp -p "$lib" /tmp/wavekit-gpu-lib.rs.orig
restore() {
    cp -p /tmp/wavekit-gpu-lib.rs.orig "$lib"
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
# The same selection as the test command's build (the whole workspace, every target), so
# that every dependency is already built with the same features and nothing is rebuilt: the
# foundation fails, and nothing that depends on it is attempted.
if out=$(cargo build --workspace --all-targets --quiet --message-format short 2>&1); then
    echo "check-layers: a foundation file importing primitives built; the layers are not enforced" >&2
    exit 1
fi
for i in 1 2 3 4 5; do
    line=$(grep -n "// probe $i\$" "$probe" | cut -d: -f1)
    # An unresolved import or path (E0432, E0433) on that very line, nothing else.
    if ! grep -qE "layer_probe.rs:$line:[0-9]+: error\[E043[23]\]" <<<"$out"; then
        echo "check-layers: probe $i (line $line) drew no error:" >&2
        echo "$out" >&2
        exit 1
    fi
done
restore
trap - EXIT
echo "check-layers: every way of importing a primitive into the foundation fails to build (5 of 5)"
