#!/usr/bin/env python3
"""Check, before timing them, that the Python peers compute the transform wavekit computes.

For each input (a 2-D .npy; made here with ``--sizes`` or given with ``--input``):
  1. wavekit's coefficients (its CLI, ``--wavekit BIN``, or given with ``--coeffs97`` /
     ``--coeffs53``) against a numpy port of T.800's lifting (the equations of
     crates/wavekit-dwt/src/reference.rs): 9/7 to float32 accuracy, 5/3 exactly;
  2. each peer (PyWavelets always; ptwt and pytorch_wavelets where torch imports, through
     the same calls dwt_peers.py times), in each boundary mode it offers, band by band
     against wavekit's, after undoing the peer's per-band scale and its padded layout;
  3. the torch peers against PyWavelets in the same mode (every coefficient).

Scale. JPEG 2000 divides the 9/7's low band by K and multiplies its high band by K, which
leaves its low-pass filter a DC gain of 1 and its high-pass filter a Nyquist gain of 2;
pywt's 'bior4.4' filters have gains sqrt(2) and sqrt(2) and the opposite sign on the high
band. One level of one axis therefore gives low = sqrt(2) * J2K low and
high = -(1/sqrt(2)) * J2K high; in 2-D one level gives LL x2, HL x-1, LH x-1, HH x1/2, and
since level l transforms the previous LL (already x2^(l-1)), a level-l band is
  LL_L: 2^L,  HL_l and LH_l: -2^(l-1),  HH_l: 2^(l-2).
The same holds for 'bior2.2' against the 5/3 (gains 1 and 2 in JPEG 2000, sqrt(2) and
sqrt(2) in pywt, high band negated). The script fits each band's factor by least squares
over its interior and prints it beside the derived one.

Layout. Mallat in place (wavekit): at level l with region w x h, the first ceil(h/2) rows
and ceil(w/2) columns are LL (the next level's region), HL to their right, LH below, HH
diagonally. pywt / ptwt / pytorch_wavelets: a list [cA_L, (cH_L, cV_L, cD_L), ...,
(cH_1, cV_1, cD_1)], where cH (vertical high, horizontal low) is LH, cV is HL and cD is HH.
In their padded modes (all but 'periodization') a level of n samples gives
floor((n + L - 1) / 2) coefficients (L = 10 for bior4.4, 6 for bior2.2), JPEG 2000's
band starting at offset o_l = ((L - 2)/2 + o_(l-1)) / 2 (o_0 = 0) and the next level
taking the whole padded array. That offset is an integer only while (L - 2)/2 + o_(l-1) is
even: from then on (level 3 for bior4.4, level 2 for bior2.2) the library samples the other
phase of the previous band, a different (shifted) transform: those bands are compared and
reported but not gated ("shifted").

Interior and border. A band's border is its outer B coefficients on each side (B = 5 for
the 9/7, 3 for the 5/3: a level's boundary effect spreads at most 4 and 2 coefficients in,
the rest of a band is the interior). Inside it the boundary modes differ; the interior
must match.

Differences are in JPEG 2000's units (the peer's coefficient divided by the factor):
absolute, and relative to the band's largest |coefficient|. Exit status 1 when any gated
difference passes its tolerance (TOL below: for the 9/7 a fraction of the input's peak,
for the 5/3 an absolute bound on the rounding), 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dwt_peers  # noqa: E402

# T.800 Table F.4.
ALPHA = -1.586134342059924
BETA = -0.052980118572961
GAMMA = 0.882911075530934
DELTA = 0.443506852043971
K = 1.230174104914001

FILTERS = {"9/7": ("bior4.4", 10), "5/3": ("bior2.2", 6)}
BORDER = {"9/7": 5, "5/3": 3}
# Tolerances (gates), on absolute differences in JPEG 2000's units:
#  9/7 (float32 everywhere but pywt and the reference, which run in float64): a fraction of
#  the input's peak |sample|, the same for every band (float32 rounding is absolute-ish: about
#  2e-4 on 0..255 samples in every band, which is 1e-6 of the input's peak but 2e-5 of a
#  coarse band's own peak);
#  5/3: wavekit exactly equal to the reference; the peers are linear while JPEG 2000's 5/3
#  floors each lifting step, so they differ by rounding: an absolute bound.
#  Measured here (lavapipe, torch 1.13 on the CPU, pywt 1.8; inputs 0..255):
#  wavekit vs reference <= 2.1e-4 (8e-7 of the peak); peers' interiors <= 2.9e-4;
#  torch vs pywt <= 2.8e-4 (the torch peers in float32, pywt in float64);
#  5/3 peers vs wavekit 1.5 at level 1, 3.6 at most at levels 2-5.
TOL = {
    "97_abs_of_input_peak": 2e-5,
    "53_peer_abs": 8.0,
}
PYWT_MODES = ("reflect", "symmetric", "periodization", "periodic", "zero")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the numpy reference


def pse(n, margin):
    """Indices of x extended by `margin` samples each side by whole-sample symmetry."""
    i = np.arange(-margin, n + margin)
    if n == 1:
        return np.zeros_like(i)
    p = 2 * (n - 1)
    m = np.mod(i, p)
    return np.minimum(m, p - m)


def lift_97(x):
    """9/7 forward along the last axis, bands (low then high), float64."""
    n = x.shape[-1]
    if n <= 1:
        return x.copy()
    m = 4
    e = x[..., pse(n, m)].astype(np.float64)
    j = np.arange(1, n + 2 * m - 1)
    for parity, c in ((1, ALPHA), (0, BETA), (1, GAMMA), (0, DELTA)):
        s = j[(j - m) % 2 == parity]
        e[..., s] += c * (e[..., s - 1] + e[..., s + 1])
    y = e[..., m:m + n]
    return np.concatenate([y[..., 0::2] / K, y[..., 1::2] * K], axis=-1)


def lift_53(x):
    """5/3 forward along the last axis, bands, int64 with T.800's floors."""
    n = x.shape[-1]
    if n <= 1:
        return x.copy()
    m = 2
    e = x[..., pse(n, m)].astype(np.int64)
    j = np.arange(1, n + 2 * m - 1)
    odd = j[(j - m) % 2 == 1]
    e[..., odd] -= np.floor_divide(e[..., odd - 1] + e[..., odd + 1], 2)
    even = j[(j - m) % 2 == 0]
    e[..., even] += np.floor_divide(e[..., even - 1] + e[..., even + 1] + 2, 4)
    y = e[..., m:m + n]
    return np.concatenate([y[..., 0::2], y[..., 1::2]], axis=-1)


