#!/usr/bin/env python3
"""Time the Python wavelet libraries a user would pick instead of wavekit's DWT.

The peers: ptwt (``ptwt.wavedec2`` / ``ptwt.waverec2``) and pytorch_wavelets
(``DWTForward`` / ``DWTInverse``), on tensors already on the GPU. 'bior4.4' is the
CDF 9/7 (JPEG 2000's irreversible transform), 'bior2.2' the LeGall 5/3 (the reversible
one, here in float: neither library has an integer path). Five levels, 1080p / 4K / 8K,
one plane and three (a batch of 3 for ptwt, 3 channels for pytorch_wavelets, as a user
would pass an RGB image), forward and inverse (the inverse runs on the forward's own output).

Boundary mode: 'reflect' for both by default. It extends a signal by whole-sample symmetry
(... x2 x1 | x0 x1 ... xn-1 | xn-2 ...), which is JPEG 2000's symmetric extension (T.800
Annex F, PSE); their 'symmetric' repeats the edge sample (half-sample symmetry), which is
not. With it the first level equals JPEG 2000's exactly, borders included. But in every
mode except 'periodization' these libraries keep floor((n + L - 1) / 2) coefficients a
level (L = filter length) and transform the whole padded array at the next level, so from
level 3 (9/7) or level 2 (5/3) on they sample the other phase: the same filters and the
same work, on a grid shifted by one sample. pytorch_wavelets' 'periodization' keeps every
level at JPEG 2000's phase (exact in the interior, periodic at the borders); ptwt has no
such mode. dwt_equivalence.py measures all of this against wavekit's coefficients;
``--mode-pytorch-wavelets periodization`` times that alternative.

Timing: CUDA events around each run, the queue drained between runs (as the CUB and CUDA
peers in peer/cub and peer/cuda do), so a run's time includes the host's launch work where
that is longer than the GPU's (that is what a user gets); ``--graph`` replays each run as a
CUDA graph instead, which leaves the GPU's own time. Each case is warmed up by time before
each of its timed rounds (at least ``--warmup-ms`` of its own load: the GPU's clock falls
when idle) and the cases of a size are interleaved round by round. TF32 is off for
convolutions unless ``--tf32`` (wavekit computes in full f32; PyTorch's default lets cuDNN
use TF32 for float32 convolutions, which moves the coefficients by about 1e-3 relative).

One JSON line per case on stdout (and in ``--out``); progress on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
import types

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts

WAVELETS = {"9/7": "bior4.4", "5/3": "bior2.2"}
# wavekit bench dwt's sizes (1440p too; not timed unless asked).
SIZES = {"1080p": (1920, 1080), "1440p": (2560, 1440), "4k": (3840, 2160), "8k": (7680, 4320)}
PEERS = ("ptwt", "pytorch_wavelets")
DEFAULT_MODE = {"ptwt": "reflect", "pytorch_wavelets": "reflect"}
# The boundary modes each library takes (ptwt has no 'periodization').
MODES = {
    "ptwt": ("reflect", "symmetric", "periodic", "zero", "constant"),
    "pytorch_wavelets": ("reflect", "symmetric", "periodization", "zero"),
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def import_pytorch_wavelets():
    """Import pytorch_wavelets, bridging its one use of pkg_resources where setuptools no
    longer ships it (its DTCWT coefficient loader imports ``resource_stream`` at import time;
    the DWT never calls it)."""
    try:
        return importlib.import_module("pytorch_wavelets")
    except ModuleNotFoundError as e:
        if e.name != "pkg_resources":
            raise
    import importlib.resources as resources

    shim = types.ModuleType("pkg_resources")

    def resource_stream(package, name):
        return resources.files(package).joinpath(name).open("rb")

    shim.resource_stream = resource_stream
    sys.modules["pkg_resources"] = shim
    log("pytorch_wavelets: pkg_resources missing, using a small importlib.resources shim")
    return importlib.import_module("pytorch_wavelets")


def _dist_version(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return "?"


def set_tf32(torch, enabled: bool) -> str:
    """TF32 for float32 convolutions (all these libraries run) on or off; returns the setting
    as PyTorch reads it back. Matrix products are left alone (IEEE by default; unused)."""
    try:  # PyTorch 2.9 and later
        torch.backends.cudnn.conv.fp32_precision = "tf32" if enabled else "ieee"
        return f"cudnn.conv.fp32_precision={torch.backends.cudnn.conv.fp32_precision}"
    except AttributeError:
        torch.backends.cudnn.allow_tf32 = enabled
        return f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}"


class Peer:
    """One library set up for one wavelet, level count and mode: ``shape`` gives the input
    tensor's shape for (planes, h, w); ``forward(x)`` returns the library's own coefficient
    structure and ``inverse(coeffs)`` the image; ``to_pywt(coeffs)`` gives pywt's
    [cA_n, (cH_n, cV_n, cD_n), ..., (cH_1, cV_1, cD_1)] order as numpy arrays with the
    planes first."""

    def __init__(self, name, wavelet, levels, mode, device):
        self.name, self.wavelet, self.levels, self.mode = name, wavelet, levels, mode
        if name == "ptwt":
            import ptwt

            self.version = getattr(ptwt, "__version__", None) or _dist_version("ptwt")
            self.forward = lambda x: ptwt.wavedec2(x, wavelet, mode=mode, level=levels)
            self.inverse = lambda c: ptwt.waverec2(c, wavelet)
        elif name == "pytorch_wavelets":
            ptw = import_pytorch_wavelets()
            self.version = getattr(ptw, "__version__", None) or _dist_version("pytorch-wavelets")
            fwd = ptw.DWTForward(J=levels, wave=wavelet, mode=mode).to(device)
            inv = ptw.DWTInverse(wave=wavelet, mode=mode).to(device)
            self.forward = fwd
            self.inverse = inv
        else:
            raise ValueError(f"unknown peer {name!r}: one of {', '.join(PEERS)}")

    def shape(self, planes, h, w):
        if self.name == "ptwt":
            return (h, w) if planes == 1 else (planes, h, w)
        return (1, planes, h, w)

    def to_pywt(self, coeffs, planes):
        """The coefficients as pywt orders them, numpy, shape (planes, h, w) each."""

        def np3(t):
            a = t.detach().to("cpu").double().numpy()
            return a.reshape((planes,) + a.shape[-2:])

        if self.name == "ptwt":
            out = [np3(coeffs[0])]
            for d in coeffs[1:]:
                out.append(tuple(np3(b) for b in d))
            return out
        yl, yh = coeffs
        out = [np3(yl)]
        for h in reversed(yh):  # yh[0] is the finest level
            out.append(tuple(np3(h[:, :, k]) for k in range(3)))
        return out


def parse_sizes(text):
    out = []
    for s in text.split(","):
        s = s.strip().lower()
        if s in SIZES:
            out.append((s, *SIZES[s]))
        elif "x" in s:
            w, h = (int(v) for v in s.split("x"))
            out.append((s, w, h))
        else:
            raise SystemExit(f"--sizes: {s!r} is neither {', '.join(SIZES)} nor WxH")
    return out


def quantile(sorted_ns, p):
    """Nearest rank, as wavekit's Timing and the CUB peers: s[round((n - 1) p)]."""
    return sorted_ns[int(math.floor((len(sorted_ns) - 1) * p + 0.5))]


