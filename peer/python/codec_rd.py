#!/usr/bin/env python3
"""Rate and distortion of the wavekit codec against JPEG 2000 (OpenJPEG) and HTJ2K (OpenJPH),
both through imagecodecs, on the photographs scikit-image ships (astronaut, coffee, chelsea,
cropped to even sides), at 0.5, 1, 2 and 4 bits a pixel.

Each peer is given the same byte budget: its quality knob (OpenJPEG's PSNR target `level`,
HTJ2K's quantizer step `level`) is bisected to the largest file that fits. Quality is PSNR of
luma (BT.709 Y), PSNR of RGB, and SSIM of luma (skimage), all against the original 8-bit RGB.
Prints a table and writes one JSON line per (image, codec, bpp) to --out.

PyroWave needs a Vulkan GPU, so it runs on the H200 machine: `--pyrowave-inputs DIR` writes
each photograph as planar YCbCr 4:4:4 (PIL's BT.601 full range, what PyroWave takes) with a
`sizes.txt`; PyroWave's harness codes them at each budget and dumps its decoded planes;
`--pyrowave DIR` (the dumps and the harness's JSON lines in DIR/pyrowave.jsonl) adds its rows,
its 4:2:0 chroma repeated over 2 x 2 and turned back to RGB by PIL, measured like the others.
`--plot FILE.svg` draws PSNR-Y and SSIM-Y against bits a pixel from the rows of --out.

    pip install imagecodecs scikit-image matplotlib
    python3 peer/python/codec_rd.py --wavekit target/release/wavekit --out rd.jsonl \
        [--pyrowave DIR] [--plot rd.svg]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import imagecodecs
import numpy as np
from skimage import data
from skimage.metrics import structural_similarity


def luma(rgb):
    x = rgb.astype(np.float64)
    return 0.2126 * x[..., 0] + 0.7152 * x[..., 1] + 0.0722 * x[..., 2]


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def quality(orig, dec):
    ya, yb = luma(orig), luma(dec)
    return {
        "psnr_y": psnr(ya, yb),
        "psnr_rgb": psnr(orig, dec),
        "ssim_y": float(structural_similarity(ya, yb, data_range=255.0)),
    }


def fit(encode, budget, lo, hi, larger_is_bigger, iters=30, log=False):
    """The knob in [lo, hi] whose output is the largest that fits in `budget` bytes (bisected
    in log space where `log`)."""
    best = None
    for _ in range(iters):
        mid = (lo * hi) ** 0.5 if log else 0.5 * (lo + hi)
        b = encode(mid)
        if len(b) <= budget:
            best = b
            if larger_is_bigger:
                lo = mid
            else:
                hi = mid
        else:
            if larger_is_bigger:
                hi = mid
            else:
                lo = mid
    return best


def wavekit(binary, img, budget, chroma, tmp, cpu=False):
    from PIL import Image

    src = os.path.join(tmp, "in.png")
    wkv = os.path.join(tmp, "f.wkv")
    out = os.path.join(tmp, "out.png")
    Image.fromarray(img).save(src)
    extra = ["--cpu"] if cpu else []
    for cmd in (
        [binary, "encode", src, "-o", wkv, "--bytes", str(budget), "--chroma", chroma] + extra,
        [binary, "decode", wkv, "-o", out] + extra,
    ):
        subprocess.run(cmd, check=True, capture_output=True)
    return os.path.getsize(wkv), np.asarray(Image.open(out).convert("RGB"))


def photos():
    images = {
        "astronaut": data.astronaut(),
        "coffee": data.coffee(),
        "chelsea": data.chelsea(),
    }
    out = {}
    for name, img in images.items():
        h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
        out[name] = np.ascontiguousarray(img[:h, :w, :3])
    return out


def pyrowave_inputs(directory):
    from PIL import Image

    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "sizes.txt"), "w") as f:
        for name, img in photos().items():
            ycc = Image.fromarray(img).convert("YCbCr")
            with open(os.path.join(directory, f"{name}.i444"), "wb") as g:
                g.write(b"".join(p.tobytes() for p in ycc.split()))
            f.write(f"{name} {img.shape[1]} {img.shape[0]}\n")


def pyrowave_rows(directory, bpps):
    """PyroWave's decoded 4:2:0 planes back to RGB, measured as the other codecs are."""
    from PIL import Image

    lines = [json.loads(x) for x in open(os.path.join(directory, "pyrowave.jsonl"))
             if x.startswith("{")]
    rows = []
    for name, img in photos().items():
        h, w = img.shape[:2]
        for bpp in bpps:
            hit = [r for r in lines if r["label"] == name and r["chroma"] == "420"
                   and abs(r["bpp_target"] - bpp) < 1e-9]
            if not hit:
                continue
            r = hit[0]
            raw = np.fromfile(os.path.join(directory, os.path.basename(r["dump"])), np.uint8)
            cw, ch = (w + 1) // 2, (h + 1) // 2
            y = raw[: w * h].reshape(h, w)
            cb = raw[w * h: w * h + cw * ch].reshape(ch, cw)
            cr = raw[w * h + cw * ch: w * h + 2 * cw * ch].reshape(ch, cw)
            up = lambda c: np.repeat(np.repeat(c, 2, 0), 2, 1)[:h, :w]
            ycc = np.stack([y, up(cb), up(cr)], -1)
            dec = np.asarray(Image.fromarray(ycc, "YCbCr").convert("RGB"))
            budget = int(bpp * w * h / 8)
            rows.append({"image": name, "width": w, "height": h, "bpp": bpp,
                         "codec": "pyrowave 420", "bytes": r["encoded_bytes"],
                         "budget": budget, **quality(img, dec)})
    return rows


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a small file
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["image"] for r in rows))
    codecs = list(dict.fromkeys(r["codec"] for r in rows))
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 7), squeeze=False)
    for col, name in enumerate(names):
        for row, (key, label) in enumerate((("psnr_y", "PSNR-Y (dB)"), ("ssim_y", "SSIM-Y"))):
            ax = axes[row][col]
            for codec in codecs:
                pts = sorted((8 * r["bytes"] / (r["width"] * r["height"]), r[key])
                             for r in rows if r["image"] == name and r["codec"] == codec)
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=codec)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("bits a pixel")
            ax.set_ylabel(label)
            ax.grid(True, alpha=0.3)
            if row == 0:
                ax.set_title(name)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavekit")
    ap.add_argument("--bpp", default="0.5,1,2,4")
    ap.add_argument("--cpu", action="store_true",
                    help="wavekit's CPU reference (the GPU's bytes and pixels, without a GPU)")
    ap.add_argument("--out")
    ap.add_argument("--pyrowave-inputs", help="write the photographs for PyroWave here, and stop")
    ap.add_argument("--pyrowave", help="directory of PyroWave's dumps and pyrowave.jsonl")
    ap.add_argument("--plot", help="draw the rows of --out (read if --wavekit is not given)")
    a = ap.parse_args()
    if a.pyrowave_inputs:
        pyrowave_inputs(a.pyrowave_inputs)
        return
    bpps = [float(x) for x in a.bpp.split(",")]
    if not a.wavekit:
        if not (a.out and a.plot):
            ap.error("give --wavekit to measure, or --out and --plot to draw")
        plot([json.loads(x) for x in open(a.out)], a.plot)
        return
    images = photos()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in images.items():
            h, w = img.shape[:2]
            for bpp in bpps:
                budget = int(bpp * w * h / 8)
                results = {}
                for chroma in ("420", "444"):
                    size, dec = wavekit(a.wavekit, img, budget, chroma, tmp, a.cpu)
                    results[f"wavekit {chroma}"] = (size, dec)
                j2k = fit(lambda q: imagecodecs.jpeg2k_encode(img, level=q), budget, 15.0, 70.0, True)
                if j2k is not None:
                    results["openjpeg"] = (len(j2k), imagecodecs.jpeg2k_decode(j2k))
                ht = fit(
                    lambda q: imagecodecs.htj2k_encode(img, level=q, reversible=False),
                    budget, 1e-6, 1.0, False, log=True,
                )
                if ht is not None:
                    results["htj2k"] = (len(ht), imagecodecs.htj2k_decode(ht))
                for codec, (size, dec) in results.items():
                    r = {"image": name, "width": w, "height": h, "bpp": bpp, "codec": codec,
                         "bytes": size, "budget": budget, **quality(img, dec)}
                    rows.append(r)
                    print(f"{name:10} {bpp:4} bpp {codec:12} {size:8} B  PSNR-Y {r['psnr_y']:6.2f}  "
                          f"PSNR-RGB {r['psnr_rgb']:6.2f}  SSIM-Y {r['ssim_y']:.4f}", file=sys.stderr)
    if a.pyrowave:
        for r in pyrowave_rows(a.pyrowave, bpps):
            rows.append(r)
            print(f"{r['image']:10} {r['bpp']:4} bpp {r['codec']:12} {r['bytes']:8} B  PSNR-Y "
                  f"{r['psnr_y']:6.2f}  PSNR-RGB {r['psnr_rgb']:6.2f}  SSIM-Y {r['ssim_y']:.4f}",
                  file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if a.plot:
        plot(rows, a.plot)


if __name__ == "__main__":
    main()
