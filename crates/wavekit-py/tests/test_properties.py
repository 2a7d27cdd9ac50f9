"""Property tests (hypothesis) of the package's parsers of shapes, dtypes and arguments: for
any array numpy can make, each call either gives numpy's (or SciPy's) answer or raises
TypeError or ValueError with a message; nothing else escapes (no Rust panic, no other
exception). Small sizes: the point is the parsing, not the GPU."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wavekit
from wavekit import codec, dwt
from wavekit.spatial import KDTree

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

dtypes = st.one_of(
    hnp.integer_dtypes(endianness="="), hnp.unsigned_integer_dtypes(endianness="="),
    hnp.floating_dtypes(endianness="="), hnp.boolean_dtypes(), hnp.complex_number_dtypes(),
    st.just(np.dtype(">i4")), st.just(np.dtype(">f4")),
)
anything = dtypes.flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=6)))
# Half the examples of the element types and shapes the calls take, so that the answers are
# checked as well as the refusals.
usable = st.sampled_from([np.uint8, np.int16, np.int32, np.uint32, np.float32, np.float64]).flatmap(
    lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7),
                         elements=st.integers(0, 255).map(d) if np.dtype(d).kind in "iu"
                         else st.floats(-100, 100, width=32).map(d)))
arrays = st.one_of(anything, usable)


def refused_or(fn, check):
    try:
        out = fn()
    except (TypeError, ValueError, IndexError) as e:
        assert str(e), "a refusal says why"
        return
    check(out)


@SETTINGS
@given(arrays)
def test_array_functions_answer_as_numpy_or_refuse(a):
    ok = a.ndim == 1 and a.dtype.newbyteorder("=") in (np.dtype("u4"), np.dtype("i4"), np.dtype("f4"))
    with np.errstate(all="ignore"):
        def sorted_same(out):
            assert ok
            np.testing.assert_array_equal(out, np.sort(a))
        refused_or(lambda: wavekit.sort(a), sorted_same)
        if a.dtype.kind != "f":
            def cumsum_same(out):
                assert ok
                np.testing.assert_array_equal(out, np.cumsum(a))
            refused_or(lambda: wavekit.cumsum(a), cumsum_same)
        refused_or(lambda: wavekit.max(a), lambda out: None)
        refused_or(lambda: wavekit.histogram(a, bins=3), lambda out: None)


@SETTINGS
@given(arrays, st.integers(-2, 70), st.floats(allow_nan=True, allow_infinity=True))
def test_kdtree_answers_as_scipy_or_refuses(a, k, r):
    def check_tree(tree):
        assert a.ndim == 2 and 1 <= a.shape[1] <= 3
        q = np.zeros((2, a.shape[1]))
        refused_or(lambda: tree.query(q, k=k), lambda out: None)
        refused_or(lambda: tree.query_ball_point(q, r), lambda out: None)
    refused_or(lambda: KDTree(a), check_tree)


@SETTINGS
@given(arrays, st.sampled_from(["cdf97", "legall53", "bior4.4", "haar"]), st.integers(-1, 9))
def test_dwt_answers_or_refuses(a, wavelet, level):
    def round_trip(coeffs):
        back = dwt.waverec2(coeffs, wavelet)
        if wavelet == "legall53":
            np.testing.assert_array_equal(back, a)
    refused_or(lambda: dwt.wavedec2(a, wavelet, level=level), round_trip)


images = st.one_of(arrays, hnp.arrays(np.uint8, st.tuples(st.integers(1, 12), st.integers(1, 12),
                                                        st.just(3))))


@SETTINGS
@given(images, st.one_of(st.none(), st.floats(-1, 30)), st.sampled_from([None, "420", "444", "422"]))
def test_codec_answers_or_refuses(a, bpp, chroma):
    refused_or(lambda: codec.encode(a, bpp=bpp, chroma=chroma), lambda data: codec.decode(data))


@SETTINGS
@given(st.binary(max_size=200))
def test_decode_of_any_bytes_answers_or_refuses(b):
    refused_or(lambda: codec.decode(b, report=True), lambda out: None)
