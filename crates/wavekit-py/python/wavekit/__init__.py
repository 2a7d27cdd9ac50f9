"""wavekit for Python: numpy arrays in, any GPU (Vulkan, Metal, DX12 through wgpu).

numpy's interfaces for one-dimensional arrays of uint32, int32 and float32 (the element types
of wavekit's primitives); other dtypes are refused with a message naming them. Results are
numpy arrays of the dtypes numpy gives: ``sum`` and ``cumsum`` of 32-bit integers are 64-bit
(taken in 64 bits on the GPU), of float32 float32.

- ``sort(a)``, ``argsort(a)``: ascending, stable; floats in numpy's order (NaN last, -0.0
  equal to 0.0).
- ``cumsum(a)``, ``cumsum(a, exclusive=True)`` (the sums before each element).
- ``sum(a)``, ``min(a)``, ``max(a)`` (``min``/``max`` of an empty array raise ValueError as
  numpy's do; a float array with a NaN gives NaN).
- ``compress(condition, a)``: numpy's, for 1-D arrays.
- ``stable_partition(condition, a)``: the elements where ``condition`` holds, then the rest,
  both in their order; and how many held (not numpy's ``partition``, which orders around a
  k-th element).
- ``histogram(a, bins=10, range=None)``: ``(counts, edges)`` as numpy's (equal bins, the last
  one closed). wavekit bins float32 data in float32 arithmetic, numpy in float64: a value within
  float32 rounding of an inner edge may be counted in the neighbouring bin.

The device is chosen at the first call, or by ``init(adapter=None, disable_subgroups=False)``
(or ``use``) before it; ``device()`` describes it. Float sums are taken in another order than
numpy's pairwise sum: they agree to float32 rounding, not bit for bit.

``wavekit.spatial.KDTree`` is SciPy's ``KDTree`` on the GPU (see ``wavekit.spatial``);
``wavekit.dwt`` JPEG 2000's wavelets with PyWavelets' lists; ``wavekit.codec`` the frame codec.
"""

import numpy as _np

from . import _native
from ._inplace import host as _host
from . import codec, dwt, spatial  # noqa: F401 (wavekit.codec, wavekit.dwt, wavekit.spatial)

__all__ = [
    "init",
    "use",
    "device",
    "sort",
    "argsort",
    "cumsum",
    "sum",
    "min",
    "max",
    "compress",
    "stable_partition",
    "histogram",
]

_CODES = {_np.dtype(_np.uint32): "u4", _np.dtype(_np.int32): "i4", _np.dtype(_np.float32): "f4"}


def init(adapter=None, disable_subgroups=False):
    """Choose the device (an adapter index or part of its name) before the first call;
    returns its description."""
    return _native.init(adapter, disable_subgroups)


def use(adapter=None, disable_subgroups=False):
    """The same as ``init``: choose the device before the first call."""
    return init(adapter, disable_subgroups)


def device():
    """The device in use (chosen now if no call chose it yet): a dict of its ``adapter``,
    ``subgroups`` (supported or not), ``subgroup_min_size``, ``subgroup_max_size``,
    ``max_buffer_size`` and ``max_storage_buffer_binding_size`` (bytes)."""
    return _native.device()


def _array(a, call):
    a = _np.asarray(a)
    if a.ndim != 1:
        raise ValueError(
            f"wavekit.{call} takes one-dimensional arrays, not {a.ndim}-dimensional "
            f"(shape {a.shape}): flatten it with a.ravel(), or call it row by row"
        )
    code = _CODES.get(a.dtype.newbyteorder("="))
    if code is None:
        raise TypeError(
            f"wavekit.{call} takes uint32, int32 or float32 arrays, not {a.dtype}: convert with "
            f"a.astype(numpy.float32) (or int32, uint32) where the values fit"
        )
    return _np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"), copy=False), code


def _from(buf, dtype):
    """An array of ``buf``'s little-endian elements: a ``bytearray`` wrapped without a copy
    (writable), ``bytes`` copied."""
    arr = _np.frombuffer(buf, dtype=_np.dtype(dtype).newbyteorder("<"))
    if isinstance(buf, bytearray) and arr.dtype == _np.dtype(dtype):
        return arr
    return arr.astype(dtype, copy=True)


def argsort(a):
    """The indices that sort ``a`` (stable), as numpy's ``argsort(a, kind='stable')``."""
    a, code = _array(a, "argsort")
    return _from(_native.argsort(_host(a), code), _np.uint32).astype(_np.intp)


def sort(a):
    """``a`` sorted ascending, as numpy's ``sort``."""
    a, code = _array(a, "sort")
    return _from(_native.sort(_host(a), code), a.dtype)


def cumsum(a, exclusive=False):
    """Running sums, as numpy's ``cumsum`` (64-bit for 32-bit integers); with
    ``exclusive=True`` the sum of the elements before each one (0 first)."""
    a, code = _array(a, "cumsum")
    out = {"u4": _np.uint64, "i4": _np.int64, "f4": _np.float32}[code]
    return _from(_native.cumsum(_host(a), code, exclusive), out)


