"""``wavekit.spatial.KDTree``: SciPy's ``scipy.spatial.KDTree`` interface on the GPU.

Change ``from scipy.spatial import KDTree`` to ``from wavekit.spatial import KDTree``. What
is and is not SciPy's behaviour:

- Points of 1, 2 or 3 dimensions (padded to 3 with zeros, which changes no distance); other
  dimensions raise ``ValueError``. Coordinates are taken in float32 (SciPy: float64), so
  distances agree with SciPy's to float32 rounding (about 1e-7 relative) and two neighbours
  whose distances differ by less than that may come in the other order. Equal distances go to
  the lower index.
- Euclidean distance only: ``p`` other than 2 raises ``ValueError``. ``eps`` ≥ 0 is accepted
  and the answers are exact (which any ``eps`` allows).
- ``query``: SciPy's shapes (``k=1`` squeezed, ``k`` a list of ranks), missing neighbours as
  ``inf`` and ``n``, ``distance_upper_bound`` exclusive as SciPy's. Any ``k``: up to 64 in one
  kernel, past 64 a slower path (the first 64 by the kernel, then radius searches that grow
  until k are within reach; wavekit_spatial's ``Spatial::knn_any``).
- ``query_ball_point``: SciPy's lists (sorted: ``return_sorted`` is accepted, the indices
  always ascend) and ``return_length``; ``r`` a scalar or one a query. Results of any size
  (searched in pieces). ``query_ball_point_csr`` gives the same as CSR (offsets, indices) arrays,
  which is faster than building Python lists.
- ``boxsize``: a periodic box (each axis's length, scalar or one an axis), in the GPU walk
  itself; data must lie in [0, L) as SciPy requires, queries are wrapped into the box.
- ``workers`` is accepted and ignored (the GPU does the work); ``leafsize`` is rounded to a
  power of two from 4 to 256 (the tree's leaves).
- Not provided: ``count_neighbors``, ``query_pairs``, ``query_ball_tree``,
  ``sparse_distance_matrix``, ``tree``; use SciPy's for those.
"""

import numbers

import numpy as _np

from . import _native
from ._inplace import host as _host

__all__ = ["KDTree"]


def _leaf(leafsize):
    if not isinstance(leafsize, numbers.Integral) or leafsize < 1:
        raise ValueError(f"leafsize must be a positive integer, not {leafsize!r}")
    p = 4
    while p < leafsize and p < 256:
        p *= 2
    return p


