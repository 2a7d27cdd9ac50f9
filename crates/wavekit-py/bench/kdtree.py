"""wavekit.spatial.KDTree against SciPy's cKDTree (every core) and CuPy's KDTree, from Python.

Wall time as a user sees it: host arrays in, host arrays out (CuPy's inputs are host arrays
too, moved by cupy.asarray inside the timed call, its results moved back). Cases: 10^6
uniform points in the unit cube and 10^6 queries (sizes by --points/--queries): build; query
k = 16; the same in a periodic box (boxsize 1); query_ball_point_csr at r = 0.01 (wavekit) and
the ball counts (SciPy return_length). Each case is warmed up by time, then timed in rounds;
the median is printed with each round's, and the peak resident memory of this process after
the case (ru_maxrss; cases run in order, so a later case's peak includes the earlier ones).
Results are checked against SciPy's before timing (distances within 1e-6 times max(1, d)).

Usage: python3 kdtree.py [--points N] [--queries N] [--k 16] [--out FILE.jsonl]
"""

import argparse
import os
import resource
import sys

import numpy as np
from scipy.spatial import cKDTree

from wavekit._inplace import host
from wavekit.spatial import KDTree
from protocol import print_ratios, timed, write_line


def warp_ball(pts, qs, r):
    """NVIDIA Warp's HashGrid as a Python user would call it for a radius search from host
    arrays: the points and queries uploaded, the grid built (cell r, 128^3 cells), a count
    kernel, an exclusive scan, a write kernel, offsets and indices back as numpy arrays (CSR,
    like query_ball_point_csr). None where warp does not import."""
    try:
        import warp as wp
        wp.init()
    except Exception as e:  # noqa: BLE001 - report and go on
        print(f"warp does not import: {e}"[:300], file=sys.stderr)
        return None

    @wp.kernel
    def count(grid: wp.uint64, p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.vec3),
              r: float, out: wp.array(dtype=wp.int32)):
        t = wp.tid()
        x = q[t]
        c = int(0)
        for i in wp.hash_grid_query(grid, x, r):
            if wp.length_sq(p[i] - x) <= r * r:
                c += 1
        out[t] = c

    @wp.kernel
    def write(grid: wp.uint64, p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.vec3),
              r: float, off: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
        t = wp.tid()
        x = q[t]
        c = off[t]
        for i in wp.hash_grid_query(grid, x, r):
            if wp.length_sq(p[i] - x) <= r * r:
                out[c] = i
                c += 1

    dev = "cuda:0"
    grid = wp.HashGrid(128, 128, 128, device=dev)

    def call():
        wp_p = wp.array(pts.astype(np.float32), dtype=wp.vec3, device=dev)
        wp_q = wp.array(qs.astype(np.float32), dtype=wp.vec3, device=dev)
        nq = len(qs)
        counts = wp.zeros(nq + 1, dtype=wp.int32, device=dev)
        off = wp.zeros(nq + 1, dtype=wp.int32, device=dev)
        grid.build(wp_p, r)
        wp.launch(count, dim=nq, inputs=[grid.id, wp_p, wp_q, r, counts], device=dev)
        wp.utils.array_scan(counts, off, inclusive=False)
        total = int(off[nq:].numpy()[0])
        out = wp.empty(max(total, 1), dtype=wp.int32, device=dev)
        wp.launch(write, dim=nq, inputs=[grid.id, wp_p, wp_q, r, off, out], device=dev)
        return off.numpy().astype(np.int64), out.numpy()[:total]
    return call