def regions(w, h, levels):
    out = []
    for _ in range(levels):
        out.append((w, h))
        w, h = (w + 1) // 2, (h + 1) // 2
    return out


def reference(x, wavelet, levels):
    """JPEG 2000's forward transform, Mallat layout in place: per level columns, then rows."""
    lift = lift_97 if wavelet == "9/7" else lift_53
    p = x.astype(np.float64 if wavelet == "9/7" else np.int64).copy()
    for w, h in regions(x.shape[1], x.shape[0], levels):
        r = p[:h, :w]
        r[:, :] = lift(r.T).T
        r[:, :] = lift(r)
    return p


# ---------------------------------------------------------------- bands and layouts


def bands(w, h, levels):
    """(name, level, slice of the Mallat plane) for every band, finest level first, LL last."""
    out = []
    for lvl, (rw, rh) in enumerate(regions(w, h, levels), start=1):
        lw, lh = (rw + 1) // 2, (rh + 1) // 2
        out.append(("HL", lvl, (slice(0, lh), slice(lw, rw))))
        out.append(("LH", lvl, (slice(lh, rh), slice(0, lw))))
        out.append(("HH", lvl, (slice(lh, rh), slice(lw, rw))))
    out.append(("LL", levels, (slice(0, lh), slice(0, lw))))
    return out


def factor(name, level):
    """The peer's band over JPEG 2000's (module docstring)."""
    return {"LL": 2.0 ** level, "HL": -(2.0 ** (level - 1)), "LH": -(2.0 ** (level - 1)),
            "HH": 2.0 ** (level - 2)}[name]


