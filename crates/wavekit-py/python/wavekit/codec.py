"""``wavekit.codec``: the frame codec on the GPU (the bitstream of docs/codec-bitstream.md:
every frame within its byte budget, damage confined to a block).

- ``encode(rgb, bpp=None, bytes=None, chroma=None, lossless=False, levels=5) -> bytes``:
  an ``(height, width, 3)`` uint8 image; the budget in bits a pixel or bytes (lossless: a cap,
  or neither); chroma ``"420"`` (the default) or ``"444"`` (lossless frames' only one).
- ``decode(data, report=False)``: the ``(height, width, 3)`` uint8 image; with ``report=True``
  also ``{"damaged": [block, ...], "blocks": n}`` (damaged blocks are decoded as flat).
- ``Encoder(width, height, ...)`` and ``Decoder()``: built once, for streams (the GPU's
  pipelines and buffers for a size are made at the first frame and kept).

The bytes are the CPU reference's (``wavekit encode --cpu``), on any GPU.
"""

import numpy as _np

from . import _native

__all__ = ["encode", "decode", "Encoder", "Decoder"]


def _budget(width, height, bpp, nbytes, lossless):
    if bpp is not None and nbytes is not None:
        raise ValueError("give bpp= or bytes=, not both")
    if bpp is not None:
        if not (bpp > 0 and _np.isfinite(bpp)):
            raise ValueError(f"bpp={bpp}: give a positive number of bits a pixel")
        return int(bpp * width * height / 8)
    if nbytes is not None:
        if int(nbytes) < 1:
            raise ValueError(f"bytes={nbytes}: give a positive byte budget")
        return int(nbytes)
    if lossless:
        return 12 * width * height + 65536
    raise ValueError("give the frame's size: bpp= (bits a pixel) or bytes=")


def _chroma(chroma, lossless):
    c = str(chroma)
    if c not in ("420", "444"):
        raise ValueError(f"chroma={chroma!r}: \"420\" or \"444\"")
    if lossless and c != "444":
        raise ValueError("lossless frames are 4:4:4: give chroma=\"444\"")
    return int(c)


def _image(rgb):
    a = _np.asarray(rgb)
    if a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"an RGB image is (height, width, 3), not shape {a.shape}")
    if a.dtype != _np.uint8:
        raise TypeError(f"an RGB image is uint8, not {a.dtype}: convert with a.astype(numpy.uint8)")
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"an empty image (shape {a.shape})")
    return _np.ascontiguousarray(a)


class Encoder:
    """Frames of one size coded at one budget."""

    def __init__(self, width, height, bpp=None, bytes=None, chroma=None, lossless=False,  # noqa: A002
                 levels=5):
        if not (1 <= width <= 16384 and 1 <= height <= 16384):
            raise ValueError(f"a {width} x {height} frame: each side 1 to 16384")
        self.width, self.height = int(width), int(height)
        self.lossless = bool(lossless)
        # Default: 4:2:0, or 4:4:4 when lossless (its only sampling).
        if chroma is None:
            chroma = "444" if self.lossless else "420"
        self.chroma = _chroma(chroma, self.lossless)
        self.budget = _budget(self.width, self.height, bpp, bytes, self.lossless)
        self.levels = int(levels)
        if not 0 <= self.levels <= 8:
            raise ValueError(f"levels={levels}: 0 to 8")

    def encode(self, rgb):
        """The frame's bytes."""
        a = _image(rgb)
        if a.shape[:2] != (self.height, self.width):
            raise ValueError(
                f"a {a.shape[1]} x {a.shape[0]} image for an encoder of {self.width} x "
                f"{self.height}"
            )
        return _native.codec_encode(a.tobytes(), self.width, self.height, self.budget,
                                    self.chroma, self.levels, self.lossless)


class Decoder:
    """Frames decoded on the GPU (a decoder a format, made at its first frame)."""

    def decode(self, data, report=False):
        """The image; with ``report=True`` also the damage report."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"decode takes the frame's bytes, not {type(data).__name__}")
        rgb, w, h, damaged, blocks = _native.codec_decode(bytes(data))
        img = _np.frombuffer(rgb, dtype=_np.uint8).reshape(h, w, 3).copy()
        if report:
            return img, {"damaged": list(damaged), "blocks": blocks}
        return img


def encode(rgb, bpp=None, bytes=None, chroma=None, lossless=False, levels=5):  # noqa: A002
    """One frame coded within its budget (see the module's docstring)."""
    a = _image(rgb)
    return Encoder(a.shape[1], a.shape[0], bpp=bpp, bytes=bytes, chroma=chroma,
                   lossless=lossless, levels=levels).encode(a)


def decode(data, report=False):
    """One frame decoded (see the module's docstring)."""
    return Decoder().decode(data, report=report)