def median(sorted_ns):
    n = len(sorted_ns)
    return sorted_ns[n // 2] if n % 2 else 0.5 * (sorted_ns[n // 2 - 1] + sorted_ns[n // 2])


class Runner:
    """Runs one callable on a device: warm-up by time, then timed runs."""

    def __init__(self, torch, device, graph):
        self.torch, self.device, self.graph = torch, torch.device(device), graph
        self.cuda = self.device.type == "cuda"

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(self.device)

    def prepare(self, fn):
        """The callable to time: fn itself, or a CUDA graph of it (captured after warm-up
        on a side stream, as PyTorch's graph docs do)."""
        if not self.graph:
            return fn
        torch = self.torch
        s = torch.cuda.Stream(self.device)
        s.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream(self.device).wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        return g.replay

    def warm(self, fn, seconds):
        t0, n = time.perf_counter(), 0
        while True:
            fn()
            n += 1
            if n % 4 == 0 or n < 4:
                self.sync()
                if n >= 3 and time.perf_counter() - t0 >= seconds:
                    return n

    def time(self, fn, runs):
        """`runs` times in ns; the queue is drained before each run."""
        out = []
        if self.cuda:
            torch = self.torch
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            for _ in range(runs):
                a.record()
                fn()
                b.record()
                b.synchronize()
                out.append(a.elapsed_time(b) * 1e6)
        else:
            for _ in range(runs):
                t = time.perf_counter_ns()
                fn()
                out.append(float(time.perf_counter_ns() - t))
        return out


def setup(peer_name, wav, planes, w, h, a, modes, directions, runner, what):
    """The timed cases of one peer, wavelet and plane count: its input on the device, the
    forward's output (the inverse's input), checked by a round trip."""
    torch = runner.torch
    peer = Peer(peer_name, WAVELETS[wav], a.levels, modes[peer_name], runner.device)
    x = torch.rand(peer.shape(planes, h, w), device=runner.device) * 255.0
    if wav == "5/3":
        x = x.round()  # integer samples, as the 5/3 takes; the peers compute in float
    coeffs = peer.forward(x)
    back = peer.inverse(coeffs)
    err = (back[..., :h, :w].reshape(x.shape) - x).abs().max().item()
    del back
    if not err <= 1e-2:  # samples up to 255 in float32: about 3e-4 is expected
        msg = f"{what}: inverse(forward(x)) is off by {err:.3g} (> 0.01)"
        if not a.tf32:
            raise ValueError(msg)
        log(msg + " with TF32 on")
    cases = []
    for d in directions:
        if d == "forward":
            fn = (lambda p=peer, x=x: p.forward(x))
        elif d == "inverse":
            fn = (lambda p=peer, c=coeffs: p.inverse(c))
        else:
            raise SystemExit(f"--directions: {d!r} is neither forward nor inverse")
        try:
            fn = runner.prepare(fn)
        except Exception as e:  # a library the graph capture cannot take
            log(f"{what} {d}: CUDA graph capture failed ({type(e).__name__}: {e}); skipped")
            continue
        cases.append(dict(peer=peer, wav=wav, planes=planes, direction=d, fn=fn,
                          samples=[], rounds=[], roundtrip=err))
    return cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1080p,4k,8k", help="1080p, 1440p, 4k, 8k or WxH, comma-separated")
    ap.add_argument("--planes", default="1,3", help="comma-separated plane counts")
    ap.add_argument("--wavelets", default="9/7,5/3")
    ap.add_argument("--directions", default="forward,inverse")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--runs", type=int, default=30, help="timed runs per case (at least 30)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds the runs are split into; each round visits every case of a size")
    ap.add_argument("--warmup-ms", type=float, default=200.0, help="warm-up of a case before each of its rounds")
    ap.add_argument("--mode-ptwt", default=DEFAULT_MODE["ptwt"], choices=MODES["ptwt"])
    ap.add_argument("--mode-pytorch-wavelets", default=DEFAULT_MODE["pytorch_wavelets"], choices=MODES["pytorch_wavelets"])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--graph", action="store_true", help="replay each run as a CUDA graph (GPU time without launch overhead)")
    ap.add_argument("--tf32", action="store_true", help="let cuDNN use TF32 for float32 convolutions (PyTorch's default)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="also write the JSON lines here")
    a = ap.parse_args(argv)

    import torch

    if a.runs < 30 and a.device.startswith("cuda"):
        log(f"note: --runs {a.runs} is under the 30 the protocol asks for")
    if a.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("CUDA is not available to this PyTorch: run on the H200 machine or pass --device cpu")
    if a.graph and not a.device.startswith("cuda"):
        raise SystemExit("--graph needs a CUDA device")
    if a.graph and "ptwt" in a.peers:
        log("note: ptwt builds its filter tensors from host lists in every call, which CUDA graph "
            "capture refuses: expect its cases to be skipped (--peers pytorch_wavelets avoids trying)")
    precision = set_tf32(torch, a.tf32)
    torch.manual_seed(a.seed)
    runner = Runner(torch, a.device, a.graph)
    sizes = parse_sizes(a.sizes)
    planes_list = [int(p) for p in a.planes.split(",")]
    wavelets = [w.strip() for w in a.wavelets.split(",")]
    for w in wavelets:
        if w not in WAVELETS:
            raise SystemExit(f"--wavelets: {w!r} is not one of {', '.join(WAVELETS)}")
    directions = [d.strip() for d in a.directions.split(",")]
    peers = [p.strip() for p in a.peers.split(",")]
    modes = {"ptwt": a.mode_ptwt, "pytorch_wavelets": a.mode_pytorch_wavelets}
    rounds = max(1, min(a.rounds, a.runs))
    per_round = [a.runs // rounds + (1 if r < a.runs % rounds else 0) for r in range(rounds)]
    out = open(a.out, "w") if a.out else None
    device_name = torch.cuda.get_device_name(runner.device) if runner.cuda else "cpu"
    log(f"torch {torch.__version__} on {device_name}; peers {', '.join(peers)}; modes {modes}; "
        f"{'CUDA graph replay' if a.graph else 'eager launches'}; TF32 {'on' if a.tf32 else 'off'} ({precision})")

    written = 0
    with torch.inference_mode():
        for size, w, h in sizes:
            cases = []
            for peer_name in peers:
                for wav in wavelets:
                    for planes in planes_list:
                        what = f"{peer_name} {wav} {size} planes {planes}"
                        try:
                            cases += setup(peer_name, wav, planes, w, h, a, modes, directions, runner, what)
                        except Exception as e:  # one library failing leaves the others' lines
                            log(f"{what}: {type(e).__name__}: {e}; skipped")
            for r, n in enumerate(per_round):
                for c in cases:
                    runner.warm(c["fn"], a.warmup_ms / 1000.0)
                    t = runner.time(c["fn"], n)
                    c["samples"] += t
                    c["rounds"].append(median(sorted(t)))
                log(f"{size}: round {r + 1}/{rounds} done ({len(cases)} cases)")
            for c in cases:
                s = sorted(c["samples"])
                p = c["peer"]
                line = {
                    "peer": p.name, "size": size, "width": w, "height": h, "planes": c["planes"],
                    "levels": a.levels, "wavelet": c["wav"], "direction": c["direction"],
                    "median_ns": median(s), "p10_ns": quantile(s, 0.1), "p90_ns": quantile(s, 0.9),
                    "runs": len(s), "round_medians_ns": c["rounds"],
                    "filters": p.wavelet, "mode": p.mode, "dtype": "float32",
                    "launch": "graph" if a.graph else "eager", "tf32": a.tf32, "precision": precision,
                    "roundtrip_max_err": c["roundtrip"], "device": device_name,
                    "library": f"{p.name} {p.version}", "torch": torch.__version__,
                }
                text = json.dumps(line)
                written += 1
                print(text, flush=True)
                if out:
                    out.write(text + "\n")
                    out.flush()
            del cases
            if runner.cuda:
                torch.cuda.empty_cache()
    if out:
        out.close()
    asked = len(sizes) * len(peers) * len(wavelets) * len(planes_list) * len(directions)
    if written < asked:
        log(f"{asked - written} of {asked} cases gave no line (see the messages above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