def _reduce(a, op):
    a, code = _array(a, op)
    if a.size == 0:
        if op == "sum":
            return {"u4": _np.uint64, "i4": _np.int64, "f4": _np.float32}[code](0)
        raise ValueError(f"wavekit.{op} of an empty array: it has no {op}imum")
    if code == "f4" and op != "sum" and _np.isnan(a).any():
        return _np.float32("nan")
    raw = _native.reduce(_host(a), code, op)
    if op == "sum":
        return _from(raw, {"u4": _np.uint64, "i4": _np.int64, "f4": _np.float32}[code])[0]
    return _from(raw, a.dtype)[0]


def sum(a):  # noqa: A001 (numpy's name)
    """The sum, as numpy's ``sum`` (64-bit for 32-bit integers)."""
    return _reduce(a, "sum")


def min(a):  # noqa: A001
    """The smallest element, as numpy's ``min``."""
    return _reduce(a, "min")


def max(a):  # noqa: A001
    """The largest element, as numpy's ``max``."""
    return _reduce(a, "max")


def _flags(condition, n, call):
    c = _np.asarray(condition)
    if c.ndim != 1:
        raise ValueError(f"wavekit.{call}: condition must be one-dimensional, not shape {c.shape}")
    if c.size > n:
        raise IndexError(
            f"wavekit.{call}: a condition of {c.size} entries for {n} elements: give at most one "
            f"an element"
        )
    flags = _np.zeros(n, dtype=_np.uint8)
    flags[: c.size] = c.astype(bool)
    return flags


def compress(condition, a):
    """The elements of ``a`` where ``condition`` is true, in order, as numpy's ``compress`` for
    one-dimensional arrays (a shorter condition keeps none past its end)."""
    a, code = _array(a, "compress")
    flags = _flags(condition, a.size, "compress")
    raw, _ = _native.select(_host(a), code, _host(flags), False)
    return _from(raw, a.dtype)


def stable_partition(condition, a):
    """``(out, kept)``: the elements where ``condition`` is true, then the others, each side in
    its order, and how many were true."""
    a, code = _array(a, "stable_partition")
    if _np.asarray(condition).size != a.size:
        raise ValueError(
            f"wavekit.stable_partition: a condition of {_np.asarray(condition).size} entries for "
            f"{a.size} elements: give one an element"
        )
    flags = _flags(condition, a.size, "stable_partition")
    raw, kept = _native.select(_host(a), code, _host(flags), True)
    return _from(raw, a.dtype), kept


def histogram(a, bins=10, range=None):  # noqa: A002 (numpy's name)
    """``(counts, edges)`` of ``bins`` equal bins over ``range`` (default: the data's minimum
    and maximum), as numpy's ``histogram``: values outside the range are left out, the last
    bin includes its right edge; counts int64, edges float64."""
    a, code = _array(a, "histogram")
    if not isinstance(bins, (int, _np.integer)) or bins < 1:
        raise ValueError(f"wavekit.histogram: bins must be a positive integer, not {bins!r}")
    if range is None:
        if a.size == 0:
            lo, hi = 0.0, 1.0
        else:
            if code == "f4" and _np.isnan(a).any():
                raise ValueError(
                    "wavekit.histogram: the data have NaN, so they have no range: give range="
                )
            lo, hi = float(min(a)), float(max(a))
    else:
        lo, hi = float(range[0]), float(range[1])
    if lo > hi:
        raise ValueError(f"wavekit.histogram: max must be larger than min in range ({lo}, {hi})")
    if not (_np.isfinite(lo) and _np.isfinite(hi)):
        raise ValueError(f"wavekit.histogram: range ({lo}, {hi}) is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = _np.linspace(lo, hi, bins + 1)
    if code != "f4" and (lo != int(lo) or hi != int(hi)):
        # Integer data binned in integers: edges that are not integers go through float32.
        a, code = a.astype(_np.float32), "f4"
    counts = _from(_native.histogram(_host(a), code, int(bins), lo, hi), _np.uint32)
    out = counts[:bins].astype(_np.int64)
    # wavekit's bins are half-open; numpy's last one holds its right edge too: the elements
    # equal to it, counted by one more one-bin histogram.
    if code == "f4":
        at_hi = _np.float32(hi)
        if float(at_hi) <= hi:
            upper = _np.nextafter(at_hi, _np.float32(_np.inf))
            raw = _native.histogram(_host(a), code, 1, float(at_hi), float(upper))
            out[-1] += int(_from(raw, _np.uint32)[0])
    elif hi < _np.iinfo(a.dtype).max:
        raw = _native.histogram(_host(a), code, 1, hi, hi + 1)
        out[-1] += int(_from(raw, _np.uint32)[0])
    else:
        out[-1] += int(counts[bins + 1])
    return out, edges
