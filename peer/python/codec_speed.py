#!/usr/bin/env python3
"""Encode and decode speed of the JPEG 2000 peers of the wavekit codec, at a byte budget.

Peers:
  nvjpeg2k      nvJPEG2000 (part-1 block coder) through nvImageCodec, on the GPU
  nvjpeg2k-ht   nvJPEG2000's High-Throughput (HTJ2K, part 15) block coder, on the GPU
  openjpeg      OpenJPEG through imagecodecs, on the CPU
  htj2k         OpenJPH (HTJ2K) through imagecodecs, on the CPU

Frames are read as PNG from a directory: by default 1920x1080, 2560x1440 and 3840x2160 mosaics
of scikit-image's colour photographs, each tile one photograph (see `frames`). For each frame
and each budget (1 and 2 bits a pixel by default, plus `lossless`: the reversible 5/3 path)
every peer is fitted to the largest code stream that fits the budget, then timed:

  GPU  single   one frame a call, pixels in device memory (the code stream nvImageCodec
                returns is in pinned host memory, as it takes it), wall time from
                cudaDeviceSynchronize to cudaDeviceSynchronize; median and p99 over --runs
                calls after >= --warmup seconds of the same work (the H200's clock idles low).
       batch16  --threads frames in one encode/decode call (nvImageCodec's batch API):
                wall time of the call / frames, i.e. per-frame time at full throughput.
  CPU  numthreads=N  one frame a call with the library's own threads (OpenJPEG's numthreads;
                OpenJPH has none, so its row is numthreads=1: one core).
       pool16-thread (or -process)  --threads frames in parallel, one per worker, each codec
                call single-threaded: wall time of the lot / frames (frames per second ->
                per-frame time), plus the median time of one call inside the pool.

Quality is PSNR of luma (BT.709 Y) of the decode against the original 8-bit RGB frame; lossless
rows also say whether the decode is exact. All code streams are raw J2K (no JP2 box) with the
colour transform on (ICT for lossy, RCT for lossless) and 6 resolutions (5 DWT levels).

Rate control. OpenJPEG: its PSNR target `level` is bisected (as codec_rd.py does). OpenJPH: its
quantizer step `level` is bisected in log space. nvJPEG2000 has no byte target: its encoder takes
a target PSNR (not with HT), a quantization step or a JPEG-like Q factor (needs the colour
transform, mct_mode=1), which nvImageCodec 0.9 maps from QualityType PSNR, QUANTIZATION_STEP and
QUALITY. nvImageCodec's QualityType.SIZE_RATIO (`quality_value` = code-stream size / raw size) is
tried first all the same, and corrected proportionally while it misses; where it is refused
(expected for JPEG 2000 in 0.9) or lands under 97 % of the budget, the PSNR, QUALITY and
QUANTIZATION_STEP targets are bisected in turn. The row records the knob that won and, in
`search`, every (quality type, value, bytes or refusal) tried.

Output: a compact JSON line per (codec, frame, bpp) on stdout and the full line in --out.
Progress and skips go to stderr. nvJPEG2000 is skipped, with a message, where nvImageCodec,
CuPy, a CUDA device or the nvJPEG2000 library is missing.

    # once, where scikit-image is installed: the source photographs (about 2 MB of PNG)
    python3 peer/python/codec_speed.py photos --out .dev/photos
    # anywhere with numpy and Pillow: the frames
    python3 peer/python/codec_speed.py frames --photos .dev/photos --out .dev/frames
    # the measurement: imagecodecs; for the GPU also cupy, nvidia-nvimgcodec-cu13, -nvjpeg2k-cu13
    python3 peer/python/codec_speed.py run --frames .dev/frames --out speed.jsonl
"""

import argparse
import concurrent.futures as cf
import json
import math
import multiprocessing
import os
import sys
import time

import numpy as np

# The colour photographs of skimage.data, in the order the mosaics use them.
PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "motorcycle")
SIZES = "1920x1080,2560x1440,3840x2160"
TILE = (640, 360)  # mosaic tiles are about this size: the photographs scaled by 0.9-1.4x


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- frames

