"""The point-query peers on the H200 machine, in the same run as `wavekit spatial bench`:
SciPy's cKDTree on 16 workers, CuPy's cupyx.scipy.spatial.KDTree, PyTorch brute force
(cdist + topk, chunked) as the exact GPU reference, and NVIDIA Warp's HashGrid for radius
search (when `warp` imports: its wheel is brought to the machine in parts). Each peer's results are checked against
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


class Skip(Exception):
    """A peer not asked for (--peers)."""


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


def warp_radius(base, points, queries, offsets, indices, r):
    """Warp's HashGrid: build (cell = r), count a query, exclusive scan, write a query's
    neighbours, the CSR radius search wavekit does; best of three after a warm-up (kernel
    compilation excluded), the GPU synchronised; each query's list sorted before the check."""
    try:
        import warp as wp
    except Exception as e:  # noqa: BLE001 - report and go on
        print(json.dumps(dict(base, peer="warp-hashgrid", error=f"warp does not import: {e}"[:300])), flush=True)
        return
    try:
        wp.init()

        @wp.kernel
        def count(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.vec3),
                  r2: float, r: float, out: wp.array(dtype=wp.int32)):
            t = wp.tid()
            q = qs[t]
            c = int(0)
            for i in wp.hash_grid_query(grid, q, r):
                d = pts[i] - q
                if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2:
                    c += 1
            out[t] = c

        @wp.kernel
        def write(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.vec3),
                  r2: float, r: float, off: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
            t = wp.tid()
            q = qs[t]
            c = off[t]
            for i in wp.hash_grid_query(grid, q, r):
                d = pts[i] - q
                if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2:
                    out[c] = i
                    c += 1

        dev = "cuda:0" if wp.get_cuda_device_count() > 0 else "cpu"
        wpts = wp.array(points, dtype=wp.vec3, device=dev)
        wqs = wp.array(queries, dtype=wp.vec3, device=dev)
        nq = len(queries)
        counts = wp.zeros(nq + 1, dtype=wp.int32, device=dev)
        off = wp.zeros(nq + 1, dtype=wp.int32, device=dev)
        grid = wp.HashGrid(128, 128, 128, device=dev)
        times = []
        for rep in range(4):
            wp.synchronize()
            t0 = now()
            grid.build(wpts, r)
            wp.launch(count, dim=nq, inputs=[grid.id, wpts, wqs, r * r, r, counts], device=dev)
            # counts[nq] stays 0: the exclusive scan's last entry is the total.
            wp.utils.array_scan(counts, off, inclusive=False)
            total = int(off[nq:].numpy()[0])
            out = wp.empty(max(total, 1), dtype=wp.int32, device=dev)
            wp.launch(write, dim=nq, inputs=[grid.id, wpts, wqs, r * r, r, off, out], device=dev)
            wp.synchronize()
            t1 = now()
            if rep > 0:
                times.append(t1 - t0)
        o = off.numpy().astype(np.int64)
        got = out.numpy()[:total]
        lists = [got[o[q]:o[q + 1]] for q in range(nq)]
        rbad = radius_mismatch(lists, offsets, indices, points, queries, r)
        print(json.dumps(dict(base, peer="warp-hashgrid", warp=wp.config.version, device=dev, cells="128^3",
                              radius_ms=1e3 * min(times), radius_queries=nq, neighbours=total,
                              radius_queries_off=rbad)), flush=True)
    except Exception as e:  # noqa: BLE001
        print(json.dumps(dict(base, peer="warp-hashgrid", error=str(e)[:300])), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--sets", default="uniform,clustered")
    ap.add_argument("-k", type=int, default=16)
    ap.add_argument("--radius", type=float, default=0.02)
    ap.add_argument("--radius-queries", type=int, default=1 << 18)
    ap.add_argument("--torch-queries", type=int, default=1 << 14)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--peers", default="scipy,cupy,torch,warp")
    a = ap.parse_args()
    peers = set(a.peers.split(","))
    for s in a.sets.split(","):
        f = lambda n: np.load(os.path.join(a.dir, f"{s}-{n}.npy"))
        points, queries = f("points"), f("queries")
        ours_idx, ours_d2 = f("knn").astype(np.int64), f("knn-d2")
        offsets, indices = f("offsets").astype(np.int64), f("indices").astype(np.int64)
        base = dict(set=s, points=len(points), queries=len(queries), k=a.k, radius=a.radius)

        if "warp" in peers:
            warp_radius(base, points, queries, offsets, indices, a.radius)
        if "scipy" not in peers:
            continue
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
            if "cupy" not in peers:
                raise Skip()
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
        except Skip:
            pass
        except Exception as e:  # noqa: BLE001 - report and go on
            print(json.dumps(dict(base, peer="cupy-kdtree", error=str(e)[:300])), flush=True)

        # PyTorch brute force on a prefix of the queries, exact, chunked.
        try:
            if "torch" not in peers:
                raise Skip()
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
        except Skip:
            pass
        except Exception as e:  # noqa: BLE001
            print(json.dumps(dict(base, peer="torch-brute", error=str(e)[:300])), flush=True)


if __name__ == "__main__":
    main()
