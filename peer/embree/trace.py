#!/usr/bin/env python3
"""Embree 4.4 peer of `wavekit trace bench`: the same meshes and rays, traced on the CPU's cores.

Reads what `wavekit trace bench --out DIR` wrote (MESH-vertices.npy, MESH-faces.npy,
MESH-KIND-rays.npy float32 [N, 8], MESH-KIND-hits.npy), traces every ray set with embreex (one
ray at a time, rtcIntersect1 / rtcOccluded1 inside embreex's `run`) on WORKERS processes (each
forked after the scene is built, each tracing a contiguous share of the rays into shared
memory), checks Embree's hits against wavekit's (same triangle, or t within 1e-4 relative), and
prints one JSON line per case: mesh, rays, count, query, median seconds, rays/s, mismatches.

embreex's `run` takes origins, directions and tfar; tnear is 0 (the bench's rays all start at
tmin = 0). 16-wide packets: embreex exposes no packet call (checked at run time and reported).

Usage: trace.py DIR [--workers 16] [--runs 5]
"""
import argparse
import glob
import json
import mmap
import multiprocessing as mp
import os
import sys
import time

import numpy as np

SCENE = None
RAYS = None
OUT = None


def worker(job):
    lo, hi, query = job
    o = np.ascontiguousarray(RAYS[lo:hi, 0:3])
    d = np.ascontiguousarray(RAYS[lo:hi, 4:7])
    tfar = np.ascontiguousarray(RAYS[lo:hi, 7])
    if query == "OCCLUDED":
        r = SCENE.run(o, d, dists=tfar, query="OCCLUDED")
        OUT["occ"][lo:hi] = occluded_of(r)
    else:
        r = SCENE.run(o, d, dists=tfar, query="INTERSECT", output=1)
        OUT["prim"][lo:hi] = r["primID"]
        OUT["t"][lo:hi] = r["tfar"]
        OUT["u"][lo:hi] = r["u"]
        OUT["v"][lo:hi] = r["v"]
    return hi - lo


def occluded_of(r):
    """embreex's OCCLUDED answer as booleans: an id (-1: not occluded) or a tfar (-inf or
    negative: occluded, Embree 4's convention)."""
    r = np.asarray(r)
    if r.dtype.kind == "f":
        return r < 0
    return r != -1


def shared(n, dtype):
    buf = mmap.mmap(-1, max(1, n * np.dtype(dtype).itemsize))
    return np.frombuffer(buf, dtype=dtype, count=n)


def main():
    global SCENE, RAYS, OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 16)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from embreex import rtcore_scene
    from embreex.mesh_construction import TriangleMesh

    packets = [a for a in dir(rtcore_scene.EmbreeScene) if "16" in a or "packet" in a.lower()]
    print(json.dumps({"record": "embree", "workers": args.workers,
                      "packet_calls": packets}), flush=True)
    for vfile in sorted(glob.glob(os.path.join(args.dir, "*-vertices.npy"))):
        mesh = os.path.basename(vfile)[: -len("-vertices.npy")]
        v = np.load(vfile).astype(np.float32)
        f = np.load(os.path.join(args.dir, mesh + "-faces.npy")).astype(np.int32)
        t0 = time.perf_counter()
        SCENE = rtcore_scene.EmbreeScene()
        TriangleMesh(SCENE, v, f)
        if hasattr(SCENE, "commit"):
            SCENE.commit()
        # A first query builds the BVH where commit is lazy.
        SCENE.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32))
        build_s = time.perf_counter() - t0
        print(json.dumps({"record": "embree_build", "mesh": mesh, "triangles": len(f),
                          "seconds": build_s}), flush=True)
        for rfile in sorted(glob.glob(os.path.join(args.dir, mesh + "-*-rays.npy"))):
            kind = os.path.basename(rfile)[len(mesh) + 1: -len("-rays.npy")]
            RAYS = np.load(rfile)
            n = len(RAYS)
            query = "OCCLUDED" if kind == "shadow" else "INTERSECT"
            OUT = {"prim": shared(n, np.int32), "t": shared(n, np.float32),
                   "u": shared(n, np.float32), "v": shared(n, np.float32),
                   "occ": shared(n, np.bool_)}
            chunk = max(1, -(-n // (args.workers * 8)))
            jobs = [(lo, min(n, lo + chunk), query) for lo in range(0, n, chunk)]
            times = []
            with mp.get_context("fork").Pool(args.workers) as pool:
                pool.map(worker, jobs[: args.workers])  # warm the workers
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    pool.map(worker, jobs, chunksize=1)
                    times.append(time.perf_counter() - t0)
            med = float(np.median(times))
            hits = np.load(os.path.join(args.dir, f"{mesh}-{kind}-hits.npy"))
            if query == "OCCLUDED":
                mism = int(np.count_nonzero(OUT["occ"] != hits.astype(bool)))
            else:
                wk_hit = hits["prim"] != 0xFFFFFFFF
                em_hit = OUT["prim"] != -1
                same_prim = hits["prim"].astype(np.int64) == OUT["prim"].astype(np.int64)
                close_t = np.abs(hits["t"] - OUT["t"]) <= 1e-4 * np.maximum(np.abs(hits["t"]), 1)
                ok = (wk_hit == em_hit) & (~wk_hit | same_prim | close_t)
                mism = int(n - np.count_nonzero(ok))
            print(json.dumps({"record": "embree_trace", "mesh": mesh, "rays": kind, "count": n,
                              "query": query, "median_s": med, "rays_per_s": n / med,
                              "mismatches": mism}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