def cmd_photos(a):
    """Write the source photographs of skimage.data as PNG (needs scikit-image)."""
    from PIL import Image
    from skimage import data

    os.makedirs(a.out, exist_ok=True)
    for i, name in enumerate(PHOTOS):
        img = data.stereo_motorcycle()[0] if name == "motorcycle" else getattr(data, name)()
        path = os.path.join(a.out, f"{i}_{name}.png")
        Image.fromarray(np.ascontiguousarray(img[..., :3])).save(path, optimize=True)
        log(f"{path} {img.shape[1]}x{img.shape[0]}")


def load_photos(directory):
    from PIL import Image

    if directory is None:
        from skimage import data

        return [data.stereo_motorcycle()[0] if n == "motorcycle" else getattr(data, n)()
                for n in PHOTOS]
    names = sorted(f for f in os.listdir(directory) if f.lower().endswith(".png"))
    if not names:
        sys.exit(f"no PNG photographs in {directory}")
    return [np.asarray(Image.open(os.path.join(directory, n)).convert("RGB")) for n in names]


def cover(photo, w, h):
    """`photo` scaled (Lanczos) to cover w x h, then cropped to it about its centre."""
    from PIL import Image

    ph, pw = photo.shape[:2]
    s = max(w / pw, h / ph)
    sw, sh = max(w, round(pw * s)), max(h, round(ph * s))
    big = np.asarray(Image.fromarray(np.ascontiguousarray(photo[..., :3])).resize(
        (sw, sh), Image.LANCZOS))
    x0, y0 = (sw - w) // 2, (sh - h) // 2
    return big[y0:y0 + h, x0:x0 + w]


def mosaic(photos, w, h):
    """A w x h frame of about TILE-sized tiles, each a different photograph (cycled)."""
    cols, rows = max(1, round(w / TILE[0])), max(1, round(h / TILE[1]))
    frame = np.empty((h, w, 3), np.uint8)
    for r in range(rows):
        for c in range(cols):
            x0, x1 = c * w // cols, (c + 1) * w // cols
            y0, y1 = r * h // rows, (r + 1) * h // rows
            frame[y0:y1, x0:x1] = cover(photos[(r * cols + c) % len(photos)], x1 - x0, y1 - y0)
    return frame


def cmd_frames(a):
    """Write one mosaic frame per size as PNG (numpy and Pillow; skimage only without --photos)."""
    from PIL import Image

    photos = load_photos(a.photos)
    os.makedirs(a.out, exist_ok=True)
    for size in a.sizes.split(","):
        w, h = (int(v) for v in size.lower().split("x"))
        path = os.path.join(a.out, f"frame_{w}x{h}.png")
        Image.fromarray(mosaic(photos, w, h)).save(path)
        log(f"{path} {os.path.getsize(path)} B")


def read_frames(directory):
    from PIL import Image

    names = sorted((f for f in os.listdir(directory) if f.lower().endswith(".png")),
                   key=lambda f: (Image.open(os.path.join(directory, f)).size[0], f))
    if not names:
        sys.exit(f"no PNG frames in {directory}")
    for n in names:
        img = np.asarray(Image.open(os.path.join(directory, n)).convert("RGB"))
        yield os.path.splitext(n)[0], np.ascontiguousarray(img)


# --------------------------------------------------------------------------- measures

def luma(rgb):
    x = rgb.astype(np.float64)
    return 0.2126 * x[..., 0] + 0.7152 * x[..., 1] + 0.0722 * x[..., 2]


def psnr_y(orig, dec):
    mse = np.mean((luma(orig) - luma(dec)) ** 2)
    return float("inf") if mse == 0 else float(10 * np.log10(255.0**2 / mse))


def quality(orig, dec):
    """PSNR-Y in dB (null where the decode is exact) and whether it is exact."""
    if dec.shape != orig.shape:
        return {"psnr_y": None, "exact": False, "error": f"decoded shape {dec.shape}"}
    p = psnr_y(orig, dec)
    return {"psnr_y": None if math.isinf(p) else round(p, 3), "exact": math.isinf(p)}


def stats_ms(seconds):
    t = np.asarray(seconds) * 1e3
    return {"median": round(float(np.median(t)), 3), "p99": round(float(np.percentile(t, 99)), 3),
            "min": round(float(t.min()), 3), "n": int(t.size)}


