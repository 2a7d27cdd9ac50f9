#!/usr/bin/env python3
"""Rate and distortion of the wavekit codec against JPEG 2000 (OpenJPEG) and HTJ2K (OpenJPH),
both through imagecodecs, on the photographs scikit-image ships (astronaut, coffee, chelsea,
cropped to even sides), at 0.5, 1, 2 and 4 bits a pixel.

Each peer is given the same byte budget: its quality knob (OpenJPEG's PSNR target `level`,
HTJ2K's quantizer step `level`) is bisected to the largest file that fits. Quality is PSNR of
luma (BT.709 Y), PSNR of RGB, and SSIM of luma (skimage), all against the original 8-bit RGB.
Prints a table and writes one JSON line per (image, codec, bpp) to --out.

    pip install imagecodecs scikit-image
    python3 peer/python/codec_rd.py --wavekit target/release/wavekit --out rd.jsonl
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


def fit(encode, budget, lo, hi, larger_is_bigger, iters=30):
    """The knob in [lo, hi] whose output is the largest that fits in `budget` bytes."""
    best = None
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
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


def wavekit(binary, img, budget, chroma, tmp):
    from PIL import Image

    src = os.path.join(tmp, "in.png")
    wkv = os.path.join(tmp, "f.wkv")
    out = os.path.join(tmp, "out.png")
    Image.fromarray(img).save(src)
    for cmd in (
        [binary, "encode", src, "-o", wkv, "--bytes", str(budget), "--chroma", chroma],
        [binary, "decode", wkv, "-o", out],
    ):
        subprocess.run(cmd, check=True, capture_output=True)
    return os.path.getsize(wkv), np.asarray(Image.open(out).convert("RGB"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavekit", required=True)
    ap.add_argument("--bpp", default="0.5,1,2,4")
    ap.add_argument("--out")
    a = ap.parse_args()
    images = {
        "astronaut": data.astronaut(),
        "coffee": data.coffee(),
        "chelsea": data.chelsea(),
    }
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, img in images.items():
            h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
            img = np.ascontiguousarray(img[:h, :w, :3])
            for bpp in [float(x) for x in a.bpp.split(",")]:
                budget = int(bpp * w * h / 8)
                results = {}
                for chroma in ("420", "444"):
                    size, dec = wavekit(a.wavekit, img, budget, chroma, tmp)
                    results[f"wavekit {chroma}"] = (size, dec)
                j2k = fit(lambda q: imagecodecs.jpeg2k_encode(img, level=q), budget, 15.0, 70.0, True)
                if j2k is not None:
                    results["openjpeg"] = (len(j2k), imagecodecs.jpeg2k_decode(j2k))
                ht = fit(
                    lambda q: imagecodecs.htj2k_encode(img, level=q, reversible=False),
                    budget, 0.0005, 1.0, False,
                )
                if ht is not None:
                    results["htj2k"] = (len(ht), imagecodecs.htj2k_decode(ht))
                for codec, (size, dec) in results.items():
                    r = {"image": name, "width": w, "height": h, "bpp": bpp, "codec": codec,
                         "bytes": size, "budget": budget, **quality(img, dec)}
                    rows.append(r)
                    print(f"{name:10} {bpp:4} bpp {codec:12} {size:8} B  PSNR-Y {r['psnr_y']:6.2f}  "
                          f"PSNR-RGB {r['psnr_rgb']:6.2f}  SSIM-Y {r['ssim_y']:.4f}", file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