def split(tree, qs, k, emit):
    """Where a query's wall time goes (the rows under it): the query points to float32, the
    native call into result arrays already touched (the GPU's walk, the read-back and the
    conversion to float64 and int64), and SciPy's two result arrays made and touched once (the
    pages a fresh result costs, which no binding can avoid)."""
    q = tree._pad(qs, "query points")
    d = np.zeros((q.shape[0], k), dtype="<f8")
    i = np.zeros((q.shape[0], k), dtype="<i8")
    emit(f"split k {k}: float32 queries", "wavekit", lambda: tree._pad(qs, "query points"))
    emit(f"split k {k}: native call into touched arrays", "wavekit",
         lambda: tree._tree.knn_into(host(q), k, None, tree.n, (host(d), host(i))))

    def fresh():
        a = np.empty((q.shape[0], k), dtype="<f8")
        b = np.empty((q.shape[0], k), dtype="<i8")
        a.fill(0.0)
        b.fill(0)
    emit(f"split k {k}: two fresh result arrays touched (numpy, one thread)", "numpy", fresh)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--points", type=int, default=1_000_000)
    p.add_argument("--queries", type=int, default=1_000_000)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--radius", type=float, default=0.01)
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out")
    args = p.parse_args()
    rng = np.random.default_rng(97)
    pts = rng.random((args.points, 3))
    qs = rng.random((args.queries, 3))
    workers = os.cpu_count()
    try:
        import cupy as cp
        from cupyx.scipy.spatial import KDTree as CuKDTree
    except ImportError:
        cp = None
        print("CuPy not installed: skipped", file=sys.stderr)
    out = open(args.out, "w") if args.out else None
    failed = False

    def emit(case, lib, call):
        med, rounds = timed(call, args.warmup_s, args.rounds, args.runs)
        line = {"case": case, "library": lib, "points": args.points, "queries": args.queries,
                "k": args.k, "median_ns": med, "round_medians_ns": rounds,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "workers": workers if lib == "scipy" else None}
        write_line(line, out)
        return med

    def ratio(case, times):
        print_ratios(case, times, 1)

    # Checks first.
    ref = cKDTree(pts).query(qs[:20000], k=args.k, workers=workers)
    got = KDTree(pts).query(qs[:20000], k=args.k)
    ok = np.all(np.abs(got[0] - ref[0]) <= 1e-6 * np.maximum(ref[0], 1.0))
    print(f"k-NN against SciPy: {'ok' if ok else 'DIFFERENT'}", file=sys.stderr)
    failed |= not ok
    for box in (None, 1.0):
        name = "periodic" if box else "open"
        t = {"wavekit": emit(f"build {name}", "wavekit", lambda: KDTree(pts, boxsize=box)),
             "scipy": emit(f"build {name}", "scipy", lambda: cKDTree(pts, boxsize=box))}
        ratio(f"build {name}", t)
        ours, theirs = KDTree(pts, boxsize=box), cKDTree(pts, boxsize=box)
        t = {"wavekit": emit(f"query k {args.k} {name}", "wavekit", lambda: ours.query(qs, k=args.k)),
             "scipy": emit(f"query k {args.k} {name}", "scipy",
                           lambda: theirs.query(qs, k=args.k, workers=workers))}
        if cp is not None and box is None:
            def cupy_query():
                tree = CuKDTree(cp.asarray(pts))
                d, i = tree.query(cp.asarray(qs), k=args.k)
                return cp.asnumpy(d), cp.asnumpy(i)
            t["cupy (build and query)"] = emit(f"query k {args.k} {name}", "cupy", cupy_query)
            t["wavekit (build and query)"] = emit(f"build and query k {args.k} {name}", "wavekit",
                                                  lambda: KDTree(pts).query(qs, k=args.k))
        ratio(f"query k {args.k} {name}", t)
        if box is None:
            split(ours, qs, args.k, emit)
        t = {"wavekit": emit(f"ball r {args.radius} {name}", "wavekit",
                             lambda: ours.query_ball_point_csr(qs, args.radius)),
             "scipy": emit(f"ball r {args.radius} {name}", "scipy",
                           lambda: theirs.query_ball_point(qs, args.radius, workers=workers,
                                                           return_length=True))}
        if box is None:
            # Where the radius search's wall time goes: the native call alone (the GPU's count
            # and write passes, the read-backs, the int64 arrays made), and the counts alone
            # (one GPU pass, 4 bytes a query back).
            q32 = ours._pad(qs, "query points")
            emit(f"ball split r {args.radius}: native call", "wavekit",
                 lambda: ours._tree.radius(host(q32), args.radius))
            t["wavekit (counts only)"] = emit(f"ball counts r {args.radius} {name}", "wavekit",
                                              lambda: ours.query_ball_point(qs, args.radius,
                                                                            return_length=True))
            warp = warp_ball(pts, qs, args.radius)
            if warp is not None:
                wo, _ = warp()
                mine, _ = ours.query_ball_point_csr(qs, args.radius)
                same = wo[-1] == mine[-1] and np.array_equal(np.diff(wo), np.diff(mine))
                print(f"ball counts against Warp: {'ok' if same else 'DIFFERENT'}", file=sys.stderr)
                t["warp hashgrid (host arrays)"] = emit(f"ball r {args.radius} {name}", "warp", warp)
        ratio(f"ball r {args.radius} {name} (scipy: counts only)", t)
    small = np.random.default_rng(3).random((1000, 3))
    tiny = KDTree(small)
    emit("query 1000 k 1 (fixed cost)", "wavekit", lambda: tiny.query(small))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
