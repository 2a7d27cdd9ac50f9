"""wavekit's Python arrays against numpy (the CPU) and CuPy (CUDA), as a Python user calls each.

Every call takes a numpy array and returns one, so wavekit's time includes the copies to the
GPU and back; CuPy is timed twice: the same way (``cupy.asarray``, the call, ``.get()``) and
on an array already on the GPU (the call alone, synchronised). numpy runs its default call
(``np.sort``, ``np.argsort(kind='stable')`` for the stable argsort wavekit gives).

Protocol: each case is warmed up by time (``--warmup-ms`` of its own calls), then timed in
``--rounds`` rounds of ``--runs`` calls; the median of all calls is printed, with each round's
median. Results are checked against numpy before timing. One JSON line a case and library,
with the peak resident memory of the process after it (ru_maxrss). The cases run first at
1000 elements (a call's fixed cost; ``--no-small`` skips them).

Usage: python3 arrays.py [--sizes 20,24,26] [--out FILE.jsonl] [--no-cupy]
"""

import argparse
import json
import resource
import sys

import numpy as np

import wavekit
from protocol import timed


def cases(rng, n):
    u = rng.integers(0, 2**32, n, dtype=np.uint32)
    f = rng.standard_normal(n, dtype=np.float32)
    i = rng.integers(-1000, 1000, n, dtype=np.int32)
    keep = rng.random(n) < 0.5
    return [
        ("sort", "uint32", u, lambda m, a: m.sort(a)),
        ("sort", "float32", f, lambda m, a: m.sort(a)),
        ("argsort", "float32", f, None),
        ("cumsum", "int32", i, lambda m, a: m.cumsum(a)),
        ("sum", "float32", f, lambda m, a: m.sum(a)),
        ("max", "uint32", u, lambda m, a: m.max(a)),
        ("histogram", "float32", f, None),
        ("compress", "float32", (f, keep), None),
    ]


def wavekit_call(op, a):
    if op == "argsort":
        return lambda: wavekit.argsort(a)
    if op == "histogram":
        return lambda: wavekit.histogram(a, bins=256, range=(-4.0, 4.0))[0]
    if op == "compress":
        data, keep = a
        return lambda: wavekit.compress(keep, data)
    return lambda: getattr(wavekit, op)(a)


def numpy_call(op, a):
    if op == "argsort":
        return lambda: np.argsort(a, kind="stable")
    if op == "histogram":
        return lambda: np.histogram(a, bins=256, range=(-4.0, 4.0))[0]
    if op == "compress":
        data, keep = a
        return lambda: np.compress(keep, data)
    return lambda: getattr(np, op)(a)


def cupy_calls(cp, op, a):
    """(end to end from and to numpy, on arrays already on the GPU)"""

    def dev(x):
        if op == "argsort":
            return cp.argsort(x)
        if op == "histogram":
            return cp.histogram(x, bins=256, range=(-4.0, 4.0))[0]
        if op == "compress":
            return cp.compress(x[1], x[0])
        return getattr(cp, op)(x)

    if op == "compress":
        host = a
        on_gpu = (cp.asarray(a[0]), cp.asarray(a[1]))
        up = lambda: (cp.asarray(host[0]), cp.asarray(host[1]))  # noqa: E731
    else:
        on_gpu = cp.asarray(a)
        up = lambda: cp.asarray(a)  # noqa: E731

    def e2e():
        r = dev(up())
        return cp.asnumpy(r)

    return e2e, lambda: dev(on_gpu)


def same(op, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if op == "sum":
        return abs(float(got) - float(want)) <= 1e-3 * max(1.0, abs(float(want))) + 1e-2
    return got.shape == want.shape and np.array_equal(got, want)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="20,24,26", help="log2 of the element counts")
    p.add_argument("--warmup-ms", type=float, default=300)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--out", help="JSON lines here as well as on stdout")
    p.add_argument("--no-cupy", action="store_true")
    p.add_argument("--no-small", dest="small", action="store_false",
                   help="skip the 1000-element cases (each call's fixed cost)")
    args = p.parse_args()
    cp = None
    if not args.no_cupy:
        try:
            import cupy as cp  # noqa: F811
        except ImportError:
            print("CuPy not installed: numpy only", file=sys.stderr)
    print("device:", wavekit.init(), file=sys.stderr)
    out = open(args.out, "w") if args.out else None
    failed = False
    rng = np.random.default_rng(48)
    sizes = [(int(s), 1 << int(s)) for s in args.sizes.split(",")]
    # A small call: its fixed cost (the 1000 elements), before the large sizes.
    for label, n in ([("1000", 1000)] if args.small else []) + [(f"2^{k}", n) for k, n in sizes]:
        for op, dtype, a, _ in cases(rng, n):
            ref = numpy_call(op, a)()
            got = wavekit_call(op, a)()
            ok = same(op, got, ref)
            failed |= not ok
            row = {"op": op, "dtype": dtype, "n": n, "matches_numpy": bool(ok)}
            results = {}
            for lib, call, sync in [
                ("wavekit", wavekit_call(op, a), lambda: None),
                ("numpy", numpy_call(op, a), lambda: None),
            ] + (
                [
                    ("cupy", cupy_calls(cp, op, a)[0], cp.cuda.Device().synchronize),
                    ("cupy_on_gpu", cupy_calls(cp, op, a)[1], cp.cuda.Device().synchronize),
                ]
                if cp is not None
                else []
            ):
                med, rounds = timed(call, args.warmup_ms / 1e3, args.rounds, args.runs, sync)
                results[lib] = med
                line = dict(row, library=lib, median_ns=med, round_medians_ns=rounds,
                            peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
                print(json.dumps(line), flush=True)
                if out:
                    out.write(json.dumps(line) + "\n")
            # Each peer's time over wavekit's: above 1, wavekit is that many times faster.
            ratios = "  ".join(
                f"{lib} {results[lib] / 1e6:.3f} ms"
                + ("" if lib == "wavekit" else f" (wavekit {results[lib] / results['wavekit']:.2f}x)")
                for lib in results
            )
            print(f"# {op} {dtype} {label}: {ratios}", file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
