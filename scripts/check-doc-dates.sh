#!/usr/bin/env bash
# The docs show today: README.md's status line (`**Status (YYYY-MM-DD).**`) and BENCHMARKS.md's
# heading `## Today's numbers (YYYY-MM-DD)` must not be older than the newest run they cite.
# A run is a folder docs/device-runs/YYYY-MM-DD-NAME; it counts as cited where either file names
# it, with or without the `docs/device-runs/` in front. Also: no file in docs/device-runs over
# 100 KB (trim a log to the lines the docs quote, with a "trimmed: ..." line at its top) and no
# .patch file under docs/ (an experiment's lesson goes into a decision record, the code stays
# in git history). Prints every failure and exits 1 if there is one. No network.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=docs/device-runs
failed=0
fail() {
    echo "check-doc-dates: $*" >&2
    failed=1
}

# Every run folder that README.md or BENCHMARKS.md names, newest last.
cited=$(grep -ohE '[0-9]{4}-[0-9]{2}-[0-9]{2}-[A-Za-z0-9._-]+' README.md BENCHMARKS.md \
    | sed 's/[.]*$//' | sort -u \
    | while read -r name; do if [ -d "$runs/$name" ]; then echo "$name"; fi; done)
newest=$(printf '%s\n' "$cited" | sed '/^$/d' | sort | tail -n 1)
newest_date=${newest:0:10}

readme_date=$(sed -nE 's/^\*\*Status \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)\.\*\*.*/\1/p' README.md \
    | head -n 1)
bench_date=$(sed -nE "s/^## Today's numbers \(([0-9]{4}-[0-9]{2}-[0-9]{2})\).*/\1/p" \
    BENCHMARKS.md | head -n 1)

check_date() { # FILE WHAT PATTERN DATE
    if [ -z "$4" ]; then
        fail "$1: no line $3 found"
    elif [ -n "$newest" ] && [[ "$4" < "$newest_date" ]]; then
        fail "$1: $2 is dated $4, older than the newest run that README.md or BENCHMARKS.md" \
            "cites, $runs/$newest ($newest_date); bring the text up to that run and date it"
    fi
}
check_date README.md 'its status line' '**Status (YYYY-MM-DD).**' "$readme_date"
check_date BENCHMARKS.md "its heading \"Today's numbers\"" "\"## Today's numbers (YYYY-MM-DD)\"" \
    "$bench_date"

big=$(find "$runs" -type f -size +100k | sort)
if [ -n "$big" ]; then
    while read -r f; do
        fail "$f is over 100 KB: keep the lines the docs quote and the head, with a 'trimmed: ...' line at its top"
    done <<<"$big"
fi

patches=$(find docs -type f -name '*.patch' | sort)
if [ -n "$patches" ]; then
    while read -r f; do
        fail "$f: no .patch files under docs/; record the lesson in a decision record (docs/adr/)"
    done <<<"$patches"
fi

if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "check-doc-dates: README.md ($readme_date) and BENCHMARKS.md ($bench_date) are not older" \
    "than the newest run they cite, $runs/$newest; no file over 100 KB, no .patch under docs/"