def time_calls(fn, runs, warmup_s, cap_s, min_runs=5):
    """Seconds of each of `runs` calls of fn (fewer, but >= min_runs, once cap_s has passed),
    after at least one call and warmup_s seconds of warm-up calls."""
    t0 = time.perf_counter()
    fn()
    while time.perf_counter() - t0 < warmup_s:
        fn()
    out = []
    t0 = time.perf_counter()
    while len(out) < runs and not (len(out) >= min_runs and time.perf_counter() - t0 > cap_s):
        s = time.perf_counter()
        fn()
        out.append(time.perf_counter() - s)
    return out


def bisect(encode, budget, lo, hi, larger_is_bigger, iters, log_space=False):
    """(knob, code) with the largest code from encode(knob), knob in [lo, hi], that fits in
    `budget` bytes; (None, None) if none does. encode may return None (refused)."""
    best = (None, None)
    for _ in range(iters):
        mid = math.sqrt(lo * hi) if log_space else 0.5 * (lo + hi)
        b = encode(mid)
        if b is None:
            return best
        fits = len(b) <= budget
        if fits and (best[1] is None or len(b) > len(best[1])):
            best = (mid, b)
        if fits == larger_is_bigger:
            lo = mid
        else:
            hi = mid
    return best


# --------------------------------------------------------------------------- CPU peers

def cpu_codec(name, threads):
    """(encode(img, knob, lossless, numthreads) -> bytes, decode(bytes, numthreads) -> array,
    knob search (lo, hi, larger_is_bigger, log_space), has_own_threads, version)."""
    import imagecodecs as ic

    if name == "openjpeg":
        def enc(img, knob, lossless, nt):
            if lossless:
                return ic.jpeg2k_encode(img, codecformat="J2K", reversible=True, numthreads=nt)
            return ic.jpeg2k_encode(img, level=knob, codecformat="J2K", reversible=False,
                                    numthreads=nt)

        def dec(b, nt):
            return ic.jpeg2k_decode(b, numthreads=nt)

        return enc, dec, (15.0, 70.0, True, False), True, ic.jpeg2k_version()
    if name == "htj2k":
        def enc(img, knob, lossless, nt):
            if lossless:
                return ic.htj2k_encode(img, reversible=True)
            return ic.htj2k_encode(img, level=knob, reversible=False)

        def dec(b, nt):
            return ic.htj2k_decode(b)

        return enc, dec, (0.0002, 2.0, False, True), False, ic.htj2k_version()
    raise ValueError(name)


# What a pool worker needs; set before the pool is made (a process pool forks it in).
_POOL = {}


def _pool_task(op):
    p = _POOL
    s = time.perf_counter()
    if op == "encode":
        p["enc"](p["img"], p["knob"], p["lossless"], 1)
    else:
        p["dec"](p["code"], 1)
    return time.perf_counter() - s


def pool_rate(kind, workers, reps, img, code, enc, dec, knob, lossless):
    """Per-frame time with `workers` frames coded at once, one per worker, single-threaded."""
    _POOL.update(img=img, code=code, enc=enc, dec=dec, knob=knob, lossless=lossless)
    if kind == "process":
        ex = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    else:
        ex = cf.ThreadPoolExecutor(workers)
    out = {}
    with ex:
        for op in ("encode", "decode"):
            list(ex.map(_pool_task, [op] * workers))  # warm-up (and process start-up)
            walls, tasks = [], []
            for _ in range(reps):
                s = time.perf_counter()
                tasks += list(ex.map(_pool_task, [op] * workers))
                walls.append(time.perf_counter() - s)
            per_frame = float(np.median(walls)) / workers
            out[f"{op}_ms_per_frame"] = round(per_frame * 1e3, 3)
            out[f"{op}_fps"] = round(1.0 / per_frame, 2)
            out[f"{op}_ms_wall"] = stats_ms(walls)
            out[f"task_{op}_ms"] = stats_ms(tasks)
    return out


