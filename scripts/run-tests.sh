#!/usr/bin/env bash
# Runs the workspace's test binaries two at a time (ADR-0101): the test command's lavapipe
# phases spend most of their time in single-threaded work (LLVM compiling kernels, a test's
# CPU reference), and one binary at a time left a core idle whenever a binary's last test ran
# alone. Each binary still runs its own tests on its usual threads, in its package's folder
# (as `cargo test` runs it); its output is printed whole when it ends, without the lines of
# tests that passed. Binaries whose tests keep time against a clock (the UDP stream's
# deadlines) run afterwards, alone.
#
# Usage: scripts/run-tests.sh [--jobs N] CARGO_SELECTION... -- TEST_ARGS...
#   e.g. scripts/run-tests.sh --workspace --lib --bins --tests -- --ignored --skip large_
# The binaries must be built (the test command builds every target first); select with
# `--workspace` as the build did, or cargo resolves the dependencies' features for the chosen
# packages alone and builds them again. Exits non-zero if any binary failed, after all have run.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=2
if [ "${1:-}" = "--jobs" ]; then
    jobs=$2
    shift 2
fi
selection=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    selection+=("$1")
    shift
done
[ "${1:-}" = "--" ] && shift
# The binaries that take longest first, so that the last to start are short (a longest-first
# order: measured per test at width 4, ADR-0101).
long_first=(sort_gpu primitives_gpu spatial_gpu dwt cli codec_cli fallback_gpu budget_gpu
    chunked_gpu ui_gpu encode_gpu c_client)
alone=(stream_cli net)

list=$(mktemp)
cargo test --quiet "${selection[@]}" --no-run --message-format=json |
    python3 -c '
import json, os, sys
long_first, alone = sys.argv[1].split(), sys.argv[2].split()
rows = []
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    target = m["target"]["name"]
    name = target if m["target"]["kind"] == ["test"] else f"{target} (unit tests)"
    rank = long_first.index(target) if target in long_first else len(long_first)
    rows.append((rank, "alone" if target in alone else "pool", name, os.path.dirname(m["manifest_path"]), m["executable"]))
for _, how, name, folder, exe in sorted(rows, key=lambda r: r[0]):
    print(f"{how}\t{name}\t{folder}\t{exe}")
' "${long_first[*]}" "${alone[*]}" >"$list" || {
    echo "run-tests: could not list the test binaries (above)" >&2
    exit 1
}
if [ ! -s "$list" ]; then
    echo "run-tests: no test binary selected by: ${selection[*]}" >&2
    exit 1
fi

logs=$(mktemp -d)
one() {
    # $1 name, $2 folder, $3 executable, then the tests' arguments.
    local name=$1 folder=$2 exe=$3 log
    shift 3
    log="$logs/$(basename "$exe").log"
    local start=$SECONDS rc=0
    (cd "$folder" && "$exe" "$@") >"$log" 2>&1 || rc=$?
    {
        echo "     Running $name ($(basename "$exe"), $((SECONDS - start)) s)"
        grep -v -E '^test .* \.\.\. ok$|^$|^running [0-9]+ tests?$' "$log" || true
    }
    [ "$rc" = 0 ] || { echo "$name" >>"$logs/failed"; }
}
export -f one
export logs
# The pool, longest first; then the binaries that run alone.
awk -F'\t' '$1 == "pool"' "$list" |
    while IFS=$'\t' read -r _ name folder exe; do
        printf '%s\0%s\0%s\0' "$name" "$folder" "$exe"
    done |
    xargs -0 -r -n 3 -P "$jobs" bash -c 'one "$@" '"$(printf '%q ' "$@")" _
while IFS=$'\t' read -r _ name folder exe; do
    one "$name" "$folder" "$exe" "$@"
done < <(awk -F'\t' '$1 == "alone"' "$list")
failed=$(cat "$logs/failed" 2>/dev/null | tr '\n' ' ')
rm -rf "$list" "$logs"
if [ -n "$failed" ]; then
    echo "== failed: $failed" >&2
    exit 1
fi