class KDTree:
    """A k-d tree for nearest-neighbour lookup, as ``scipy.spatial.KDTree`` (see the module's
    docstring for what differs). The tree is a BVH on the GPU."""

    def __init__(self, data, leafsize=10, compact_nodes=True, copy_data=False,
                 balanced_tree=True, boxsize=None):
        data = _np.asarray(data)
        if data.dtype.kind not in "biuf":
            raise TypeError(f"KDTree data must be numbers, not {data.dtype}")
        if data.ndim != 2:
            raise ValueError(
                f"KDTree data must be 2-D, (n points, m dimensions), not shape {data.shape}"
            )
        n, m = data.shape
        if not 1 <= m <= 3:
            raise ValueError(
                f"wavekit's KDTree takes points of 1, 2 or 3 dimensions, not {m}: use "
                f"scipy.spatial.KDTree for more"
            )
        if not _np.all(_np.isfinite(data)):
            raise ValueError("KDTree data must be finite (no NaN or infinity)")
        self.data = _np.array(data, dtype=_np.float64, copy=True) if copy_data else data
        self.n, self.m = n, m
        self.leafsize = leafsize
        pts = self._pad(data, "data")
        self._box = None
        if boxsize is not None:
            box = _np.broadcast_to(_np.asarray(boxsize, dtype=_np.float64), (m,))
            if not _np.all(_np.isfinite(box)) or _np.any(box <= 0):
                raise ValueError(f"boxsize must be positive and finite, not {boxsize!r}")
            if _np.any(data >= box) or _np.any(data < 0):
                raise ValueError(
                    "Some input data are outside the periodic box [0, boxsize): wrap them "
                    "first (data % boxsize)"
                )
            self.boxsize = box.copy()
            b32 = _np.zeros(3, dtype=_np.float32)
            b32[:m] = box
            # float32 may round a coordinate just under L up to L, which is the same point as 0.
            # The caller's own float32 points are not changed: a copy is wrapped.
            if _np.may_share_memory(pts, data):
                pts = pts.copy()
            pts[:, :m] = _np.where(pts[:, :m] >= b32[:m], 0, pts[:, :m])
            self._box = [float(x) for x in b32]
        else:
            self.boxsize = None
        self._tree = _native.Tree(_host(pts), _leaf(leafsize), self._box)

    def _pad(self, x, what):
        x = _np.asarray(x)
        if x.dtype.kind not in "biuf":
            raise TypeError(f"KDTree {what} must be numbers, not {x.dtype}")
        if x.shape[-1:] != (self.m,):
            raise ValueError(
                f"KDTree {what}: the last axis must have the tree's {self.m} dimensions, not "
                f"shape {x.shape}"
            )
        flat = x.reshape(-1, self.m)
        # A NaN or an infinity makes the sum so (one pass, no temporary); where the sum is not
        # finite, an overflow of finite values included, every element is checked.
        with _np.errstate(invalid="ignore", over="ignore"):
            total = flat.sum(dtype=_np.float64)
        if not _np.isfinite(total) and not _np.all(_np.isfinite(flat)):
            raise ValueError(f"KDTree {what} must be finite (no NaN or infinity)")
        if self.m == 3:
            # float32 points, C-contiguous, as they are (no copy where they already are).
            return _np.ascontiguousarray(flat, dtype="<f4")
        out = _np.zeros((flat.shape[0], 3), dtype="<f4")
        out[:, : self.m] = flat
        return out

    def query(self, x, k=1, eps=0, p=2, distance_upper_bound=_np.inf, workers=1):
        """The k nearest neighbours of each point of ``x``: ``(d, i)`` as SciPy's."""
        _euclidean(p, eps)
        x = _np.asarray(x)
        single = x.ndim == 1
        lead = () if single else x.shape[:-1]
        if isinstance(k, numbers.Integral):
            ranks = None
            kmax = int(k)
            if kmax < 1:
                raise ValueError(f"k must be at least 1, not {k}")
        else:
            ranks = _np.asarray(k)
            if ranks.ndim != 1 or ranks.size == 0 or ranks.dtype.kind not in "iu" or \
                    _np.any(ranks < 1):
                raise ValueError(f"k must be a positive integer or a list of them, not {k!r}")
            kmax = int(ranks.max())
        bound = float(distance_upper_bound)
        if _np.isnan(bound) or bound < 0:
            raise ValueError(f"distance_upper_bound must be non-negative, not {bound}")
        q = self._pad(x, "query points")
        nq = q.shape[0]
        # SciPy's results, written in place by the native half (float64 distances, int64
        # indices; missing neighbours inf and n).
        d = _np.empty((nq, kmax), dtype="<f8")
        i = _np.empty((nq, kmax), dtype="<i8")
        if bound == 0:
            d.fill(_np.inf)
            i.fill(self.n)
        else:
            # SciPy's bound is exclusive, wavekit's inclusive: the float below it.
            limit = None
            if _np.isfinite(bound):
                b32 = _np.float32(bound)
                if float(b32) >= bound:
                    b32 = _np.nextafter(b32, _np.float32(0))
                limit = float(b32)
            self._tree.knn_into(_host(q), kmax, limit, self.n, (_host(d), _host(i)))
        d = d.astype(_np.float64, copy=False)
        i = i.astype(_np.intp, copy=False)
        if ranks is not None:
            d, i = d[:, ranks - 1], i[:, ranks - 1]
            shape = lead + (ranks.size,)
        elif kmax == 1:
            d, i = d[:, 0], i[:, 0]
            shape = lead
        else:
            shape = lead + (kmax,)
        d, i = d.reshape(shape), i.reshape(shape)
        if single and shape == ():
            return float(d), int(i)
        return d, i

    def _radii(self, x, r):
        """(queries as float32 points, their radii as float32, lead shape, single): one
        float32 scalar where r is one number (the usual call), else an array a query."""
        x = _np.asarray(x)
        single = x.ndim == 1
        lead = () if single else x.shape[:-1]
        q = self._pad(x, "query points")
        r = _np.asarray(r, dtype=_np.float64)
        if r.ndim != 0:
            r = _np.broadcast_to(r, lead).reshape(-1)
        if _np.any(_np.isnan(r)) or _np.any(r < 0):
            raise ValueError("r must be non-negative")
        # Infinite radii as the largest finite f32.
        r32 = _np.minimum(r, _np.finfo(_np.float32).max).astype(_np.float32)
        return q, r32, lead, single

    def _lengths(self, x, r):
        """(how many points are within r of each query (intp), lead shape, single): counted
        on the GPU without writing the neighbours (one count a distinct radius)."""
        q, r32, lead, single = self._radii(x, r)
        if r32.ndim == 0:
            counts = _np.frombuffer(self._tree.count(_host(q), float(r32)), "<u4").astype(_np.intp)
            return counts, lead, single
        counts = _np.empty(q.shape[0], dtype=_np.intp)
        for value in _np.unique(r32):
            which = _np.nonzero(r32 == value)[0]
            part = q if len(which) == q.shape[0] else q[which]
            counts[which] = _np.frombuffer(self._tree.count(_host(part), float(value)), "<u4")
        return counts, lead, single

    def _ball(self, x, r):
        """(offsets int64, indices intp, lead shape, single) of every query's ball."""
        q, r32, lead, single = self._radii(x, r)
        nq = q.shape[0]
        # One search a distinct radius (most calls have one). The native half returns
        # int64 offsets and indices as bytearrays: numpy wraps them writable, no copy.
        values = _np.unique(r32) if r32.ndim else r32.reshape(1)
        if len(values) == 1:
            ro, ri = self._tree.radius(_host(q), float(values[0]))
            offsets = _np.frombuffer(ro, dtype="<i8")
            return offsets, _np.frombuffer(ri, dtype="<i8").astype(_np.intp, copy=False), lead, single
        counts = _np.zeros(nq, dtype=_np.int64)
        parts = {}
        for value in values:
            which = _np.nonzero(r32 == value)[0]
            ro, ri = self._tree.radius(_host(q[which]), float(value))
            off = _np.frombuffer(ro, dtype="<i8")
            parts[float(value)] = (which, off, _np.frombuffer(ri, dtype="<i8"))
            counts[which] = _np.diff(off)
        offsets = _np.zeros(nq + 1, dtype=_np.int64)
        _np.cumsum(counts, out=offsets[1:])
        indices = _np.empty(int(offsets[-1]), dtype=_np.intp)
        for which, off, ind in parts.values():
            for j, qi in enumerate(which):
                indices[offsets[qi]:offsets[qi + 1]] = ind[off[j]:off[j + 1]]
        return offsets, indices, lead, single

    def query_ball_point(self, x, r, p=2.0, eps=0, workers=1, return_sorted=None,
                         return_length=False):
        """The points within ``r`` of each point of ``x`` (inclusive), as SciPy's: a list for
        one point, else an object array of lists; with ``return_length``, their counts."""
        _euclidean(p, eps)
        if return_length:
            counts, lead, single = self._lengths(x, r)
            return int(counts[0]) if single else counts.reshape(lead)
        offsets, indices, lead, single = self._ball(x, r)
        lists = [indices[offsets[j]:offsets[j + 1]].tolist() for j in range(len(offsets) - 1)]
        if single:
            return lists[0]
        result = _np.empty(len(lists), dtype=object)
        result[:] = lists
        return result.reshape(lead)

    def query_ball_point_csr(self, x, r):
        """The points within ``r`` of each query as CSR (wavekit's, not SciPy's): ``offsets``
        (int64, queries + 1) and ``indices`` (intp, ascending a query), the queries flattened
        in C order. Faster than ``query_ball_point``, which builds a Python list a query."""
        offsets, indices, _, _ = self._ball(_np.atleast_2d(x), r)
        return offsets, indices


def _euclidean(p, eps):
    if p != 2:
        raise ValueError(
            f"wavekit's KDTree computes Euclidean distances (p=2) only, not p={p}: use "
            f"scipy.spatial.KDTree for other Minkowski norms"
        )
    if eps < 0:
        raise ValueError(f"eps must be non-negative, not {eps}")
