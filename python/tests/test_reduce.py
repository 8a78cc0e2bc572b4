"""clcg.reduce against numpy (long-double sums as the reference for sum/dot)."""
import numpy as np
import pytest

import clcg

SIZES = [0, 1, 255, 1000, 100_003]  # 100_003: not a multiple of any work-group size


def exact_sum(v):
    return float(np.sum(v.astype(np.longdouble)))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sums_and_dot(n, dtype):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    scale = np.sum(np.abs(x.astype(np.float64))) + 1
    # partials are finished in double on the host; float32 products are formed in float32
    tol = (1e-13 if dtype == np.float64 else 1e-6) * scale
    assert clcg.reduce(x, op="sum") == pytest.approx(exact_sum(x), abs=tol)
    assert clcg.reduce(x, op="sumsq") == pytest.approx(exact_sum(x.astype(np.longdouble) ** 2), rel=1e-6, abs=tol)
    assert clcg.reduce(x, y, op="dot") == pytest.approx(exact_sum(x.astype(np.longdouble) * y), abs=10 * tol)


@pytest.mark.parametrize("n", SIZES[1:])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_extrema(n, dtype):
    x = np.random.default_rng(n + 7).standard_normal(n).astype(dtype)
    assert clcg.reduce(x, op="min") == float(x.min())
    assert clcg.reduce(x, op="max") == float(x.max())
    assert clcg.reduce(x, op="argmin") == int(np.argmin(x))
    assert clcg.reduce(x, op="argmax") == int(np.argmax(x))


def test_ties_take_the_lowest_index_and_nan_propagates():
    x = np.array([3.0, 1.0, 5.0, 1.0, 5.0])
    assert clcg.reduce(x, op="argmin") == 1
    assert clcg.reduce(x, op="argmax") == 2
    assert np.isnan(clcg.reduce(np.array([1.0, np.nan, 2.0]), op="max"))


def test_strided_and_integer_inputs():
    x = np.arange(20, dtype=np.float64)[::3]
    assert clcg.reduce(x, op="sum") == float(x.sum())
    assert clcg.reduce(np.arange(10), op="sum") == 45.0
    assert clcg.reduce(np.arange(12.0).reshape(3, 4), op="max") == 11.0


@pytest.mark.parametrize("call,error,words", [
    (lambda: clcg.reduce(np.ones(3), op="mean"), ValueError, "op"),
    (lambda: clcg.reduce(np.ones(3), op="dot"), ValueError, "x and y"),
    (lambda: clcg.reduce(np.ones(3), np.ones(3), op="sum"), ValueError, "x and y"),
    (lambda: clcg.reduce(np.ones(3), np.ones(4), op="dot"), ValueError, "4"),
    (lambda: clcg.reduce(np.ones(3, dtype=complex)), TypeError, "complex"),
    (lambda: clcg.reduce(np.array(["a"])), TypeError, "dtype"),
    (lambda: clcg.reduce(np.zeros(0), op="argmax"), ValueError, "empty"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