def run_cpu(name, frame_name, img, bpp, a):
    enc, dec, (lo, hi, larger, log_space), own_threads, version = cpu_codec(name, a.threads)
    h, w = img.shape[:2]
    lossless = bpp == "lossless"
    nt = a.threads if own_threads else 1
    row = {"codec": name, "lib": version, "frame": frame_name, "width": w, "height": h,
           "bpp": bpp, "device": f"cpu x{os.cpu_count()}"}
    if lossless:
        knob, code = None, enc(img, None, True, nt)
    else:
        budget = int(bpp * w * h / 8)
        row["budget"] = budget
        knob, code = bisect(lambda q: enc(img, q, False, nt), budget, lo, hi, larger,
                            a.search_iters, log_space)
        if code is None:
            row["error"] = f"no level in [{lo}, {hi}] fits {budget} B"
            return row
        row["knob"] = {"level": knob}
    out = dec(code, nt)
    row.update(bytes=len(code), bpp_actual=round(8 * len(code) / (w * h), 4), **quality(img, out))
    timings = {}
    cap = a.time_cap
    timings[f"numthreads={nt}"] = {
        "encode_ms": stats_ms(time_calls(lambda: enc(img, knob, lossless, nt), a.runs, 0, cap)),
        "decode_ms": stats_ms(time_calls(lambda: dec(code, nt), a.runs, 0, cap)),
    }
    if a.threads > 1:
        timings[f"pool{a.threads}-{a.pool}"] = pool_rate(a.pool, a.threads, a.pool_reps, img, code,
                                                         enc, dec, knob, lossless)
    row["timings"] = timings
    return row


# --------------------------------------------------------------------------- GPU peers

class Unavailable(Exception):
    pass


