"""``wavekit.dwt``: JPEG 2000's wavelets (ITU-T T.800 Annex F) on the GPU, with PyWavelets'
``wavedec2`` / ``waverec2`` coefficient structure: ``[cA_n, (cH_n, cV_n, cD_n), ...,
(cH_1, cV_1, cD_1)]`` (cH: horizontal detail, the rows' high band under the low columns, what
JPEG 2000 calls LH; cV: vertical detail, HL; cD: diagonal, HH).

Wavelets, by JPEG 2000's names (not PyWavelets': see below):

- ``"cdf97"``: the irreversible 9/7 on float32 (any real or integer input is taken as
  float32);
- ``"legall53"``: the reversible 5/3 on int32 (integer input only; ``waverec2`` gives the
  input back exactly).

The boundary is JPEG 2000's whole-sample symmetric extension and every band has JPEG 2000's
size (``ceil(n/2)`` low, ``floor(n/2)`` high, no padding). PyWavelets' ``bior4.4`` and
``bior2.2`` are the same filters with other scales and signs (a level-l band is PyWavelets'
divided by 2^L for cA, -2^(l-1) for cH and cV, 2^(l-2) for cD) and padded bands, in every
mode PyWavelets has; so the names are JPEG 2000's, and ``mode`` takes only ``"jpeg2000"``.
Their interiors agree (tested against PyWavelets itself).

Arrays of more than two dimensions are stacks of planes: the last two axes are transformed,
the leading ones kept on every band. ``color="ict"`` (with the 9/7) or ``"rct"`` (with the
5/3) applies JPEG 2000's colour transform to a stack of three planes (R, G, B, leading axis)
in the first level, and ``waverec2`` with the same ``color`` undoes it.
"""

import numpy as _np

from . import _native
from ._inplace import host as _host

__all__ = ["wavedec2", "waverec2", "wavelist", "dwt_max_level"]

_WAVELETS = {"cdf97": "97", "legall53": "53"}
_PYWT = {"bior4.4": "cdf97", "bior2.2": "legall53"}


def wavelist():
    """The wavelets this module computes."""
    return list(_WAVELETS)


def _wavelet(name):
    if name in _WAVELETS:
        return _WAVELETS[name]
    if name in _PYWT:
        raise ValueError(
            f"wavekit.dwt computes JPEG 2000's transform, not PyWavelets' '{name}' (the same "
            f"filters with other band scales and signs, and padded bands): use "
            f"'{_PYWT[name]}', or pywt for '{name}' itself"
        )
    raise ValueError(f"no wavelet '{name}' in wavekit.dwt: {', '.join(_WAVELETS)}")


def _regions(h, w, levels):
    out = []
    for _ in range(levels):
        out.append((h, w))
        h, w = (h + 1) // 2, (w + 1) // 2
    return out


def dwt_max_level(shape):
    """The most levels for planes of ``shape`` (height, width): until the low band is 1 x 1."""
    h, w = shape[-2:]
    levels = 0
    while h > 1 or w > 1:
        h, w = (h + 1) // 2, (w + 1) // 2
        levels += 1
    return levels


def _mode(mode):
    if mode not in (None, "jpeg2000"):
        raise ValueError(
            f"mode '{mode}': wavekit.dwt has JPEG 2000's boundary only (whole-sample symmetric, "
            f"no padding): mode='jpeg2000'"
        )


def _color(color, wavelet, planes):
    color = "none" if color is None else color
    if color not in ("none", "rct", "ict"):
        raise ValueError(f"color '{color}': None, 'rct' (with legall53) or 'ict' (with cdf97)")
    if color != "none" and planes != 3:
        raise ValueError(
            f"color='{color}' takes a stack of three planes (R, G, B on the leading axis), not "
            f"{planes}"
        )
    return color


