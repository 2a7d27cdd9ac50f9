#!/usr/bin/env python3
"""Summarise N fresh processes of `wavekit bench primitives|dwt --save FILE`: for every case,
the spread of the per-process medians (min, median, max) and whether every one lies within
10 % of the median of all of them; the clock flags. Usage: protocol-summary.py FILE...

Exit 1 when a case's per-process medians spread beyond 10 %."""
import json
import sys
from collections import defaultdict


def key(r):
    if "primitive" in r:
        return f"{r['primitive']} 2^{r['n'].bit_length() - 1}"
    color = r.get("color", "None")
    c = "" if color in (None, "None") else f" {color}"
    return f"{r['wavelet']} {r['size']} x{r['planes']} {r['direction']} {r['binding']}{c}"


def main():
    cases = defaultdict(list)
    low = defaultdict(int)
    for path in sys.argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        for r in doc["results"]:
            k = key(r)
            cases[k].append(r["median_ns"])
            low[k] += bool(r.get("clock_low"))
    bad = 0
    print(f"{'case':<40} {'procs':>5} {'min us':>9} {'median us':>9} {'max us':>9} {'spread':>7} {'low clock':>9}")
    for k, v in cases.items():
        v.sort()
        med = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        worst = max(abs(x - med) / med for x in v)
        flag = "" if worst <= 0.10 else "  > 10 %"
        bad += worst > 0.10
        print(f"{k:<40} {len(v):>5} {v[0] / 1e3:>9.1f} {med / 1e3:>9.1f} {v[-1] / 1e3:>9.1f} {100 * worst:>6.1f}% {low[k]:>9}{flag}")
    print(f"{len(cases)} cases, {bad} beyond 10 %")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