class NvJpeg2k:
    """nvJPEG2000 through nvImageCodec (0.9 API), input and output in device memory."""

    def __init__(self, threads):
        try:
            import cupy
            from nvidia import nvimgcodec as nv
        except ImportError as e:
            raise Unavailable(f"{e.name} is not installed") from e
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise Unavailable("no CUDA device")
        except cupy.cuda.runtime.CUDARuntimeError as e:
            raise Unavailable(f"no CUDA device ({e})") from e
        self.cp, self.nv = cupy, nv
        probe = cupy.asarray(np.random.default_rng(0).integers(0, 256, (64, 64, 3), np.uint8))
        # The GPU backend only: nvImageCodec also has CPU JPEG 2000 paths (OpenCV) that must not
        # stand in for nvJPEG2000. Should nvJPEG2000 register as a hybrid backend, allow that too.
        last = None
        for kinds in (("GPU_ONLY",), ("GPU_ONLY", "HYBRID_CPU_GPU")):
            backends = [nv.Backend(getattr(nv.BackendKind, k)) for k in kinds]
            try:
                self.enc = nv.Encoder(backends=backends, max_num_cpu_threads=threads)
                self.dec = nv.Decoder(backends=backends, max_num_cpu_threads=threads)
                cs = self.enc.encode(nv.as_image(probe), "jpeg2k",
                                     params=self.params(nv.QualityType.LOSSLESS, 0, False))
                if cs is not None:
                    back = cupy.asarray(self.dec.decode(nv.CodeStream(bytes(cs)))).get()
                    # compared on the host: no CuPy kernel (and so no NVRTC) is ever needed
                    if np.array_equal(back, probe.get()):
                        self.backends = list(kinds)
                        break
                    last = "the lossless probe did not decode exactly"
                else:
                    last = "the probe encode returned None (nvJPEG2000 library missing?)"
            except Exception as e:  # noqa: BLE001 - any failure here means: not usable
                last = f"{type(e).__name__}: {e}"
        else:
            raise Unavailable(last)
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
        self.gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.version = f"nvimgcodec-{getattr(nv, '__version__', '?')}"

    def params(self, quality_type, value, ht):
        nv = self.nv
        return nv.EncodeParams(
            quality_type=quality_type, quality_value=value,
            jpeg2k_encode_params=nv.Jpeg2kEncodeParams(
                code_block_size=(64, 64), num_resolutions=6,
                bitstream_type=nv.Jpeg2kBitstreamType.J2K, mct_mode=1, ht=ht))

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def encode(self, image, params):
        cs = self.enc.encode(image, "jpeg2k", params=params)
        self.sync()
        return cs

    def reusable(self, stream, out):
        """Whether decode(..., image=out) works (0.9 reuses an Image's own buffer)."""
        try:
            ok = self.dec.decode(stream, image=out) is not None
            self.sync()
            return ok
        except Exception:  # noqa: BLE001 - then every decode allocates its output
            return False

    def fit(self, image, budget, raw, ht, iters):
        """(knob, params, bytes) of the largest code stream within budget, and the search log."""
        QT = self.nv.QualityType
        trace = []

        def attempt(qt, v):
            try:
                cs = self.encode(image, self.params(getattr(QT, qt), v, ht))
            except Exception as e:  # noqa: BLE001 - a refused knob is information, not a crash
                trace.append([qt, v, f"{type(e).__name__}: {e}"[:120]])
                return None
            if cs is None:
                trace.append([qt, v, None])
                return None
            b = bytes(cs)
            trace.append([qt, round(v, 6), len(b)])
            return b

        best = None  # (qt, value, bytes)

        def keep(qt, v, b):
            nonlocal best
            if b is not None and len(b) <= budget and (best is None or len(b) > len(best[2])):
                best = (qt, v, b)

        # SIZE_RATIO: quality_value = target size / raw size; corrected while it misses.
        ratio = budget / raw
        for _ in range(8):
            b = attempt("SIZE_RATIO", ratio)
            if b is None:
                break
            keep("SIZE_RATIO", ratio, b)
            if 0.97 * budget <= len(b) <= budget:
                break
            nxt = min(0.999, ratio * 0.99 * budget / max(len(b), 1))
            if nxt == ratio:
                break
            ratio = nxt
        searches = (("PSNR", 10.0, 90.0, True, False), ("QUALITY", 1.0, 100.0, True, False),
                    ("QUANTIZATION_STEP", 1e-4, 1e3, False, True))
        for qt, lo, hi, larger, log_space in searches:
            if best is not None and len(best[2]) >= 0.97 * budget:
                break
            v, b = bisect(lambda x, qt=qt: attempt(qt, x), budget, lo, hi, larger, iters, log_space)
            keep(qt, v, b)
        if best is None:
            return None, trace
        qt, v, b = best
        return (qt, v, self.params(getattr(QT, qt), v, ht), b), trace

    def run(self, name, frame_name, img, bpp, a):
        nv, cp = self.nv, self.cp
        ht = name.endswith("-ht")
        h, w = img.shape[:2]
        row = {"codec": name, "lib": self.version, "frame": frame_name, "width": w, "height": h,
               "bpp": bpp, "device": self.gpu, "backends": self.backends}
        dimg = cp.asarray(img)
        image = nv.as_image(dimg)
        if bpp == "lossless":
            params = self.params(nv.QualityType.LOSSLESS, 0, ht)
            cs = self.encode(image, params)
            if cs is None:
                row["error"] = "lossless encode returned None"
                return row
            code = bytes(cs)
        else:
            budget = int(bpp * w * h / 8)
            row["budget"] = budget
            found, trace = self.fit(image, budget, img.size, ht, a.search_iters)
            row["search"] = trace
            if found is None:
                row["error"] = f"no quality setting fits {budget} B"
                return row
            qt, v, params, code = found
            row["knob"] = {"quality_type": qt, "quality_value": v}
        stream = nv.CodeStream(code)
        out = self.dec.decode(stream)
        self.sync()
        dec_host = cp.asarray(out).get()
        row.update(bytes=len(code), bpp_actual=round(8 * len(code) / (w * h), 4),
                   **quality(img, dec_host))

        def enc1():
            self.enc.encode(image, "jpeg2k", params=params)
            self.sync()

        reuse = self.reusable(stream, out)
        row["decode_reuses_output"] = reuse

        def dec1():
            if reuse:
                self.dec.decode(stream, image=out)  # the output buffer of the last call
            else:
                self.dec.decode(stream)
            self.sync()

        n = a.threads
        images = [nv.as_image(dimg) for _ in range(n)]
        streams = [nv.CodeStream(code) for _ in range(n)]
        outs = self.dec.decode(streams)
        self.sync()

        def enc_n():
            self.enc.encode(images, "jpeg2k", params=params)
            self.sync()

        def dec_n():
            if reuse:
                self.dec.decode(streams, images=outs)
            else:
                self.dec.decode(streams)
            self.sync()

        cap, warm = a.time_cap, a.warmup
        batch = {"encode_ms_batch": stats_ms(time_calls(enc_n, a.runs, warm, cap)),
                 "decode_ms_batch": stats_ms(time_calls(dec_n, a.runs, warm, cap))}
        for op in ("encode", "decode"):
            per = batch[f"{op}_ms_batch"]["median"] / n
            batch[f"{op}_ms_per_frame"] = round(per, 3)
            batch[f"{op}_fps"] = round(1e3 / per, 2)
        row["timings"] = {
            "single": {"encode_ms": stats_ms(time_calls(enc1, a.runs, warm, cap)),
                       "decode_ms": stats_ms(time_calls(dec1, a.runs, warm, cap))},
            f"batch{n}": batch,
        }
        return row


