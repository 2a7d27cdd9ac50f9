"""wavekit's Python package against numpy, the client it imitates: every function on fresh
seeded inputs of sizes 0, 1, a tile's edges, primes and large, each dtype it takes; refused
dtypes and shapes. Run by the test command on lavapipe (conftest.py chooses the device)."""

import numpy as np
import pytest

import wavekit

SIZES = [0, 1, 2, 255, 256, 257, 4093, 65537]
DTYPES = [np.uint32, np.int32, np.float32]


def data(rng, n, dtype, special=True):
    if dtype == np.uint32:
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if dtype == np.int32:
        return rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    a = (rng.standard_normal(n) * 1000).astype(np.float32)
    if special and n > 8:
        a[rng.integers(0, n, 4)] = np.nan
        a[rng.integers(0, n, 4)] = -0.0
        a[rng.integers(0, n, 4)] = 0.0
        a[rng.integers(0, n, 2)] = -np.inf
    return a


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort_are_numpys_stable_ones(dtype):
    rng = np.random.default_rng(481)
    for n in SIZES:
        a = data(rng, n, dtype)
        if n > 100 and dtype != np.float32:
            a[: n // 3] = a[n // 3: 2 * (n // 3)]  # duplicates, for stability
        want = np.argsort(a, kind="stable")
        got = wavekit.argsort(a)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        s = wavekit.sort(a)
        assert s.dtype == a.dtype
        np.testing.assert_array_equal(s, np.sort(a, kind="stable"))
        # The same bits, -0.0 and NaN included, as numpy's stable sort.
        assert s.tobytes() == np.sort(a, kind="stable").tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_and_sum_have_numpys_dtypes_and_values(dtype):
    rng = np.random.default_rng(482)
    for n in SIZES:
        a = data(rng, n, dtype, special=False)
        want = np.cumsum(a)
        got = wavekit.cumsum(a)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        assert got.shape == want.shape
        ex = wavekit.cumsum(a, exclusive=True)
        assert ex.dtype == want.dtype
        if dtype == np.float32:
            # Another order of additions: within float32 rounding of the f64 sum.
            ref = np.cumsum(a.astype(np.float64))
            scale = np.cumsum(np.abs(a.astype(np.float64))) + 1.0
            assert np.all(np.abs(got - ref) <= 1e-5 * scale)
            assert np.all(np.abs(ex - (ref - a)) <= 1e-5 * scale)
            assert abs(float(wavekit.sum(a)) - float(ref[-1] if n else 0.0)) <= 1e-5 * (scale[-1] if n else 1.0)
        else:
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(ex, want - a)
            s = wavekit.sum(a)
            assert s == np.sum(a) and np.asarray(s).dtype == np.sum(a).dtype


@pytest.mark.parametrize("dtype", DTYPES)
def test_min_and_max_are_numpys(dtype):
    rng = np.random.default_rng(483)
    for n in SIZES[1:]:
        a = data(rng, n, dtype, special=False)
        assert wavekit.min(a) == np.min(a) and wavekit.max(a) == np.max(a)
        assert np.asarray(wavekit.min(a)).dtype == a.dtype
    f = np.array([1.0, np.nan, -3.0], dtype=np.float32)
    assert np.isnan(wavekit.max(f)) and np.isnan(np.max(f))
    with pytest.raises(ValueError):
        wavekit.min(np.zeros(0, dtype=np.int32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_compress_and_stable_partition(dtype):
    rng = np.random.default_rng(484)
    for n in SIZES:
        a = data(rng, n, dtype)
        c = rng.random(n) < 0.37
        got = wavekit.compress(c, a)
        want = np.compress(c, a)
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()
        out, kept = wavekit.stable_partition(c, a)
        assert kept == int(c.sum())
        assert out.tobytes() == np.concatenate([a[c], a[~c]]).tobytes()
    # A shorter condition keeps nothing past its end, as numpy's.
    a = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(wavekit.compress([1, 0, 1], a), np.compress([1, 0, 1], a))
    with pytest.raises(IndexError):
        wavekit.compress(np.ones(11, dtype=bool), a)


def test_histogram_is_numpys():
    rng = np.random.default_rng(485)
    for n in SIZES:
        # Integers over ranges the bins divide: every edge an integer.
        a = rng.integers(-500, 500, n).astype(np.int32)
        for bins, rng_ in [(10, (-500, 500)), (25, (-100, 400)), (1000, (-500, 500))]:
            got_c, got_e = wavekit.histogram(a, bins=bins, range=rng_)
            want_c, want_e = np.histogram(a, bins=bins, range=rng_)
            assert got_c.dtype == want_c.dtype
            np.testing.assert_array_equal(got_c, want_c)
            np.testing.assert_array_equal(got_e, want_e)
        u = rng.integers(0, 1 << 20, n).astype(np.uint32)
        np.testing.assert_array_equal(wavekit.histogram(u, bins=16, range=(0, 1 << 20))[0],
                                      np.histogram(u, bins=16, range=(0, 1 << 20))[0])
        # Floats away from the inner edges (float32 against float64 binning).
        f = (rng.random(n) * 10).astype(np.float32)
        f = f[np.abs(f - np.round(f)) > 1e-4]
        if f.size:
            f[0] = 10.0  # the closed right edge
        got_c, _ = wavekit.histogram(f, bins=10, range=(0, 10))
        np.testing.assert_array_equal(got_c, np.histogram(f, bins=10, range=(0, 10))[0])
        if f.size:
            got_c, got_e = wavekit.histogram(f)
            want_c, want_e = np.histogram(f)
            np.testing.assert_allclose(got_e, want_e)
            assert got_c.sum() == want_c.sum() == f.size


def test_refused_inputs_say_what_to_do():
    with pytest.raises(TypeError, match="float64"):
        wavekit.sort(np.zeros(4))
    with pytest.raises(TypeError, match="int64"):
        wavekit.cumsum(np.arange(4))
    with pytest.raises(ValueError, match="one-dimensional"):
        wavekit.sum(np.zeros((2, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="bins"):
        wavekit.histogram(np.zeros(4, dtype=np.float32), bins=0)
    with pytest.raises(ValueError, match="NaN"):
        wavekit.histogram(np.array([1, np.nan], dtype=np.float32))
    with pytest.raises(ValueError, match="once"):
        wavekit.init(adapter="no such adapter")


def test_big_endian_and_strided_inputs_are_read_right():
    a = np.arange(1000, dtype=">i4")[::-3]
    np.testing.assert_array_equal(wavekit.sort(a), np.sort(a))
    np.testing.assert_array_equal(wavekit.cumsum(a), np.cumsum(a))


def test_a_large_array():
    rng = np.random.default_rng(486)
    a = data(rng, 1_000_003, np.int32)
    np.testing.assert_array_equal(wavekit.sort(a), np.sort(a))
    np.testing.assert_array_equal(wavekit.cumsum(a), np.cumsum(a))
    # Sums past 32 bits (the reduce of the 64-bit carry monoid), each sign and unsigned.
    assert wavekit.sum(a) == np.sum(a)
    u = rng.integers(2**31, 2**32, 1_000_003, dtype=np.uint32)
    assert wavekit.sum(u) == np.sum(u) and np.sum(u) > 2**50
    assert wavekit.sum(-np.abs(a)) == np.sum(-np.abs(a))
    f = data(rng, 1_000_003, np.float32)
    assert wavekit.argsort(f).tobytes() == np.argsort(f, kind="stable").tobytes()


def test_device_describes_the_adapter():
    d = wavekit.device()
    assert isinstance(d["adapter"], str) and d["adapter"]
    assert d["max_buffer_size"] >= d["max_storage_buffer_binding_size"] > 0
    if d["subgroups"]:
        assert 1 <= d["subgroup_min_size"] <= d["subgroup_max_size"] <= 128
    # The device is chosen: choosing another now is refused, saying why.
    with pytest.raises(ValueError, match="once, before anything else"):
        wavekit.use(adapter="another")