def offsets(filter_len, levels, padded):
    """Per level: (offset of JPEG 2000's band in the library's array, aligned?)."""
    out, o, ok = [], 0.0, True
    for _ in range(levels):
        if not padded:
            out.append((0, True))
            continue
        pos = (filter_len - 2) / 2 + o
        ok = ok and pos == int(pos) and int(pos) % 2 == 0
        o = pos / 2
        out.append((int(math.floor(o)), ok))
    return out


def peer_band(coeffs, name, level, levels):
    """A band from pywt-ordered coefficients (2-D arrays)."""
    if name == "LL":
        return coeffs[0]
    cH, cV, cD = coeffs[levels - level + 1]
    return {"LH": cH, "HL": cV, "HH": cD}[name]


def border_mask(shape, b):
    m = np.ones(shape, bool)
    if shape[0] > 2 * b and shape[1] > 2 * b:
        m[b:-b, b:-b] = False
    return m


def compare(peer_coeffs, wk, wavelet, levels, padded):
    """Per band: scale, offset, alignment, and the differences interior / border."""
    h, w = wk.shape
    flen = FILTERS[wavelet][1]
    offs = offsets(flen, levels, padded)
    rows = []
    for name, lvl, sl in bands(w, h, levels):
        ref = wk[sl].astype(np.float64)
        pb = peer_band(peer_coeffs, name, lvl, levels)
        o, ok = offs[lvl - 1]
        got = pb[o:o + ref.shape[0], o:o + ref.shape[1]]
        row = {"band": name, "level": lvl, "shape": list(ref.shape), "peer_shape": list(pb.shape),
               "offset": o, "aligned": ok, "factor": factor(name, lvl)}
        if got.shape != ref.shape:
            row.update(error=f"peer band {pb.shape} at offset {o} does not hold {ref.shape}")
            rows.append(row)
            continue
        got = got / row["factor"]
        border = border_mask(ref.shape, BORDER[wavelet])
        peak = float(np.abs(ref).max()) or 1.0
        d = np.abs(got - ref)
        inner = ~border
        row["peak"] = peak
        for part, m in (("interior", inner), ("border", border)):
            if m.any():
                row[f"{part}_abs"] = float(d[m].max())
                row[f"{part}_rel"] = float(d[m].max() / peak)
            else:
                row[f"{part}_abs"] = row[f"{part}_rel"] = None
        fit_m = inner if inner.any() else np.ones_like(inner)
        r = ref[fit_m]
        den = float(np.dot(r, r))
        raw = (got * row["factor"])[fit_m]
        row["fitted_factor"] = float(np.dot(raw, r) / den) if den > 0 else None
        rows.append(row)
    return rows


# ---------------------------------------------------------------- the peers


def pywt_coeffs(x, wavelet, levels, mode):
    import pywt

    c = pywt.wavedec2(x.astype(np.float64), FILTERS[wavelet][0], mode=mode, level=levels)
    return [c[0]] + [tuple(d) for d in c[1:]]


def torch_coeffs(peer_name, x, wavelet, levels, mode, device):
    import torch

    peer = dwt_peers.Peer(peer_name, FILTERS[wavelet][0], levels, mode, torch.device(device))
    t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(device)
    t = t.reshape(peer.shape(1, *x.shape))
    with torch.inference_mode():
        c = peer.to_pywt(peer.forward(t), 1)
    return [c[0][0]] + [tuple(b[0] for b in d) for d in c[1:]], f"{peer_name} {peer.version}"


def torch_peers():
    try:
        import torch  # noqa: F401
    except ImportError:
        return []
    out = []
    for p in dwt_peers.PEERS:
        try:
            if p == "ptwt":
                import ptwt  # noqa: F401
            else:
                dwt_peers.import_pytorch_wavelets()
            out.append(p)
        except ImportError as e:
            log(f"{p}: not importable ({e}); skipped")
    return out


# ---------------------------------------------------------------- running


def fmt(v, spec=".2e"):
    return "—" if v is None else format(v, spec)


