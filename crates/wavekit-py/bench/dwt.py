"""wavekit.dwt against PyWavelets (the CPU) and ptwt (PyTorch on CUDA), as a Python user calls each.

Cases: a 4K (3840 x 2160) float32 plane and a 1080p one, five levels of the 9/7, forward
(``wavedec2``) and inverse (``waverec2`` of the forward's own output); the 5/3 on int32 for
wavekit (PyWavelets and ptwt have no integer path: their 'bior2.2' in float is timed beside
it). Host arrays in, host arrays out for every library: wavekit's time includes the copies to
the GPU and back, ptwt's ``torch.from_numpy(...).cuda()`` and ``.cpu().numpy()`` of every band
(its time on a tensor already on the GPU is printed too). PyWavelets runs its default C path
in mode 'symmetric' and in 'periodization' (its fastest: no padded bands); ptwt in 'reflect'
(JPEG 2000's extension at the first level). The transforms are the same filters, not the same
numbers (scales, signs and padded bands differ: wavekit.dwt's docstring), so each library's
result is checked against its own inverse instead: ``waverec2(wavedec2(x))`` within 1e-3 of x.

Protocol: warm-up by time, then rounds of runs (bench/protocol.py); the median of all runs
with each round's, the peak resident memory (ru_maxrss) after each case, and each peer's time
over wavekit's. One JSON line a case and library.

Usage: python3 dwt.py [--sizes 4k,1080p] [--levels 5] [--out FILE.jsonl]
"""

import argparse
import resource
import sys

import numpy as np

import wavekit
from wavekit import dwt
from protocol import print_ratios, timed, write_line

SIZES = {"1080p": (1080, 1920), "4k": (2160, 3840)}


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4k,1080p")
    p.add_argument("--levels", type=int, default=5)
    p.add_argument("--warmup-s", type=float, default=0.5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--out")
    args = p.parse_args()
    import pywt

    try:
        import ptwt
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        ptwt = None
        cuda = False
        print("ptwt or torch not installed: skipped", file=sys.stderr)
    print("device:", wavekit.init(), file=sys.stderr)
    out = open(args.out, "w") if args.out else None
    failed = False
    rng = np.random.default_rng(46)
    L = args.levels

    def emit(case, lib, call, sync=lambda: None):
        med, rounds = timed(call, args.warmup_s, args.rounds, args.runs, sync)
        line = {"case": case, "library": lib, "median_ns": med, "round_medians_ns": rounds,
                "peak_rss_mib": peak_mib()}
        write_line(line, out)
        return med

    def ratio(case, times):
        print_ratios(case, times, 2)

    def check(name, x, back):
        nonlocal failed
        err = float(np.max(np.abs(np.asarray(back, dtype=np.float64)[: x.shape[0], : x.shape[1]] - x)))
        ok = err <= 1e-3 * max(1.0, float(np.max(np.abs(x))))
        failed |= not ok
        print(f"{name}: round trip max error {err:.2e} {'ok' if ok else 'TOO LARGE'}", file=sys.stderr)

    for size in args.sizes.split(","):
        h, w = SIZES[size]
        x = (rng.random((h, w), dtype=np.float32) * 255).astype(np.float32)
        xi = rng.integers(0, 256, (h, w), dtype=np.int32)
        ours = dwt.wavedec2(x, "cdf97", level=L)
        check(f"wavekit cdf97 {size}", x, dwt.waverec2(ours, "cdf97"))
        exact = np.array_equal(dwt.waverec2(dwt.wavedec2(xi, "legall53", level=L), "legall53"), xi)
        failed |= not exact
        print(f"wavekit legall53 {size}: round trip {'exact' if exact else 'NOT EXACT'}", file=sys.stderr)
        theirs = {m: pywt.wavedec2(x, "bior4.4", mode=m, level=L) for m in ("symmetric", "periodization")}
        for m, c in theirs.items():
            check(f"pywt bior4.4 {m} {size}", x, pywt.waverec2(c, "bior4.4", mode=m))

        case = f"9/7 forward {size} {L} levels"
        t = {"wavekit": emit(case, "wavekit", lambda: dwt.wavedec2(x, "cdf97", level=L))}
        for m in theirs:
            t[f"pywt {m}"] = emit(case, f"pywt {m}", lambda m=m: pywt.wavedec2(x, "bior4.4", mode=m, level=L))
        if cuda:
            sync = torch.cuda.synchronize
            xt = torch.from_numpy(x).cuda()

            def host(c):
                return [c[0].cpu().numpy()] + [tuple(b.cpu().numpy() for b in d) for d in c[1:]]

            t["ptwt"] = emit(case, "ptwt", lambda: host(ptwt.wavedec2(torch.from_numpy(x).cuda(), "bior4.4",
                                                                       mode="reflect", level=L)), sync)
            t["ptwt on the GPU"] = emit(case, "ptwt on the GPU",
                                        lambda: ptwt.wavedec2(xt, "bior4.4", mode="reflect", level=L), sync)
        ratio(case, t)

        case = f"9/7 inverse {size} {L} levels"
        t = {"wavekit": emit(case, "wavekit", lambda: dwt.waverec2(ours, "cdf97"))}
        for m, c in theirs.items():
            t[f"pywt {m}"] = emit(case, f"pywt {m}", lambda m=m, c=c: pywt.waverec2(c, "bior4.4", mode=m))
        if cuda:
            ct = ptwt.wavedec2(xt, "bior4.4", mode="reflect", level=L)
            hc = host(ct)

            def up(c):
                return [torch.from_numpy(c[0]).cuda()] + [tuple(torch.from_numpy(b).cuda() for b in d) for d in c[1:]]

            t["ptwt"] = emit(case, "ptwt", lambda: ptwt.waverec2(up(hc), "bior4.4").cpu().numpy(), sync)
            t["ptwt on the GPU"] = emit(case, "ptwt on the GPU", lambda: ptwt.waverec2(ct, "bior4.4"), sync)
        ratio(case, t)

        case = f"5/3 forward {size} {L} levels"
        t = {"wavekit": emit(case, "wavekit (int32, exact)", lambda: dwt.wavedec2(xi, "legall53", level=L)),
             "pywt periodization (float)": emit(case, "pywt periodization",
                                                lambda: pywt.wavedec2(x, "bior2.2", mode="periodization", level=L))}
        ratio(case, t)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
