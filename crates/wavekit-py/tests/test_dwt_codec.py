"""wavekit.dwt against a numpy port of T.800's lifting (the 5/3, exactly) and against
PyWavelets itself (the 9/7's interior, through the known band scales); wavekit.codec's bytes
against the CLI's (``wavekit encode --cpu``, where the test command names the binary in
WAVEKIT_CLI), its damage report and its lossless round trip."""

import os
import struct
import subprocess
import zlib

import numpy as np
import pytest
import pywt

import wavekit
from wavekit import codec, dwt


def pse(i, n):
    """T.800's whole-sample symmetric extension: index i of a signal of n samples."""
    if n == 1:
        return 0
    p = 2 * (n - 1)
    i = i % p
    return i if i < n else p - i


def forward_53_1d(x):
    n = len(x)
    if n == 1:
        return x.copy()
    x = x.astype(np.int64)
    y = x.copy()
    for k in range(1, n, 2):
        y[k] = x[k] - ((x[pse(k - 1, n)] + x[pse(k + 1, n)]) >> 1)
    yo = lambda k: y[pse(k, n)]  # noqa: E731 (odd samples, extended)
    for k in range(0, n, 2):
        y[k] = x[k] + ((yo(k - 1) + yo(k + 1) + 2) >> 2)
    return np.concatenate([y[0::2], y[1::2]])


def forward_53(a, levels):
    """The numpy port: each level the columns then the rows, Mallat in place."""
    c = a.astype(np.int64).copy()
    h, w = c.shape
    for _ in range(levels):
        r = c[:h, :w]
        r[:] = np.apply_along_axis(forward_53_1d, 0, r)
        r[:] = np.apply_along_axis(forward_53_1d, 1, r)
        h, w = (h + 1) // 2, (w + 1) // 2
    return c


def bands(c, h, w, levels):
    """A Mallat layout as wavedec2's list."""
    out = []
    regions = []
    for _ in range(levels):
        regions.append((h, w))
        h, w = (h + 1) // 2, (w + 1) // 2
    for rh, rw in reversed(regions):
        lh, lw = (rh + 1) // 2, (rw + 1) // 2
        out.append((c[lh:rh, :lw], c[:lh, lw:rw], c[lh:rh, lw:rw]))
    return [c[:h, :w]] + out


@pytest.mark.parametrize("shape", [(1, 1), (6, 1), (17, 23), (33, 90)])
def test_legall53_is_t800s_lifting_exactly_and_round_trips(shape):
    rng = np.random.default_rng(4830 + shape[0])
    x = rng.integers(-300, 300, shape).astype(np.int32)
    most = dwt.dwt_max_level(shape)
    for levels in sorted({0, min(1, most), most}):
        got = dwt.wavedec2(x, "legall53", level=levels)
        want = bands(forward_53(x, levels), shape[0], shape[1], levels)
        assert len(got) == levels + 1
        np.testing.assert_array_equal(got[0], want[0])
        for g, w in zip(got[1:], want[1:]):
            for gb, wb in zip(g, w):
                assert gb.dtype == np.int32
                np.testing.assert_array_equal(gb, wb)
        np.testing.assert_array_equal(dwt.waverec2(got, "legall53"), x)


def test_cdf97_agrees_with_pywavelets_bior44_in_the_interior():
    # One level: PyWavelets' bands are wavekit's times 2 (cA), -1 (cH, cV), 1/2 (cD), from its
    # padded band's offset 2, in the interior (5 coefficients in from each border).
    rng = np.random.default_rng(4840)
    x = rng.random((64, 80)) * 255
    ours = dwt.wavedec2(x, "cdf97", level=1)
    theirs = pywt.wavedec2(x, "bior4.4", mode="symmetric", level=1)
    scale = [2.0, (-1.0, -1.0, 0.5)]
    ca = theirs[0][2:2 + 32, 2:2 + 40] / scale[0]
    np.testing.assert_allclose(ours[0][5:-5, 5:-5], ca[5:-5, 5:-5], atol=2e-3)
    for o, t, s in zip(ours[1], theirs[1], scale[1]):
        band = t[2:2 + o.shape[0], 2:2 + o.shape[1]] / s
        np.testing.assert_allclose(o[5:-5, 5:-5], band[5:-5, 5:-5], atol=2e-3)
    # Every level round trips to float32 accuracy; stacks keep their leading axes.
    stack = rng.random((2, 3, 45, 61)).astype(np.float32) * 255
    c = dwt.wavedec2(stack, "cdf97")
    assert c[0].shape[:2] == (2, 3) and c[-1][0].shape == (2, 3, 22, 31)
    np.testing.assert_allclose(dwt.waverec2(c, "cdf97"), stack, atol=1e-2)


