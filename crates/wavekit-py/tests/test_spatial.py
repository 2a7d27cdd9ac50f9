"""wavekit.spatial.KDTree against SciPy's KDTree itself, on fresh seeded inputs.

wavekit takes coordinates in float32 and SciPy in float64: distances are compared to a stated
tolerance, and indices wherever the neighbour's own distance is not within that tolerance of
another's (a near-tie may come in either order). Points on integer lattices have exact
distances in both: there the results are compared exactly, ties grouped by distance.
"""

import numpy as np
import pytest
from scipy.spatial import KDTree as SciPyTree

import wavekit
from wavekit.spatial import KDTree

# Coordinates of magnitude up to 3 rounded to float32 (half an ulp, 1.2e-7 at most) move a
# distance by up to about 4e-7; the tolerance of a distance is 1e-6 times max(1, distance).
RTOL = 1e-6


def close(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both_inf = np.isinf(a) & np.isinf(b)
    with np.errstate(invalid="ignore"):
        return both_inf | (np.abs(a - b) <= RTOL * np.maximum(np.abs(b), 1.0))


def periodic_dist(a, b, box):
    d = np.abs(a - b)
    if box is not None:
        d = np.minimum(d, box - d)
    return np.sqrt((d * d).sum(-1))


def check_query(data, x, got, want, box=None):
    """(d, i) of wavekit against SciPy's: same shapes and dtypes, distances within RTOL, and
    each index either SciPy's or a point at SciPy's distance (a near-tie)."""
    (gd, gi), (wd, wi) = got, want
    gd, gi, wd, wi = (np.asarray(v) for v in (gd, gi, wd, wi))
    assert gd.shape == wd.shape and gi.shape == wi.shape
    assert gd.dtype == wd.dtype and gi.dtype.kind == wi.dtype.kind
    assert np.all(close(gd, wd)), np.max(np.abs(gd - wd))
    n = len(data)
    assert np.all((gi == n) == (wi == n)), "missing neighbours differ"
    differ = gi != wi
    if np.any(differ):
        # Where the indices differ, wavekit's neighbour is at SciPy's distance.
        xs = np.broadcast_to(np.asarray(x)[..., None, :] if gd.ndim > np.asarray(x).ndim - 1
                             else np.asarray(x), gi.shape + (data.shape[1],))
        own = periodic_dist(xs[differ], data[gi[differ]], box)
        assert np.all(close(own, wd[differ])), "a different neighbour that is not a near-tie"


@pytest.mark.parametrize("m", [1, 2, 3])
def test_query_is_scipys(m):
    rng = np.random.default_rng(4800 + m)
    for n in [1, 9, 100, 4099]:
        data = rng.random((n, m))
        x = rng.random((257, m)) * 1.2 - 0.1
        ours, theirs = KDTree(data), SciPyTree(data)
        assert (ours.n, ours.m) == (theirs.n, theirs.m)
        for k in [1, 64, 65, [1, 3, 9]]:
            check_query(data, x, ours.query(x, k=k), theirs.query(x, k=k))
        for bound in [0.05, 0.3]:
            check_query(data, x, ours.query(x, k=12, distance_upper_bound=bound),
                        theirs.query(x, k=12, distance_upper_bound=bound))
        if n == 4099:
            # Results of 2^16 elements or more are converted by several threads.
            xl = rng.random((4111, m))
            check_query(data, xl, ours.query(xl, k=17), theirs.query(xl, k=17))
        # One point, and a batch of another shape.
        d, i = ours.query(x[0])
        wd, wi = theirs.query(x[0])
        assert isinstance(d, float) and isinstance(i, int) and close(d, wd)
        xb = rng.random((3, 4, m))
        check_query(data, xb, ours.query(xb, k=3), theirs.query(xb, k=3))


def test_k_past_n_and_ties_on_a_lattice():
    # Integer coordinates: distances exact in float32 and float64; ties everywhere.
    g = np.stack(np.meshgrid(np.arange(6), np.arange(6), np.arange(3), indexing="ij"), -1)
    data = g.reshape(-1, 3).astype(np.float64)
    x = np.array([[2.0, 2.0, 1.0], [0.0, 0.0, 0.0], [5.5, 5.0, 2.0]])
    ours, theirs = KDTree(data), SciPyTree(data)
    for k in [1, 7, 27, 80, 108, 200]:
        gd, gi = (a.reshape(len(x), k) for a in ours.query(x, k=k))
        wd, wi = (a.reshape(len(x), k) for a in theirs.query(x, k=k))
        np.testing.assert_array_equal(gd, wd)
        for q in range(len(x)):
            for dist in np.unique(wd[q]):
                cut = wd[q] == dist
                if dist == np.inf or cut[-1]:
                    # A tie group cut by k: any of its points may be taken (each at that distance).
                    assert np.all(np.isinf(gd[q][cut]) | (periodic_dist(x[q], data[np.minimum(gi[q][cut], len(data) - 1)], None) == dist))
                    continue
                assert set(gi[q][cut]) == set(wi[q][cut])
            # Ties in wavekit go to the lower index.
            for a in range(k - 1):
                if gd[q][a] == gd[q][a + 1] and gi[q][a + 1] != len(data):
                    assert gi[q][a] < gi[q][a + 1]
    # k past n: inf and n.
    d, i = ours.query(x, k=200)
    assert np.all(np.isinf(d[:, len(data):])) and np.all(i[:, len(data):] == len(data))


@pytest.mark.parametrize("m", [2, 3])
def test_periodic_boxes_are_scipys(m):
    rng = np.random.default_rng(4810 + m)
    box = np.array([1.0, 2.0, 0.5])[:m]
    for n in [1, 50, 3001]:
        data = rng.random((n, m)) * box
        # A tenth of the points within 1e-3 of a face.
        near = rng.random((n // 10, m)) * 1e-3
        data[: n // 10] = np.where(rng.random((n // 10, m)) < 0.5, near, box - near)
        corners = np.array(np.meshgrid(*[[0.0, 1.0]] * m, indexing="ij")).reshape(m, -1).T * box
        x = np.concatenate([rng.random((200, m)) * box, corners, corners * 0.9999 + 1e-5,
                            rng.random((20, m)) * 6 - 3])
        ours, theirs = KDTree(data, boxsize=box), SciPyTree(data, boxsize=box)
        wrapped = np.mod(x, box)
        for k in [1, 8, 64, 100]:
            check_query(data, wrapped, ours.query(x, k=k), theirs.query(x, k=k), box)
        for r in [0.05, 0.2]:
            got = ours.query_ball_point(x, r)
            want = theirs.query_ball_point(x, r, return_sorted=True)
            check_balls(data, wrapped, r, got, want, box)


def check_balls(data, x, r, got, want, box=None):
    assert got.shape == want.shape and got.dtype == object
    x = np.asarray(x).reshape(-1, data.shape[1])
    rs = np.broadcast_to(r, got.shape).reshape(-1)
    for j, (g, w) in enumerate(zip(got.reshape(-1), want.reshape(-1))):
        assert g == sorted(g)
        # Equal, but for points within float32 rounding of the radius.
        for i in set(g) ^ set(w):
            d = periodic_dist(x[j], data[i], box)
            assert abs(d - rs[j]) <= RTOL * max(rs[j], 1.0), (j, i, d, rs[j])


def test_query_ball_point_is_scipys():
    rng = np.random.default_rng(4820)
    for m in [2, 3]:
        data = rng.random((2003, m))
        x = rng.random((211, m))
        ours, theirs = KDTree(data), SciPyTree(data)
        for r in [0.0, 0.03, 0.15]:
            check_balls(data, x, r, ours.query_ball_point(x, r),
                        theirs.query_ball_point(x, r, return_sorted=True))
        radii = rng.choice([0.02, 0.05, 0.1], size=len(x))
        check_balls(data, x, radii, ours.query_ball_point(x, radii),
                    theirs.query_ball_point(x, radii, return_sorted=True))
        # Counts (counted on the GPU without the lists), for one radius and one a query.
        for r in [0.1, radii]:
            got = ours.query_ball_point(x, r, return_length=True)
            want = theirs.query_ball_point(x, r, return_length=True)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.max(np.abs(got - want)) <= 1
            lists = ours.query_ball_point(x, r)
            np.testing.assert_array_equal(got, [len(g) for g in lists])
        one = ours.query_ball_point(x[0], 0.1)
        assert isinstance(one, list)
        assert isinstance(ours.query_ball_point(x[0], 0.1, return_length=True), int)
        # The CSR form holds the same lists.
        off, ind = ours.query_ball_point_csr(x, 0.1)
        lists = ours.query_ball_point(x, 0.1)
        assert off.dtype == np.int64 and len(off) == len(x) + 1
        # numpy's own arrays, writable like any result (wrapped from the native bytearrays).
        assert ind.dtype == np.intp and off.flags.writeable and ind.flags.writeable
        # The radius as a 0-d array and as one a query give the same lists.
        off2, ind2 = ours.query_ball_point_csr(x, np.float64(0.1))
        off3, ind3 = ours.query_ball_point_csr(x, np.full(len(x), 0.1))
        assert np.array_equal(off, off2) and np.array_equal(ind, ind2)
        assert np.array_equal(off, off3) and np.array_equal(ind, ind3)
        for j in range(len(x)):
            assert ind[off[j]:off[j + 1]].tolist() == lists[j]


def test_empty_tree_and_empty_queries():
    t = KDTree(np.zeros((0, 3)))
    d, i = t.query(np.zeros((4, 3)), k=2)
    assert np.all(np.isinf(d)) and np.all(i == 0)
    d, i = KDTree(np.random.default_rng(1).random((10, 3))).query(np.zeros((0, 3)), k=3)
    assert d.shape == (0, 3) and i.shape == (0, 3)
    assert KDTree(np.ones((5, 2))).query_ball_point(np.zeros((0, 2)), 1.0).shape == (0,)


def test_refused_inputs_say_what_to_do():
    data = np.random.default_rng(2).random((20, 3))
    with pytest.raises(ValueError, match="1, 2 or 3 dimensions"):
        KDTree(np.zeros((5, 4)))
    with pytest.raises(ValueError, match="finite"):
        KDTree(np.array([[0.0, np.nan, 0.0]]))
    with pytest.raises(ValueError, match="periodic box"):
        KDTree(np.array([[1.0, 0.5]]), boxsize=1.0)
    with pytest.raises(ValueError, match="boxsize"):
        KDTree(data, boxsize=-1.0)
    t = KDTree(data)
    with pytest.raises(ValueError, match="p=2"):
        t.query(data, p=1)
    with pytest.raises(ValueError, match="p=2"):
        t.query_ball_point(data, 0.1, p=np.inf)
    with pytest.raises(ValueError, match="k must be"):
        t.query(data, k=0)
    with pytest.raises(ValueError, match="last axis"):
        t.query(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="eps"):
        t.query(data, eps=-1)
    with pytest.raises(ValueError, match="finite"):
        t.query(np.array([[np.inf, 0, 0]]))
    # Infinities whose sum is NaN, and float32 queries (read in place) with a NaN.
    with pytest.raises(ValueError, match="finite"):
        t.query_ball_point(np.array([[np.inf, -np.inf, 0]]), 0.1)
    with pytest.raises(ValueError, match="finite"):
        t.query(np.array([[0, 0, np.nan]], dtype=np.float32))


def test_float32_points_are_read_not_changed():
    # float32 points are read in place: a periodic tree wraps a copy, so a read-only array
    # works and the caller's values stay as they were.
    data = np.random.default_rng(5).random((50, 3)).astype(np.float32)
    data[0] = [np.nextafter(np.float32(1), np.float32(0)), 0.5, 0.25]
    before = data.copy()
    data.setflags(write=False)
    t = KDTree(data, boxsize=1.0)
    assert np.array_equal(data, before)
    d, i = t.query(data[:5])
    assert np.array_equal(i, np.arange(5)) and np.all(d < 1e-6)
