"""The benchmark protocol the Python benches share: warm-up by time, then rounds of runs."""

import time

import numpy as np


def timed(call, warmup_s, rounds, runs, sync=lambda: None):
    """(median ns of all runs, each round's median): ``call`` run for ``warmup_s`` seconds
    first, then ``rounds`` rounds of ``runs`` runs, ``sync`` after each (a GPU's queue)."""
    end = time.perf_counter() + warmup_s
    while time.perf_counter() < end:
        call()
    sync()
    all_ns, medians = [], []
    for _ in range(rounds):
        ns = []
        for _ in range(runs):
            t = time.perf_counter_ns()
            call()
            sync()
            ns.append(time.perf_counter_ns() - t)
        medians.append(int(np.median(ns)))
        all_ns += ns
    return int(np.median(all_ns)), medians


def write_line(line, out=None):
    """A result as a JSON line on stdout, and in ``out`` (an open file) where given."""
    import json

    text = json.dumps(line)
    print(text, flush=True)
    if out:
        out.write(text + "\n")


def print_ratios(case, times, digits=1):
    """One line on stderr: each library's median (ns in ``times``, wavekit's first) and each
    peer's time over wavekit's (above 1: wavekit is that many times faster)."""
    import sys

    w = times["wavekit"]
    text = "  ".join(
        f"{lib} {t / 1e6:.{digits}f} ms" + ("" if lib == "wavekit" else f" (wavekit {t / w:.1f}x)")
        for lib, t in times.items()
    )
    print(f"# {case}: {text}", file=sys.stderr, flush=True)
