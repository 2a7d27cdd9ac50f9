#!/usr/bin/env python3
"""The wavekit CLI end to end against numpy doing the same job, and the I/O floor.

For each size (2^26, 2^28, 2^29 + 5 uint32 by default) it writes the inputs once (random keys,
one-byte flags), then times, each in a fresh process (wall clock and peak resident memory from
the kernel's accounting of the child):

- wavekit `reduce`, `scan`, `select`, `sort` (keys), `sort --values` (pairs), `histogram`
  (256 bins over [0, 2^32 - 1)) — every binary given with --wavekit (e.g. the current one and
  an older one);
- numpy's same job in a fresh Python process (load, compute, save);
- the floor: reading the job's input files (`cat > /dev/null`, page cache warm) plus writing
  its output's bytes (`head -c N /dev/zero > file`).

and, with --png, the wavelet transform of an 8K 16-bit RGB PNG (5 levels, 5/3) against the
I/O floor (reading the PNG, writing the coefficients' bytes).

Every output of wavekit is checked against numpy's. Prints one JSON line per job and a table
to stderr. Needs numpy; the files go to --dir (default /tmp/wavekit-e2e), removed at the end.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np


def run(cmd, env=None):
    """Run `cmd`; return (seconds, peak RSS in bytes, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    out = p.stdout.read().decode()
    err = p.stderr.read().decode()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({p.returncode}): {err[-2000:]}")
    return dt, usage.ru_maxrss * 1024, out


NUMPY_JOBS = {
    "reduce": "x = np.load(a[0]); print(int(x.sum(dtype=np.uint32)))",
    "scan": "np.save(a[1], np.cumsum(np.load(a[0]), dtype=np.uint32))",
    "select": "x = np.load(a[0]); f = np.load(a[2]); r = x[f != 0]; np.save(a[1], r); print(len(r))",
    # Keys alone: stability changes nothing, so the peer is numpy's default (fastest) sort, the
    # call a user makes; pairs need the stable argsort to keep equal keys' values in order.
    "sort": "np.save(a[1], np.sort(np.load(a[0])))",
    "sort_pairs": "k = np.load(a[0]); v = np.load(a[2]); o = np.argsort(k, kind='stable'); "
    "np.save(a[1], k[o]); np.save(a[3], v[o])",
    "histogram": "x = np.load(a[0]); np.save(a[1], np.bincount(x >> 24, minlength=256).astype(np.uint32))",
}


def numpy_job(name, args):
    code = "import sys, numpy as np; a = sys.argv[1:]; " + NUMPY_JOBS[name]
    return run([sys.executable, "-c", code] + [str(x) for x in args])


def floor(inputs, out_bytes, d):
    t0 = time.perf_counter()
    for f in inputs:
        subprocess.run(f"cat {f} > /dev/null", shell=True, check=True)
    t_read = time.perf_counter() - t0
    sink = os.path.join(d, "floor.bin")
    t0 = time.perf_counter()
    if out_bytes:
        subprocess.run(f"head -c {out_bytes} /dev/zero > {sink}", shell=True, check=True)
    t_write = time.perf_counter() - t0
    if os.path.exists(sink):
        os.remove(sink)
    return t_read, t_write


def write_png16(path, rgb):
    """An RGB 16-bit PNG (no filter, zlib level 1) of a (H, W, 3) uint16 array."""
    import struct
    import zlib

    h, w, _ = rgb.shape
    raw = np.zeros((h, 1 + w * 6), dtype=np.uint8)
    raw[:, 1:] = rgb.astype(">u2").view(np.uint8).reshape(h, w * 6)
    data = zlib.compress(raw.tobytes(), 1)

    def chunk(kind, body):
        c = struct.pack(">I", len(body)) + kind + body
        return c + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", data))
        f.write(chunk(b"IEND", b""))


def main():  # noqa: C901 - one table of jobs
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavekit", action="append", required=True, help="a wavekit binary (repeatable)")
    ap.add_argument("--sizes", default="26,28,29", help="log2 sizes; 29 means 2^29 + 5")
    ap.add_argument("--jobs", default="reduce,scan,select,sort,sort_pairs,histogram")
    ap.add_argument("--dir", default="/tmp/wavekit-e2e")
    ap.add_argument("--png", action="store_true", help="also the 8K 16-bit PNG wavelet job")
    ap.add_argument("--out", help="JSON lines here too")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    d = a.dir
    lines = []
    rng = np.random.default_rng(1)
    # Each record goes to --out as soon as it is measured: a run stopped at a time limit keeps
    # what it finished.
    sink = open(a.out, "w") if a.out else None

    def emit(rec):
        lines.append(rec)
        print(json.dumps(rec), flush=True)
        if sink:
            sink.write(json.dumps(rec) + "\n")
            sink.flush()
        print(f"e2e: {rec['job']} n={rec['n']} {os.path.basename(rec['binary'])}: "
              f"{rec['wavekit_s']:.3f} s (numpy {rec.get('numpy_s', float('nan')):.3f} s, "
              f"floor {rec['floor_s']:.3f} s) checked={rec['checked']}", file=sys.stderr, flush=True)

    for lg in [int(s) for s in a.sizes.split(",")]:
        n = (1 << lg) + (5 if lg == 29 else 0)
        x = rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
        xs = os.path.join(d, f"x{lg}.npy")
        np.save(xs, x)
        flags = (rng.integers(0, 4, size=n, dtype=np.uint8) != 0).astype(np.uint8)
        fs = os.path.join(d, f"f{lg}.npy")
        np.save(fs, flags)
        del flags
        vs = xs  # values of the pairs: the keys' bits again
        for job in a.jobs.split(","):
            out = os.path.join(d, "out.npy")
            out2 = os.path.join(d, "out2.npy")
            ref = os.path.join(d, "ref.npy")
            ref2 = os.path.join(d, "ref2.npy")
            args = {
                "reduce": ([xs], [xs]),
                "scan": ([xs, out], [xs, ref]),
                "select": ([xs, out, fs], [xs, ref, fs]),
                "sort": ([xs, out], [xs, ref]),
                "sort_pairs": ([xs, out, vs, out2], [xs, ref, vs, ref2]),
                "histogram": ([xs, out], [xs, ref]),
            }[job]
            inputs = {"select": [xs, fs], "sort_pairs": [xs, vs]}.get(job, [xs])
            out_bytes = {"reduce": 0, "histogram": 1024, "sort_pairs": 8 * n}.get(job, 4 * n)
            t_np, rss_np, np_out = numpy_job(job, args[1])
            t_read, t_write = floor(inputs, out_bytes, d)
            in_bytes = sum(os.path.getsize(f) for f in inputs)
            for binary in a.wavekit:
                cmd = {
                    "reduce": [binary, "reduce", xs],
                    "scan": [binary, "scan", xs, "-o", out],
                    "select": [binary, "select", xs, "--flags", fs, "-o", out],
                    "sort": [binary, "sort", xs, "-o", out],
                    "sort_pairs": [binary, "sort", xs, "-o", out, "--values", vs, "--values-out", out2],
                    "histogram": [binary, "histogram", xs, "--bins", "256", "--range", "0", "4294967295", "-o", out],
                }[job]
                t_wk, rss_wk, wk_out = run(cmd)
                # Checked against numpy's output.
                ok = True
                if job == "reduce":
                    ok = wk_out.strip() == np_out.strip()
                elif job == "histogram":
                    got = np.load(out)
                    want = np.load(ref)
                    # wavekit counts u32::MAX apart (above the range); numpy's bin 255 has it.
                    want[255] -= int((x == np.uint32(0xFFFFFFFF)).sum())
                    ok = np.array_equal(got, want)
                else:
                    ok = np.array_equal(np.load(out, mmap_mode="r"), np.load(ref, mmap_mode="r"))
                    if job == "sort_pairs":
                        ok = ok and np.array_equal(np.load(out2, mmap_mode="r"), np.load(ref2, mmap_mode="r"))
                emit({
                    "job": job, "n": n, "binary": binary,
                    "wavekit_s": t_wk, "wavekit_rss": rss_wk,
                    "numpy_s": t_np, "numpy_rss": rss_np,
                    "read_s": t_read, "write_s": t_write, "floor_s": t_read + t_write,
                    "in_bytes": in_bytes, "out_bytes": out_bytes,
                    "over_floor": t_wk / (t_read + t_write),
                    "over_numpy": t_wk / t_np,
                    "rss_over_files": rss_wk / max(in_bytes + out_bytes, 1),
                    "checked": bool(ok),
                })
                for f in (out, out2):
                    if os.path.exists(f):
                        os.remove(f)
            for f in (ref, ref2):
                if os.path.exists(f):
                    os.remove(f)
        del x
        for f in (xs, fs):
            os.remove(f)
    if a.png:
        h, w = 4320, 7680
        img = rng.integers(0, 1 << 16, size=(h, w, 3), dtype=np.uint16)
        png = os.path.join(d, "img8k16.png")
        write_png16(png, img)
        out = os.path.join(d, "coeffs.npy")
        t_read, t_write = floor([png], 4 * h * w * 3, d)
        for binary in a.wavekit:
            t_wk, rss_wk, _ = run([binary, "dwt", "forward", png, "-o", out, "--wavelet", "5/3", "--levels", "5"])
            c = np.load(out, mmap_mode="r")
            ok = c.shape == (3, h, w)
            rec = {"job": "dwt_png8k16", "n": h * w * 3, "binary": binary, "wavekit_s": t_wk,
                   "wavekit_rss": rss_wk, "read_s": t_read, "write_s": t_write,
                   "floor_s": t_read + t_write, "over_floor": t_wk / (t_read + t_write),
                   "checked": bool(ok)}
            os.remove(out)
            emit(rec)
    if sink:
        sink.close()
    print(f"{'job':<12} {'n':>11} {'binary':<28} {'wavekit s':>9} {'numpy s':>8} {'floor s':>8} {'x floor':>7} {'x numpy':>7} {'RSS/files':>9} ok", file=sys.stderr)
    for r in lines:
        if "wavekit_s" in r:
            print(f"{r['job']:<12} {r['n']:>11} {os.path.basename(r['binary']):<28} {r['wavekit_s']:>9.3f} "
                  f"{r.get('numpy_s', float('nan')):>8.3f} {r['floor_s']:>8.3f} {r['over_floor']:>7.2f} "
                  f"{r.get('over_numpy', float('nan')):>7.2f} {r.get('rss_over_files', float('nan')):>9.2f} {r['checked']}", file=sys.stderr)
    shutil.rmtree(d, ignore_errors=True)
    sys.exit(0 if all(r.get("checked", True) for r in lines) else 1)


if __name__ == "__main__":
    main()