def print_bands(title, rows, wavelet, out):
    print(f"  {title}", file=out)
    print("    band lvl  shape     factor  fitted     | interior abs  rel      | border abs  rel      ",
          file=out)
    for r in rows:
        if "error" in r:
            print(f"    {r['band']}  {r['level']}  {r['error']}", file=out)
            continue
        tag = "" if r["aligned"] else "  shifted (library's padded layout: not gated)"
        print(f"    {r['band']}   {r['level']}  {r['shape'][0]:>3}x{r['shape'][1]:<4} {r['factor']:>7.3f} "
              f"{fmt(r['fitted_factor'], '>9.5f')}  | {fmt(r['interior_abs']):>9} {fmt(r['interior_rel']):>9} "
              f"| {fmt(r['border_abs']):>9} {fmt(r['border_rel']):>9}{tag}", file=out)


def worst(rows, key, aligned=True):
    vals = [r[key] for r in rows if "error" not in r and r["aligned"] == aligned and r.get(key) is not None]
    return max(vals) if vals else None


def check_one(x, wk, wavelet, levels, peers, device, report, out):
    """All checks of one input and wavelet; returns the list of failures."""
    fails = []
    h, w = x.shape
    label = f"{w}x{h} {wavelet}"
    ref = reference(x, wavelet, levels)
    peak_in = float(np.abs(x).max()) or 1.0
    tol_float = TOL["97_abs_of_input_peak"] * peak_in
    if wavelet == "9/7":
        rel = float(np.abs(wk - ref).max())
        ok = rel <= tol_float
        print(f"{label}: wavekit vs the numpy T.800 reference: max |diff| = {rel:.2e} "
              f"(tolerance {tol_float:.2e} = {TOL['97_abs_of_input_peak']:.0e} x input peak {peak_in:g}) "
              f"{'ok' if ok else 'FAIL'}", file=out)
    else:
        n = int(np.count_nonzero(wk.astype(np.int64) != ref))
        rel = float(n)
        ok = n == 0
        print(f"{label}: wavekit vs the numpy T.800 reference: {n} of {wk.size} coefficients differ "
              f"(must be 0) {'ok' if ok else 'FAIL'}", file=out)
    report["wavekit_vs_reference"] = {"value": rel, "ok": ok}
    if not ok:
        fails.append(f"{label}: wavekit vs reference")

    xin = x.astype(np.float64)
    pywt_by_mode = {}
    report["peers"] = []
    for peer_name in ["pywt"] + peers:
        modes = PYWT_MODES if peer_name == "pywt" else dwt_peers.MODES[peer_name]
        for mode in modes:
            if mode == "constant":
                continue  # pywt's constant = edge replication; ptwt's too: no closer than 'symmetric'
            try:
                if peer_name == "pywt":
                    c, lib = pywt_coeffs(xin, wavelet, levels, mode), "pywt"
                    pywt_by_mode[mode] = c
                else:
                    c, lib = torch_coeffs(peer_name, x, wavelet, levels, mode, device)
            except Exception as e:  # a mode a library turns down for this size
                print(f"{label}: {peer_name} {mode}: {type(e).__name__}: {e}", file=out)
                report["peers"].append({"peer": peer_name, "mode": mode, "error": str(e)})
                continue
            rows = compare(c, wk, wavelet, levels, padded=(mode != "periodization"))
            entry = {"peer": peer_name, "library": lib, "mode": mode, "bands": rows}
            key = "interior_abs"
            tol = tol_float if wavelet == "9/7" else TOL["53_peer_abs"]
            entry["tolerance"] = tol
            wi = worst(rows, key)
            bad = [r for r in rows if "error" in r] + [
                r for r in rows if "error" not in r and r["aligned"] and r.get(key) is not None and r[key] > tol]
            # Every layout puts level 1 at JPEG 2000's phase: a level-1 band taken as shifted
            # means the offsets are wrong, and nothing would be gated.
            bad += [r for r in rows if r["level"] == 1 and not r["aligned"]]
            entry["worst_interior"] = wi
            entry["worst_border"] = worst(rows, key.replace("interior", "border"))
            entry["worst_shifted"] = worst(rows, key, aligned=False)
            entry["aligned_bands"] = sum(1 for r in rows if "error" not in r and r["aligned"])
            bkey = key.replace("interior", "border")
            entry["whole_bands"] = sum(
                1 for r in rows if "error" not in r and r["aligned"]
                and (r[key] is None or r[key] <= tol) and r[bkey] is not None and r[bkey] <= tol)
            entry["ok"] = not bad
            if bad:
                fails.append(f"{label}: {peer_name} {mode}: " + ", ".join(f"{r['band']}{r['level']}" for r in bad))
            if peer_name != "pywt" and mode in pywt_by_mode:
                diff = 0.0  # in JPEG 2000's units, every coefficient of every band
                for (a, b, f) in zip(_flat(c), _flat(pywt_by_mode[mode]), _factors(levels)):
                    if a.shape != b.shape:
                        diff = math.inf
                        break
                    diff = max(diff, float(np.abs(a - b).max() / abs(f)))
                entry["vs_pywt_abs"] = diff
                if not diff <= tol_float:
                    entry["ok"] = False
                    fails.append(f"{label}: {peer_name} {mode} vs pywt {mode}: {diff:.2e}")
            report["peers"].append(entry)
            timed = peer_name != "pywt" and mode == dwt_peers.DEFAULT_MODE[peer_name]
            if timed or (peer_name == "pywt" and mode in ("reflect", "periodization")):
                print_bands(f"{label}: {lib}, mode '{mode}'{' (the mode dwt_peers.py times)' if timed else ''}",
                            rows, wavelet, out)
    print(f"{label}: per peer and mode, the largest |diff| over the bands, in JPEG 2000's units "
          f"(gate: aligned interiors <= {tol_float if wavelet == '9/7' else TOL['53_peer_abs']:.2g}"
          f"{', torch vs pywt <= %.2g' % tol_float}):", file=out)
    print("    (aligned: bands at JPEG 2000's phase; whole: of those, equal at the border too)", file=out)
    print("    peer              mode           aligned whole  interior   border     shifted    vs pywt   ok", file=out)
    for e in report["peers"]:
        if "error" in e:
            continue
        print(f"    {e['peer']:<17} {e['mode']:<14} {e['aligned_bands']:>3}/{len(e['bands']):<3} {e['whole_bands']:>4}  "
              f"{fmt(e['worst_interior']):>9}  {fmt(e['worst_border']):>9}  {fmt(e['worst_shifted']):>9}  "
              f"{fmt(e.get('vs_pywt_abs')):>8}   {'ok' if e['ok'] else 'FAIL'}", file=out)
    for peer_name in ["pywt"] + peers:
        es = [e for e in report["peers"] if e["peer"] == peer_name and "error" not in e and e["ok"]]
        if not es:
            continue
        by_interior = max(es, key=lambda e: (e["aligned_bands"], e["whole_bands"]))
        by_whole = max(es, key=lambda e: (e["whole_bands"], e["aligned_bands"], -(e["worst_border"] or 0)))
        print(f"    {peer_name}: most bands equal in the interior: '{by_interior['mode']}' "
              f"({by_interior['aligned_bands']}/{len(by_interior['bands'])}); most bands equal border "
              f"included: '{by_whole['mode']}' ({by_whole['whole_bands']})", file=out)
        report.setdefault("best", {})[peer_name] = {"interior": by_interior["mode"], "whole": by_whole["mode"]}
    return fails