# --------------------------------------------------------------------------- run

def summary(row):
    """The compact stdout form of a row."""
    keys = ("codec", "frame", "bpp", "bytes", "psnr_y", "exact", "error")
    s = {k: row[k] for k in keys if k in row and (k != "exact" or row["bpp"] == "lossless")}
    if "knob" in row:
        s["knob"] = row["knob"].get("quality_type", "level")
    for mode, t in row.get("timings", {}).items():
        if "encode_ms" in t:
            s[f"{mode} enc/dec ms"] = [t["encode_ms"]["median"], t["decode_ms"]["median"]]
        else:
            s[f"{mode} enc/dec ms/frame"] = [t["encode_ms_per_frame"], t["decode_ms_per_frame"]]
    return s


def cmd_run(a):
    codecs = a.codecs.split(",")
    bpps = [b if b == "lossless" else float(b) for b in a.bpp.split(",")]
    out = open(a.out, "w") if a.out else None

    def emit(row):
        print(json.dumps(summary(row)), flush=True)
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()

    gpu = None
    if any(c.startswith("nvjpeg2k") for c in codecs):
        try:
            gpu = NvJpeg2k(a.threads)
            log(f"nvjpeg2k: {gpu.version} on {gpu.gpu}, backends {gpu.backends}")
        except Unavailable as e:
            log(f"nvjpeg2k: SKIPPED - {e}")
            for c in codecs:
                if c.startswith("nvjpeg2k"):
                    emit({"codec": c, "error": f"skipped: {e}"})
    for frame_name, img in read_frames(a.frames):
        for bpp in bpps:
            for c in codecs:
                t0 = time.perf_counter()
                if c.startswith("nvjpeg2k"):
                    if gpu is None:
                        continue
                    row = gpu.run(c, frame_name, img, bpp, a)
                else:
                    row = run_cpu(c, frame_name, img, bpp, a)
                log(f"{c} {frame_name} {bpp}: {time.perf_counter() - t0:.1f} s")
                emit(row)
    if out:
        out.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("photos", help="write skimage.data's colour photographs as PNG")
    p.add_argument("--out", required=True)
    p = sub.add_parser("frames", help="write mosaic frames of the photographs as PNG")
    p.add_argument("--photos", help="directory of PNG photographs (default: skimage.data)")
    p.add_argument("--out", required=True)
    p.add_argument("--sizes", default=SIZES)
    p = sub.add_parser("run", help="fit, time and measure the peers on a directory of PNG frames")
    p.add_argument("--frames", required=True, help="directory of PNG frames")
    p.add_argument("--out", help="file for the full JSON lines")
    p.add_argument("--codecs", default="nvjpeg2k,nvjpeg2k-ht,openjpeg,htj2k")
    p.add_argument("--bpp", default="1,2,lossless", help="bits a pixel, or 'lossless'")
    p.add_argument("--runs", type=int, default=20, help="timed calls per measure")
    p.add_argument("--warmup", type=float, default=0.3, help="GPU warm-up seconds per measure")
    p.add_argument("--time-cap", type=float, default=20.0,
                   help="stop a measure after this many seconds once it has 5 calls")
    p.add_argument("--threads", type=int, default=16,
                   help="OpenJPEG numthreads, pool workers, GPU batch size")
    p.add_argument("--pool", choices=("thread", "process"), default="thread")
    p.add_argument("--pool-reps", type=int, default=5, help="timed rounds of the pool")
    p.add_argument("--search-iters", type=int, default=20, help="bisection steps of a rate fit")
    a = ap.parse_args()
    {"photos": cmd_photos, "frames": cmd_frames, "run": cmd_run}[a.cmd](a)


if __name__ == "__main__":
    main()
