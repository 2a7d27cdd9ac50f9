#!/usr/bin/env bash
# A rule of the house, checked by listing lines: no library crate reads an environment
# variable; configuration is a value the caller passes (ContextOptions, each primitive's
# policy). Only the CLI and the test harness (crates/wavekit-harness, crates/wavekit-cli,
# tests/, peer/) read the environment. Prints each offending line.
# The other rule, that the foundation imports no primitive, is the compiler's:
# scripts/check-layers.sh shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
libraries=()
for c in wavekit-gpu wavekit wavekit-dwt wavekit-codec wavekit-ui wavekit-trace wavekit-spatial wavekit-selftest wavekit-bench wavekit-py wavekit-capi; do
    [ -d "crates/$c/src" ] && libraries+=("crates/$c/src")
done
pattern='env::var|env::vars|var_os\(|from_env|with_env\(|getenv'
if grep -rnE "$pattern" "${libraries[@]}" --include='*.rs'; then
    echo "check-house: the lines above read the environment in a library; take the value as" >&2
    echo "configuration instead (the CLI and tests read it through crates/wavekit-harness)" >&2
    exit 1
fi
echo "check-house: no library reads the environment (${libraries[*]})"
