#!/usr/bin/env bash
# Two rules of the house, checked by listing lines. (1) The foundation (context, shader,
# kernel, buffers, timer, tiling, prelude, monoid, error, tuning) imports no primitive (scan,
# reduce, select, sort, histogram, copy, bench, selftest). (2) No library crate reads an
# environment variable: configuration is a value the caller
# passes (ContextOptions, each primitive's policy). Only the CLI, the benchmarks' drivers and
# the test harness (crates/wavekit-harness, crates/wavekit-cli, tests/, peer/) read the
# environment. Prints each offending line.
set -euo pipefail
cd "$(dirname "$0")/.."
libraries=(crates/wavekit/src crates/wavekit-dwt/src)
for c in crates/wavekit-ui/src crates/wavekit-trace/src; do
    [ -d "$c" ] && libraries+=("$c")
done
foundation=(context buffers error kernel monoid prelude shader tiling timer tuning)
files=()
for f in "${foundation[@]}"; do files+=("crates/wavekit/src/$f.rs"); done
if grep -nE 'crate::(scan|reduce|select|sort|histogram|copy|bench|selftest)\b' "${files[@]}"; then
    echo "check-house: the foundation imports a primitive (the lines above)" >&2
    exit 1
fi
echo "check-house: the foundation (${foundation[*]}) imports no primitive"
pattern='env::var|env::vars|var_os\(|from_env|with_env\(|getenv'
if grep -rnE "$pattern" "${libraries[@]}" --include='*.rs'; then
    echo "check-house: the lines above read the environment in a library; take the value as" >&2
    echo "configuration instead (the CLI and tests read it through crates/wavekit-harness)" >&2
    exit 1
fi
echo "check-house: no library reads the environment (${libraries[*]})"