def _flat(c):
    yield c[0]
    for d in c[1:]:
        yield from d


def _factors(levels):
    """The factors of _flat's arrays: LL_L, then (LH, HL, HH) from level L down to 1."""
    yield factor("LL", levels)
    for lvl in range(levels, 0, -1):
        yield from (factor("LH", lvl), factor("HL", lvl), factor("HH", lvl))


def make_input(w, h, seed):
    """A photo-like plane: smooth structure, an edge and noise, 0..255."""
    rng = np.random.default_rng(seed)
    y, xx = np.mgrid[0:h, 0:w]
    img = 128 + 60 * np.sin(xx / 17.0) * np.cos(y / 23.0) + 40 * (xx > 0.6 * w) - 20
    img = img + 25 * rng.standard_normal((h, w))
    return np.clip(img, 0, 255)


def run_wavekit(binary, src, dst, wavelet, levels):
    cmd = [binary, "dwt", "forward", src, "-o", dst, "--wavelet", wavelet, "--levels", str(levels)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def load_plane(path):
    a = np.load(path)
    if a.ndim == 3 and a.shape[0] == 1:
        a = a[0]
    if a.ndim != 2:
        raise SystemExit(f"{path}: expected a 2-D array (or one plane of 3-D), got shape {a.shape}")
    return a


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="256x192,251x187,517x389",
                    help="WxH inputs to make (with --wavekit); ignored when --input is given")
    ap.add_argument("--wavekit", help="the wavekit binary: make the coefficients with `wavekit dwt forward`")
    ap.add_argument("--workdir", default="/tmp/dwt_equivalence", help="where inputs and coefficients are written")
    ap.add_argument("--input", help="a 2-D float32 .npy (instead of --sizes)")
    ap.add_argument("--coeffs97", help="wavekit's 9/7 coefficients of --input (.npy)")
    ap.add_argument("--input53", help="a 2-D integer .npy for the 5/3 (default: --input rounded)")
    ap.add_argument("--coeffs53", help="wavekit's 5/3 coefficients of --input53 (.npy)")
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--wavelets", default="9/7,5/3")
    ap.add_argument("--device", default="cpu", help="torch device for ptwt and pytorch_wavelets")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 convolutions (see dwt_peers.py)")
    ap.add_argument("--no-torch", action="store_true", help="PyWavelets only")
    ap.add_argument("--json", help="write every band's numbers here")
    a = ap.parse_args(argv)

    peers = [] if a.no_torch else torch_peers()
    if peers:
        import torch

        precision = dwt_peers.set_tf32(torch, a.tf32)
        log(f"torch {torch.__version__}: checking {', '.join(peers)} on {a.device} ({precision})")
    else:
        log("no torch peers: PyWavelets only")
    wavelets = [s.strip() for s in a.wavelets.split(",")]

    cases = []  # (name, x, {wavelet: (input, coefficients)})
    if a.input:
        x = load_plane(a.input)
        xi = load_plane(a.input53) if a.input53 else np.round(x).astype(np.int32)
        got = {}
        if "9/7" in wavelets:
            if not (a.coeffs97 or a.wavekit):
                raise SystemExit("--input needs --coeffs97 (or --wavekit to make them)")
            got["9/7"] = (x.astype(np.float32), a.coeffs97)
        if "5/3" in wavelets and (a.coeffs53 or a.wavekit):
            got["5/3"] = (xi, a.coeffs53)
        cases.append((os.path.basename(a.input), got))
    else:
        if not a.wavekit:
            raise SystemExit("give --wavekit BIN (to make inputs and coefficients) or --input with --coeffs97")
        for i, s in enumerate(a.sizes.split(",")):
            w, h = (int(v) for v in s.lower().split("x"))
            img = make_input(w, h, seed=7 + i)
            cases.append((s, {"9/7": (img.astype(np.float32), None), "5/3": (np.round(img).astype(np.int32), None)}))

    fails, report = [], {"tolerances": TOL, "border": BORDER, "levels": a.levels, "cases": []}
    for name, got in cases:
        for wavelet in wavelets:
            if wavelet not in got:
                log(f"{name}: no {wavelet} coefficients given; skipped")
                continue
            x, coeffs = got[wavelet]
            if coeffs is None:
                tag = "97" if wavelet == "9/7" else "53"
                src = os.path.join(a.workdir, f"input_{name}_{tag}.npy")
                coeffs = os.path.join(a.workdir, f"wavekit_{name}_{tag}.npy")
                os.makedirs(a.workdir, exist_ok=True)
                np.save(src, x)
                run_wavekit(a.wavekit, src, coeffs, wavelet, a.levels)
            wk = load_plane(coeffs)
            if wk.shape != x.shape:
                raise SystemExit(f"{coeffs}: shape {wk.shape} is not the input's {x.shape}")
            r = {"input": name, "width": x.shape[1], "height": x.shape[0], "wavelet": wavelet}
            fails += check_one(x, wk, wavelet, a.levels, peers, a.device, r, sys.stdout)
            report["cases"].append(r)
            print(file=sys.stdout, flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    if fails:
        print("FAILED:\n  " + "\n  ".join(fails))
        return 1
    print(f"all gated checks passed ({len(report['cases'])} cases; peers: pywt{''.join(', ' + p for p in peers)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