def test_colour_transforms_in_the_first_level():
    rng = np.random.default_rng(4850)
    rgb = rng.integers(0, 256, (3, 37, 52)).astype(np.int32)
    c = dwt.wavedec2(rgb, "legall53", color="rct")
    np.testing.assert_array_equal(dwt.waverec2(c, "legall53", color="rct"), rgb)
    # The RCT's luma plane: its low band differs from the plain transform's.
    plain = dwt.wavedec2(rgb, "legall53")
    assert not np.array_equal(c[0], plain[0])
    f = rgb.astype(np.float32)
    c = dwt.wavedec2(f, "cdf97", color="ict", level=3)
    np.testing.assert_allclose(dwt.waverec2(c, "cdf97", color="ict"), f, atol=2e-2)


def test_dwt_refusals_say_what_to_do():
    x = np.zeros((8, 8), dtype=np.int32)
    with pytest.raises(ValueError, match="JPEG 2000's transform"):
        dwt.wavedec2(x, "bior4.4")
    with pytest.raises(ValueError, match="jpeg2000"):
        dwt.wavedec2(x, "cdf97", mode="periodization")
    with pytest.raises(ValueError, match="0 to 3 levels"):
        dwt.wavedec2(x, "cdf97", level=4)
    with pytest.raises(TypeError, match="integers"):
        dwt.wavedec2(x.astype(np.float32), "legall53")
    with pytest.raises(ValueError, match="three planes"):
        dwt.wavedec2(np.zeros((2, 8, 8)), "cdf97", color="ict")
    with pytest.raises(ValueError, match="finite"):
        dwt.wavedec2(np.full((4, 4), np.nan), "cdf97")
    # Bands of the wrong shape, at the finest level and at the coarsest.
    for at in (-1, 1):
        c = dwt.wavedec2(x, "legall53")
        c[at] = (np.zeros((3, 3), dtype=np.int32), c[at][1], c[at][2])
        with pytest.raises(ValueError, match="shape"):
            dwt.waverec2(c, "legall53")


def png(path, rgb):
    """A minimal 8-bit RGB PNG (zlib, no filter), for the CLI to read."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def picture(h, w, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) % 256], -1)
    return np.clip(base + rng.integers(-8, 8, (h, w, 3)), 0, 255).astype(np.uint8)


def test_codec_round_trips_and_reports_damage():
    img = picture(48, 64, 1)
    data = codec.encode(img, bpp=2)
    assert isinstance(data, bytes) and len(data) <= 2 * 64 * 48 // 8
    back, rep = codec.decode(data, report=True)
    assert back.shape == img.shape and back.dtype == np.uint8 and rep["damaged"] == []
    mse = np.mean((back.astype(float) - img) ** 2)
    assert 10 * np.log10(255 ** 2 / mse) > 25
    # Block 3's offset into the header: that block damaged, reported, the rest decoded.
    bad = bytearray(data)
    bad[24 + 4 * 3: 28 + 4 * 3] = b"\x00\x00\x00\x00"
    _, rep = codec.decode(bytes(bad), report=True)
    assert rep["damaged"] == [3] and rep["blocks"] > 3
    # Lossless: exact.
    exact = codec.encode(img, lossless=True)
    np.testing.assert_array_equal(codec.decode(exact), img)
    # A stream's encoder and decoder, built once.
    enc, dec = codec.Encoder(64, 48, bytes=700), codec.Decoder()
    for s in range(3):
        f = enc.encode(picture(48, 64, 10 + s))
        assert len(f) <= 700 and dec.decode(f).shape == (48, 64, 3)


@pytest.mark.skipif("WAVEKIT_CLI" not in os.environ, reason="the CLI's path: WAVEKIT_CLI")
def test_codec_bytes_are_the_clis(tmp_path):
    for (h, w, bpp, chroma) in [(48, 64, 1.0, "420"), (33, 50, 3.0, "444")]:
        img = picture(h, w, h)
        png(tmp_path / "in.png", img)
        out = tmp_path / "out.wkv"
        subprocess.run([os.environ["WAVEKIT_CLI"], "encode", str(tmp_path / "in.png"), "-o", str(out),
                        "--bpp", str(bpp), "--chroma", chroma, "--cpu"], check=True, capture_output=True)
        assert codec.encode(img, bpp=bpp, chroma=chroma) == out.read_bytes()


def test_codec_refusals_say_what_to_do():
    img = picture(8, 8, 0)
    with pytest.raises(ValueError, match="bpp= .* or bytes="):
        codec.encode(img)
    with pytest.raises(ValueError, match="not both"):
        codec.encode(img, bpp=1, bytes=100)
    with pytest.raises(TypeError, match="uint8"):
        codec.encode(img.astype(np.float32), bpp=1)
    with pytest.raises(ValueError, match=r"\(height, width, 3\)"):
        codec.encode(img[..., :2], bpp=1)
    with pytest.raises(ValueError, match="4:4:4"):
        codec.encode(img, lossless=True, chroma="420")
    with pytest.raises(ValueError, match="decodable"):
        codec.decode(b"not a frame at all, not even close")
    assert "cdf97" in dwt.wavelist() and wavekit.codec is codec