def wavedec2(data, wavelet, mode="jpeg2000", level=None, axes=(-2, -1), color=None):
    """Multilevel 2-D forward transform, as ``pywt.wavedec2``: ``[cA_n, (cH_n, cV_n, cD_n),
    ..., (cH_1, cV_1, cD_1)]``."""
    _mode(mode)
    if tuple(axes) not in ((-2, -1), (0, 1)) or (tuple(axes) == (0, 1) and _np.ndim(data) != 2):
        raise ValueError("wavekit.dwt transforms the last two axes (axes=(-2, -1))")
    w = _wavelet(wavelet)
    a = _np.asarray(data)
    if a.ndim < 2:
        raise ValueError(f"wavedec2 takes 2-D planes (or stacks of them), not shape {a.shape}")
    if w == "53":
        if a.dtype.kind not in "biu":
            raise TypeError(
                f"legall53 is the integer 5/3: give integers, not {a.dtype} (or use cdf97 for "
                f"floats)"
            )
        if a.size and (a.min() < -(2**30) or a.max() >= 2**30):
            raise ValueError("legall53 takes samples within ±2^30 (int32 with room to grow)")
        a = _np.ascontiguousarray(a, dtype="<i4")
    else:
        if a.dtype.kind not in "biuf":
            raise TypeError(f"cdf97 takes real numbers, not {a.dtype}")
        a = _np.ascontiguousarray(a, dtype="<f4")
        if not _np.all(_np.isfinite(a)):
            raise ValueError("cdf97 takes finite samples (no NaN or infinity)")
    h, wd = a.shape[-2:]
    lead = a.shape[:-2]
    planes = int(_np.prod(lead)) if lead else 1
    most = dwt_max_level((h, wd))
    levels = most if level is None else int(level)
    if not 0 <= levels <= most:
        raise ValueError(f"level {level}: planes of {h} x {wd} take 0 to {most} levels")
    color = _color(color, wavelet, planes)
    if h == 0 or wd == 0 or planes == 0:
        raise ValueError(f"wavedec2 of an empty array (shape {a.shape})")
    c = _np.empty_like(a)
    _native.dwt_into(_host(a), _host(c), w, (wd, h, levels, planes), color, False)
    out = []
    for (rh, rw) in reversed(_regions(h, wd, levels)):
        lh, lw = (rh + 1) // 2, (rw + 1) // 2
        out.append((c[..., lh:rh, :lw].copy(), c[..., :lh, lw:rw].copy(), c[..., lh:rh, lw:rw].copy()))
    (rh, rw) = _regions(h, wd, levels)[-1] if levels else (h, wd)
    ll = c[..., : (rh + 1) // 2, : (rw + 1) // 2] if levels else c
    return [ll.copy()] + out


def waverec2(coeffs, wavelet, mode="jpeg2000", axes=(-2, -1), color=None):
    """Multilevel 2-D inverse transform of ``wavedec2``'s list, as ``pywt.waverec2``."""
    _mode(mode)
    if tuple(axes) not in ((-2, -1), (0, 1)):
        raise ValueError("wavekit.dwt transforms the last two axes (axes=(-2, -1))")
    w = _wavelet(wavelet)
    if not isinstance(coeffs, (list, tuple)) or len(coeffs) < 1:
        raise ValueError("waverec2 takes wavedec2's list: [cA_n, (cH_n, cV_n, cD_n), ...]")
    dtype = _np.dtype("<i4") if w == "53" else _np.dtype("<f4")
    ll = _np.asarray(coeffs[0])
    details = coeffs[1:]
    levels = len(details)
    if levels == 0:
        return ll.copy()
    # The plane's size from the finest level's bands.
    finest = [_np.asarray(b) for b in details[-1]]
    if len(finest) != 3:
        raise ValueError("each level of the list is a tuple (cH, cV, cD)")
    h = finest[0].shape[-2] + finest[1].shape[-2]
    wd = finest[1].shape[-1] + finest[0].shape[-1]
    lead = ll.shape[:-2]
    regions = _regions(h, wd, levels)
    c = _np.zeros(lead + (h, wd), dtype=dtype)
    rh, rw = regions[-1]
    want = lead + ((rh + 1) // 2, (rw + 1) // 2)
    if ll.shape != want:
        raise ValueError(f"cA has shape {ll.shape}, where a {h} x {wd} plane's is {want}")
    if w == "53" and ll.dtype.kind not in "biu":
        raise TypeError(f"legall53's coefficients are integers, not {ll.dtype}")
    c[..., : want[-2], : want[-1]] = ll
    for (rh, rw), bands in zip(reversed(regions), details):
        if len(bands) != 3:
            raise ValueError("each level of the list is a tuple (cH, cV, cD)")
        lh, lw = (rh + 1) // 2, (rw + 1) // 2
        for b, (ys, xs) in zip(bands, [(slice(lh, rh), slice(0, lw)), (slice(0, lh), slice(lw, rw)),
                                       (slice(lh, rh), slice(lw, rw))]):
            b = _np.asarray(b)
            shape = lead + (ys.stop - ys.start, xs.stop - xs.start)
            if b.shape != shape:
                raise ValueError(f"a band of shape {b.shape} where {shape} belongs")
            if w == "53" and b.dtype.kind not in "biu":
                raise TypeError(f"legall53's coefficients are integers, not {b.dtype}")
            c[..., ys, xs] = b
    planes = int(_np.prod(lead)) if lead else 1
    color = _color(color, wavelet, planes)
    out = _np.empty_like(c)
    _native.dwt_into(_host(c), _host(out), w, (wd, h, levels, planes), color, True)
    return out
