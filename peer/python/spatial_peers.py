"""The point-query peers on the H200 machine, in the same run as `wavekit spatial bench`:
SciPy's cKDTree on 16 workers, CuPy's cupyx.scipy.spatial.KDTree, and PyTorch brute force
(cdist + topk, chunked) as the exact GPU reference. Each peer's results are checked against
wavekit's (the .npy files `wavekit spatial bench --out DIR` writes) before its time is quoted.

    python peer/python/spatial_peers.py --dir DIR --sets uniform,clustered -k 16 --radius 0.02

Prints one JSON line a peer and set: build and query times (ms, wall, the GPU synchronised),
and how many queries' results differ from wavekit's beyond distance ties (float32 distances
within 1e-5 relative).
"""
import argparse
import json
import os
import time

import numpy as np


def now():
    return time.perf_counter()


def knn_mismatch(idx, ours_idx, ours_d2, points, queries):
    """Queries whose k-NN differ from wavekit's other than by near-equal distances."""
    k = ours_idx.shape[1]
    idx = idx.reshape(-1, k)
    same = (idx == ours_idx).all(axis=1)
    bad = 0
    for q in np.nonzero(~same)[0]:
        mine = np.sort(ours_d2[q])
        # Their distances recomputed in float32 from their indices.
        valid = idx[q] < len(points)
        theirs = np.full(k, np.inf, dtype=np.float32)
        diff = points[idx[q][valid]] - queries[q]
        theirs[valid] = (diff * diff).sum(axis=1)
        theirs = np.sort(theirs)
        fin = np.isfinite(mine) & np.isfinite(theirs)
        if (np.isfinite(mine) != np.isfinite(theirs)).any() or not np.allclose(
            mine[fin], theirs[fin], rtol=1e-5, atol=1e-12
        ):
            bad += 1
    return int(bad), int((~same).sum())


def radius_mismatch(lists, offsets, indices, points, queries, r):
    bad = 0
    for q, got in enumerate(lists):
        mine = indices[offsets[q]:offsets[q + 1]]
        got = np.sort(np.asarray(got, dtype=np.int64))
        if len(got) == len(mine) and (got == mine).all():
            continue
        # Only points at distance within rounding of r may differ.
        sym = np.setxor1d(got, mine)
        d = np.sqrt(((points[sym] - queries[q]) ** 2).sum(axis=1))
        if not np.allclose(d, r, rtol=1e-5):
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--sets", default="uniform,clustered")
    ap.add_argument("-k", type=int, default=16)
    ap.add_argument("--radius", type=float, default=0.02)
    ap.add_argument("--radius-queries", type=int, default=1 << 18)
    ap.add_argument("--torch-queries", type=int, default=1 << 14)
    ap.add_argument("--workers", type=int, default=16)
    a = ap.parse_args()
    for s in a.sets.split(","):
        f = lambda n: np.load(os.path.join(a.dir, f"{s}-{n}.npy"))
        points, queries = f("points"), f("queries")
        ours_idx, ours_d2 = f("knn").astype(np.int64), f("knn-d2")
        offsets, indices = f("offsets").astype(np.int64), f("indices").astype(np.int64)
        base = dict(set=s, points=len(points), queries=len(queries), k=a.k, radius=a.radius)

        # SciPy cKDTree, 16 workers.
        from scipy.spatial import cKDTree
        t0 = now()
        tree = cKDTree(points)
        t1 = now()
        d, idx = tree.query(queries, k=a.k, workers=a.workers)
        t2 = now()
        bad, differ = knn_mismatch(idx, ours_idx, ours_d2, points, queries)
        nr = min(a.radius_queries, len(queries))
        t3 = now()
        lists = tree.query_ball_point(queries[:nr], a.radius, workers=a.workers, return_sorted=True)
        t4 = now()
        rbad = radius_mismatch(lists, offsets, indices, points, queries, a.radius)
        print(json.dumps(dict(base, peer="scipy-ckdtree", workers=a.workers,
                              build_ms=1e3 * (t1 - t0), knn_ms=1e3 * (t2 - t1),
                              radius_queries=nr, radius_ms=1e3 * (t4 - t3),
                              knn_queries_off=bad, knn_queries_reordered=differ,
                              radius_queries_off=rbad)), flush=True)

        # CuPy KDTree (best of three after a warm-up).
        try:
            import cupy as cp
            from cupyx.scipy.spatial import KDTree
            gp, gq = cp.asarray(points), cp.asarray(queries)
            times = []
            for rep in range(4):
                cp.cuda.Device().synchronize()
                t0 = now()
                kt = KDTree(gp)
                cp.cuda.Device().synchronize()
                t1 = now()
                d, idx = kt.query(gq, k=a.k)
                cp.cuda.Device().synchronize()
                t2 = now()
                if rep > 0:
                    times.append((t1 - t0, t2 - t1))
            b, q = min(t[0] for t in times), min(t[1] for t in times)
            idx = cp.asnumpy(idx)
            bad, differ = knn_mismatch(idx, ours_idx, ours_d2, points, queries)
            print(json.dumps(dict(base, peer="cupy-kdtree", build_ms=1e3 * b, knn_ms=1e3 * q,
                                  knn_queries_off=bad, knn_queries_reordered=differ)), flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(json.dumps(dict(base, peer="cupy-kdtree", error=str(e)[:300])), flush=True)

        # PyTorch brute force on a prefix of the queries, exact, chunked.
        try:
            import torch
            tp = torch.from_numpy(points).cuda()
            nt = min(a.torch_queries, len(queries))
            tq = torch.from_numpy(queries[:nt]).cuda()
            out_i = []
            for rep in range(2):
                torch.cuda.synchronize()
                t0 = now()
                out_i = []
                for c in range(0, nt, 1024):
                    # The direct difference, not the matrix-product form (which loses digits).
                    dd = torch.cdist(tq[c:c + 1024], tp, compute_mode="donot_use_mm_for_euclid_dist") ** 2
                    v, i = torch.topk(dd, a.k, dim=1, largest=False, sorted=True)
                    out_i.append(i)
                torch.cuda.synchronize()
                t1 = now()
            idx = torch.cat(out_i).cpu().numpy()
            bad, differ = knn_mismatch(idx, ours_idx[:nt], ours_d2[:nt], points, queries[:nt])
            print(json.dumps(dict(base, peer="torch-brute", queries_timed=nt,
                                  knn_ms=1e3 * (t1 - t0),
                                  knn_ms_scaled_to_all=1e3 * (t1 - t0) * len(queries) / nt,
                                  knn_queries_off=bad, knn_queries_reordered=differ)), flush=True)
        except Exception as e:  # noqa: BLE001
            print(json.dumps(dict(base, peer="torch-brute", error=str(e)[:300])), flush=True)


if __name__ == "__main__":
    main()
