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
